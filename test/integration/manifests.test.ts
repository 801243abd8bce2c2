// `manifests` on the local control plane: what it prints is what a sync then applies — every object it lists (hooks
// aside) is live after the sync with the same tracking mark and namespace — in the order the sync sent them; at
// --revision it prints the older commit's objects; it changes nothing. --offline prints the same with no cluster, and its
// table of Kubernetes' own kinds is checked against the API server.
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
});
