// The AppProject's orphanedResources on the local control plane, as Argo CD's controller lists them: the objects of
// the destination namespace no existing Application tracks (a ConfigMap made by hand, one marked by an app that no
// longer exists, a Deployment made by kubectl with its ReplicaSet and Pods), without Argo CD's built-in exclusions, the
// project's ignore globs, this app's objects and another existing app's; with warn: true the Application's status
// records OrphanedResourceWarning "Application has N orphaned resources".
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from './support/index.js';

const T = 180_000;
const TID = 'argocd.argoproj.io/tracking-id';

describe('orphanedResources', () => {
  let fx: GitFixture;
  let cp: string;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: declared}\ndata: {a: "1"}\n');
    fx.commit('v1');
    cp = await createTestNamespace('orph-cp');
    ns = await createTestNamespace('orph');
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    for (const n of [ns, cp]) if (n) await deleteNamespace(n);
  }, T);

  test(
    "status lists what no existing app tracks, with what is under it; warn: true records Argo CD's condition",
    async () => {
      await applyYaml(`apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: orph, namespace: ${cp}}
spec:
  sourceRepos: ['*']
  destinations: [{server: '*', namespace: '*'}]
  clusterResourceWhitelist: [{group: '*', kind: '*'}]
  orphanedResources:
    warn: true
    ignore: [{kind: ConfigMap, name: 'cache-*'}]
`);
      const app = (name: string) =>
        applicationYaml({
          name,
          namespace: cp,
          spec: { project: 'orph', source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) },
        });
      await applyYaml(app('keeper'));
      // Another Application that exists: what its mark names is tracked, not orphaned.
      await applyYaml(app('neighbour'));
      const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', cp, '--argocd-namespace', cp]);
      const synced = await plugin(['sync', 'keeper', '-o', 'kv']);
      expect(synced.code).toBe(0);

      await kubectlOk(['create', 'configmap', 'by-hand', '-n', ns, '--from-literal=k=v']);
      await kubectlOk(['create', 'configmap', 'cache-1', '-n', ns, '--from-literal=k=v']);
      await applyYaml(
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: theirs, namespace: ${ns}, annotations: {${TID}: "neighbour:/ConfigMap:${ns}/theirs"}}\n`,
      );
      await applyYaml(
        `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ghost-cm, namespace: ${ns}, annotations: {${TID}: "ghost:/ConfigMap:${ns}/ghost-cm"}}\n`,
      );
      await kubectlOk(['create', 'deployment', 'manual', '-n', ns, '--image=registry.local/manual:1']);
      await kubectlOk(['rollout', 'status', 'deployment/manual', '-n', ns, '--timeout=60s']);

      const res = await plugin(['status', 'keeper', '-o', 'kv']);
      expect(res.code).toBe(0);
      const orphaned = kvValues(res.stdout).ORPHANED ?? [];
      const named = orphaned.filter((o) => !/^(ReplicaSet|Pod)\//.test(o));
      expect(named.sort()).toEqual(['ConfigMap/by-hand', 'ConfigMap/ghost-cm', 'Deployment/manual']);
      // The objects under the Deployment count too, as Argo CD counts its hierarchy.
      expect(orphaned.filter((o) => o.startsWith('ReplicaSet/manual-'))).toHaveLength(1);
      expect(orphaned.filter((o) => o.startsWith('Pod/manual-'))).toHaveLength(1);
      expect(res.stderr).toContain(`warning: Application has ${orphaned.length} orphaned resources (OrphanedResourceWarning)`);

      const stored = JSON.parse(await kubectlOk(['get', 'application', 'keeper', '-n', cp, '-o', 'json'])) as {
        status: { conditions?: { type: string; message: string }[] };
      };
      expect(stored.status.conditions?.filter((c) => c.type === 'OrphanedResourceWarning').map((c) => c.message)).toEqual([
        `Application has ${orphaned.length} orphaned resources`,
      ]);
    },
    T,
  );
});
