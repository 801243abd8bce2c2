// A Git targetRevision written as a semver constraint (`1.*`, `>=1.0.0 <1.4.0`, `~1.4`, `*`): Argo CD's repo-server
// resolves it to the greatest tag that satisfies it (LsRemote, versions.MaxVersion; a pre-release tag only for a
// constraint that names one), and kubectl-gitops must read the same commit. Argo CD's revision is read from the
// Application's status once its controller compared it; ours from `status`.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, pollFor } from './support/argocd.js';

const T = 240_000;

describe('a semver constraint as targetRevision', () => {
  const id = randomBytes(3).toString('hex');
  let fx: GitFixture;
  let ns: string;
  const tagged: Record<string, string> = {};

  beforeAll(async () => {
    fx = new GitFixture();
    for (const tag of ['v1.0.0', 'v1.4.0', 'v1.10.0-rc.1', 'v2.0.0']) {
      fx.write('app/cm.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ranged}\ndata: {tag: ${tag}}\n`);
      tagged[tag] = fx.commit(tag);
      fx.git(['tag', tag]);
    }
    fx.write('app/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ranged}\ndata: {tag: untagged}\n');
    fx.commit('the branch moves on');
    ns = await createTestNamespace('conf-revisions');
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  it(
    'names the same tag in Argo CD and in kubectl-gitops: the greatest that satisfies it, no pre-release',
    async () => {
      const repoURL = pathToFileURL(fx.repo).href;
      const cases: [string, string][] = [
        ['1.*', 'v1.4.0'],
        ['>=1.0.0 <1.4.0', 'v1.0.0'],
        ['~1.4', 'v1.4.0'],
        ['*', 'v2.0.0'],
      ];
      const names = cases.map((_, i) => `revisions-${id}-${i}`);
      for (const [i, [range]] of cases.entries())
        await applyApplication(application({ name: names[i]!, repoURL, path: 'app', namespace: ns, source: { targetRevision: range } }));
      for (const [i, [range, tag]] of cases.entries()) {
        const argo = await pollFor(`Argo CD's comparison of ${range}`, async () => {
          const app = JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', names[i]!, '-n', 'argocd', '-o', 'json'])) as {
            status?: { sync?: { revision?: string } };
          };
          return app.status?.sync?.revision || undefined;
        });
        const ours = await runPlugin(['status', names[i]!, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
        expect({ range, argo, ours: kvValues(ours.stdout).REVISION?.[0] }).toEqual({ range, argo: tagged[tag], ours: tagged[tag] });
      }
    },
    T,
  );
});
