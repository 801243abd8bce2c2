import { flagTiming, pollDelay, reconnectDelay, selfHealDelay } from '../../../src/watch/backoff.js';
import {
  decide,
  emptyMemory,
  remember,
  REVISION_KEY,
  sourceFingerprint,
  withRecorded,
  type LastOperation,
  type LoopMemory,
  type LoopPolicy,
  type Observation,
} from '../../../src/watch/decide.js';

const both: LoopPolicy = { selfHeal: true, prune: true };
const none: LoopPolicy = { selfHeal: false, prune: false };

function obs(over: Partial<Observation> = {}): Observation {
  return { now: 0, revision: 'rev1', desiredCount: 2, outOfSync: [], extras: [], ...over };
}

/** Runs one step with a successful (or failing) outcome and returns the decision and the new memory. */
function step(memory: LoopMemory, o: Observation, policy: LoopPolicy, failed: string[] = []) {
  const d = decide(o, memory, policy);
  const acted = d.apply.length + d.prune.length > 0 || d.reason === 'initial' || d.reason === 'new-revision';
  return { d, memory: remember(memory, o, d, acted ? { finishedAt: o.now, failed } : undefined) };
}

describe('back-off arithmetic', () => {
  it('self-heal follows Argo CD: 0, 2, 6, 18, 54, 162 s, then capped at 300 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((n) => selfHealDelay(n) / 1000)).toEqual([0, 2, 6, 18, 54, 162, 300, 300]);
  });
  it('reconnect doubles from 0.5 s to a 30 s cap with ±20 % jitter', () => {
    expect(reconnectDelay(0, 0.5)).toBe(500);
    expect(reconnectDelay(3, 0.5)).toBe(4000);
    expect(reconnectDelay(20, 0.5)).toBe(30_000);
    expect(reconnectDelay(0, 0)).toBe(400);
    expect(reconnectDelay(0, 0.999999)).toBeLessThanOrEqual(600);
  });
  it("--interval's poll jitter adds at most 10 % of the interval, and never more than 60 s", () => {
    expect(pollDelay(flagTiming(2000), 0)).toBe(2000);
    expect(pollDelay(flagTiming(2000), 0.999)).toBe(2200);
    expect(pollDelay(flagTiming(3_600_000), 0.999)).toBe(3_659_940);
  });
  it("argocd-cm's timing adds up to its jitter; a timeout of 0 never polls", () => {
    expect(pollDelay({ intervalMs: 120_000, jitterMs: 60_000 }, 0.5)).toBe(150_000);
    expect(pollDelay({ intervalMs: 180_000, jitterMs: 0 }, 0.9)).toBe(180_000);
    expect(pollDelay({ intervalMs: 0, jitterMs: 60_000 }, 0.5)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('decide and remember', () => {
  it('syncs the first revision it sees, applying what is out of sync and pruning extras when prune is on', () => {
    const d = decide(obs({ outOfSync: ['Deployment/orders'], extras: ['ConfigMap/old'] }), emptyMemory(), both);
    expect(d).toMatchObject({ reason: 'initial', apply: ['Deployment/orders'], prune: ['ConfigMap/old'], report: [] });
  });

  it('without prune, a new revision applies but only reports extras', () => {
    const d = decide(obs({ outOfSync: ['Deployment/orders'], extras: ['ConfigMap/old'] }), emptyMemory(), none);
    expect(d).toMatchObject({ reason: 'initial', apply: ['Deployment/orders'], prune: [], report: ['ConfigMap/old'] });
  });

  it('a new commit is synced even without selfHeal; live drift at the same commit is only reported', () => {
    let m = step(emptyMemory(), obs({ outOfSync: ['A'] }), none).memory;
    expect(m.last).toMatchObject({ revisions: ['rev1'], phase: 'Succeeded' });
    const drift = step(m, obs({ now: 1000, outOfSync: ['A'] }), none);
    expect(drift.d).toMatchObject({ reason: 'none', apply: [], report: ['A'] });
    m = drift.memory;
    expect(step(m, obs({ now: 2000, revision: 'rev2', outOfSync: ['A'] }), none).d).toMatchObject({ reason: 'new-revision', apply: ['A'] });
  });

  it('never prunes on an empty render, and says why', () => {
    const d = decide(obs({ desiredCount: 0, extras: ['ConfigMap/a', 'Deployment/b'] }), emptyMemory(), both);
    expect(d.prune).toEqual([]);
    expect(d.pruneRefused).toMatch(/empty/);
    const m = step(emptyMemory(), obs({ outOfSync: ['A'] }), both).memory;
    const same = decide(obs({ desiredCount: 0, extras: ['ConfigMap/a'] }), m, both);
    expect(same.prune).toEqual([]);
    expect(same.pruneRefused).toMatch(/empty/);
    expect(decide(obs({ revision: 'rev2', desiredCount: 0, extras: ['ConfigMap/a'] }), m, both)).toMatchObject({ reason: 'none', prune: [] });
  });

  it('an empty render with prune on and allowEmpty off: Argo CD\'s SyncError "Skipping sync attempt to [<revs>]: auto-sync will wipe out all resources"', () => {
    const extras = ['ConfigMap/a', 'Deployment/b'];
    expect(decide(obs({ desiredCount: 0, extras }), emptyMemory(), both)).toMatchObject({
      reason: 'none',
      prune: [],
      syncError: 'Skipping sync attempt to [rev1]: auto-sync will wipe out all resources',
    });
    // Several sources: their revisions, as Go prints a []string.
    expect(decide(obs({ desiredCount: 0, extras, revisions: ['a1', 'b2'] }), emptyMemory(), both).syncError).toBe(
      'Skipping sync attempt to [a1 b2]: auto-sync will wipe out all resources',
    );
    // A self-heal due at the same revision says it too; one held back by its back-off, or selfHeal off, says nothing.
    const m = step(emptyMemory(), obs({ now: 0, outOfSync: ['A'] }), both).memory;
    expect(decide(obs({ now: 1000, desiredCount: 0, extras }), m, both).syncError).toBe(
      'Skipping sync attempt to [rev1]: auto-sync will wipe out all resources',
    );
    const healed = step(m, obs({ now: 1000, outOfSync: ['A'] }), both).memory;
    expect(decide(obs({ now: 1500, desiredCount: 0, extras }), healed, both).syncError).toBeUndefined();
    expect(decide(obs({ now: 1000, desiredCount: 0, extras }), m, { selfHeal: false, prune: true }).syncError).toBeUndefined();
    // allowEmpty: pruned, no condition; prune off: "need to prune extra resources only", no condition either.
    expect(decide(obs({ desiredCount: 0, extras }), emptyMemory(), { ...both, allowEmpty: true })).toMatchObject({ prune: extras });
    expect(decide(obs({ desiredCount: 0, extras }), emptyMemory(), { ...both, allowEmpty: true }).syncError).toBeUndefined();
    expect(decide(obs({ desiredCount: 0, extras }), emptyMemory(), { selfHeal: true, prune: false }).syncError).toBeUndefined();
  });

  it('heals the same drift with a growing back-off: at once, then 2 s, then 6 s after the last heal', () => {
    let m = step(emptyMemory(), obs({ outOfSync: ['X'] }), both).memory;
    const seen: string[] = [];
    const times = [10_000, 10_500, 12_000, 12_100, 17_999, 18_000, 36_000];
    for (const now of times) {
      const r = step(m, obs({ now, outOfSync: ['Deployment/orders'] }), both);
      seen.push(r.d.apply.length > 0 ? `heal@${now}` : `wait@${now}->${r.d.nextWakeAt}`);
      m = r.memory;
    }
    expect(seen).toEqual(['heal@10000', 'wait@10500->12000', 'heal@12000', 'wait@12100->18000', 'wait@17999->18000', 'heal@18000', 'heal@36000']);
    expect(m.last?.selfHealAttempts).toBe(4);
  });

  it("keeps the self-heal back-off per Application, as Argo CD's selfHealAttemptsCount: a heal of one object delays the next heal of another", () => {
    let m = step(emptyMemory(), obs({ outOfSync: ['X'] }), both).memory;
    m = step(m, obs({ now: 1000, outOfSync: ['A'] }), both).memory;
    const d = decide(obs({ now: 1500, outOfSync: ['A', 'B'] }), m, both);
    expect(d.apply).toEqual([]);
    expect(d.waiting).toEqual([
      { key: 'A', until: 3000 },
      { key: 'B', until: 3000 },
    ]);
    expect(decide(obs({ now: 3000, outOfSync: ['A', 'B'] }), m, both)).toMatchObject({ reason: 'self-heal', apply: ['A', 'B'], selfHealAttempts: 2 });
  });

  it('starts the self-heal count again on a new revision, and once the app stayed synced for the cooldown (330 s)', () => {
    let m = step(emptyMemory(), obs({ outOfSync: ['X'] }), both).memory;
    for (const now of [1000, 3000, 9000]) m = step(m, obs({ now, outOfSync: ['A'] }), both).memory;
    expect(m.last?.selfHealAttempts).toBe(3);
    const fresh = step(m, obs({ now: 9100, revision: 'rev2', outOfSync: ['A'] }), both);
    expect(fresh.d.reason).toBe('new-revision');
    expect(fresh.memory.last?.selfHealAttempts).toBe(0);
    expect(decide(obs({ now: 9000 + 329_999, outOfSync: ['A'] }), m, both).apply).toEqual(['A']); // 18 s had passed anyway
    expect(decide(obs({ now: 9000 + 10_000, outOfSync: ['A'] }), m, both).apply).toEqual([]);
    expect(decide(obs({ now: 9000 + 330_000, outOfSync: ['A'] }), m, both)).toMatchObject({ apply: ['A'], selfHealAttempts: 1 });
  });

  it('at the same revision, prunes extras only with both selfHeal and prune', () => {
    const m = step(emptyMemory(), obs({ outOfSync: ['X'] }), both).memory;
    expect(decide(obs({ now: 5, extras: ['ConfigMap/x'] }), m, both).prune).toEqual(['ConfigMap/x']);
    expect(decide(obs({ now: 5, extras: ['ConfigMap/x'] }), m, { selfHeal: false, prune: true })).toMatchObject({ prune: [], report: ['ConfigMap/x'] });
    expect(decide(obs({ now: 5, extras: ['ConfigMap/x'] }), m, { selfHeal: true, prune: false })).toMatchObject({ prune: [], report: ['ConfigMap/x'] });
  });

  it("does not sync a revision again once its operation failed (its retries are the operation's own): Argo CD's SyncError instead", () => {
    const r = step(emptyMemory(), obs({ now: 0, outOfSync: ['A'] }), both, ['A']);
    expect(r.memory.last).toMatchObject({ revisions: ['rev1'], phase: 'Failed' });
    for (const now of [2000, 60_000, 3_600_000]) {
      const later = decide(obs({ now, outOfSync: ['A'] }), r.memory, both);
      expect(later).toMatchObject({ reason: 'none', apply: [], prune: [], waiting: [] });
      expect(later.syncError).toBe('Failed last sync attempt to [rev1]: one or more objects failed to apply');
    }
    // Nor healed at the same revision (selfHeal on), but a new revision is synced.
    expect(decide(obs({ now: 10, outOfSync: ['A'] }), r.memory, both).reason).toBe('none');
    expect(decide(obs({ now: 10, revision: 'rev2', outOfSync: ['A'] }), r.memory, both)).toMatchObject({ reason: 'new-revision', apply: ['A'] });
  });

  it('a changed source at the same commit is a new sync (full), not a self-heal, even with selfHeal off', () => {
    const m = step(emptyMemory(), obs({ outOfSync: ['A'], source: 'path: a' }), none).memory;
    expect(decide(obs({ now: 5, outOfSync: ['A'], source: 'path: a' }), m, none)).toMatchObject({ reason: 'none', report: ['A'] });
    expect(decide(obs({ now: 5, outOfSync: ['A'], source: 'path: b' }), m, none)).toMatchObject({ reason: 'new-revision', apply: ['A'] });
  });

  it('decides from the recorded operation after a restart: same revision and source, selfHeal off, nothing is pruned or reverted', () => {
    const recorded: LastOperation = { revisions: ['rev1'], source: 'S', hasResult: true, phase: 'Succeeded', message: 'ok', startedAt: 0, finishedAt: 1000 };
    const m = withRecorded(emptyMemory(), recorded);
    const d = decide(obs({ now: 5000, outOfSync: ['A'], extras: ['ConfigMap/handmade'], source: 'S' }), m, { selfHeal: false, prune: true });
    expect(d).toMatchObject({ reason: 'none', apply: [], prune: [], report: ['A', 'ConfigMap/handmade'] });
    // Recorded Failed at the same revision: Argo CD's message, with its revisions as Go prints a []string.
    const failed = withRecorded(emptyMemory(), { ...recorded, revisions: ['a1', 'b2'], phase: 'Failed', message: 'one or more objects failed to apply' });
    expect(decide(obs({ now: 5000, outOfSync: ['A'], revisions: ['a1', 'b2'], source: 'S' }), failed, both).syncError).toBe(
      'Failed last sync attempt to [a1 b2]: one or more objects failed to apply',
    );
  });

  it("prefers the loop's own operation to an older record (a cache that has not seen its record yet), and a newer record to its own", () => {
    const own = step(emptyMemory(), obs({ now: 10_500, outOfSync: ['A'] }), both).memory;
    const older: LastOperation = { revisions: ['rev0'], hasResult: true, phase: 'Failed', message: 'old', startedAt: 5000, finishedAt: 6000 };
    expect(withRecorded(own, older)).toBe(own);
    const same = withRecorded(own, { revisions: ['rev1'], hasResult: true, phase: 'Succeeded', message: 'ok', startedAt: 10_000, finishedAt: 11_000 });
    expect(same.last).toMatchObject({ startedAt: 10_000, selfHealAttempts: 0 });
    const manual = withRecorded(own, { ...older, revisions: ['rev1'], startedAt: 20_000, finishedAt: 21_000, selfHealAttempts: 4 });
    expect(manual.last).toMatchObject({ phase: 'Failed', selfHealAttempts: 4 });
  });

  it('an operation without a result counts as attempted once it completed, whatever the revision (alreadyAttemptedSync)', () => {
    const m = withRecorded(emptyMemory(), { revisions: [], hasResult: false, phase: 'Error', message: 'boom', startedAt: 0, finishedAt: 0 });
    expect(decide(obs({ now: 1, revision: 'rev9', outOfSync: ['A'] }), m, both).syncError).toBe('Failed last sync attempt to []: boom');
  });

  it('takes an unfinished operation (a prune waiting for its confirmation) up again on the back-off', () => {
    const r = step(emptyMemory(), obs({ now: 0, extras: ['ConfigMap/x'], outOfSync: ['A'] }), both);
    const running = { ...r.memory, last: { ...r.memory.last!, phase: 'Running' } };
    expect(decide(obs({ now: 1000, extras: ['ConfigMap/x'] }), running, both).waiting).toEqual([{ key: REVISION_KEY, until: 2000 }]);
    expect(decide(obs({ now: 2000, extras: ['ConfigMap/x'] }), running, both)).toMatchObject({ reason: 'new-revision', prune: ['ConfigMap/x'] });
    // Its render now empty: nothing pruned, and no SyncError while it is in progress (autoSync returns none then).
    const empty = decide(obs({ now: 2000, desiredCount: 0, extras: ['ConfigMap/x'] }), running, both);
    expect(empty).toMatchObject({ prune: [], pruneRefused: expect.stringMatching(/empty/) });
    expect(empty.syncError).toBeUndefined();
  });

  it('fingerprints reported drift so that the same drift is reported once', () => {
    let r = step(step(emptyMemory(), obs({ outOfSync: ['X'] }), none).memory, obs({ now: 1, outOfSync: ['B', 'A'] }), none);
    expect(r.memory.reported).toBe('A\nB');
    r = step(r.memory, obs({ now: 2 }), none);
    expect(r.memory.reported).toBeUndefined();
  });

  it('fingerprints sources as Go compares them: empty and false fields do not count, key order does not either', () => {
    expect(sourceFingerprint({ repoURL: 'r', path: 'p', directory: { recurse: false }, helm: { valueFiles: [] } })).toBe(
      sourceFingerprint({ path: 'p', repoURL: 'r' }),
    );
    expect(sourceFingerprint({ repoURL: 'r', path: 'p' })).not.toBe(sourceFingerprint({ repoURL: 'r', path: 'q' }));
  });

  it('never mutates the memory it is given', () => {
    const m = step(emptyMemory(), obs({ outOfSync: ['X'] }), both).memory;
    const frozen = JSON.stringify(m);
    step(m, obs({ now: 1000, outOfSync: ['A'] }), both);
    step(m, obs({ now: 1000, revision: 'rev2' }), both, ['A']);
    expect(JSON.stringify(m)).toBe(frozen);
  });
});
