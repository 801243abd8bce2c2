// The order of a sync with hooks and waves, through Argo CD's own controller and through kubectl-gitops: the
// same app synced by each into its own namespace, and the order in which the objects were created read back
// from their resourceVersions (etcd's revision at creation; none of these objects changes afterwards).
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, bothVerdicts, differences } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const object = (kind: 'ConfigMap' | 'Secret' | 'Service', name: string, annotations: Record<string, string>) => {
  const body = kind === 'Service' ? 'spec:\n  selector: {app: none}\n  ports: [{port: 80}]\n' : kind === 'Secret' ? 'stringData:\n  k: v\n' : 'data:\n  k: v\n';
  const notes = Object.entries(annotations)
    .map(([k, v]) => `    ${k}: "${v}"\n`)
    .join('');
  return `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n${notes ? `  annotations:\n${notes}` : ''}${body}`;
};

/** The names of the namespace's ConfigMaps, Secrets and Services in the order they were created. */
async function creationOrder(ns: string): Promise<string[]> {
  const list = JSON.parse(await kubectlOk(['get', 'configmaps,secrets,services', '-n', ns, '-o', 'json'])) as {
    items: { kind: string; metadata: { name: string; resourceVersion: string } }[];
  };
  return list.items
    .filter((o) => o.metadata.name !== 'kube-root-ca.crt')
    .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
    .map((o) => `${o.kind}/${generated(o.metadata.name)}`);
}

/** A hook's name made from its generateName (`gen-`, the commit, the phase, the second): the same in both runs once its tail is cut. */
const generated = (name: string) => name.replace(/(^|\/)gen-[^/]*$/, '$1gen-*');

describe('the order of a sync with hooks and waves', () => {
  const id = randomBytes(3).toString('hex');
  let fx: GitFixture;
  const namespaces: string[] = [];

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/pre.yaml', object('ConfigMap', 'pre', { 'argocd.argoproj.io/hook': 'PreSync' }));
    fx.write('app/post.yaml', object('ConfigMap', 'post', { 'argocd.argoproj.io/hook': 'PostSync' }));
    fx.write('app/first.yaml', object('Service', 'first', { 'argocd.argoproj.io/sync-wave': '-1' }));
    fx.write('app/svc.yaml', object('Service', 'svc', {}));
    fx.write('app/cfg.yaml', object('ConfigMap', 'cfg', {}));
    fx.write('app/secret.yaml', object('Secret', 'secret', {}));
    fx.write('app/last.yaml', object('ConfigMap', 'last', { 'argocd.argoproj.io/sync-wave': '2' }));
    // A hook declared with generateName only: Argo CD marks it before it names it (a tracking-id with no name).
    fx.write(
      'app/gen.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\n  annotations:\n    argocd.argoproj.io/hook: PostSync\n    argocd.argoproj.io/sync-wave: "5"\ndata:\n  k: v\n',
    );
    fx.commit('app');
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    for (const ns of namespaces) await deleteNamespace(ns);
  }, T);

  it(
    'both create the hooks and the waves in the same order, and read each other Synced',
    async () => {
      const repoURL = pathToFileURL(fx.repo).href;
      const nsArgo = await createTestNamespace('conf-waves-a');
      const nsOurs = await createTestNamespace('conf-waves-k');
      namespaces.push(nsArgo, nsOurs);
      const argoApp = `waves-a-${id}`;
      const ourApp = `waves-k-${id}`;
      await applyApplication(application({ name: argoApp, repoURL, path: 'app', namespace: nsArgo }));
      await applyApplication(application({ name: ourApp, repoURL, path: 'app', namespace: nsOurs }));

      expect((await argoSync(argoApp)).status?.operationState?.phase).toBe('Succeeded');
      const ours = await runPlugin(['sync', ourApp, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
      expect(ours.code).toBe(0);

      const argoOrder = await creationOrder(nsArgo);
      expect(argoOrder[0]).toBe('ConfigMap/pre');
      expect(argoOrder.slice(-2)).toEqual(['ConfigMap/post', 'ConfigMap/gen-*']);
      expect(await creationOrder(nsOurs)).toEqual(argoOrder);
      for (const [app, ns] of [
        [argoApp, nsArgo],
        [ourApp, nsOurs],
      ] as const) {
        const { argo, ours: our } = await bothVerdicts(app);
        expect(differences(argo, our, ns).sort()).toEqual(expectedDifferences('waves/after-sync'));
        expect([argo.sync, our.sync]).toEqual(['Synced', 'Synced']);
        expect(Object.entries(argo.resources).filter(([, r]) => r.status !== 'Synced')).toEqual([]);
        // the generateName hook too, whichever tool made it (before 2026-12-07 kubectl-gitops left Argo CD's out)
        expect(argo.hooks.map(generated)).toEqual([`/ConfigMap/${ns}/gen-*`, `/ConfigMap/${ns}/post`, `/ConfigMap/${ns}/pre`]);
      }
    },
    T,
  );
});
