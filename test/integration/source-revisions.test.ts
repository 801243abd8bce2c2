// --revisions with --source-positions / --source-names on the local control plane: a two-source Application diffed,
// rendered (manifests) and synced at a branch for its second source only (the first stays at its targetRevision), the operation recording
// both revisions; --revision alone is still refused for spec.sources.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from './support/index.js';

const T = 180_000;

const cm = (name: string, v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {v: "${v}"}\n`;

describe('--revisions for some of spec.sources', () => {
  let fx: GitFixture;
  let ns: string;
  let mainSha: string;
  let featureSha: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('first/cm.yaml', cm('first', 'main'));
    fx.write('second/cm.yaml', cm('second', 'main'));
    mainSha = fx.commit('main');
    fx.git(['checkout', '-q', '-b', 'feature']);
    fx.write('first/cm.yaml', cm('first', 'feature'));
    fx.write('second/cm.yaml', cm('second', 'feature'));
    featureSha = fx.commit('feature');
    fx.git(['checkout', '-q', 'main']);
    ns = await createTestNamespace('src-revs');
    await applyYaml(
      applicationYaml({
        name: 'two',
        namespace: ns,
        spec: {
          sources: [
            { repoURL: fx.repo, path: 'first', targetRevision: 'main', name: 'base' },
            { repoURL: fx.repo, path: 'second', targetRevision: 'main', name: 'overlay' },
          ],
          destination: inCluster(ns),
        },
      }),
    );
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  test(
    'diff and sync at a branch for the second source only; the first stays at main; recorded per source',
    async () => {
      const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
      expect((await plugin(['sync', 'two', '-o', 'kv'])).code).toBe(0);
      const value = async (name: string) => (JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'json'])) as { data: { v: string } }).data.v;

      const diff = await plugin(['diff', 'two', '--revisions', 'feature', '--source-positions', '2', '-o', 'json']);
      expect(diff.code).toBe(1);
      const report = JSON.parse(diff.stdout) as { objects: { key: { name: string }; status: string }[] };
      expect(report.objects.map((o) => `${o.key.name} ${o.status}`).sort()).toEqual(['first in-sync', 'second drifted']);

      // manifests renders what that sync would send: the first source at main, the second at the branch.
      const manifests = await plugin(['manifests', 'two', '--revisions', 'feature', '--source-positions', '2', '-o', 'json']);
      expect(manifests.code).toBe(0);
      const items = (JSON.parse(manifests.stdout) as { items: { metadata: { name: string }; data: { v: string } }[] }).items;
      expect(items.map((o) => `${o.metadata.name} ${o.data.v}`).sort()).toEqual(['first main', 'second feature']);
      // --source-position: one source's objects only.
      const second = await plugin(['manifests', 'two', '--source-position', '2', '--revisions', 'feature', '--source-positions', '2', '-o', 'json']);
      expect((JSON.parse(second.stdout) as { items: { metadata: { name: string } }[] }).items.map((o) => o.metadata.name)).toEqual(['second']);
      const third = await plugin(['manifests', 'two', '--source-position', '3']);
      expect([third.code, third.stderr]).toEqual([2, 'error: --source-position 3: two has 2 sources (positions count from 1)\n']);

      const synced = await plugin(['sync', 'two', '--revisions', 'feature', '--source-names', 'overlay', '-o', 'json']);
      expect(synced.code).toBe(0);
      expect(JSON.parse(synced.stdout) as { revisions: string[]; phase: string }).toMatchObject({ phase: 'Succeeded', revisions: [mainSha, featureSha] });
      expect([await value('first'), await value('second')]).toEqual(['main', 'feature']);
      const op = (
        JSON.parse(await kubectlOk(['get', 'application', 'two', '-n', ns, '-o', 'json'])) as {
          status: { operationState: { syncResult: { revisions: string[] } } };
        }
      ).status.operationState;
      expect(op.syncResult.revisions).toEqual([mainSha, featureSha]);

      const refused = await plugin(['sync', 'two', '--revision', 'feature', '-o', 'kv']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/--revision names one revision, and two has 2 sources/);
      const mismatch = await plugin(['diff', 'two', '--revisions', 'feature', '--source-positions', '3', '-o', 'kv']);
      expect(mismatch.code).toBe(2);
      expect(mismatch.stderr).toMatch(/--source-positions 3: two has 2 sources/);
      expect(kvValues(mismatch.stdout).SYNC).toBeUndefined();
    },
    T,
  );
});
