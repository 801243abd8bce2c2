// A render that is successfully empty (the last manifest dropped from Git) through Argo CD's own controller
// and through kubectl-gitops: the same verdict (every live object requires pruning), then the one difference
// on purpose — Argo CD's manual sync with prune deletes everything, kubectl-gitops refuses (exit 4).
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kvValues, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, bothVerdicts, differences, liveObject, onBothSides, summaries } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

describe('an empty render through Argo CD and through kubectl-gitops', () => {
  const app = `empty-${randomBytes(3).toString('hex')}`;
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: only\ndata:\n  a: b\n');
    fx.write('app/README.md', 'not a manifest\n');
    fx.commit('app');
    ns = await createTestNamespace('conf-empty');
    await applyApplication(application({ name: app, repoURL: pathToFileURL(fx.repo).href, path: 'app', namespace: ns }));
    expect((await argoSync(app)).status?.operationState?.phase).toBe('Succeeded');
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  it(
    'the same verdict, then Argo CD prunes everything where kubectl-gitops refuses',
    async () => {
      // From Synced: what Argo CD synced, read Synced by both.
      const before = await bothVerdicts(app);
      expect(differences(before.argo, before.ours, ns)).toEqual(expectedDifferences('empty/before'));
      expect(summaries(before, ns)).toEqual(onBothSides({ app: 'Synced', '/ConfigMap/<ns>/only': 'Synced' }));
      fx.remove('app/configmap.yaml');
      fx.commit('nothing left');
      const { argo, ours } = await bothVerdicts(app);
      expect(differences(argo, ours, ns)).toEqual(expectedDifferences('empty/verdict'));
      expect(summaries({ argo, ours }, ns)).toEqual(onBothSides({ app: 'OutOfSync', '/ConfigMap/<ns>/only': 'OutOfSync, requires pruning' }));

      const uid = (await liveObject('configmap', 'only', ns))?.metadata?.uid;
      const refused = await runPlugin(['sync', app, '--app-namespace', 'argocd', '--no-record', '--prune', '-o', 'kv']);
      expect((await liveObject('configmap', 'only', ns))?.metadata?.uid).toBe(uid);
      const argoSynced = await argoSync(app, { prune: true });
      const gone = (await liveObject('configmap', 'only', ns)) === undefined;

      // What each tool did with the same request, as one line; the expected line is the known difference C2.
      const argoDid = `${argoSynced.status?.operationState?.phase}${gone ? ', deleted ConfigMap/only' : ''}`;
      const ourDid = refused.code === 4 && kvValues(refused.stdout).REFUSED ? 'refused (exit 4), deleted nothing' : `exit ${refused.code}`;
      const line = `sync --prune of an empty render: Argo CD ${argoDid}, kubectl-gitops ${ourDid}`;
      expect([line]).toEqual(expectedDifferences('empty/sync'));
    },
    T,
  );
});
