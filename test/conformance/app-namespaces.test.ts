// Applications in any namespace: an Application outside the control plane's namespace (`conf-apps-*`, which the
// controller reconciles with --application-namespaces and argocd-cmd-params-cm's application.namespaces, and which the
// default AppProject's sourceNamespaces permit), synced by kubectl-gitops and taken over by Argo CD's controller, and
// synced by Argo CD and read by kubectl-gitops. Its tracking-id names the app `<namespace>_<name>`, as Argo CD's
// InstanceName does; a mark without the namespace would be another app's to Argo CD.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kvValues, runPlugin } from '../integration/support/index.js';
import {
  applyApplication,
  application,
  argoSync,
  argoVerdict,
  bothVerdicts,
  differences,
  firstReconciliation,
  liveObject,
  onBothSides,
  rolledOut,
  summaries,
  uidsOf,
} from './support/argocd.js';

const T = 240_000;

const manifests: Record<string, string> = {
  'app/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  replicas: 1
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers:
        - name: orders
          image: nginx:1.27
`,
  'app/configmap.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: orders-settings
data:
  region: eu
`,
};

const all = (app: string) => ({ app, 'apps/Deployment/<ns>/orders': 'Synced', '/ConfigMap/<ns>/orders-settings': 'Synced' });

const uids = (ns: string) =>
  uidsOf(
    [
      ['deployment', 'orders'],
      ['configmap', 'orders-settings'],
    ],
    ns,
  );

describe('an Application outside the control-plane namespace', () => {
  const id = randomBytes(3).toString('hex');
  let fx: GitFixture;
  let repoURL: string;
  let appNs: string;
  const namespaces: string[] = [];

  beforeAll(async () => {
    fx = new GitFixture();
    for (const [path, text] of Object.entries(manifests)) fx.write(path, text);
    fx.commit('app');
    repoURL = pathToFileURL(fx.repo).href;
    // Named conf-apps-<hex>: among the namespaces the controller reconciles (test/argocd/up).
    appNs = await createTestNamespace('conf-apps');
    namespaces.push(appNs);
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    for (const ns of namespaces) await deleteNamespace(ns);
  }, T);

  it(
    'kubectl-gitops synced it (marked <namespace>_<name>), then Argo CD adopts it: Synced and Healthy at its first reconciliation, nothing recreated by its sync',
    async () => {
      const dest = await createTestNamespace('conf-appns-to-argo');
      namespaces.push(dest);
      const name = `appns-to-argo-${id}`;
      const app = application({ name, repoURL, path: 'app', namespace: dest, appNamespace: appNs });
      // The app first lives only in a file (its metadata.namespace is appNs): no Argo CD sees it while kubectl-gitops syncs.
      const file = join(fx.root, `${name}.yaml`);
      writeFileSync(file, JSON.stringify(app));
      const synced = await runPlugin(['sync', '-f', file, '-o', 'kv']);
      expect(synced.code).toBe(0);
      await rolledOut('orders', dest);
      const marks = [await liveObject('deployment', 'orders', dest), await liveObject('configmap', 'orders-settings', dest)].map(
        (o) => o?.metadata?.annotations?.['argocd.argoproj.io/tracking-id'],
      );
      expect(marks).toEqual([`${appNs}_${name}:apps/Deployment:${dest}/orders`, `${appNs}_${name}:/ConfigMap:${dest}/orders-settings`]);
      const before = await uids(dest);

      await applyApplication(app);
      const first = await firstReconciliation(name);
      expect([first.status?.sync?.status, first.status?.health?.status]).toEqual(['Synced', 'Healthy']);
      expect(summaries({ argo: argoVerdict(first), ours: argoVerdict(first) }, dest).argo).toEqual(all('Synced'));

      const argoSynced = await argoSync(name);
      expect(argoSynced.status?.operationState?.phase).toBe('Succeeded');
      expect(await uids(dest)).toEqual(before);
      const after = await bothVerdicts(name);
      expect(differences(after.argo, after.ours, dest)).toEqual([]);
      expect(summaries(after, dest)).toEqual(onBothSides(all('Synced')));
    },
    T,
  );

  it(
    'Argo CD synced it: status, diff and prune by name with --app-namespace read Synced and nothing to prune, and a kubectl-gitops sync recreates nothing',
    async () => {
      const dest = await createTestNamespace('conf-appns-from-argo');
      namespaces.push(dest);
      const name = `appns-from-argo-${id}`;
      await applyApplication(application({ name, repoURL, path: 'app', namespace: dest, appNamespace: appNs }));
      const argoSynced = await argoSync(name);
      expect(argoSynced.status?.operationState?.phase).toBe('Succeeded');
      await rolledOut('orders', dest);
      // Argo CD's own mark, which kubectl-gitops reads as the app's.
      expect((await liveObject('configmap', 'orders-settings', dest))?.metadata?.annotations?.['argocd.argoproj.io/tracking-id']).toBe(
        `${appNs}_${name}:/ConfigMap:${dest}/orders-settings`,
      );

      const diff = await runPlugin(['diff', name, '--app-namespace', appNs, '-o', 'kv']);
      expect({ code: diff.code, sync: kvValues(diff.stdout).SYNC }).toEqual({ code: 0, sync: ['Synced'] });
      const status = await runPlugin(['status', name, '--app-namespace', appNs, '--no-record', '-o', 'kv']);
      expect(kvValues(status.stdout)).toMatchObject({ SYNC: ['Synced'], HEALTH: ['Healthy'] });
      const prune = await runPlugin(['prune', name, '--app-namespace', appNs, '-o', 'kv']);
      expect({ code: prune.code, prune: kvValues(prune.stdout).PRUNE }).toEqual({ code: 0, prune: undefined });
      const { argo, ours } = await bothVerdicts(name);
      expect(differences(argo, ours, dest)).toEqual([]);
      expect(summaries({ argo, ours }, dest)).toEqual(onBothSides(all('Synced')));

      const before = await uids(dest);
      const ourSync = await runPlugin(['sync', name, '--app-namespace', appNs, '--no-record', '-o', 'kv']);
      expect(ourSync.code).toBe(0);
      expect(await uids(dest)).toEqual(before);
      const after = await bothVerdicts(name);
      expect(differences(after.argo, after.ours, dest)).toEqual([]);
      expect(summaries(after, dest)).toEqual(onBothSides(all('Synced')));
    },
    T,
  );
});
