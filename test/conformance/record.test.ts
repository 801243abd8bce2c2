// The record, field for field: the same app synced by Argo CD's own controller (ServerSideApply=true) into one
// namespace and by kubectl-gitops into another, then the two Applications' status compared field by field where Argo CD
// keeps them: status.resources (every field of every entry: group, version, kind, namespace, name, status, health,
// requiresPruning, syncWave, hook), sync (status, revision, comparedTo), health, sourceType, summary, conditions,
// controllerNamespace, operationState (phase, message, the operation's prune and syncOptions, syncResult's revision,
// source and every resource's fields) and the history entry (id, revision, source); and every time in the status
// written to the second. Two apps: a ConfigMap in wave -1, a Deployment and a Service and a PostSync hook (a sync in
// steps, which gitops-engine ends after waiting for the hook), and the same without wave or hook (one pass, which it
// ends without waiting), and the second synced again with ApplyOutOfSyncOnly=true after a hand edit (only what drifted is
// a task). Left out by construction: times, who started the sync (initiatedBy) and
// operation.sync.revision (the suite asks Argo CD for HEAD as its API server would).
//
// Argo CD's controller reconciles every Application in its namespace; kubectl-gitops's copy carries
// `argocd.argoproj.io/skip-reconcile: "true"` so that the status read back is the one kubectl-gitops wrote.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, hardRefresh, rolledOut } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const files: Record<string, string> = {
  'app/settings.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations: {argocd.argoproj.io/sync-wave: "-1"}
data: {greeting: hello}
`,
  'app/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
`,
  'app/service.yaml': `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
`,
  'app/post.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: post
  annotations: {argocd.argoproj.io/hook: PostSync}
data: {done: "yes"}
`,
};

/** The same app without waves or hooks: one pass, as most apps are synced. */
const onePass: Record<string, string> = {
  'app/settings.yaml': files['app/settings.yaml']!.replace('  annotations: {argocd.argoproj.io/sync-wave: "-1"}\n', ''),
  'app/deployment.yaml': files['app/deployment.yaml']!,
};

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A list of entries as a map by their identity (`key(entry)`), so that one missing entry is one line, not a shift. */
function keyed(list: Record<string, Json>[] | undefined, key: (e: Record<string, Json>) => string): Record<string, Json> {
  return Object.fromEntries((list ?? []).map((e) => [key(e), e]));
}

const resourceKey = (e: Record<string, Json>) => `${String(e.group ?? '')}/${String(e.kind)}/${String(e.name)}`;

/** The parts of an Application's status both tools keep, with the namespace written `<ns>` and times left out. */
function recordView(app: Record<string, any>, ns: string): Json {
  const s = app.status ?? {};
  const op = s.operationState ?? {};
  const view: Record<string, Json> = {
    controllerNamespace: s.controllerNamespace ?? null,
    'sync.status': s.sync?.status ?? null,
    'sync.revision': s.sync?.revision ?? null,
    'sync.comparedTo': s.sync?.comparedTo ?? null,
    'health.status': s.health?.status ?? null,
    'health.message': s.health?.message ?? null,
    sourceType: s.sourceType ?? null,
    summary: s.summary ?? null,
    conditions: (s.conditions ?? []).map((c: { type: string; message: string }) => ({ type: c.type, message: c.message })),
    resources: keyed(s.resources, resourceKey),
    'operationState.phase': op.phase ?? null,
    'operationState.message': op.message ?? null,
    'operationState.operation.sync.prune': op.operation?.sync?.prune ?? null,
    'operationState.operation.sync.syncOptions': op.operation?.sync?.syncOptions ?? null,
    'operationState.syncResult.revision': op.syncResult?.revision ?? null,
    'operationState.syncResult.source': op.syncResult?.source ?? null,
    'operationState.syncResult.resources': keyed(op.syncResult?.resources, (e) => `${String(e.syncPhase)} ${resourceKey(e)}`),
    history: (s.history ?? []).map((h: Record<string, Json>) => ({ id: h.id ?? null, revision: h.revision ?? null, source: h.source ?? null })),
  };
  return JSON.parse(JSON.stringify(view).split(ns).join('<ns>')) as Json;
}

/** Every time the status holds, with where it is (operationState, history, reconciledAt, health, conditions). */
function times(status: Record<string, any>): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: string) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
    else if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v)) out.push(`${path}=${v}`);
  };
  walk(status, '');
  return out;
}

/** Every leaf where the two differ: `path: Argo CD x, kubectl-gitops y` (absent written `(none)`). */
function fieldDifferences(argo: Json, ours: Json, path = ''): string[] {
  const show = (v: Json | undefined) => (v === undefined ? '(none)' : JSON.stringify(v));
  const isObj = (v: Json | undefined): v is { [k: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (Array.isArray(argo) && Array.isArray(ours)) {
    const out: string[] = [];
    for (let i = 0; i < Math.max(argo.length, ours.length); i++) out.push(...fieldDifferences(argo[i] as Json, ours[i] as Json, `${path}[${i}]`));
    return out;
  }
  if (isObj(argo) && isObj(ours)) {
    const out: string[] = [];
    for (const k of [...new Set([...Object.keys(argo), ...Object.keys(ours)])].sort()) {
      out.push(...fieldDifferences(argo[k] as Json, ours[k] as Json, path ? `${path}.${k}` : k));
    }
    return out;
  }
  return JSON.stringify(argo) === JSON.stringify(ours) ? [] : [`${path}: Argo CD ${show(argo)}, kubectl-gitops ${show(ours)}`];
}

describe("the Application's record, field for field", () => {
  const id = randomBytes(3).toString('hex');
  const fixtures: GitFixture[] = [];
  const namespaces: string[] = [];

  afterAll(async () => {
    for (const fx of fixtures) fx.cleanup();
    for (const ns of namespaces) await deleteNamespace(ns);
  }, T);

  /**
   * The app of `app/` in a new repository, synced by Argo CD (`<prefix>-a`) and by kubectl-gitops (`<prefix>-k`, which
   * Argo CD's controller skips), compared once the cluster settled; the field differences, app names written `<app>`.
   */
  async function bothRecords(
    prefix: string,
    content: Record<string, string>,
    again?: { drift: (ns: string) => Promise<unknown>; syncOptions: string[] },
  ): Promise<{ lines: string[]; argo: Record<string, any>; ours: Record<string, any> }> {
    const fx = new GitFixture();
    fixtures.push(fx);
    for (const [path, text] of Object.entries(content)) fx.write(path, text);
    fx.commit('app');
    const repoURL = pathToFileURL(fx.repo).href;
    const argoApp = `${prefix}-a-${id}`;
    const ourApp = `${prefix}-k-${id}`;
    const nsArgo = await createTestNamespace(`conf-${prefix}-a`);
    const nsOurs = await createTestNamespace(`conf-${prefix}-k`);
    namespaces.push(nsArgo, nsOurs);
    await applyApplication(application({ name: argoApp, repoURL, path: 'app', namespace: nsArgo, syncOptions: ['ServerSideApply=true'] }));
    const mine = application({ name: ourApp, repoURL, path: 'app', namespace: nsOurs, syncOptions: ['ServerSideApply=true'] }) as {
      metadata: { annotations?: Record<string, string> };
    };
    mine.metadata.annotations = { 'argocd.argoproj.io/skip-reconcile': 'true' };
    await applyApplication(mine);

    const synced = await argoSync(argoApp);
    expect(synced.status?.operationState?.phase).toBe('Succeeded');
    const sync = await runPlugin(['sync', ourApp, '--app-namespace', 'argocd', '-o', 'kv']);
    expect(sync.code).toBe(0);
    await rolledOut('web', nsArgo);
    await rolledOut('web', nsOurs);
    if (again) {
      // The same change by hand on each side, then a second sync with the run's own sync options on each.
      await again.drift(nsArgo);
      await again.drift(nsOurs);
      expect((await argoSync(argoApp, { syncOptions: again.syncOptions })).status?.operationState?.phase).toBe('Succeeded');
      const resync = await runPlugin(['sync', ourApp, '--app-namespace', 'argocd', ...again.syncOptions.flatMap((o) => ['--sync-option', o]), '-o', 'kv']);
      expect(resync.code).toBe(0);
    }
    // A comparison of the settled cluster by each (Argo CD's after a hard refresh; ours recorded by status).
    const argo = (await hardRefresh(argoApp)) as unknown as Record<string, any>;
    const status = await runPlugin(['status', ourApp, '--app-namespace', 'argocd', '-o', 'kv']);
    expect(status.code).toBe(0);
    const ours = JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', ourApp, '-n', 'argocd', '-o', 'json'])) as Record<string, any>;
    // Neither side is empty: both synced the app and compared it (at least its objects, on each side).
    expect([argo.status?.sync?.status, ours.status?.sync?.status]).toEqual(['Synced', 'Synced']);
    expect(ours.status?.operationState?.phase).toBe('Succeeded');
    expect(ours.status?.resources?.length).toBeGreaterThanOrEqual(Object.keys(content).length - 1);
    const lines = fieldDifferences(recordView(argo, nsArgo), recordView(ours, nsOurs))
      .map((l) => l.split(argoApp).join('<app>').split(ourApp).join('<app>'))
      .sort();
    return { lines, argo, ours };
  }

  it(
    'a sync with a wave before and a PostSync hook after: the same status, field for field, times to the second',
    async () => {
      const { lines, argo, ours } = await bothRecords('record', files);
      expect(lines).toEqual(expectedDifferences('record/after-sync'));
      // Kubernetes writes times to the second (metav1.Time): so does each side, everywhere in the status.
      const notToTheSecond = (s: Record<string, any>) => times(s.status).filter((t) => !/=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(t));
      expect({ argo: notToTheSecond(argo), ours: notToTheSecond(ours) }).toEqual({ argo: [], ours: [] });
      expect(times(ours.status).length).toBeGreaterThanOrEqual(5);
    },
    T,
  );

  it(
    'a sync in one pass (no wave, no hook): the same status, field for field',
    async () => {
      const { lines } = await bothRecords('onepass', onePass);
      expect(lines).toEqual(expectedDifferences('record/after-sync'));
    },
    T,
  );

  it(
    "a kind the app's AppProject refuses, once synced: the same status, field for field (the object compared as not live, its resource Unknown)",
    async () => {
      const { argo: first } = await bothRecords('refused', onePass);
      const names = [first.metadata.name as string, (first.metadata.name as string).replace('-a-', '-k-')];
      const project = `refused-${id}`;
      await kubectlOk(['apply', '-f', '-'], {
        stdin: JSON.stringify({
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'AppProject',
          metadata: { name: project, namespace: 'argocd' },
          spec: { sourceRepos: ['*'], destinations: [{ server: '*', namespace: '*' }], namespaceResourceBlacklist: [{ group: '', kind: 'ConfigMap' }] },
        }),
      });
      try {
        for (const name of names)
          await kubectlOk(['patch', 'applications.argoproj.io', name, '-n', 'argocd', '--type', 'merge', '-p', JSON.stringify({ spec: { project } })]);
        const argo = (await hardRefresh(names[0]!)) as unknown as Record<string, any>;
        await runPlugin(['status', names[1]!, '--app-namespace', 'argocd', '-o', 'kv']);
        const ours = JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', names[1]!, '-n', 'argocd', '-o', 'json'])) as Record<string, any>;
        const nsOf = (a: Record<string, any>) => a.spec.destination.namespace as string;
        const lines = fieldDifferences(recordView(argo, nsOf(argo)), recordView(ours, nsOf(ours)))
          .map((l) => l.split(names[0]!).join('<app>').split(names[1]!).join('<app>'))
          .sort();
        expect(lines).toEqual(expectedDifferences('record/after-sync'));
        // Not an empty agreement: both say OutOfSync, the ConfigMap Unknown (and Missing), the Deployment Synced.
        const view = (a: Record<string, any>) => [
          a.status?.sync?.status,
          ...(a.status?.resources ?? []).map((r: Record<string, any>) => `${r.kind}/${r.name} ${r.status} ${r.health?.status ?? '-'}`),
        ];
        expect(view(ours)).toEqual(view(argo));
        expect(view(ours)).toEqual(['OutOfSync', 'ConfigMap/settings Unknown Missing', 'Deployment/web Synced Healthy']);
      } finally {
        for (const name of names)
          await kubectlOk(['patch', 'applications.argoproj.io', name, '-n', 'argocd', '--type', 'merge', '-p', '{"spec":{"project":"default"}}']).catch(
            () => undefined,
          );
        await kubectlOk(['delete', 'appproject', project, '-n', 'argocd', '--ignore-not-found']).catch(() => undefined);
      }
    },
    T,
  );

  it(
    'ApplyOutOfSyncOnly=true, synced again after a hand edit: only the drifted object has a result, field for field',
    async () => {
      const { lines, argo, ours } = await bothRecords('oos', onePass, {
        drift: (ns) => kubectlOk(['patch', 'configmap', 'settings', '-n', ns, '--type', 'merge', '-p', '{"data":{"greeting":"by hand"}}']),
        syncOptions: ['ServerSideApply=true', 'ApplyOutOfSyncOnly=true'],
      });
      expect(lines).toEqual(expectedDifferences('record/after-sync'));
      // Not an empty agreement: gitops-engine's filterOutOfSyncTasks left the Deployment out; so did we.
      const results = (a: Record<string, any>) =>
        (a.status?.operationState?.syncResult?.resources ?? []).map((r: { kind: string; name: string }) => `${r.kind}/${r.name}`);
      expect([results(argo), results(ours)]).toEqual([['ConfigMap/settings'], ['ConfigMap/settings']]);
    },
    T,
  );
});
