// What an update of the Application object asks of its loop (watch/app-change.ts), as Argo CD's controller reads an
// update of its Application informer.
import { appChangeOf, recordedOperationOf, specSourceOf, type AppSeen } from '../../../src/watch/app-change.js';
import type { JsonObject, KubeObject } from '../../../src/model/object.js';
import { nextStatus, type SyncOperation } from '../../../src/record/app-status.js';
import { decide, emptyMemory, withRecorded } from '../../../src/watch/decide.js';

const app = (spec: JsonObject, meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'shop', namespace: 'argocd', ...meta },
  spec,
});
const spec = { source: { repoURL: 'https://git.example/r.git', path: 'shop', targetRevision: 'main' } };

describe('appChangeOf', () => {
  it('the first sight remembers only; an update of the status alone (what the loop records) asks for nothing', () => {
    const first = appChangeOf(undefined, app(spec));
    expect(first).toEqual({ seen: { spec: JSON.stringify(spec), deleting: false }, wake: false });
    const recorded = { ...app(spec, { resourceVersion: '9' }), status: { sync: { status: 'Synced' } } };
    expect(appChangeOf(first.seen, recorded).wake).toBe(false);
  });

  it('a changed spec or a deletion begun is looked at now', () => {
    const seen: AppSeen = { spec: JSON.stringify(spec), deleting: false };
    expect(appChangeOf(seen, app({ ...spec, source: { ...spec.source, targetRevision: 'v2' } }))).toMatchObject({
      wake: true,
      why: 'the Application spec changed',
    });
    expect(appChangeOf(seen, app(spec, { deletionTimestamp: '2026-12-06T00:00:00Z' }))).toMatchObject({ wake: true, why: 'the Application is being deleted' });
    expect(appChangeOf({ ...seen, deleting: true }, app(spec, { deletionTimestamp: '2026-12-06T00:00:00Z' })).wake).toBe(false);
  });

  it('the refresh annotation: hard, or any other value a normal refresh (as Argo CD reads it), served once per value, even on the first sight', () => {
    const asked = (value: string) => app(spec, { annotations: { 'argocd.argoproj.io/refresh': value } });
    const hard = appChangeOf(undefined, asked('hard'));
    expect(hard).toMatchObject({ wake: true, refresh: 'hard', why: 'argocd.argoproj.io/refresh=hard' });
    expect(appChangeOf({ spec: JSON.stringify(spec), deleting: false }, asked('yes'))).toMatchObject({ wake: true, refresh: 'normal' });
    // The loop's own status writes carry it until it is removed: not asked again.
    expect(appChangeOf(hard.seen, { ...asked('hard'), status: { reconciledAt: 'now' } })).toEqual({ seen: hard.seen, wake: false });
    // Removed, then asked again: a new request.
    const removed = appChangeOf(hard.seen, app(spec));
    expect(removed.wake).toBe(false);
    expect(appChangeOf(removed.seen, asked('hard'))).toMatchObject({ wake: true, refresh: 'hard' });
  });
});

describe('what the loop decides from in the Application', () => {
  it("Argo CD's skip-reconcile annotation is not the loop's business: setting it neither wakes nor stops the loop (it is how an app is left to this loop beside Argo CD's controller)", () => {
    const first = appChangeOf(undefined, app(spec));
    expect(appChangeOf(first.seen, app(spec, { annotations: { 'argocd.argoproj.io/skip-reconcile': 'true' } })).wake).toBe(false);
  });

  it("reads status.operationState: revision(s), source(s), phase, message, times, and Go's SelfHealAttemptsCount as stored (autoHealAttemptsCount)", () => {
    const source = { repoURL: 'https://git.example/r.git', path: 'shop', targetRevision: 'main' };
    const o: KubeObject = {
      ...app({ source }),
      status: {
        operationState: {
          operation: { sync: { revision: 'abc', autoHealAttemptsCount: 3 } },
          phase: 'Failed',
          message: 'one or more objects failed to apply',
          startedAt: '2024-01-01T00:00:00Z',
          finishedAt: '2024-01-01T00:00:05Z',
          syncResult: { revision: 'abc', source },
        },
      },
    };
    expect(recordedOperationOf(o)).toEqual({
      revisions: ['abc'],
      source: specSourceOf(o),
      hasResult: true,
      phase: 'Failed',
      message: 'one or more objects failed to apply',
      startedAt: Date.parse('2024-01-01T00:00:00Z'),
      finishedAt: Date.parse('2024-01-01T00:00:05Z'),
      selfHealAttempts: 3,
    });
    const moved = { ...o, spec: { source: { ...source, path: 'shop-v2' } } };
    expect(specSourceOf(moved)).not.toBe(recordedOperationOf(moved)?.source);
    expect(recordedOperationOf(app(spec))).toBeUndefined();
  });

  it('several sources: syncResult.revisions and sources', () => {
    const sources: JsonObject[] = [
      { repoURL: 'a', path: 'x' },
      { repoURL: 'b', ref: 'v' },
    ];
    const o: KubeObject = {
      ...app({ sources }),
      status: { operationState: { phase: 'Succeeded', startedAt: '2024-01-01T00:00:00Z', syncResult: { revisions: ['1', '2'], sources } } },
    };
    expect(recordedOperationOf(o)).toMatchObject({ revisions: ['1', '2'], source: specSourceOf(o), phase: 'Succeeded' });
  });

  it('reads back the self-heal count the loop records (nextStatus), so the back-off survives a restart; a field of another name is not it', () => {
    const source = { repoURL: 'https://git.example/r.git', path: 'shop', targetRevision: 'main' };
    const base = app({ source });
    const heal: SyncOperation = {
      initiatedBy: { automated: true },
      startedAt: '2024-01-01T00:00:10Z',
      finishedAt: '2024-01-01T00:00:11Z',
      revision: 'abc',
      prune: false,
      dryRun: false,
      phase: 'Succeeded',
      message: 'successfully synced (all tasks run)',
      resources: [],
      partial: false,
      selfHealAttemptsCount: 2,
    };
    const written: KubeObject = { ...base, status: nextStatus(base, { sync: heal, now: '2024-01-01T00:00:11Z' }) };
    expect(recordedOperationOf(written)?.selfHealAttempts).toBe(2);
    // A restarted loop (empty memory) decides from it: the third heal waits 6 s after the second, not 0 s.
    const memory = withRecorded(emptyMemory(), recordedOperationOf(written));
    const d = decide(
      { now: Date.parse('2024-01-01T00:00:12Z'), revision: 'abc', desiredCount: 1, outOfSync: ['A'], extras: [], source: specSourceOf(written)! },
      memory,
      { selfHeal: true, prune: true },
    );
    expect(d).toMatchObject({ reason: 'none', nextWakeAt: Date.parse('2024-01-01T00:00:17Z') });
    const other: KubeObject = {
      ...base,
      status: { operationState: { operation: { sync: { revision: 'abc', selfHealAttemptsCount: 2 } }, phase: 'Succeeded', startedAt: '2024-01-01T00:00:10Z' } },
    };
    expect(recordedOperationOf(other)).not.toHaveProperty('selfHealAttempts');
  });
});
