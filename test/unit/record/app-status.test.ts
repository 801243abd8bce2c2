// The Application's recorded status, built from our reports: Argo CD's field shapes, history ids and cap, the controller check.
import {
  appendHistory,
  comparedStatus,
  controllerWrite,
  historyLimit,
  imagesOf,
  kubeTime,
  nextStatus,
  syncErrorsOf,
  withSyncError,
  type ComparedState,
  type SyncOperation,
} from '../../../src/record/app-status.js';
import { buildStatusReport } from '../../../src/health/report.js';
import { parseApplication } from '../../../src/app/application.js';
import type { KubeObject } from '../../../src/model/object.js';
import { application } from '../../support/application.js';

const SPEC = {
  source: { repoURL: 'https://git.example/shop.git', path: 'apps/shop', targetRevision: 'main' },
  destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
};
const APP = application({ resourceVersion: '5', spec: SPEC });

const cm = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data });

function compared(): ComparedState {
  const report = buildStatusReport({
    app: parseApplication(APP, 'test'),
    revision: 'abc123',
    sourceType: 'Directory',
    resources: [
      { key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'a' }, comparison: 'in-sync', live: cm('a', {}) },
      { key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'b' }, comparison: 'drifted', live: cm('b', {}), driftedFields: 1 },
      { key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'old' }, comparison: 'extra', live: cm('old', {}) },
    ],
    children: [],
  });
  return { report, versions: { '/ConfigMap/shop/a': 'v1', '/ConfigMap/shop/b': 'v1', '/ConfigMap/shop/old': 'v1' }, images: ['b:2', 'a:1'] };
}

const op = (over: Partial<SyncOperation> = {}): SyncOperation => ({
  initiatedBy: { username: 'alice' },
  startedAt: '2026-12-01T10:00:00.000Z',
  finishedAt: '2026-12-01T10:00:05.000Z',
  revision: 'abc123',
  prune: false,
  dryRun: false,
  phase: 'Succeeded',
  message: 'successfully synced (all tasks run)',
  resources: [
    { group: '', version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a', status: 'Synced', message: 'configmap/a applied', syncPhase: 'Sync' },
  ],
  partial: false,
  ...over,
});

describe('comparedStatus', () => {
  test('a wave other than 0 as syncWave; a live hook as Argo CD lists it (hook: true, requiresPruning: true, no status)', () => {
    const c = compared();
    const report = {
      ...c.report,
      hooks: [{ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'post', phases: ['PostSync'], result: 'Succeeded' as const }],
    };
    const s = comparedStatus(
      APP,
      { ...c, report, versions: { ...c.versions, '/ConfigMap/shop/post': 'v1' }, waves: { '/ConfigMap/shop/a': -1 } },
      '2026-12-01T10:00:00Z',
    );
    expect(s.resources).toEqual([
      { version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a', status: 'Synced', syncWave: -1 },
      { version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'b', status: 'OutOfSync' },
      { version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'old', status: 'OutOfSync', requiresPruning: true },
      { version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'post', hook: true, requiresPruning: true },
    ]);
  });

  test('sync, health, resources, summary and sourceType in Argo CD shape', () => {
    const s = comparedStatus(APP, compared(), '2026-12-01T10:00:00Z');
    expect(s.sync).toEqual({ status: 'OutOfSync', revision: 'abc123', comparedTo: { source: SPEC.source, destination: SPEC.destination } });
    expect(s.health).toEqual({ status: 'Healthy', lastTransitionTime: '2026-12-01T10:00:00Z' });
    expect(s.resources).toEqual([
      { version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'a', status: 'Synced' },
      { version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'b', status: 'OutOfSync' },
      { version: 'v1', kind: 'ConfigMap', namespace: 'shop', name: 'old', status: 'OutOfSync', requiresPruning: true },
    ]);
    expect(s.summary).toEqual({ images: ['a:1', 'b:2'] });
    expect(s.sourceType).toBe('Directory');
    expect(s.reconciledAt).toBe('2026-12-01T10:00:00Z');
    expect(s.conditions).toBeUndefined();
  });

  test('health keeps its lastTransitionTime while the status stays; a shared resource becomes a condition', () => {
    const app = { ...APP, status: { health: { status: 'Healthy', lastTransitionTime: '2026-01-01T00:00:00Z' } } };
    const s = comparedStatus(app, compared(), '2026-12-01T10:00:00Z', [
      'ConfigMap/a is part of applications shop and other (SharedResourceWarning)',
      'unrelated',
    ]);
    expect(s.health).toEqual({ status: 'Healthy', lastTransitionTime: '2026-01-01T00:00:00Z' });
    expect(s.conditions).toEqual([
      { type: 'SharedResourceWarning', message: 'ConfigMap/a is part of applications shop and other', lastTransitionTime: '2026-12-01T10:00:00Z' },
    ]);
  });
});

describe('nextStatus', () => {
  test('a sync adds operationState and one history entry; what the controller keeps beside is left', () => {
    const app = { ...APP, status: { controllerNamespace: 'argocd', history: [{ id: 4, revision: 'old', deployedAt: '2026-11-01T00:00:00Z' }] } };
    const s = nextStatus(app, { compared: compared(), sync: op(), now: '2026-12-01T10:00:06Z' });
    expect(s.controllerNamespace).toBe('argocd');
    expect(s.operationState).toMatchObject({
      phase: 'Succeeded',
      message: 'successfully synced (all tasks run)',
      operation: { sync: { revision: 'abc123' }, initiatedBy: { username: 'alice' } },
      syncResult: { revision: 'abc123', source: SPEC.source, resources: [{ kind: 'ConfigMap', name: 'a', status: 'Synced' }] },
      startedAt: '2026-12-01T10:00:00.000Z',
      finishedAt: '2026-12-01T10:00:05.000Z',
    });
    expect(s.history).toEqual([
      { id: 4, revision: 'old', deployedAt: '2026-11-01T00:00:00Z' },
      {
        id: 5,
        revision: 'abc123',
        deployedAt: '2026-12-01T10:00:05.000Z',
        deployStartedAt: '2026-12-01T10:00:00.000Z',
        source: SPEC.source,
        initiatedBy: { username: 'alice' },
      },
    ]);
    expect(app.status.history).toHaveLength(1);
  });

  test("a sync records spec.syncPolicy.managedNamespaceMetadata in its syncResult, as Argo CD's controller does", () => {
    const metadata = { labels: { team: 'shop' }, annotations: { owner: 'me' } };
    const app = {
      ...APP,
      spec: { ...SPEC, syncPolicy: { syncOptions: ['CreateNamespace=true'], managedNamespaceMetadata: metadata } },
    } as unknown as KubeObject;
    expect(nextStatus(app, { sync: op(), now: 'x' }).operationState).toMatchObject({ syncResult: { managedNamespaceMetadata: metadata } });
    expect((nextStatus(APP, { sync: op(), now: 'x' }).operationState as { syncResult: object }).syncResult).not.toHaveProperty('managedNamespaceMetadata');
  });

  test('a failed or partial sync records its operation but no history; spec.sources gives revisions and sources', () => {
    expect(nextStatus(APP, { sync: op({ phase: 'Failed', message: 'boom' }), now: 'x' }).history).toBeUndefined();
    expect(nextStatus(APP, { sync: op({ partial: true }), now: 'x' }).history).toBeUndefined();
    const multi = { ...APP, spec: { ...SPEC, source: undefined, sources: [{ repoURL: 'r', path: 'p' }] } } as unknown as KubeObject;
    const s = nextStatus(multi, { sync: op(), now: 'x' });
    expect(s.history).toEqual([expect.objectContaining({ id: 0, revisions: ['abc123'], sources: [{ repoURL: 'r', path: 'p' }] })]);
  });

  test('a sync whose prune waits for its confirmation stays Running, as Argo CD: no finishedAt, no SyncError, no history', () => {
    const message = 'Waiting for pruning confirmation of v1/ConfigMap/stale';
    const s = nextStatus(APP, { compared: compared(), sync: op({ phase: 'Running', message }), now: 't1' });
    const state = s.operationState as Record<string, unknown>;
    expect([state.phase, state.message, 'finishedAt' in state, s.history, s.conditions]).toEqual(['Running', message, false, undefined, undefined]);
  });

  test('a failed sync leaves a SyncError condition with its message, kept by later comparisons until a sync succeeds', () => {
    const failed = nextStatus(APP, { compared: compared(), sync: op({ phase: 'Failed', message: 'one or more objects failed to apply' }), now: 't1' });
    expect((failed.conditions as { type: string }[]).filter((c) => c.type === 'SyncError')).toEqual([
      { type: 'SyncError', message: 'one or more objects failed to apply', lastTransitionTime: 't1' },
    ]);
    const afterStatus = nextStatus({ ...APP, status: failed } as unknown as KubeObject, { compared: compared(), now: 't2' });
    expect(
      (afterStatus.conditions as { type: string; lastTransitionTime: string }[]).filter((c) => c.type === 'SyncError').map((c) => c.lastTransitionTime),
    ).toEqual(['t1']);
    const healed = nextStatus({ ...APP, status: afterStatus } as unknown as KubeObject, { compared: compared(), sync: op(), now: 't3' });
    expect(((healed.conditions ?? []) as { type: string }[]).some((c) => c.type === 'SyncError')).toBe(false);
  });

  test('a rollback records the source it synced, not spec.source', () => {
    const used = {
      source: { repoURL: 'https://git.example/shop.git', path: 'apps/shop', targetRevision: 'v1', helm: { parameters: [{ name: 'x', value: '1' }] } },
    };
    const s = nextStatus(APP, { sync: op(), syncedSource: used, now: 'x' });
    expect(s.history).toEqual([expect.objectContaining({ source: used.source })]);
  });
});

describe('multi-source revisions and operations that never ran', () => {
  const MULTI = {
    ...APP,
    spec: {
      ...SPEC,
      source: undefined,
      sources: [
        { repoURL: 'r', path: 'p' },
        { repoURL: 'v', ref: 'values' },
      ],
    },
  } as unknown as KubeObject;

  test('one revision per source in sync, operationState and the history entry', () => {
    const c = compared();
    const report = {
      ...c.report,
      sources: [
        { repoURL: 'r', path: 'p', revision: 'aaa' },
        { repoURL: 'v', ref: 'values', revision: 'bbb' },
      ],
    };
    const s = nextStatus(MULTI, { compared: { ...c, report }, sync: op({ revision: undefined, revisions: ['aaa', 'bbb'] }), now: 'x' });
    expect(s.sync).toMatchObject({ revisions: ['aaa', 'bbb'] });
    expect((s.sync as { revision?: string }).revision).toBeUndefined();
    expect(s.operationState).toMatchObject({
      operation: { sync: { revisions: ['aaa', 'bbb'] } },
      syncResult: { revisions: ['aaa', 'bbb'], sources: [{ repoURL: 'r' }, { repoURL: 'v' }] },
    });
    expect(s.history).toEqual([
      expect.objectContaining({
        id: 0,
        revisions: ['aaa', 'bbb'],
        sources: [
          { repoURL: 'r', path: 'p' },
          { repoURL: 'v', ref: 'values' },
        ],
      }),
    ]);
  });

  test('an operation in phase Error: its message, no resources, a SyncError condition, no history; the comparison left as stored', () => {
    const stored = { ...APP, status: { sync: { status: 'Synced', revision: 'old' }, history: [{ id: 0, revision: 'old', deployedAt: 't' }] } };
    const s = nextStatus(stored, { sync: op({ phase: 'Error', message: 'rendering apps/shop: no such file', resources: [] }), now: 't2' });
    expect(s.operationState).toMatchObject({
      phase: 'Error',
      message: 'rendering apps/shop: no such file',
      syncResult: { revision: 'abc123', source: SPEC.source },
    });
    expect((s.operationState as { syncResult: object }).syncResult).not.toHaveProperty('resources');
    expect(s.conditions).toEqual([{ type: 'SyncError', message: 'rendering apps/shop: no such file', lastTransitionTime: 't2' }]);
    expect(s.sync).toEqual({ status: 'Synced', revision: 'old' });
    expect(s.history).toEqual(stored.status.history);
  });
});

describe('history', () => {
  test('ids go on from the last entry; the newest `limit` are kept', () => {
    let h = appendHistory([], { deployedAt: 't0' }, 3);
    for (let i = 1; i < 5; i++) h = appendHistory(h, { deployedAt: `t${i}` }, 3);
    expect(h.map((e) => e.id)).toEqual([2, 3, 4]);
  });

  test('revisionHistoryLimit, default 10; 0 or less is kept as written', () => {
    expect(historyLimit(APP)).toBe(10);
    expect(historyLimit({ ...APP, spec: { ...SPEC, revisionHistoryLimit: 2 } })).toBe(2);
    expect(historyLimit({ ...APP, spec: { ...SPEC, revisionHistoryLimit: 0 } })).toBe(0);
    expect(historyLimit({ ...APP, spec: { ...SPEC, revisionHistoryLimit: -3 } })).toBe(-3);
  });

  test('a limit of 0 or less keeps no entry, so ids start again from 0 (RevisionHistories.Trunc)', () => {
    let h = appendHistory([], { deployedAt: 't0' }, 3);
    h = appendHistory(h, { deployedAt: 't1' }, 3);
    expect(appendHistory(h, { deployedAt: 't2' }, 0)).toEqual([]);
    expect(appendHistory(h, { deployedAt: 't2' }, -1)).toEqual([]);
    // After the limit went back up: 0, 1 again, as Argo CD's persistRevisionHistory numbers an empty history.
    let again = appendHistory([], { deployedAt: 't3' }, 2);
    again = appendHistory(again, { deployedAt: 't4' }, 2);
    expect(again.map((e) => e.id)).toEqual([0, 1]);
  });
});

describe('controllerWrite', () => {
  const at = (manager: string, time: string): KubeObject => ({
    ...APP,
    metadata: { ...APP.metadata, managedFields: [{ manager, operation: 'Update', time }] },
  });
  const now = Date.parse('2026-12-01T10:00:00Z');
  test("Argo CD's controller within ten minutes keeps the Application; older or other managers do not", () => {
    expect(controllerWrite(at('argocd-application-controller', '2026-12-01T09:55:00Z'), now)).toEqual({
      manager: 'argocd-application-controller',
      time: '2026-12-01T09:55:00Z',
    });
    expect(controllerWrite(at('argocd-application-controller', '2026-12-01T09:40:00Z'), now)).toBeUndefined();
    expect(controllerWrite(at('kubectl-gitops', '2026-12-01T09:59:00Z'), now)).toBeUndefined();
  });
});

test('imagesOf: pods, pod templates and CronJob templates', () => {
  const tpl = { spec: { initContainers: [{ name: 'i', image: 'init:1' }], containers: [{ name: 'c', image: 'app:1' }] } };
  expect(imagesOf({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: {}, spec: { template: tpl } })).toEqual(['init:1', 'app:1']);
  expect(imagesOf({ apiVersion: 'v1', kind: 'Pod', metadata: {}, spec: tpl.spec })).toEqual(['init:1', 'app:1']);
  expect(imagesOf({ apiVersion: 'batch/v1', kind: 'CronJob', metadata: {}, spec: { jobTemplate: { spec: { template: tpl } } } })).toEqual(['init:1', 'app:1']);
});

test('kubeTime: RFC 3339 to the second, as Kubernetes writes a metav1.Time', () => {
  expect(kubeTime(Date.parse('2026-12-01T10:00:05.911Z'))).toBe('2026-12-01T10:00:05Z');
  expect(kubeTime(Date.parse('2026-12-01T10:00:05Z'))).toBe('2026-12-01T10:00:05Z');
});

test("the operation's syncOptions: the run's own, else the Application's (as Argo CD's API server and controller copy them); prune only when true", () => {
  const app = application({ resourceVersion: '5', spec: { ...SPEC, syncPolicy: { syncOptions: ['ServerSideApply=true'] } } });
  const copied = nextStatus(app, { sync: op(), now: '2026-12-01T10:00:06Z' }).operationState as { operation: { sync: Record<string, unknown> } };
  expect(copied.operation.sync).toEqual({ revision: 'abc123', source: SPEC.source, syncOptions: ['ServerSideApply=true'] });
  const own = nextStatus(app, { sync: op({ syncOptions: ['Replace=true'], prune: true }), now: '2026-12-01T10:00:06Z' }).operationState as {
    operation: { sync: Record<string, unknown> };
  };
  expect(own.operation.sync).toEqual({ revision: 'abc123', source: SPEC.source, prune: true, syncOptions: ['Replace=true'] });
  const none = nextStatus(APP, { sync: op(), now: '2026-12-01T10:00:06Z' }).operationState as { operation: { sync: Record<string, unknown> } };
  expect(none.operation.sync).toEqual({ revision: 'abc123', source: SPEC.source });
});

test("the operation names the source it syncs, whoever asked (the API server's Sync and Rollback, the controller's autoSync)", () => {
  const asked = nextStatus(APP, { sync: op(), now: '2026-12-01T10:00:06Z' }).operationState as { operation: { sync: Record<string, unknown> } };
  expect(asked.operation.sync.source).toEqual(SPEC.source);
  const automated = nextStatus(APP, { sync: op({ initiatedBy: { automated: true } }), now: '2026-12-01T10:00:06Z' }).operationState as {
    operation: { sync: Record<string, unknown> };
  };
  expect(automated.operation.sync).toEqual({ revision: 'abc123', source: SPEC.source });
  // A rollback: the history entry's source, and Argo CD's apply strategy.
  const old = { repoURL: 'https://git.example/shop.git', path: 'apps/old', targetRevision: 'v1' };
  const rolledBack = nextStatus(APP, { sync: op({ syncStrategy: { apply: {} } }), syncedSource: { source: old }, now: '2026-12-01T10:00:06Z' })
    .operationState as {
    operation: { sync: Record<string, unknown> };
  };
  expect(rolledBack.operation.sync).toEqual({ revision: 'abc123', source: old, syncStrategy: { apply: {} } });
});

describe("the automated loop's SyncError condition and self-heal count", () => {
  const NOW = '2026-12-01T11:00:00Z';
  const withConditions = (conditions: unknown[]): KubeObject => ({ ...APP, status: { sync: { status: 'OutOfSync' }, conditions } }) as KubeObject;
  const failed = 'Failed last sync attempt to [abc123]: one or more objects failed to apply';

  test('sets SyncError as Argo CD sets it, keeping the other conditions; the same message already there: nothing to write', () => {
    const shared = { type: 'SharedResourceWarning', message: 'ConfigMap/x is also part of another', lastTransitionTime: '2026-12-01T09:00:00Z' };
    const set = withSyncError(withConditions([shared]), failed, NOW);
    expect(set).toEqual({ sync: { status: 'OutOfSync' }, conditions: [shared, { type: 'SyncError', message: failed, lastTransitionTime: NOW }] });
    expect(withSyncError({ ...APP, status: set! } as KubeObject, failed, '2026-12-01T12:00:00Z')).toBeUndefined();
    expect(withSyncError(APP, failed, NOW)).toEqual({ conditions: [{ type: 'SyncError', message: failed, lastTransitionTime: NOW }] });
  });

  test("replaces a SyncError of another message (the failed operation's own) and clears it when autoSync has none", () => {
    const own = { type: 'SyncError', message: 'one or more objects failed to apply', lastTransitionTime: '2026-12-01T10:00:05Z' };
    const other = { type: 'ComparisonError', message: 'boom', lastTransitionTime: '2026-12-01T09:00:00Z' };
    expect(withSyncError(withConditions([own, other]), failed, NOW)?.conditions).toEqual([
      other,
      { type: 'SyncError', message: failed, lastTransitionTime: NOW },
    ]);
    expect(withSyncError(withConditions([own, other]), undefined, NOW)?.conditions).toEqual([other]);
    expect(withSyncError(withConditions([own]), undefined, NOW)).toEqual({ sync: { status: 'OutOfSync' } });
    expect(withSyncError(withConditions([other]), undefined, NOW)).toBeUndefined();
    expect(syncErrorsOf(withConditions([own, other]))).toEqual(['one or more objects failed to apply']);
  });

  test('a self-heal records operation.sync.autoHealAttemptsCount (Go: SelfHealAttemptsCount, omitempty)', () => {
    const healed = nextStatus(APP, { sync: op({ initiatedBy: { automated: true }, selfHealAttemptsCount: 3 }), now: NOW });
    expect((healed.operationState as { operation: { sync: Record<string, unknown> } }).operation.sync.autoHealAttemptsCount).toBe(3);
    const synced = nextStatus(APP, { sync: op({ initiatedBy: { automated: true } }), now: NOW });
    expect((synced.operationState as { operation: { sync: Record<string, unknown> } }).operation.sync).not.toHaveProperty('autoHealAttemptsCount');
  });
});
