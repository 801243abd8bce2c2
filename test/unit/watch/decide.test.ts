import { flagTiming, pollDelay, reconnectDelay, selfHealDelay } from '../../../src/watch/backoff.js';
import { decide, emptyMemory, remember, REVISION_KEY, type LoopMemory, type LoopPolicy, type Observation } from '../../../src/watch/decide.js';

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
    expect(m.syncedRevision).toBe('rev1');
    const drift = step(m, obs({ now: 1000, outOfSync: ['A'] }), none);
    expect(drift.d).toMatchObject({ reason: 'none', apply: [], report: ['A'] });
    m = drift.memory;
    expect(step(m, obs({ now: 2000, revision: 'rev2', outOfSync: ['A'] }), none).d).toMatchObject({ reason: 'new-revision', apply: ['A'] });
  });

  it('never prunes on an empty render, and says why', () => {
    const d = decide(obs({ desiredCount: 0, extras: ['ConfigMap/a', 'Deployment/b'] }), emptyMemory(), both);
    expect(d.prune).toEqual([]);
    expect(d.pruneRefused).toMatch(/empty/);
    let m = step(emptyMemory(), obs(), both).memory;
    const same = decide(obs({ desiredCount: 0, extras: ['ConfigMap/a'] }), m, both);
    expect(same.prune).toEqual([]);
    expect(same.pruneRefused).toMatch(/empty/);
    m = step(m, obs({ revision: 'rev2', desiredCount: 0, extras: ['ConfigMap/a'] }), both).memory;
    expect(m.syncedRevision).toBe('rev2');
  });

  it('prunes on an empty render when automated.allowEmpty says so, as Argo CD autoSync does', () => {
    const d = decide(obs({ desiredCount: 0, extras: ['ConfigMap/a'] }), emptyMemory(), { ...both, allowEmpty: true });
    expect([d.prune, d.pruneRefused]).toEqual([['ConfigMap/a'], undefined]);
  });

  it('heals the same drift with a growing back-off: at once, then 2 s, then 6 s after the last heal', () => {
    let m = step(emptyMemory(), obs(), both).memory;
    const seen: string[] = [];
    const times = [10_000, 10_500, 12_000, 12_100, 17_999, 18_000, 36_000];
    for (const now of times) {
      const r = step(m, obs({ now, outOfSync: ['Deployment/orders'] }), both);
      seen.push(r.d.apply.length > 0 ? `heal@${now}` : `wait@${now}->${r.d.nextWakeAt}`);
      m = r.memory;
    }
    expect(seen).toEqual(['heal@10000', 'wait@10500->12000', 'heal@12000', 'wait@12100->18000', 'wait@17999->18000', 'heal@18000', 'heal@36000']);
    expect(m.heals['Deployment/orders']?.attempts).toBe(4);
  });

  it('keeps back-off per object: one fighting object does not delay healing another', () => {
    let m = step(emptyMemory(), obs(), both).memory;
    m = step(m, obs({ now: 1000, outOfSync: ['A'] }), both).memory;
    const d = decide(obs({ now: 1500, outOfSync: ['A', 'B'] }), m, both);
    expect(d.apply).toEqual(['B']);
    expect(d.waiting).toEqual([{ key: 'A', until: 3000 }]);
  });

  it('forgets heal counts on a new revision, and after an object stays in sync longer than the cap', () => {
    let m = step(emptyMemory(), obs(), both).memory;
    for (const now of [1000, 3000, 9000]) m = step(m, obs({ now, outOfSync: ['A'] }), both).memory;
    expect(m.heals.A?.attempts).toBe(3);
    const fresh = step(m, obs({ now: 9100, revision: 'rev2', outOfSync: ['A'] }), both).memory;
    expect(fresh.heals).toEqual({});
    m = step(m, obs({ now: 9000 + 300_001 }), both).memory;
    expect(m.heals.A).toBeUndefined();
    expect(decide(obs({ now: 9000 + 300_002, outOfSync: ['A'] }), m, both).apply).toEqual(['A']);
  });

  it('at the same revision, prunes extras only with both selfHeal and prune', () => {
    const m = step(emptyMemory(), obs(), both).memory;
    expect(decide(obs({ now: 5, extras: ['ConfigMap/x'] }), m, both).prune).toEqual(['ConfigMap/x']);
    expect(decide(obs({ now: 5, extras: ['ConfigMap/x'] }), m, { selfHeal: false, prune: true })).toMatchObject({ prune: [], report: ['ConfigMap/x'] });
    expect(decide(obs({ now: 5, extras: ['ConfigMap/x'] }), m, { selfHeal: true, prune: false })).toMatchObject({ prune: [], report: ['ConfigMap/x'] });
  });

  it('retries a failed revision sync with back-off, and only records the revision once it succeeds', () => {
    let r = step(emptyMemory(), obs({ now: 0, outOfSync: ['A'] }), both, ['A']);
    expect(r.memory.syncedRevision).toBeUndefined();
    expect(r.memory.revisionTry).toEqual({ revision: 'rev1', attempts: 1, lastAt: 0 });
    const early = decide(obs({ now: 1000, outOfSync: ['A'] }), r.memory, both);
    expect(early.waiting).toEqual([{ key: REVISION_KEY, until: 2000 }]);
    expect(early.apply).toEqual([]);
    r = step(r.memory, obs({ now: 2000, outOfSync: ['A'] }), both);
    expect(r.d.reason).toBe('new-revision');
    expect(r.memory.syncedRevision).toBe('rev1');
    expect(r.memory.revisionTry).toBeUndefined();
  });

  it('fingerprints reported drift so that the same drift is reported once', () => {
    let r = step(step(emptyMemory(), obs(), none).memory, obs({ now: 1, outOfSync: ['B', 'A'] }), none);
    expect(r.memory.reported).toBe('A\nB');
    r = step(r.memory, obs({ now: 2 }), none);
    expect(r.memory.reported).toBeUndefined();
  });

  it('never mutates the memory it is given', () => {
    const m = step(emptyMemory(), obs(), both).memory;
    const frozen = JSON.stringify(m);
    step(m, obs({ now: 1000, outOfSync: ['A'] }), both);
    step(m, obs({ now: 1000, revision: 'rev2' }), both, ['A']);
    expect(JSON.stringify(m)).toBe(frozen);
  });
});
