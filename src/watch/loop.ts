// The reconcile loop: refresh on a poll timer, a webhook push or a live change; decide; act; log; until stopped.
import { pollDelay, reconnectDelay, type PollTiming } from './backoff.js';
import {
  decide,
  emptyMemory,
  remember,
  reportFingerprint,
  REVISION_KEY,
  withRecorded,
  type Decision,
  type LastOperation,
  type LoopMemory,
  type LoopPolicy,
  type Outcome,
} from './decide.js';
import type { LoopAction, LoopEvent } from './events.js';

/** Time for the loop: injected so tests drive it with a fake clock. */
export interface LoopClock {
  now(): number;
  /** Resolves after `ms`, or early (without throwing) when the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const MAX_TIMER_MS = 2_147_483_647;

/** The real clock. */
export const systemClock: LoopClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      // setTimeout fires at once past 2^31-1 ms; a longer wait (no poll at all: Infinity) wakes then and waits again.
      const timer = setTimeout(done, Math.min(Math.max(0, ms), MAX_TIMER_MS));
      signal.addEventListener('abort', done, { once: true });
    }),
};

export type WakeReason = 'start' | 'timer' | 'poll' | 'webhook' | 'live' | 'app';

/** Collects wake-up reasons from webhooks and live watches, and lets the loop sleep until one comes or time is up. */
export class Wakeup {
  private reasons = new Set<WakeReason>();
  private waiter: (() => void) | undefined;

  wake(reason: WakeReason): void {
    this.reasons.add(reason);
    this.waiter?.();
  }

  /** Sleeps up to `ms` unless woken; returns (and clears) the reasons, `timer` when time ran out. */
  async wait(ms: number, clock: LoopClock, signal: AbortSignal): Promise<Set<WakeReason>> {
    if (this.reasons.size === 0 && ms > 0 && !signal.aborted) {
      const timer = new AbortController();
      const stop = () => timer.abort();
      signal.addEventListener('abort', stop, { once: true });
      await Promise.race([
        clock.sleep(ms, timer.signal).then(() => {
          if (!timer.signal.aborted) this.reasons.add('timer');
        }),
        new Promise<void>((resolve) => (this.waiter = resolve)),
      ]);
      this.waiter = undefined;
      timer.abort();
      signal.removeEventListener('abort', stop);
    }
    if (this.reasons.size === 0) this.reasons.add('timer');
    const out = this.reasons;
    this.reasons = new Set();
    return out;
  }
}

/** What one refresh found: the decision's inputs, plus names for the log. */
export interface Snapshot {
  revision: string;
  /** The revision of each source (spec.sources), as the record keeps them. */
  revisions?: string[];
  /** A fingerprint of spec.source(s) (decide.ts sourceFingerprint), compared with the last operation's. */
  source?: string;
  /** The Application's recorded last operation (status.operationState), when the loop records it: what it decides from. */
  recorded?: LastOperation;
  /**
   * The messages of the Application's SyncError conditions as stored, when the loop records its status (absent: it
   * does not): compared with each decision's syncError, written through `recordSyncError` when they differ.
   */
  syncErrors?: string[];
  /** The resolved commit, when the source is Git (for the log). */
  commit?: string;
  origin: string;
  policy: LoopPolicy;
  desiredCount: number;
  outOfSync: string[];
  extras: string[];
  /** How each key is named in the log. */
  names: Map<string, { object: string; namespace?: string }>;
  warnings: string[];
  /**
   * The project or a sync window forbids an automated sync now: nothing is applied or pruned, the refusal is
   * said once, and the loop looks again when the window opens (`until`), else at the next poll.
   */
  blocked?: { reason: string; until?: number };
}

/** What happened to one object when a decision was carried out. */
export interface ActResult {
  key: string;
  action: 'apply' | 'prune';
  /** `applied`, `deleted`, `failed`, `skipped`, `unchanged`, ... */
  result: string;
  ok: boolean;
  message?: string;
}

/** A round carried out: its results and the operation's phase and message, as the record says them. */
export interface ActDone {
  results: ActResult[];
  phase?: string;
  message?: string;
}

export interface LoopPorts {
  clock: LoopClock;
  random(): number;
  /** Reads the Application, the source (re-resolved when `pollSource`, else the last commit) and the cluster. */
  refresh(opts: { pollSource: boolean }, signal: AbortSignal): Promise<Snapshot>;
  /** Applies and prunes what the decision says; runs to the end even when a stop is asked (a step is finished). */
  /**
   * Carries a decision out. `attempted` is told each attempt that failed and is tried again (its results are said as
   * they happen; the operation's own results come back when it is over).
   */
  act(decision: Decision, snapshot: Snapshot, attempted?: (results: ActResult[]) => void): Promise<ActResult[] | ActDone>;
  emit(event: Omit<LoopEvent, 'time'>): void;
  /**
   * Sets the Application's SyncError condition to the decision's (undefined: clears it), as Argo CD's reconcile does
   * when sync windows allow a sync; asked only when the snapshot's `syncErrors` say otherwise. Never throws.
   */
  recordSyncError?(message: string | undefined): Promise<void>;
}

export interface LoopOptions {
  /** When to poll the source, asked at each poll (argocd-cm's timeout.reconciliation is known only once it is read). */
  poll: () => PollTiming;
  signal: AbortSignal;
  wakeup: Wakeup;
  /** How long to let a burst of live changes settle before a step (default 200 ms). */
  settleMs?: number;
}

export interface LoopSummary {
  steps: number;
  applied: number;
  pruned: number;
  failed: number;
}

function describe(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; cur !== undefined && cur !== null && i < 4; i++) {
    parts.push(cur instanceof Error ? cur.message : String(cur));
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return parts.join(': ');
}

/**
 * Whether the stored SyncError conditions already say the decision's: exactly that one, or none when it has none (Argo
 * CD's reconcile sets the one autoSync returns and clears the rest).
 */
function syncErrorRecorded(stored: readonly string[], wanted: string | undefined): boolean {
  return wanted === undefined ? stored.length === 0 : stored.length === 1 && stored[0] === wanted;
}

/**
 * Runs until `signal` aborts: each step refreshes, decides (see decide.ts), acts, and logs one event per action.
 * The source is polled every interval (plus jitter), at once on a webhook push; live changes re-compare at the
 * same commit. Source and cluster failures are logged and retried with back-off; nothing acts on a failed refresh.
 */
export async function runLoop(ports: LoopPorts, opts: LoopOptions): Promise<LoopSummary> {
  const { signal, wakeup } = opts;
  const clock = ports.clock;
  const summary: LoopSummary = { steps: 0, applied: 0, pruned: 0, failed: 0 };
  let memory: LoopMemory = emptyMemory();
  let nextPollAt = clock.now();
  let retryAt: number | undefined;
  let errorAttempts = 0;
  let lastError: string | undefined;
  let lastCommit: string | undefined;
  let wasOutOfSync = false;
  let lastWaiting = '';
  let lastRefused: string | undefined;
  let lastBlocked: string | undefined;
  let lastSyncError: string | undefined;
  /** The last SyncError write asked (what was stored, what was wanted): the same one is not asked again. */
  let lastSyncErrorAsked: string | undefined;
  let reasons = new Set<WakeReason>(['start']);
  let pollPending = false;

  while (!signal.aborted) {
    if (reasons.size === 1 && reasons.has('live')) {
      await clock.sleep(opts.settleMs ?? 200, signal);
      if (signal.aborted) break;
    }
    const now = clock.now();
    const pollSource: boolean = pollPending || reasons.has('start') || reasons.has('webhook') || reasons.has('poll') || reasons.has('app') || now >= nextPollAt;
    const pollRand = pollSource ? ports.random() : 0;
    summary.steps++;

    let snap: Snapshot | undefined;
    try {
      snap = await ports.refresh({ pollSource }, signal);
      pollPending = false;
    } catch (e) {
      if (signal.aborted) break;
      pollPending = pollSource;
      const message = describe(e);
      const delay = reconnectDelay(errorAttempts, ports.random());
      errorAttempts++;
      retryAt = clock.now() + delay;
      if (message !== lastError) ports.emit({ action: 'error', result: 'retrying', message, detail: { retryInMs: delay } });
      lastError = message;
    }
    // Timed from this step's start, with the timing as the refresh left it (the first one reads argocd-cm).
    if (pollSource) nextPollAt = now + pollDelay(opts.poll(), pollRand);

    if (snap !== undefined) {
      if (lastError !== undefined)
        ports.emit({ action: 'error', result: 'recovered', message: `refresh works again after ${errorAttempts} failed attempt(s)` });
      lastError = undefined;
      errorAttempts = 0;
      retryAt = undefined;
      const commit = snap.commit ?? snap.revision;
      if (commit !== lastCommit) ports.emit({ action: 'revision', revision: commit, message: snap.origin });
      lastCommit = commit;
      for (const w of snap.warnings) ports.emit({ action: 'warning', message: w });
      if (snap.blocked !== undefined) {
        if (snap.blocked.reason !== lastBlocked) {
          const until = snap.blocked.until;
          ports.emit({
            action: 'refused',
            result: 'waiting',
            message: snap.blocked.reason,
            ...(until !== undefined ? { detail: { retryInMs: Math.max(0, until - clock.now()) } } : {}),
          });
        }
        lastBlocked = snap.blocked.reason;
        // Just after the window opens (it is active only strictly after its tick).
        if (snap.blocked.until !== undefined) retryAt = snap.blocked.until + 1000;
        if (signal.aborted) break;
        const wakeAt = Math.min(nextPollAt, retryAt ?? Number.POSITIVE_INFINITY);
        retryAt = undefined;
        reasons = await wakeup.wait(Math.max(0, wakeAt - clock.now()), clock, signal);
        continue;
      }
      if (lastBlocked !== undefined) ports.emit({ action: 'refused', result: 'lifted', message: 'the sync window opened: syncing again' });
      lastBlocked = undefined;

      const obs = {
        now: clock.now(),
        revision: snap.revision,
        desiredCount: snap.desiredCount,
        outOfSync: snap.outOfSync,
        extras: snap.extras,
        ...(snap.revisions !== undefined ? { revisions: snap.revisions } : {}),
        ...(snap.source !== undefined ? { source: snap.source } : {}),
      };
      // Decided from the recorded operation (a restart, a manual sync) unless the loop's own is newer.
      memory = withRecorded(memory, snap.recorded);
      const d = decide(obs, memory, snap.policy);
      const name = (key: string) => snap.names.get(key) ?? { object: key };

      if (d.report.length > 0 && reportFingerprint(d) !== memory.reported) {
        // An extra stays because prune is off, or (at the same revision) selfHeal is; drift only because selfHeal is.
        const extraWhy = !snap.policy.prune ? 'prune is off' : !snap.policy.selfHeal ? 'selfHeal is off' : 'the render is empty';
        for (const key of d.report) {
          const extra = snap.extras.includes(key);
          ports.emit({
            action: 'drift',
            ...name(key),
            result: extra ? 'extra' : 'out-of-sync',
            message: `left alone: ${extra ? extraWhy : 'selfHeal is off'}`,
          });
        }
      }
      if (d.pruneRefused !== undefined && d.pruneRefused !== lastRefused) ports.emit({ action: 'refused', result: 'no-prune', message: d.pruneRefused });
      lastRefused = d.pruneRefused;
      // Argo CD's SyncError: the last sync of this revision and source failed (not tried again until one changes), or
      // the sync would wipe out every resource.
      if (d.syncError !== undefined && d.syncError !== lastSyncError) ports.emit({ action: 'refused', result: 'sync-error', message: d.syncError });
      lastSyncError = d.syncError;
      // ... and its condition in the record: set, or cleared when autoSync has none (windows allow a sync here), before
      // the operation the decision starts, as Argo CD's reconcile does.
      if (snap.syncErrors !== undefined && ports.recordSyncError !== undefined && !syncErrorRecorded(snap.syncErrors, d.syncError)) {
        const asked = JSON.stringify([snap.syncErrors, d.syncError ?? null]);
        if (asked !== lastSyncErrorAsked) await ports.recordSyncError(d.syncError);
        lastSyncErrorAsked = asked;
      } else lastSyncErrorAsked = undefined;
      const waiting = d.waiting.map((w) => `${w.key}@${w.until}`).join(',');
      if (waiting !== lastWaiting) {
        for (const w of d.waiting) {
          const revision = w.key === REVISION_KEY;
          const target = revision ? { object: `revision ${snap.revision.slice(0, 12)}` } : name(w.key);
          const message = revision
            ? 'the operation is not finished (a prune waits for its confirmation): taking it up again'
            : 'the same drift keeps coming back';
          ports.emit({ action: 'backoff', ...target, result: 'waiting', detail: { retryInMs: Math.max(0, w.until - obs.now) }, message });
        }
      }
      lastWaiting = waiting;

      let outcome: Outcome | undefined;
      if (d.reason !== 'none') {
        let results: ActResult[] = [];
        let done: Omit<ActDone, 'results'> = {};
        const startedAt = clock.now();
        const action: LoopAction = d.reason === 'self-heal' ? 'heal' : 'sync';
        const say = (r: ActResult) =>
          ports.emit({
            action: r.action === 'prune' ? 'prune' : action,
            ...name(r.key),
            result: r.result,
            revision: commit,
            ...(r.message ? { message: r.message } : {}),
          });
        if (d.apply.length + d.prune.length > 0) {
          try {
            // A failed attempt's results are said before its retry's back-off; the operation's own at its end.
            const acted = await ports.act(d, snap, (rs) => rs.forEach(say));
            if (Array.isArray(acted)) results = acted;
            else ({ results, ...done } = acted);
          } catch (e) {
            // The step failed as a whole (e.g. the API server went away mid-step): every object counts as failed.
            const message = describe(e);
            results = [...d.apply.map((key) => ({ key, action: 'apply' as const })), ...d.prune.map((key) => ({ key, action: 'prune' as const }))].map((r) => ({
              ...r,
              result: 'failed',
              ok: false,
              message,
            }));
          }
        }
        for (const r of results) {
          say(r);
          if (!r.ok) summary.failed++;
          else if (r.action === 'prune') summary.pruned++;
          else summary.applied++;
        }
        const failed = results.filter((r) => !r.ok);
        outcome = {
          startedAt,
          finishedAt: clock.now(),
          failed: failed.map((r) => r.key),
          ...(done.phase !== undefined ? { phase: done.phase } : {}),
          ...(done.message !== undefined ? { message: done.message } : failed[0]?.message !== undefined ? { message: failed[0].message } : {}),
        };
      }
      memory = remember(memory, obs, d, outcome);
      const outOfSync = snap.outOfSync.length > 0 || snap.extras.length > 0;
      if (!outOfSync && wasOutOfSync) ports.emit({ action: 'in-sync', revision: commit });
      wasOutOfSync = outOfSync;
      const nextWake = d.nextWakeAt;
      if (nextWake !== undefined) retryAt = nextWake;
      else if (d.reason !== 'none') retryAt = clock.now(); // look again at once: confirm the result
    }
    if (signal.aborted) break;
    const wakeAt = Math.min(nextPollAt, retryAt ?? Number.POSITIVE_INFINITY);
    retryAt = undefined;
    reasons = await wakeup.wait(Math.max(0, wakeAt - clock.now()), clock, signal);
  }
  return summary;
}
