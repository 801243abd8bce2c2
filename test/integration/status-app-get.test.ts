// `status` as the stand-in for `argocd app get` on the local control plane: once the source stops rendering (a YAML
// error in Git), status still shows the live objects with the app's mark and their health, Sync Unknown with the
// error naming the file, the last operation (phase, revision, when) and the stored conditions, and exits 2 after
// printing; -o kv has REVISION=, PHASE= and one RESOURCE= line per object.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kvValues, runPlugin } from './support/index.js';

const T = 180_000;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: registry.local/web:1}]}
`;

describe('status when the source stops rendering', () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/web.yaml', deployment);
    fx.write('app/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "1"}\n');
    fx.commit('v1');
    ns = await createTestNamespace('app-get');
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  test(
    'live objects and their health, Sync Unknown with the file named, the last operation and REVISION=; exit 2 after printing',
    async () => {
      await applyYaml(
        applicationYaml({
          name: 'get',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
      expect((await plugin(['sync', 'get', '-o', 'kv'])).code).toBe(0);
      const healthy = await plugin(['status', 'get', '--wait', '--timeout', '90s', '-o', 'kv']);
      expect(healthy.code).toBe(0);
      const good = kvValues(healthy.stdout);
      const synced = good.REVISION?.[0];
      expect(synced).toMatch(/^[0-9a-f]{40}$/);
      expect(good.PHASE).toEqual(['Succeeded']);
      expect(good.OPERATION_REVISION).toEqual([synced]);
      expect(good.RESOURCE?.sort()).toEqual(['ConfigMap/settings Synced -', 'Deployment/web Synced Healthy']);

      fx.write('app/broken.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken\ndata: {a: "1"}\n');
      fx.commit('a YAML error');
      const broken = await plugin(['status', 'get', '--no-record', '-o', 'kv']);
      expect(broken.code).toBe(2);
      const kv = kvValues(broken.stdout);
      expect([kv.SYNC, kv.HEALTH]).toEqual([['Unknown'], ['Healthy']]);
      expect(kv.REASON?.[0]).toMatch(/broken\.yaml/);
      expect(kv.RESOURCE?.sort()).toEqual(['ConfigMap/settings Unknown -', 'Deployment/web Unknown Healthy']);
      // The last operation is still the sync of the first commit; nothing of the broken one was compared.
      expect([kv.PHASE, kv.OPERATION_REVISION, kv.REVISION]).toEqual([['Succeeded'], [synced], undefined]);

      const table = await plugin(['status', 'get', '--no-record']);
      expect(table.code).toBe(2);
      expect(table.stdout).toMatch(new RegExp(`Last Sync: +Succeeded at \\S+, revision ${synced!.slice(0, 12)}`));
      expect(table.stdout).toMatch(/apps +Deployment +\S+ +web +Unknown +Healthy/);
    },
    T,
  );
});
