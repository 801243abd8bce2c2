// `manifests` on the local control plane: what it prints is what a sync then applies — every object it lists (hooks
// aside) is live after the sync with the same tracking mark and namespace — in the order the sync sent them; at
// --revision it prints the older commit's objects; it changes nothing.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, runPlugin } from './support/index.js';

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
      expect(items.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(['ConfigMap/pre', 'ConfigMap/early', 'Service/web', 'ConfigMap/late']);
      // Nothing was applied by it.
      expect((await kubectl(['get', 'configmap', 'early', '-n', ns])).code).not.toBe(0);

      const yaml = await plugin(['manifests', 'shown']);
      expect(yaml.code).toBe(0);
      expect(yaml.stdout.split('\n').filter((l) => l === '---')).toHaveLength(3);

      expect((await plugin(['sync', 'shown', '-o', 'kv'])).code).toBe(0);
      for (const o of items.filter((x) => x.metadata.name !== 'pre')) {
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
});
