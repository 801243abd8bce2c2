// Writing the Application's status: the resourceVersion guard and its retries, a forbidden update as a warning, the controller check.
import { FakeGateway } from '../../../support/fake-gateway.js';
import { errorText, recordingErrors, recordNotice, syncReportPhase, unrunOperation, writeApplicationStatus } from '../../../../src/workflows/session/record.js';
import * as syncReports from '../../../fixtures/reports/sync.js';
import { InputError } from '../../../../src/model/errors.js';
import { application } from '../../../support/application.js';

const APP = application({ spec: { project: 'default' } });
const ref = { namespace: 'argocd', name: 'shop' };
const noSleep = { sleep: async () => {} };
/** What every sync report below shares: a run of `shop` at revision abc that met no conflict and no failure. */
const REPORT = {
  schemaVersion: 1 as const,
  app: 'shop',
  origin: 'x',
  revision: 'abc',
  dryRun: false,
  force: false,
  healed: [],
  ignored: [],
  conflicts: [],
  failures: [],
  warnings: [],
};

test('writes the status with the field manager of its own, spec untouched', async () => {
  const gw = new FakeGateway({ objects: [APP] });
  const out = await writeApplicationStatus(gw, ref, () => ({ sync: { status: 'Synced' } }), noSleep);
  expect(out).toEqual({ outcome: 'written', attempts: 1 });
  const stored = gw.find('Application', 'argocd', 'shop')!;
  expect(stored.status).toEqual({ sync: { status: 'Synced' } });
  expect(stored.spec).toEqual(APP.spec);
  expect(stored.metadata.managedFields?.map((m) => m.manager)).toEqual(['kubectl-gitops']);
});

test('a conflict reads again and computes from what is stored now', async () => {
  let changed = false;
  const gw: FakeGateway = new FakeGateway({
    objects: [APP],
    beforeUpdate: () => {
      if (changed) return;
      changed = true;
      // Another writer lands first: a history entry and a new resourceVersion.
      gw.put({ ...gw.find('Application', 'argocd', 'shop')!, status: { history: [{ id: 0 }] } });
    },
  });
  const seen: unknown[] = [];
  const out = await writeApplicationStatus(
    gw,
    ref,
    (app) => {
      seen.push(structuredClone(app.status));
      const h = ((app.status as { history?: { id: number }[] } | undefined)?.history ?? []) as { id: number }[];
      return { history: [...h, { id: h.length }] };
    },
    noSleep,
  );
  expect(out).toEqual({ outcome: 'written', attempts: 2 });
  expect(seen).toEqual([undefined, { history: [{ id: 0 }] }]);
  expect(gw.find('Application', 'argocd', 'shop')!.status).toEqual({ history: [{ id: 0 }, { id: 1 }] });
});

test('a user who may not update Applications: a warning, nothing thrown', async () => {
  const gw = new FakeGateway({ objects: [APP], forbidden: ['update applications.argoproj.io'] });
  const out = await writeApplicationStatus(gw, ref, () => ({}), noSleep);
  expect(out.outcome).toBe('forbidden');
  expect(recordNotice(out)).toMatch(/^not allowed to update Application argocd\/shop, so its status was not recorded/);
});

test("an Application Argo CD's controller wrote recently is skipped; a missing one is gone", async () => {
  const now = Date.parse('2026-12-01T10:00:00Z');
  const kept = {
    ...APP,
    metadata: { ...APP.metadata, managedFields: [{ manager: 'argocd-application-controller', operation: 'Update', time: '2026-12-01T09:58:00Z' }] },
  };
  const gw = new FakeGateway({ objects: [kept] });
  const out = await writeApplicationStatus(gw, ref, () => ({}), { ...noSleep, now: () => now });
  expect(out.outcome).toBe('skipped');
  expect(out.message).toContain('kept by an Argo CD controller (argocd-application-controller wrote it at 2026-12-01T09:58:00Z)');
  expect(gw.calls.some((c) => c.startsWith('UPDATE'))).toBe(false);
  expect((await writeApplicationStatus(new FakeGateway(), ref, () => ({}), noSleep)).outcome).toBe('gone');
  expect(recordNotice({ outcome: 'written', attempts: 1 })).toBeUndefined();
});

test("syncOperationOf: each step, hook and prune as Argo CD's per-resource result; a failure fails the phase", async () => {
  const { syncOperationOf } = await import('../../../../src/workflows/session/record.js');
  const base = {
    ...REPORT,
    applied: 1,
    steps: [{ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web', wave: 0, action: 'update' as const, outcome: 'applied' }],
    hooks: [{ group: 'batch', kind: 'Job', namespace: 'shop', name: 'migrate', phase: 'PreSync' as const, wave: 0, outcome: 'Succeeded' as const }],
    prune: {
      enabled: true,
      why: '',
      last: false,
      propagationPolicy: 'foreground' as const,
      results: [{ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'old', outcome: 'pruned' as const }],
    },
  };
  const opts = {
    versions: { 'apps/Deployment/shop/web': 'v1', 'batch/Job/shop/migrate': 'v1', '/ConfigMap/shop/old': 'v1' },
    startedAt: 's',
    finishedAt: 'f',
    initiatedBy: { username: 'alice' },
    partial: false,
  };
  const op = syncOperationOf(base, opts);
  expect(op).toMatchObject({
    phase: 'Succeeded',
    message: 'successfully synced (all tasks run)',
    revision: 'abc',
    prune: true,
    initiatedBy: { username: 'alice' },
  });
  expect(op.resources).toEqual([
    {
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      namespace: 'shop',
      name: 'web',
      status: 'Synced',
      message: 'deployment.apps/web configured',
      syncPhase: 'Sync',
      // No step list (waves): a one-pass sync, which gitops-engine ends without waiting: its tasks stay Running.
      hookPhase: 'Running',
    },
    {
      group: 'batch',
      version: 'v1',
      kind: 'Job',
      namespace: 'shop',
      name: 'migrate',
      // A hook created: no sync status, kubectl create's words.
      message: 'migrate created',
      syncPhase: 'PreSync',
      hookPhase: 'Succeeded',
      hookType: 'PreSync',
    },
    { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'old', status: 'Pruned', message: 'pruned', syncPhase: 'Sync' },
  ]);
  const failed = syncOperationOf(
    { ...base, failures: [{ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web', phase: 'apply' as const, message: 'boom' }] },
    opts,
  );
  expect(failed).toMatchObject({ phase: 'Failed', message: 'boom' });
});

test('syncOperationOf: the message and task states of a sync in steps, as gitops-engine ends it; serverside-applied; images', async () => {
  const { syncOperationOf } = await import('../../../../src/workflows/session/record.js');
  const step = (name: string, wave: number) => ({
    group: '',
    kind: 'ConfigMap',
    namespace: 'shop',
    name,
    wave,
    action: 'create' as const,
    outcome: 'applied',
    serverSideApply: true as const,
  });
  const report = {
    ...REPORT,
    applied: 2,
    steps: [step('first', -1), step('web', 0)],
    hooks: [],
    waves: [
      { phase: 'Sync' as const, wave: -1, resources: 1, hooks: 0, outcome: 'done' as const },
      { phase: 'Sync' as const, wave: 0, resources: 1, hooks: 0, outcome: 'done' as const },
    ],
    prune: { enabled: false, why: '', last: false, propagationPolicy: 'foreground' as const, results: [] },
  };
  const opts = {
    versions: {},
    images: { '/ConfigMap/shop/web': ['nginx:1.27'] },
    startedAt: 's',
    finishedAt: 'f',
    initiatedBy: { username: 'a' },
    partial: false,
  };
  // The last step had no hook: ended at once, its resources left Running; the wave before it waited for, Succeeded.
  const noHook = syncOperationOf(report, opts);
  expect(noHook.message).toBe('successfully synced (all tasks run)');
  expect(noHook.resources.map((r) => `${r.name} ${r.hookPhase} ${r.message} ${JSON.stringify(r.images ?? [])}`)).toEqual([
    'first Succeeded configmap/first serverside-applied []',
    'web Running configmap/web serverside-applied ["nginx:1.27"]',
  ]);
  // A PostSync hook last: gitops-engine waited for it, then found no more tasks; every resource Succeeded.
  const withHook = syncOperationOf(
    {
      ...report,
      hooks: [{ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'post', phase: 'PostSync' as const, wave: 0, outcome: 'Succeeded' as const }],
      waves: [...report.waves, { phase: 'PostSync' as const, wave: 0, resources: 0, hooks: 1, outcome: 'done' as const }],
    },
    opts,
  );
  expect(withHook.message).toBe('successfully synced (no more tasks)');
  expect(withHook.resources.map((r) => `${r.name} ${r.status ?? '-'} ${r.hookPhase}`)).toEqual([
    'first Synced Succeeded',
    'web Synced Succeeded',
    'post - Succeeded',
  ]);
});

test("syncOperationOf: only gitops-engine's tasks have results: skipped and unwritten steps left out, the created namespace in PreSync, a hook's SyncFailed only when not created", async () => {
  const { syncOperationOf } = await import('../../../../src/workflows/session/record.js');
  const step = (name: string, outcome: string, extra: Record<string, unknown> = {}) => ({
    group: '',
    kind: 'ConfigMap',
    namespace: 'shop',
    name,
    wave: 0 as number | null,
    action: 'update' as const,
    outcome,
    ...extra,
  });
  const opts = { versions: {}, startedAt: 's', finishedAt: 'f', initiatedBy: { username: 'a' }, partial: false };
  const prune = { enabled: false, why: '', last: false, propagationPolicy: 'foreground' as const, results: [] };
  // ApplyOutOfSyncOnly's in-sync object and CreateNamespace's existing namespace were never tasks (filterOutOfSyncTasks,
  // syncNamespace); the namespace CreateNamespace created is a PreSync task gitops-engine waited for.
  const applied = syncOperationOf(
    {
      ...REPORT,
      applied: 2,
      steps: [
        { ...step('shop', 'applied'), kind: 'Namespace', namespace: '', wave: null, action: 'create' as const },
        step('kept', 'skipped', { action: 'skip', message: 'ApplyOutOfSyncOnly: in sync' }),
        step('changed', 'applied'),
      ],
      hooks: [],
      prune,
    },
    opts,
  );
  expect(applied.phase).toBe('Succeeded');
  expect(applied.resources.map((r) => `${r.kind}/${r.name} ${r.status} ${r.syncPhase} ${r.hookPhase} ${r.message}`)).toEqual([
    'Namespace/shop Synced PreSync Succeeded namespace/shop created',
    'ConfigMap/changed Synced Sync Running configmap/changed configured',
  ]);
  // Stopped before the first write: a dry run records only the tasks that failed it.
  const stopped = syncOperationOf(
    {
      ...REPORT,
      applied: 0,
      steps: [step('bad', 'failed', { message: 'admission webhook denied it' }), step('fine', 'not-applied', { message: 'not applied: the dry-run failed' })],
      failures: [{ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'bad', phase: 'dry-run' as const, message: 'admission webhook denied it' }],
      hooks: [],
      prune,
    },
    opts,
  );
  expect(stopped.phase).toBe('Failed');
  expect(stopped.resources.map((r) => `${r.name} ${r.status} ${r.hookPhase}`)).toEqual(['bad SyncFailed Failed']);
  // A hook that ran and failed has only its phase; one that could not be created is SyncFailed.
  const hooks = syncOperationOf(
    {
      ...REPORT,
      applied: 0,
      steps: [],
      hooks: [
        {
          group: 'batch',
          kind: 'Job',
          namespace: 'shop',
          name: 'ran',
          phase: 'PreSync' as const,
          wave: 0,
          outcome: 'Failed' as const,
          message: 'Job has reached the specified backoff limit',
        },
        {
          group: 'batch',
          kind: 'Job',
          namespace: 'shop',
          name: 'refused',
          phase: 'PreSync' as const,
          wave: 0,
          outcome: 'Failed' as const,
          message: 'forbidden',
          notCreated: true as const,
        },
      ],
      failures: [{ group: 'batch', kind: 'Job', namespace: 'shop', name: 'ran', phase: 'operation' as const, message: 'PreSync hook Job/ran failed' }],
      prune,
    },
    opts,
  );
  expect(hooks.resources.map((r) => `${r.name} ${r.status ?? '-'} ${r.hookPhase} ${r.message}`)).toEqual([
    'ran - Failed Job has reached the specified backoff limit',
    'refused SyncFailed Failed forbidden',
  ]);
});

test("unrunOperation: phase Error with the message, as Argo CD's OperationError; Failed for a shared resource refusal", () => {
  const base = { startedAt: 's', finishedAt: 'f', initiatedBy: { username: 'alice' }, prune: false };
  expect(unrunOperation('project default: destination not permitted', base)).toMatchObject({
    phase: 'Error',
    message: 'project default: destination not permitted',
    resources: [],
    partial: false,
  });
  expect(unrunOperation('Shared resource found: ConfigMap/a is part of applications x and y (FailOnSharedResource=true)', base).phase).toBe('Failed');
  expect(errorText(new InputError('rendering apps/shop', { cause: new Error('value file missing') }))).toBe('rendering apps/shop: value file missing');
  expect(errorText(new Error('a: b', { cause: new Error('b') }))).toBe('a: b');
});

test('recordingErrors: an error before a report is recorded as the operation (Error) and thrown again; a dry run or --no-record records nothing', async () => {
  const gw = new FakeGateway({ objects: [APP] });
  const session = { controlPlane: gw, appRef: ref, user: 'alice' };
  const boom = new Error('connecting to the destination: ECONNREFUSED');
  const input = { startedAtMs: Date.parse('2026-12-01T10:00:00Z'), record: true, dryRun: false, prune: false };
  const notices: string[] = [];
  await expect(
    recordingErrors(
      session,
      input,
      () => Promise.reject(boom),
      (l) => notices.push(l),
      noSleep,
    ),
  ).rejects.toBe(boom);
  const status = gw.find('Application', 'argocd', 'shop')!.status as {
    operationState: { phase: string; message: string; operation: { initiatedBy: object } };
    conditions: { type: string; message: string }[];
  };
  expect(status.operationState).toMatchObject({
    phase: 'Error',
    message: 'connecting to the destination: ECONNREFUSED',
    operation: { initiatedBy: { username: 'alice' } },
  });
  expect(status.conditions).toEqual([expect.objectContaining({ type: 'SyncError', message: 'connecting to the destination: ECONNREFUSED' })]);
  expect(notices).toEqual([]);
  const untouched = new FakeGateway({ objects: [APP] });
  for (const over of [{ dryRun: true }, { record: false }]) {
    await expect(
      recordingErrors(
        { controlPlane: untouched, appRef: ref },
        { ...input, ...over },
        () => Promise.reject(boom),
        () => undefined,
        noSleep,
      ),
    ).rejects.toBe(boom);
  }
  expect(untouched.calls.some((c) => c.startsWith('UPDATE'))).toBe(false);
  expect(
    await recordingErrors(
      session,
      input,
      async () => 7,
      () => undefined,
    ),
  ).toBe(7);
});

describe('syncReportPhase: the phase sync -o kv|json ends with is the one recorded', () => {
  it('agrees with every golden report that carries one; a dry run is no operation', () => {
    const reports = Object.values(syncReports).map((f) => f());
    const ran = reports.filter((r) => !r.dryRun);
    expect(ran.length).toBeGreaterThanOrEqual(5);
    for (const r of ran) expect([r.app, syncReportPhase(r)]).toEqual([r.app, r.phase]);
    expect(reports.filter((r) => r.dryRun).map((r) => r.phase)).toEqual([undefined, undefined]);
  });

  it('Succeeded, Running while a prune waits for its confirmation, Error for a refusal, Failed over a shared resource', () => {
    const ok = { ...syncReports.syncInterrupted(), interrupted: undefined, failures: [], conflicts: [] };
    expect(syncReportPhase(ok)).toBe('Succeeded');
    expect(syncReportPhase({ ...ok, prune: { ...ok.prune, waiting: 'Waiting for pruning confirmation of v1/ConfigMap/a' } })).toBe('Running');
    expect(syncReportPhase({ ...ok, refused: 'project default: sync blocked' })).toBe('Error');
    expect(syncReportPhase({ ...ok, refused: 'Shared resource found: /ConfigMap/a is part of applications other' })).toBe('Failed');
  });
});
