// argocd-cm's kustomize settings, as Argo CD's repo-server reads them, end to end with the kustomize and helm built
// by test/cluster/build: `kustomize.buildOptions: --enable-helm` renders a kustomization's helmCharts (without it,
// kustomize refuses and the command exits 2 naming the source), and spec.source.kustomize.version picks argocd-cm's
// `kustomize.path.<version>` binary (an unregistered version is Argo CD's error, exit 2).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { clusterBin, createTestNamespace, deleteNamespace, runPlugin } from './support/index.js';

const T = 150_000;

describe("argocd-cm's kustomize.buildOptions and kustomize.path.<version>", () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('with-helm/kustomization.yaml', 'helmGlobals: {chartHome: charts}\nhelmCharts:\n  - {name: web, releaseName: shop}\n');
    fx.write('with-helm/charts/web/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 0.1.0\n');
    fx.write('with-helm/charts/web/values.yaml', 'color: red\n');
    fx.write('with-helm/charts/web/templates/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-config"}\ndata: {k: v}\n');
    fx.write('plain/kustomization.yaml', 'resources: [cm.yaml]\n');
    fx.write('plain/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {k: v}\n');
    fx.commit('kustomize apps');
    ns = await createTestNamespace('kustomize-settings');
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  const file = (name: string, path: string, kustomize?: Record<string, unknown>) => {
    const f = join(fx.root, `${name}.yaml`);
    writeFileSync(
      f,
      applicationYaml({
        name,
        spec: { source: { repoURL: fx.repo, path, targetRevision: 'main', ...(kustomize ? { kustomize } : {}) }, destination: inCluster(ns) },
      }),
    );
    return f;
  };
  const cm = (data: Record<string, string>) => {
    const f = join(fx.root, `argocd-cm-${Object.keys(data).join('-')}.yaml`);
    writeFileSync(f, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata: ${JSON.stringify(data)}\n`);
    return f;
  };
  const names = (stdout: string) =>
    (JSON.parse(stdout) as { objects: { key: { kind: string; name: string } }[] }).objects.map((o) => `${o.key.kind}/${o.key.name}`);

  test(
    'kustomize.buildOptions --enable-helm renders helmCharts; without it kustomize refuses, exit 2 naming the source',
    async () => {
      const app = file('with-helm', 'with-helm');
      const rendered = await runPlugin(['diff', '-f', app, '--argocd-cm', cm({ 'kustomize.buildOptions': '--enable-helm' }), '-o', 'json']);
      expect(rendered.stderr).toBe('');
      expect(rendered.code).toBe(1);
      expect(names(rendered.stdout)).toEqual(['ConfigMap/shop-config']);
      const refused = await runPlugin(['diff', '-f', app, '--argocd-cm', cm({ installationID: '' }), '-o', 'json']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/kustomize build failed for .*with-helm/);
      // the flag wins over argocd-cm
      const flag = await runPlugin(['diff', '-f', app, '--argocd-cm', cm({ installationID: '' }), '--kustomize-build-options=--enable-helm', '-o', 'json']);
      expect(flag.code).toBe(1);
    },
    T,
  );

  test(
    "spec.source.kustomize.version uses argocd-cm's kustomize.path.<version>; an unregistered version is exit 2",
    async () => {
      const app = file('named', 'plain', { version: 'v5.8.1' });
      const registered = await runPlugin(['diff', '-f', app, '--argocd-cm', cm({ 'kustomize.path.v5.8.1': join(clusterBin(), 'kustomize') }), '-o', 'json']);
      expect(registered.stderr).toBe('');
      expect(registered.code).toBe(1);
      expect(names(registered.stdout)).toEqual(['ConfigMap/plain']);
      const unregistered = await runPlugin(['diff', '-f', app, '--argocd-cm', cm({ 'kustomize.path.v4': join(clusterBin(), 'kustomize') }), '-o', 'json']);
      expect(unregistered.code).toBe(2);
      expect(unregistered.stderr).toContain('kustomize version v5.8.1 is not registered (argocd-cm kustomize.path.v5.8.1)');
      // Argo CD fails that render whatever binary it has: --kustomize does not stand in for an unregistered version.
      const named = await runPlugin([
        'diff',
        '-f',
        app,
        '--argocd-cm',
        cm({ 'kustomize.path.v4': join(clusterBin(), 'kustomize') }),
        '--kustomize',
        join(clusterBin(), 'kustomize'),
        '-o',
        'json',
      ]);
      expect(named.code).toBe(2);
      expect(named.stderr).toContain('kustomize version v5.8.1 is not registered (argocd-cm kustomize.path.v5.8.1)');
    },
    T,
  );
});
