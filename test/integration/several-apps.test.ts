// Several Applications by name on the local control plane, as argocd app sync takes several: `diff A B` and
// `status A B` run each as if named alone, print one document (kv blocks opened by APP=, one JSON with an item per
// app), one summary, and exit with the highest code; an app that does not exist does not stop the others.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from './support/index.js';

const T = 180_000;

describe('several Applications by name', () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    for (const a of ['one', 'two']) fx.write(`${a}/cm.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${a}-cm}\ndata: {v: "1"}\n`);
    fx.commit('v1');
    ns = await createTestNamespace('several');
    for (const a of ['one', 'two'])
      await applyYaml(
        applicationYaml({ name: a, namespace: ns, spec: { source: { repoURL: fx.repo, path: a, targetRevision: 'main' }, destination: inCluster(ns) } }),
      );
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  test(
    'diff and status of two apps, one drifted, and of one that does not exist: one document, one summary, the highest exit code',
    async () => {
      const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
      for (const a of ['one', 'two']) expect((await plugin(['sync', a, '-o', 'kv'])).code).toBe(0);
      await kubectlOk(['patch', 'configmap', 'two-cm', '-n', ns, '--type', 'merge', '-p', '{"data":{"v":"by hand"}}']);

      const diff = await plugin(['diff', 'one', 'two', '-o', 'kv']);
      expect(diff.code).toBe(1);
      const blocks = diff.stdout.split(/^APP=/m).filter((b) => b !== '');
      expect(blocks.map((b) => b.split('\n')[0])).toEqual(['one', 'two']);
      expect(kvValues(blocks[0]!).SYNC).toEqual(['Synced']);
      expect(kvValues(blocks[1]!).SYNC).toEqual(['OutOfSync']);
      expect(kvValues(diff.stdout).SUMMARY).toEqual(['one 0', 'two 1']);

      const status = await plugin(['status', 'one', 'nowhere', 'two', '-o', 'json', '--no-record']);
      const doc = JSON.parse(status.stdout) as { items: { app: string; exitCode: number; error?: string; report?: { sync: { status: string } } }[] };
      expect(doc.items.map((i) => [i.app, i.exitCode, i.report?.sync.status ?? 'error'])).toEqual([
        ['one', 0, 'Synced'],
        ['nowhere', status.code, 'error'],
        ['two', 0, 'OutOfSync'],
      ]);
      expect(status.code).toBeGreaterThan(1);
      expect(doc.items[1]?.error).toMatch(/nowhere/);
      expect(status.stderr).toMatch(new RegExp(`status: 3 Applications: one exit 0, nowhere exit ${status.code}, two exit 0`));
    },
    T,
  );

  test(
    'sync A B syncs each in turn: one summary, the highest exit code',
    async () => {
      const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
      await kubectlOk(['patch', 'configmap', 'one-cm', '-n', ns, '--type', 'merge', '-p', '{"data":{"v":"drift"}}']);
      await kubectlOk(['patch', 'configmap', 'two-cm', '-n', ns, '--type', 'merge', '-p', '{"data":{"v":"drift"}}']);
      const res = await plugin(['sync', 'one', 'two', '-o', 'kv']);
      expect(res.code).toBe(0);
      expect(kvValues(res.stdout).SUMMARY).toEqual(['one 0', 'two 0']);
      expect(kvValues(res.stdout).APP).toEqual(['one', 'two']);
      for (const a of ['one', 'two'])
        expect((JSON.parse(await kubectlOk(['get', 'configmap', `${a}-cm`, '-n', ns, '-o', 'json'])) as { data: Record<string, string> }).data).toEqual({
          v: '1',
        });
    },
    T,
  );
});
