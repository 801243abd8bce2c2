// Argo CD's Source Hydrator on the local control plane: an Application with spec.sourceHydrator is compared and synced
// from its hydrated branch and path (syncSource), as Argo CD's GetSource reads it, never from its dry source (which
// Argo CD's commit server hydrates; this tool does not), and `status` names the dry commit the hydrated manifests came
// from (the `hydrator.metadata` the commit server writes beside them).
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin } from './support/index.js';

const T = 180_000;

describe('spec.sourceHydrator', () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    ns = await createTestNamespace('hydrator');
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  test(
    'syncs the hydrated manifests of syncSource.targetBranch/path; status shows the hydrated commit and the dry one',
    async () => {
      fx = new GitFixture();
      // The dry source: what a person writes (never rendered here).
      fx.write('app/dry.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-dry-source}\ndata: {v: dry}\n');
      const drySha = fx.commit('dry');
      // The hydrated branch, as Argo CD's commit server writes it: manifest.yaml, hydrator.metadata and a README.
      fx.git(['checkout', '-q', '-b', 'environments/dev']);
      fx.remove('app/dry.yaml');
      fx.write('dev/manifest.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hydrated}\ndata: {v: hydrated}\n');
      fx.write('dev/hydrator.metadata', JSON.stringify({ repoURL: fx.repo, drySha }, null, 2));
      fx.write('dev/README.md', '# Manifest Hydration\n');
      const hydratedSha = fx.commit('hydrate');
      fx.git(['checkout', '-q', 'main']);
      await applyYaml(
        applicationYaml({
          name: 'hydrated',
          namespace: ns,
          spec: {
            sourceHydrator: {
              drySource: { repoURL: fx.repo, path: 'app', targetRevision: 'main' },
              syncSource: { targetBranch: 'environments/dev', path: 'dev' },
            },
            destination: inCluster(ns),
          },
        }),
      );
      const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
      const synced = await plugin(['sync', 'hydrated', '-o', 'kv']);
      expect({ code: synced.code, out: synced.stdout, err: synced.stderr }).toEqual({
        code: 0,
        out: `APPLIED=1\nPHASE=Succeeded\nREVISION=${hydratedSha}\n`,
        err: '',
      });
      expect(JSON.parse(await kubectlOk(['get', 'configmap', 'hydrated', '-n', ns, '-o', 'json'])).data).toEqual({ v: 'hydrated' });
      // Nothing of the dry source was applied, and the app is in sync with its hydrated manifests.
      expect((await kubectl(['get', 'configmap', 'from-dry-source', '-n', ns])).code).not.toBe(0);
      expect((await plugin(['diff', 'hydrated', '-o', 'kv'])).stdout).toBe('SYNC=Synced\n');
      const status = await plugin(['status', 'hydrated', '-o', 'kv']);
      const kv = kvValues(status.stdout);
      expect({ sync: kv.SYNC, revision: kv.REVISION, dry: kv.DRY_REVISION }).toEqual({ sync: ['Synced'], revision: [hydratedSha], dry: [drySha] });
      const table = await plugin(['status', 'hydrated', '--color', 'never']);
      expect(table.stdout).toMatch(
        new RegExp(`^Dry Source: +${fx.repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, path app, revision main \\(hydrated from ${drySha.slice(0, 7)}\\)$`, 'm'),
      );
    },
    T,
  );
});
