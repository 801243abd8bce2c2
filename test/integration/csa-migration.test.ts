// Client-side apply migration on the local control plane, as Argo CD v3's server-side sync does it: an object
// `kubectl apply` made (client-side: an Update entry that owns last-applied-configuration) is taken over by a sync;
// the client-side manager's fields become the sync's, so when Git then drops an env var, diff says so and the next
// sync removes it, instead of the old Update entry keeping it live for ever. Argo CD's ClientSideApplyMigration also
// takes the kubectl-client-side-apply manager's fields where it does not own the annotation; =false opts out of that.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, getJson, kubectlOk, runPlugin } from './support/index.js';
import type { KubeObject } from '../../src/model/object.js';

const T = 150_000;

const deployment = (name: string, env: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
        - name: web
          image: registry.local/web:1
${env ? '          env: [{name: DEBUG, value: "1"}]\n' : ''}`;

describe('client-side apply migration: a sync takes over what kubectl apply managed', () => {
  let ns: string;
  let root: string;

  beforeAll(async () => {
    ns = await createTestNamespace('csa-migration');
    root = tempDir('csa-migration');
  }, T);
  afterAll(async () => {
    if (ns) await deleteNamespace(ns);
  }, T);

  function app(name: string, env: boolean, syncOptions: string[] = []): { file: string; desired: string } {
    const desired = join(root, name, env ? 'with-env' : 'without-env');
    mkdirSync(desired, { recursive: true });
    writeFileSync(join(desired, 'web.yaml'), deployment(name, env));
    const file = join(root, name, 'app.yaml');
    writeFileSync(file, applicationYaml({ name, spec: { destination: inCluster(ns), ...(syncOptions.length ? { syncPolicy: { syncOptions } } : {}) } }));
    return { file, desired };
  }

  const managers = async (name: string) =>
    ((await getJson<KubeObject>('deployment', name, ns)).metadata.managedFields ?? [])
      .filter((m) => (m.subresource ?? '') === '')
      .map((m) => `${m.manager} ${m.operation}`)
      .sort();
  const envOf = async (name: string) =>
    (
      (await getJson<KubeObject & { spec: { template: { spec: { containers: { env?: { name: string }[] }[] } } } }>('deployment', name, ns)).spec.template.spec
        .containers[0]?.env ?? []
    ).map((e) => e.name);

  test(
    "the kubectl-client-side-apply entry is merged into argocd-controller's Apply entry; an env var Git drops is then OutOfSync and removed",
    async () => {
      await applyYaml(deployment('web', true), { namespace: ns });
      expect(await managers('web')).toEqual(['kubectl-client-side-apply Update']);
      const withEnv = app('web', true);
      const synced = await runPlugin(['sync', '-f', withEnv.file, '--desired', withEnv.desired, '-o', 'kv']);
      expect(synced.stderr).toBe('');
      expect(synced.code).toBe(0);
      expect(await managers('web')).toEqual(['argocd-controller Apply']);

      const withoutEnv = app('web', false);
      const diff = await runPlugin(['diff', '-f', withoutEnv.file, '--desired', withoutEnv.desired, '-o', 'kv']);
      expect(diff.code).toBe(1);
      expect((await runPlugin(['sync', '-f', withoutEnv.file, '--desired', withoutEnv.desired, '-o', 'kv'])).code).toBe(0);
      expect(await envOf('web')).toEqual([]);
      expect((await runPlugin(['diff', '-f', withoutEnv.file, '--desired', withoutEnv.desired, '-o', 'kv'])).code).toBe(0);
    },
    T,
  );

  test(
    "Argo CD's migration manager (kubectl-client-side-apply) without last-applied-configuration: its fields are taken, and dropped by the next sync; ClientSideApplyMigration=false leaves them",
    async () => {
      const label = async (name: string) => (await getJson<KubeObject>('deployment', name, ns)).metadata.labels?.['added-by'];
      for (const [name, options] of [
        ['taken', []],
        ['kept', ['ClientSideApplyMigration=false']],
      ] as const) {
        const a = app(name, false, [...options]);
        const sync = () => runPlugin(['sync', '-f', a.file, '--desired', a.desired, '-o', 'kv']);
        expect((await sync()).code).toBe(0);
        await kubectlOk([
          'patch',
          'deployment',
          name,
          '-n',
          ns,
          '--type=merge',
          '--field-manager=kubectl-client-side-apply',
          '-p',
          '{"metadata":{"labels":{"added-by":"hand"}}}',
        ]);
        expect(await managers(name)).toEqual(['argocd-controller Apply', 'kubectl-client-side-apply Update']);
        expect((await sync()).code).toBe(0);
        if (name === 'taken') {
          expect(await managers(name)).toEqual(['argocd-controller Apply']);
          expect((await sync()).code).toBe(0);
          expect(await label(name)).toBeUndefined();
        } else {
          expect(await managers(name)).toEqual(['argocd-controller Apply', 'kubectl-client-side-apply Update']);
          expect((await sync()).code).toBe(0);
          expect(await label(name)).toBe('hand');
        }
      }
    },
    T,
  );
});
