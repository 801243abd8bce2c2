import type { PollTiming } from '../../../src/watch/backoff.js';
import type { Decision, LastOperation } from '../../../src/watch/decide.js';
import type { LoopEvent } from '../../../src/watch/events.js';
import { runLoop, Wakeup, type ActResult, type LoopClock, type LoopPorts, type Snapshot } from '../../../src/watch/loop.js';

/** A clock that only moves when the test says so; sleeping timers fire in order. */
class FakeClock implements LoopClock {
  t = 0;
  private timers: { at: number; resolve: () => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = { at: this.t + Math.max(0, ms), resolve };
      this.timers.push(timer);
      signal.addEventListener('abort', () => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      });
    });
  }
  async advance(ms: number): Promise<void> {
    const target = this.t + ms;
    for (;;) {
      await flush();
      const due = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.resolve();
    }
    this.t = target;
    await flush();
  }
}

async function flush(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}

/** A pretend source and cluster: the test edits them, the loop reconciles them. */
class World {
  revision = 'c1';
  desired = new Set(['cm/a', 'deploy/web']);
  live = new Map<string, string>(); // key -> revision it was applied from, or 'drifted'
  extrasLive = new Set<string>();
  policy = { selfHeal: true, prune: true };
  failRefresh = 0;
  refreshes: boolean[] = [];
  acted: Decision[] = [];
  actDelay = 0;
  actThrows = 0;
  /** The act's first attempt fails its first object (said through `attempted`), and its retry applies everything. */
  failFirstAttempt = false;
  /** A sync window that blocks the automated sync until this time (the project's verdict). */
  blockedUntil?: number;
  /** The Application's recorded last operation, and its source fingerprint. */
  recorded?: LastOperation;
  source = 'S';
  now = () => 0;
  /** The Application's SyncError conditions as stored (absent: not recorded), and each write of them asked. */
  syncErrors?: string[];
  syncErrorWrites: (string | null)[] = [];

  snapshot(): Snapshot {
    const outOfSync = [...this.desired].filter((k) => this.live.get(k) !== this.revision);
    return {
      revision: this.revision,
      origin: 'repo@' + this.revision,
      policy: this.policy,
      desiredCount: this.desired.size,
      outOfSync,
      extras: [...this.extrasLive],
      names: new Map([...this.desired, ...this.extrasLive].map((k) => [k, { object: k.toUpperCase() }])),
      warnings: [],
      source: this.source,
      ...(this.recorded ? { recorded: this.recorded } : {}),
      ...(this.syncErrors ? { syncErrors: [...this.syncErrors] } : {}),
      ...(this.blockedUntil !== undefined && this.now() < this.blockedUntil
        ? { blocked: { reason: 'sync blocked by the active deny window syncWindows[0]', until: this.blockedUntil } }
        : {}),
    };
  }
}

function harness(world: World, poll: number | (() => PollTiming) = 10_000) {
  const clock = new FakeClock();
  const events: LoopEvent[] = [];
  const ctl = new AbortController();
  const wakeup = new Wakeup();
  const ports: LoopPorts = {
    clock,
    random: () => 0,
    refresh: async ({ pollSource }) => {
      world.refreshes.push(pollSource);
      if (world.failRefresh > 0) {
        world.failRefresh--;
        throw new Error('connect ECONNREFUSED', { cause: new Error('apiserver down') });
      }
      return world.snapshot();
    },
    act: async (d, snap, attempted) => {
      world.acted.push(d);
      if (world.failFirstAttempt && d.apply.length > 0) {
        world.failFirstAttempt = false;
        attempted?.([{ key: d.apply[0]!, action: 'apply', result: 'failed', ok: false, message: 'refused once' }]);
      }
      if (world.actThrows > 0) {
        world.actThrows--;
        throw new Error('applying: connection reset');
      }
      if (world.actDelay > 0) await clock.sleep(world.actDelay, new AbortController().signal);
      const out: ActResult[] = [];
      for (const k of d.apply) {
        world.live.set(k, snap.revision);
        out.push({ key: k, action: 'apply', result: 'applied', ok: true });
      }
      for (const k of d.prune) {
        world.extrasLive.delete(k);
        out.push({ key: k, action: 'prune', result: 'deleted', ok: true });
      }
      return out;
    },
    emit: (e) => events.push({ ...e, time: new Date(clock.now()) }),
    recordSyncError: async (message) => {
      world.syncErrorWrites.push(message ?? null);
      world.syncErrors = message === undefined ? [] : [message];
    },
  };
  const timing = typeof poll === 'number' ? () => ({ intervalMs: poll, jitterMs: 0 }) : poll;
  const done = runLoop(ports, { poll: timing, signal: ctl.signal, wakeup, settleMs: 100 });
  const lines = () => events.map((e) => [e.action, e.object, e.result].filter((x) => x !== undefined).join(' '));
  return { clock, events, ctl, wakeup, done, lines };
}

describe('runLoop', () => {
  it('waits for a sync window that blocks the automated sync: says so once, acts on nothing, syncs when it opens', async () => {
    const w = new World();
    w.blockedUntil = 25_000;
    const h = harness(w);
    w.now = () => h.clock.now();
    await h.clock.advance(0);
    expect(h.lines()).toEqual(['revision', 'refused waiting']);
    expect(h.events[1]?.detail).toEqual({ retryInMs: 25_000 });
    await h.clock.advance(20_000); // the poll at 10 s and 20 s: still blocked, said once
    expect(w.acted).toEqual([]);
    expect(h.lines()).toEqual(['revision', 'refused waiting']);
    await h.clock.advance(6_000); // just after the window opens
    expect(w.live.get('cm/a')).toBe('c1');
    expect(h.lines().slice(2)).toEqual(['refused lifted', 'sync CM/A applied', 'sync DEPLOY/WEB applied', 'in-sync']);
    h.ctl.abort();
    await h.done;
  });

  it("says a failed attempt's results as they happen, before the operation's own (its retry)", async () => {
    const w = new World();
    w.failFirstAttempt = true;
    const h = harness(w);
    await h.clock.advance(0);
    expect(h.lines()).toEqual(['revision', 'sync CM/A failed', 'sync CM/A applied', 'sync DEPLOY/WEB applied', 'in-sync']);
    expect(h.events[1]?.message).toBe('refused once');
    h.ctl.abort();
    const summary = await h.done;
    // The operation's outcome counts, not the attempts that came before it.
    expect(summary).toMatchObject({ applied: 2, failed: 0 });
  });

  it('syncs at start, then applies a new commit at the next poll, and stops when aborted', async () => {
    const w = new World();
    const h = harness(w);
    await h.clock.advance(0);
    expect(h.lines()).toEqual(['revision', 'sync CM/A applied', 'sync DEPLOY/WEB applied', 'in-sync']);
    w.revision = 'c2';
    await h.clock.advance(9_999);
    expect(w.live.get('cm/a')).toBe('c1');
    await h.clock.advance(1);
    expect(w.live.get('cm/a')).toBe('c2');
    expect(h.lines().slice(4)).toEqual(['revision', 'sync CM/A applied', 'sync DEPLOY/WEB applied', 'in-sync']);
    h.ctl.abort();
    const summary = await h.done;
    expect(summary).toMatchObject({ applied: 4, pruned: 0, failed: 0 });
  });

  it('heals live drift soon after a live change, then backs off when the same drift keeps coming back', async () => {
    const w = new World();
    const h = harness(w);
    await h.clock.advance(0);
    const start = h.events.length;
    w.live.set('deploy/web', 'drifted');
    h.wakeup.wake('live');
    await h.clock.advance(100);
    expect(w.live.get('deploy/web')).toBe('c1');
    expect(h.lines().slice(start)).toEqual(['heal DEPLOY/WEB applied', 'in-sync']);
    // it comes back at once: the next heal waits 2 s after the last one
    w.live.set('deploy/web', 'drifted');
    h.wakeup.wake('live');
    await h.clock.advance(100);
    expect(w.live.get('deploy/web')).toBe('drifted');
    expect(h.lines().at(-1)).toBe('backoff DEPLOY/WEB waiting');
    await h.clock.advance(1_900);
    expect(w.live.get('deploy/web')).toBe('c1');
    expect(w.refreshes.filter((p) => p).length).toBe(1); // live changes never re-polled the source
    h.ctl.abort();
    await h.done;
  });

  it('without selfHeal, reports drift once and leaves it alone', async () => {
    const w = new World();
    w.policy = { selfHeal: false, prune: false };
    const h = harness(w);
    await h.clock.advance(0);
    const start = h.events.length;
    w.live.set('cm/a', 'drifted');
    w.extrasLive.add('cm/old');
    h.wakeup.wake('live');
    await h.clock.advance(200);
    h.wakeup.wake('live');
    await h.clock.advance(200);
    await h.clock.advance(10_000); // a poll: same commit
    expect(w.live.get('cm/a')).toBe('drifted');
    expect(w.extrasLive.has('cm/old')).toBe(true);
    expect(h.lines().slice(start)).toEqual(['drift CM/A out-of-sync', 'drift CM/OLD extra']);
    expect(h.events.filter((e) => e.action === 'drift').map((e) => e.message)).toEqual(['left alone: selfHeal is off', 'left alone: prune is off']);
    h.ctl.abort();
    await h.done;
  });

  it('prunes an object removed from the source with the new commit, but never on an empty render', async () => {
    const w = new World();
    const h = harness(w);
    await h.clock.advance(0);
    w.revision = 'c2';
    w.desired.delete('cm/a');
    w.extrasLive.add('cm/a');
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    expect(w.extrasLive.has('cm/a')).toBe(false);
    expect(h.lines()).toContain('prune CM/A deleted');
    w.revision = 'c3';
    w.desired.clear();
    w.extrasLive.add('deploy/web');
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    expect(w.extrasLive.has('deploy/web')).toBe(true);
    expect(h.lines()).toContain('refused no-prune');
    h.ctl.abort();
    await h.done;
  });

  it('a webhook push polls the source at once instead of waiting for the interval', async () => {
    const w = new World();
    const h = harness(w, 60_000);
    await h.clock.advance(0);
    w.revision = 'c2';
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    expect(w.live.get('cm/a')).toBe('c2');
    // start (poll), confirm (no poll), webhook (poll), confirm (no poll)
    expect(w.refreshes).toEqual([true, false, true, false]);
    h.ctl.abort();
    await h.done;
  });

  it('a change to the Application itself (a refresh asked, its spec) polls the source at once, where a live change re-compares at the same commit', async () => {
    const w = new World();
    const h = harness(w, 60_000);
    await h.clock.advance(0);
    const started = w.refreshes.length;
    h.wakeup.wake('live');
    await h.clock.advance(1000);
    h.wakeup.wake('app');
    await h.clock.advance(0);
    // after the start's looks: live (no poll), app (poll)
    expect(w.refreshes.slice(started)).toEqual([false, true]);
    h.ctl.abort();
    await h.done;
  });

  it("polls by the timing the refresh leaves (argocd-cm's, read by the first one); an interval of 0 never polls, a webhook still does", async () => {
    const w = new World();
    let timing: PollTiming = { intervalMs: 120_000, jitterMs: 0 };
    const refresh = w.snapshot.bind(w);
    // The first refresh reads argocd-cm: timeout.reconciliation 0.
    w.snapshot = () => {
      timing = { intervalMs: 0, jitterMs: 0 };
      return refresh();
    };
    const h = harness(w, () => timing);
    await h.clock.advance(0);
    w.revision = 'c2';
    await h.clock.advance(24 * 3_600_000);
    expect(w.live.get('cm/a')).toBe('c1');
    expect(w.refreshes).toEqual([true, false]);
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    expect(w.live.get('cm/a')).toBe('c2');
    // Set to 30s again (argocd-cm edited): the next wait is 30 s from that poll.
    timing = { intervalMs: 30_000, jitterMs: 0 };
    w.snapshot = refresh;
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    const polls = w.refreshes.filter((p) => p).length;
    await h.clock.advance(30_000);
    expect(w.refreshes.filter((p) => p).length).toBe(polls + 1);
    h.ctl.abort();
    await h.done;
  });

  it('logs a failing refresh once, retries with back-off, acts on nothing meanwhile, and says when it recovers', async () => {
    const w = new World();
    w.failRefresh = 3;
    const h = harness(w);
    await h.clock.advance(0);
    expect(h.lines()).toEqual(['error retrying']);
    expect(h.events[0]?.message).toBe('connect ECONNREFUSED: apiserver down');
    await h.clock.advance(400); // 400 ms (jitter 0), then 800 ms, then 1600 ms
    await h.clock.advance(800);
    expect(w.acted).toEqual([]);
    await h.clock.advance(1_600);
    expect(h.lines()).toEqual(['error retrying', 'error recovered', 'revision', 'sync CM/A applied', 'sync DEPLOY/WEB applied', 'in-sync']);
    expect(w.refreshes).toEqual([true, true, true, true, false]); // the failed poll is polled again; then a confirming look
    h.ctl.abort();
    await h.done;
  });

  it("counts a step that fails as a whole as failed for every object, and leaves that revision alone with Argo CD's SyncError", async () => {
    const w = new World();
    w.actThrows = 1;
    const h = harness(w);
    await h.clock.advance(0);
    expect(h.lines().slice(0, 3)).toEqual(['revision', 'sync CM/A failed', 'sync DEPLOY/WEB failed']);
    expect(h.events[1]?.message).toBe('applying: connection reset');
    expect(w.live.size).toBe(0);
    await h.clock.advance(60_000); // the operation's retries are its own (watch.ts): the loop does not sync c1 again
    expect(w.live.size).toBe(0);
    expect(w.acted.length).toBe(1);
    expect(h.events.filter((e) => e.result === 'sync-error').map((e) => e.message)).toEqual(['Failed last sync attempt to [c1]: applying: connection reset']);
    w.revision = 'c2';
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    expect(w.live.get('cm/a')).toBe('c2');
    h.ctl.abort();
    expect((await h.done).failed).toBe(2);
  });

  it("records Argo CD's SyncError condition once while it holds, and clears it before the next sync (a new revision)", async () => {
    const w = new World();
    w.syncErrors = [];
    w.actThrows = 1;
    const h = harness(w);
    await h.clock.advance(0);
    // The first sync clears nothing (none stored); it fails: the next look sets the condition, in Argo CD's words.
    await h.clock.advance(60_000);
    expect(w.syncErrorWrites).toEqual(['Failed last sync attempt to [c1]: applying: connection reset']);
    expect(w.syncErrors).toEqual(['Failed last sync attempt to [c1]: applying: connection reset']);
    w.revision = 'c2';
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    expect(w.live.get('cm/a')).toBe('c2');
    expect(w.syncErrorWrites).toEqual(['Failed last sync attempt to [c1]: applying: connection reset', null]);
    expect(w.syncErrors).toEqual([]);
    h.ctl.abort();
    await h.done;
  });

  it("replaces a SyncError of another message (the failed operation's own), clears a stale one, and never touches it while a sync window blocks", async () => {
    const w = new World();
    w.syncErrors = ['one or more objects failed to apply'];
    w.recorded = {
      revisions: ['c1'],
      source: 'S',
      hasResult: true,
      phase: 'Failed',
      message: 'one or more objects failed to apply',
      startedAt: -5000,
      finishedAt: -4000,
    };
    w.blockedUntil = 25_000;
    const h = harness(w);
    w.now = () => h.clock.now();
    await h.clock.advance(20_000);
    expect(w.syncErrorWrites).toEqual([]);
    await h.clock.advance(10_000);
    expect(w.syncErrorWrites).toEqual(['Failed last sync attempt to [c1]: one or more objects failed to apply']);
    expect(w.acted).toEqual([]);
    // Someone synced it by hand meanwhile (recorded Succeeded, all in sync): autoSync has no condition, so it is cleared.
    w.recorded = { ...w.recorded, phase: 'Succeeded', message: 'successfully synced (all tasks run)', startedAt: 29_000, finishedAt: 29_000 };
    for (const k of w.desired) w.live.set(k, 'c1');
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    expect(w.syncErrorWrites).toEqual(['Failed last sync attempt to [c1]: one or more objects failed to apply', null]);
    await h.clock.advance(30_000);
    expect(w.syncErrorWrites.length).toBe(2);
    h.ctl.abort();
    await h.done;
  });

  it("an empty render with prune on: Argo CD's wipe-out SyncError recorded, nothing pruned", async () => {
    const w = new World();
    w.syncErrors = [];
    const h = harness(w);
    await h.clock.advance(0);
    w.revision = 'c2';
    w.desired.clear();
    w.extrasLive.add('deploy/web');
    w.extrasLive.add('cm/a');
    h.wakeup.wake('webhook');
    await h.clock.advance(0);
    expect(w.extrasLive.size).toBe(2);
    expect(w.syncErrors).toEqual(['Skipping sync attempt to [c2]: auto-sync will wipe out all resources']);
    expect(h.lines().filter((l) => l.startsWith('refused'))).toEqual(['refused no-prune', 'refused sync-error']);
    h.ctl.abort();
    await h.done;
  });

  it('decides from the recorded operation after a restart: at the recorded revision and source, with selfHeal off, nothing is pruned or reverted', async () => {
    const w = new World();
    w.policy = { selfHeal: false, prune: true };
    w.live.set('cm/a', 'drifted');
    w.live.set('deploy/web', 'c1');
    w.extrasLive.add('cm/handmade');
    w.recorded = {
      revisions: ['c1'],
      source: 'S',
      hasResult: true,
      phase: 'Succeeded',
      message: 'successfully synced (all tasks run)',
      startedAt: -5000,
      finishedAt: -4000,
    };
    const h = harness(w);
    await h.clock.advance(30_000);
    expect(w.acted).toEqual([]);
    expect(w.extrasLive.has('cm/handmade')).toBe(true);
    expect(h.lines()).toContain('drift CM/HANDMADE extra');
    h.ctl.abort();
    await h.done;
  });

  it('finishes the step in progress when stopped during it', async () => {
    const w = new World();
    w.actDelay = 5_000;
    const h = harness(w);
    await h.clock.advance(0);
    h.ctl.abort();
    await h.clock.advance(5_000);
    const summary = await h.done;
    expect(summary.applied).toBe(2);
    expect(w.live.get('deploy/web')).toBe('c1');
    expect(w.refreshes.length).toBe(1);
  });
});
