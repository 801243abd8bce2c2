// `manifests` on the local control plane: what it prints is what a sync then applies (a directory, a Helm chart, a
// Kustomize overlay, an app of two sources) — every object it lists (hooks aside) is live after the sync with the same
// tracking mark and namespace, field for field — in the order the sync sent them; at --revision it prints the older
// commit's objects; it changes nothing. --offline prints the same with no cluster, and its table of Kubernetes' own
// kinds is checked against the API server.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { BUILTIN_TYPES } from '../../src/kube/builtin-types.js';
import { applyYaml, childEnv, createTestNamespace, deleteNamespace, kubectl, kubectlOk, pluginPath, run, runPlugin } from './support/index.js';

const T = 180_000;
const TID = 'argocd.argoproj.io/tracking-id';

interface Obj {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

describe('manifests', () => {
  let fx: GitFixture;
  let ns: string;
  let first: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/a.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late, annotations: {argocd.argoproj.io/sync-wave: "1"}}\ndata: {v: "1"}\n');
    fx.write('app/b.yaml', 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n');
    fx.write('app/c.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: early}\ndata: {v: "1"}\n');
    fx.write('app/pre.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: pre, annotations: {argocd.argoproj.io/hook: PreSync}}\ndata: {v: "1"}\n');
    // A hook no sync runs: Argo CD's repo-server renders it, so `argocd app manifests` lists it (last here).
    fx.write('app/skip.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: skipped, annotations: {argocd.argoproj.io/hook: Skip}}\ndata: {v: "1"}\n');
    first = fx.commit('v1');
    fx.write('app/c.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: early}\ndata: {v: "2"}\n');
    fx.commit('v2');
    ns = await createTestNamespace('manifests');
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  test(
    'prints what the sync then applies, marked and namespaced, in sync order; --revision reads the older commit; nothing changes',
    async () => {
      await applyYaml(
        applicationYaml({
          name: 'shown',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
      const res = await plugin(['manifests', 'shown', '-o', 'json']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const items = (JSON.parse(res.stdout) as { kind: string; items: Obj[] }).items;
      expect(items.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
        'ConfigMap/pre',
        'ConfigMap/early',
        'Service/web',
        'ConfigMap/late',
        'ConfigMap/skipped',
      ]);
      expect(items.at(-1)!.metadata).toMatchObject({ namespace: ns, annotations: { [TID]: `${ns}_shown:/ConfigMap:${ns}/skipped` } });
      // Nothing was applied by it.
      expect((await kubectl(['get', 'configmap', 'early', '-n', ns])).code).not.toBe(0);

      const yaml = await plugin(['manifests', 'shown']);
      expect(yaml.code).toBe(0);
      expect(yaml.stdout.split('\n').filter((l) => l === '---')).toHaveLength(4);

      expect((await plugin(['sync', 'shown', '-o', 'kv'])).code).toBe(0);
      // The Skip hook is listed, never applied.
      expect((await kubectl(['get', 'configmap', 'skipped', '-n', ns])).code).not.toBe(0);
      for (const o of items.filter((x) => x.metadata.name !== 'pre' && x.metadata.name !== 'skipped')) {
        const live = JSON.parse(await kubectlOk(['get', o.kind.toLowerCase(), o.metadata.name, '-n', ns, '-o', 'json'])) as Obj;
        expect({ name: o.metadata.name, namespace: live.metadata.namespace, mark: live.metadata.annotations?.[TID] }).toEqual({
          name: o.metadata.name,
          namespace: o.metadata.namespace,
          mark: o.metadata.annotations?.[TID],
        });
      }
      expect(items.find((o) => o.metadata.name === 'early')?.data).toEqual({ v: '2' });
      const old = await plugin(['manifests', 'shown', '--revision', first, '-o', 'json']);
      expect(old.code).toBe(0);
      expect((JSON.parse(old.stdout) as { items: Obj[] }).items.find((o) => o.metadata.name === 'early')?.data).toEqual({ v: '1' });
    },
    T,
  );

  test(
    '--offline, with no cluster at all, prints what the cluster-reading run prints for the same Application file; a kind no table has is said',
    async () => {
      const file = join(tempDir('kgitops-offline'), 'app.yaml');
      writeFileSync(
        file,
        applicationYaml({
          name: 'shown',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      const online = await runPlugin(['manifests', '-f', file, '-o', 'json']);
      expect([online.code, online.stderr]).toEqual([0, '']);
      // No kubeconfig to read and none given: the offline run needs none.
      const offline = await run(pluginPath, ['manifests', '-f', file, '--offline', '-o', 'json'], {
        env: { ...childEnv(), KUBECONFIG: '/nonexistent/kubeconfig' },
      });
      expect(offline.code).toBe(0);
      expect(offline.stdout).toBe(online.stdout);
      expect(offline.stderr).toBe(
        "warning: offline: Helm charts are rendered with Helm's default Kubernetes version and Helm's default API versions, not a cluster's (give --kube-version and --api-versions to match one)\n",
      );
      const noFile = await run(pluginPath, ['manifests', 'shown', '--offline'], { env: { ...childEnv(), KUBECONFIG: '/nonexistent/kubeconfig' } });
      expect([noFile.code, noFile.stderr]).toEqual([2, 'error: --offline reads the Application from -f/--app-file: there is no cluster to read it from\n']);
    },
    T,
  );

  test("the offline table of Kubernetes' own kinds is what the local control plane's API server serves on its own", async () => {
    const served = (await kubectlOk(['api-resources', '--no-headers']))
      .trim()
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .map((f) => (f.length === 5 ? [f[2], f[4], f[0], f[3] === 'true'] : [f[1], f[3], f[0], f[2] === 'true']))
      // Custom resources: Argo CD's and kwok's, and the ones other suites make.
      .filter(([apiVersion]) => !/^(argoproj\.io|kwok\.x-k8s\.io)\/|\.test\/|example\./.test(String(apiVersion)));
    expect([...BUILTIN_TYPES].map((t) => [...t]).sort()).toEqual(served.sort());
  });

  test(
    'a Helm chart, a Kustomize overlay and a multi-source app: every object manifests prints is live after the sync, field for field, and nothing else was applied',
    async () => {
      fx.write('chart/Chart.yaml', 'apiVersion: v2\nname: shop\nversion: 0.1.0\n');
      fx.write('chart/values.yaml', 'greeting: hello\nport: 8080\n');
      fx.write(
        'chart/templates/all.yaml',
        [
          'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "{{ .Release.Name }}-settings", labels: {chart: "{{ .Chart.Name }}"}}\ndata: {greeting: "{{ .Values.greeting }}"}',
          'apiVersion: v1\nkind: Service\nmetadata: {name: "{{ .Release.Name }}-web"}\nspec: {ports: [{port: {{ .Values.port }}}]}',
        ].join('\n---\n') + '\n',
      );
      fx.write('kbase/kustomization.yaml', 'resources: [cm.yaml]\n');
      fx.write('kbase/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: base}\n');
      fx.write(
        'koverlay/kustomization.yaml',
        'resources: [../kbase]\nnamePrefix: prod-\ncommonLabels: {tier: prod}\npatches:\n  - patch: |-\n      apiVersion: v1\n      kind: ConfigMap\n      metadata: {name: settings}\n      data: {mode: overlay}\n',
      );
      fx.write('left/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: left}\ndata: {side: left}\n');
      fx.write('right/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: right}\ndata: {side: right}\n');
      fx.commit('helm, kustomize, two sources');
      const source = (path: string, extra: object = {}) => ({ repoURL: fx.repo, path, targetRevision: 'main', ...extra });
      await applyYaml(
        [
          applicationYaml({
            name: 'helm-app',
            namespace: ns,
            spec: { source: source('chart', { helm: { parameters: [{ name: 'greeting', value: 'hi' }] } }), destination: inCluster(ns) },
          }),
          applicationYaml({ name: 'kust-app', namespace: ns, spec: { source: source('koverlay'), destination: inCluster(ns) } }),
          applicationYaml({ name: 'two-app', namespace: ns, spec: { sources: [source('left'), source('right')], destination: inCluster(ns) } }),
        ].join('---\n'),
      );
      /** Every leaf of `want` is in `got` (what the API server adds, such as defaults, is left aside). */
      const within = (want: unknown, got: unknown, at: string): string[] => {
        if (want !== null && typeof want === 'object') {
          if (got === null || typeof got !== 'object') return [`${at}: ${JSON.stringify(got)}`];
          if (Array.isArray(want) !== Array.isArray(got) || (Array.isArray(want) && want.length !== (got as unknown[]).length))
            return [`${at}: ${JSON.stringify(got)}`];
          return Object.entries(want).flatMap(([k, v]) => within(v, (got as Record<string, unknown>)[k], `${at}.${k}`));
        }
        return want === got ? [] : [`${at}: ${JSON.stringify(want)} != ${JSON.stringify(got)}`];
      };
      const expected: Record<string, string[]> = {
        'helm-app': ['ConfigMap/helm-app-settings', 'Service/helm-app-web'],
        'kust-app': ['ConfigMap/prod-settings'],
        'two-app': ['ConfigMap/left', 'ConfigMap/right'],
      };
      for (const app of Object.keys(expected)) {
        const shown = await runPlugin(['manifests', app, '--app-namespace', ns, '-o', 'json']);
        expect([app, shown.code, shown.stderr]).toEqual([app, 0, '']);
        const items = (JSON.parse(shown.stdout) as { items: (Obj & { apiVersion: string })[] }).items;
        expect(items.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(expected[app]);
        const synced = await runPlugin(['sync', app, '--app-namespace', ns, '-o', 'json']);
        expect([app, synced.code]).toEqual([app, 0]);
        // The sync applied exactly these objects, and each is live with every field manifests printed.
        const steps = (JSON.parse(synced.stdout) as { steps: { kind: string; name: string; outcome: string }[] }).steps;
        expect(
          steps
            .filter((x) => x.outcome === 'applied')
            .map((x) => `${x.kind}/${x.name}`)
            .sort(),
        ).toEqual(expected[app]);
        for (const o of items) {
          const live = JSON.parse(await kubectlOk(['get', `${o.kind.toLowerCase()}/${o.metadata.name}`, '-n', ns, '-o', 'json']));
          expect([app, o.metadata.name, within(o, live, '')]).toEqual([app, o.metadata.name, []]);
        }
      }
      const shownHelm = JSON.parse((await runPlugin(['manifests', 'helm-app', '--app-namespace', ns, '-o', 'json'])).stdout) as { items: Obj[] };
      expect(shownHelm.items.find((o) => o.kind === 'ConfigMap')?.data).toEqual({ greeting: 'hi' });
    },
    T,
  );
});
