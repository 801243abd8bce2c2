// Handover both ways between kubectl-gitops and Argo CD's own controller: an app kubectl-gitops synced (with `sync`, or
// kept synced by `sync --watch --all` while Argo CD skipped it) is Synced and Healthy at Argo CD's first
// reconciliation, and Argo CD's sync recreates nothing; an app Argo CD
// synced (its default client-side apply) reads Synced in `diff` and `status`, `prune` lists exactly what
// Argo CD lists as requiring pruning, a kubectl-gitops sync recreates nothing and takes the client-side fields over, so
// an env var Git drops afterwards is OutOfSync in both and removed by the next sync.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubeconfigPath, kubectlOk, kvValues, runPlugin } from '../integration/support/index.js';
import { WatchProcess } from '../integration/support/watch-process.js';
import {
  applyApplication,
  application,
  argoSync,
  argoVerdict,
  bothVerdicts,
  differences,
  firstReconciliation,
  hardRefresh,
  liveObject,
  onBothSides,
  rolledOut,
  summaries,
  uidsOf,
} from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const manifests: Record<string, string> = {
  'app/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 2
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
        - name: shop
          image: nginx:1.27
          env: [{name: STAGE, value: handover}]
`,
  'app/service.yaml': `apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  selector: {app: shop}
  ports: [{port: 80}]
`,
  'app/configmap.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-settings
data:
  currency: EUR
`,
};
const objects = [
  ['deployment', 'shop'],
  ['service', 'shop'],
  ['configmap', 'shop-settings'],
] as const;

/** The app's three objects, each Synced unless `more` says otherwise, and the app's own sync status. */
const all = (app: string, more: Record<string, string> = {}) => ({
  app,
  'apps/Deployment/<ns>/shop': 'Synced',
  '/Service/<ns>/shop': 'Synced',
  '/ConfigMap/<ns>/shop-settings': 'Synced',
  ...more,
});

const uids = (ns: string) => uidsOf(objects, ns);

describe('handover between kubectl-gitops and Argo CD', () => {
  const id = randomBytes(3).toString('hex');
  let fx: GitFixture;
  let repoURL: string;
  const namespaces: string[] = [];

  beforeAll(async () => {
    fx = new GitFixture();
    for (const [path, text] of Object.entries(manifests)) fx.write(path, text);
    fx.commit('app');
    repoURL = pathToFileURL(fx.repo).href;
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    for (const ns of namespaces) await deleteNamespace(ns);
  }, T);

  it(
    'sync --watch --all kept it synced, then Argo CD takes over (loop stopped, skip-reconcile removed, a refresh): Synced and Healthy, no operation, nothing recreated',
    async () => {
      const ns = await createTestNamespace('conf-loop-to-argo');
      namespaces.push(ns);
      const name = `loop-to-argo-${id}`;
      const base = application({ name, repoURL, path: 'app', namespace: ns }) as {
        metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
        spec: Record<string, unknown>;
      };
      // Automated, as the loop reconciles it; in argocd (so its tracking-id is the one Argo CD's own app will read), with
      // Argo CD's skip-reconcile annotation while the loop owns it, as a handover is done.
      const automated = { ...base, spec: { ...base.spec, syncPolicy: { automated: { selfHeal: true, prune: true } } } };
      const labels = { ...base.metadata.labels, 'kgitops.test/handover': id };
      await applyApplication({ ...automated, metadata: { ...base.metadata, labels, annotations: { 'argocd.argoproj.io/skip-reconcile': 'true' } } });
      const loop = new WatchProcess(['--all', '--app-namespace', 'argocd', '-l', `kgitops.test/handover=${id}`, '--interval', '2s'], kubeconfigPath());
      try {
        await loop.line((l) => l.app === `argocd/${name}` && l.action === 'sync' && l.object === 'Deployment/shop', 'the loop to sync the app', 0, 90_000);
        await rolledOut('shop', ns);
        // A drift by hand, healed by the loop: it owns the app until the handover.
        await kubectlOk(['scale', 'deployment', 'shop', '-n', ns, '--replicas', '5']);
        await loop.line((l) => l.app === `argocd/${name}` && l.action === 'heal', "the loop's heal", 0, 60_000);
        await rolledOut('shop', ns);
      } finally {
        expect(await loop.stop('SIGTERM')).toEqual({ code: 0, signal: null });
      }
      expect((await liveObject('deployment', 'shop', ns))?.spec?.replicas).toBe(2);
      const before = await uids(ns);
      // The loop recorded its syncs in the Application's status, as Argo CD's controller would have.
      const recorded = JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', name, '-n', 'argocd', '-o', 'json'])) as {
        status?: { operationState?: { phase?: string; startedAt?: string } };
      };
      expect(recorded.status?.operationState?.phase).toBe('Succeeded');
      const loopsLast = recorded.status?.operationState?.startedAt;

      // The handover: the loop stopped, the annotation removed, a refresh asked for (the status the loop recorded is a
      // comparison Argo CD trusts until its next periodic one, minutes away); Argo CD's controller reconciles from here.
      await applyApplication({ ...automated, metadata: { ...base.metadata, labels } });
      const first = await hardRefresh(name);
      expect([first.status?.sync?.status, first.status?.health?.status]).toEqual(['Synced', 'Healthy']);
      const verdict = argoVerdict(first);
      expect(summaries({ argo: verdict, ours: verdict }, ns).argo).toEqual(all('Synced'));
      // Automated in Argo CD too: nothing to sync, so it started no operation (the last one is still the loop's); nothing
      // was recreated.
      const startedAt = (a: unknown) => (a as { status?: { operationState?: { startedAt?: string } } }).status?.operationState?.startedAt;
      expect(startedAt(first)).toBe(loopsLast);
      expect(await uids(ns)).toEqual(before);
    },
    T,
  );

  it(
    'kubectl-gitops synced it, then Argo CD adopts it: Synced and Healthy at its first reconciliation, nothing recreated',
    async () => {
      const ns = await createTestNamespace('conf-to-argo');
      namespaces.push(ns);
      const name = `to-argo-${id}`;
      const app = application({ name, repoURL, path: 'app', namespace: ns });
      // The app first lives only in a file: no Argo CD sees it while kubectl-gitops syncs.
      const file = join(fx.root, `${name}.yaml`);
      writeFileSync(file, JSON.stringify(app));
      const synced = await runPlugin(['sync', '-f', file, '-o', 'kv']);
      expect(synced.code).toBe(0);
      await rolledOut('shop', ns);
      const before = await uids(ns);

      await applyApplication(app);
      const first = await firstReconciliation(name);
      expect([first.status?.sync?.status, first.status?.health?.status]).toEqual(['Synced', 'Healthy']);
      expect(argoVerdict(first).resources).toEqual(
        expect.objectContaining({ [`apps/Deployment/${ns}/shop`]: { status: 'Synced', health: 'Healthy', requiresPruning: false } }),
      );

      // Argo CD's own sync (its default, client-side apply) over what kubectl-gitops applied server-side.
      const argoSynced = await argoSync(name);
      expect(argoSynced.status?.operationState?.phase).toBe('Succeeded');
      expect(await uids(ns)).toEqual(before);
      const after = await hardRefresh(name);
      expect([after.status?.sync?.status, after.status?.health?.status]).toEqual(['Synced', 'Healthy']);
    },
    T,
  );

  it(
    'Argo CD synced it: diff and status read Synced, prune lists what Argo CD lists, a kubectl-gitops sync recreates nothing',
    async () => {
      const ns = await createTestNamespace('conf-from-argo');
      namespaces.push(ns);
      const name = `from-argo-${id}`;
      await applyApplication(application({ name, repoURL, path: 'app', namespace: ns }));
      const argoSynced = await argoSync(name);
      expect(argoSynced.status?.operationState?.phase).toBe('Succeeded');
      await rolledOut('shop', ns);

      const diff = await runPlugin(['diff', name, '--app-namespace', 'argocd', '-o', 'kv']);
      expect(kvValues(diff.stdout).SYNC).toEqual(['Synced']);
      expect(diff.code).toBe(0);
      const status = await runPlugin(['status', name, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
      expect(kvValues(status.stdout)).toMatchObject({ SYNC: ['Synced'], HEALTH: ['Healthy'] });
      const { argo, ours } = await bothVerdicts(name);
      expect(differences(argo, ours, ns).sort()).toEqual(expectedDifferences('handover/after-argo-sync'));
      expect(summaries({ argo, ours }, ns)).toEqual(onBothSides(all('Synced')));

      // Something Argo CD deployed is dropped from Git: both list exactly that object for pruning.
      fx.remove('app/configmap.yaml');
      fx.commit('no settings');
      const pruning = await bothVerdicts(name);
      expect(differences(pruning.argo, pruning.ours, ns).sort()).toEqual(expectedDifferences('handover/after-removal'));
      expect(summaries(pruning, ns)).toEqual(onBothSides(all('OutOfSync', { '/ConfigMap/<ns>/shop-settings': 'OutOfSync, requires pruning' })));
      const prune = await runPlugin(['prune', name, '--app-namespace', 'argocd', '-o', 'kv']);
      expect(kvValues(prune.stdout).PRUNE).toEqual(['ConfigMap/shop-settings']);
      fx.write('app/configmap.yaml', manifests['app/configmap.yaml']!);
      fx.commit('settings back');

      // kubectl-gitops syncs over Argo CD's client-side apply: nothing recreated, Argo CD still reads Synced.
      const before = await uids(ns);
      const ourSync = await runPlugin(['sync', name, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
      expect(ourSync.code).toBe(0);
      expect(await uids(ns)).toEqual(before);
      const after = await bothVerdicts(name);
      expect(differences(after.argo, after.ours, ns)).toEqual([]);
      expect(summaries(after, ns)).toEqual(onBothSides(all('Synced')));
      expect([after.argo.health, after.ours.health]).toEqual(['Healthy', 'Healthy']);

      // Git then drops the env var Argo CD's client-side sync wrote: both read the Deployment OutOfSync (the sync took
      // the client-side manager's fields over, as Argo CD's ClientSideApplyMigration does), and the next sync removes it.
      fx.write('app/deployment.yaml', manifests['app/deployment.yaml']!.replace('          env: [{name: STAGE, value: handover}]\n', ''));
      fx.commit('no env');
      const dropped = await bothVerdicts(name);
      expect(differences(dropped.argo, dropped.ours, ns)).toEqual([]);
      expect(summaries(dropped, ns)).toEqual(onBothSides(all('OutOfSync', { 'apps/Deployment/<ns>/shop': 'OutOfSync' })));
      expect((await runPlugin(['sync', name, '--app-namespace', 'argocd', '--no-record', '-o', 'kv'])).code).toBe(0);
      const live = await liveObject('deployment', 'shop', ns);
      expect(live?.spec?.template?.spec?.containers?.[0]?.env).toBeUndefined();
      // The new template rolls out: both read the settled cluster, not one side mid-rollout.
      await rolledOut('shop', ns);
      const removed = await bothVerdicts(name);
      expect(differences(removed.argo, removed.ours, ns)).toEqual([]);
      expect(summaries(removed, ns)).toEqual(onBothSides(all('Synced')));
    },
    T,
  );
});
