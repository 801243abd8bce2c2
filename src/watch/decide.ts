// What the loop does with one observation (sync a new revision, heal, prune, wait, or only report) and what it
// remembers afterwards; pure: time comes in as numbers.
import { SELF_HEAL_BACKOFF, selfHealDelay, type Backoff } from './backoff.js';

/** The Application's say over the loop (automated.selfHeal / prune, or --prune). */
export interface LoopPolicy {
  selfHeal: boolean;
  prune: boolean;
  /** automated.allowEmpty: an empty render may prune everything (Argo CD's autoSync guard applies only without it). */
  allowEmpty?: boolean;
}

/** One comparison of the desired state with the cluster, objects named by stable keys. */
export interface Observation {
  now: number;
  /** The resolved commit, or a content hash when the manifests come from --desired. */
  revision: string;
  desiredCount: number;
  /** Desired objects that differ from live or are missing. */
  outOfSync: string[];
  /** Live objects this app owns that are no longer desired (prune candidates). */
  extras: string[];
  /** The revision of each source (spec.sources), as the record keeps them; absent: `[revision]`. */
  revisions?: string[];
  /** A fingerprint of spec.source(s) (sourceFingerprint); absent: not compared. */
  source?: string;
}

/**
 * The Application's last sync operation, as its status.operationState records it (Argo CD's or this tool's), or as
 * this loop ran it when nothing is recorded (an Application file, --no-record): what Argo CD's autoSync decides from.
 */
export interface LastOperation {
  /** syncResult.revision (one source) or syncResult.revisions (spec.sources); empty when the operation has no result. */
  revisions: string[];
  /** A fingerprint of syncResult.source(s) (sourceFingerprint); absent when unknown. */
  source?: string;
  /** The operation has a syncResult (Argo CD: one without it counts as attempted once it completed, whatever its revision). */
  hasResult: boolean;
  /** Succeeded, Failed, Error; Running or Terminating while it is not finished (a prune waiting for its confirmation). */
  phase: string;
  message: string;
  startedAt: number;
  /** Absent while it runs. */
  finishedAt?: number;
  /**
   * operation.sync.autoHealAttemptsCount (Argo CD's SelfHealAttemptsCount): the self-heals in a row this operation is
   * the last of (absent: not recorded).
   */
  selfHealAttempts?: number;
  /** This loop's own: how often it took up an unfinished (Running) operation again, for its back-off. */
  resumes?: number;
}

/** What the loop carries from one step to the next. */
export interface LoopMemory {
  /** The last sync operation (the recorded one when it is newer than the loop's own). */
  last?: LastOperation;
  /** A fingerprint of the drift last reported and left alone, so it is said once, not every poll. */
  reported?: string;
}

export type DecisionReason = 'initial' | 'new-revision' | 'self-heal' | 'none';

export interface Decision {
  reason: DecisionReason;
  apply: string[];
  prune: string[];
  /** Self-heals (or an unfinished operation taken up again) held back by the back-off, with when they are due. */
  waiting: { key: string; until: number }[];
  /** Drift seen and left alone (selfHeal or prune off). */
  report: string[];
  /** Why prune candidates were not pruned although prune is on. */
  pruneRefused?: string;
  /**
   * Argo CD's SyncError condition when autoSync does not sync: the last sync of these revision(s) and source(s) failed
   * ("Failed last sync attempt to [<revs>]: <message>"; nothing is synced until the revision or the source changes),
   * or prune is on without allowEmpty and every resource would be pruned ("Skipping sync attempt to [<revs>]: auto-sync
   * will wipe out all resources"). Absent: autoSync returns no condition, and Argo CD clears SyncError.
   */
  syncError?: string;
  /** A self-heal: operation.sync.autoHealAttemptsCount (SelfHealAttemptsCount) of the operation it starts. */
  selfHealAttempts?: number;
  /** The earliest moment a waiting action becomes due. */
  nextWakeAt?: number;
}

export interface DecideOptions {
  backoff?: Backoff;
  /** --self-heal-backoff-cooldown-seconds: how long an app must stay synced before its self-heal back-off starts again. */
  cooldownMs?: number;
}

/** Argo CD's --self-heal-backoff-cooldown-seconds default (330 s). */
const SELF_HEAL_COOLDOWN_MS = 330_000;

/** The revision sentinel for an unfinished operation taken up again (not an object key). */
export const REVISION_KEY = '<revision>';

export function emptyMemory(): LoopMemory {
  return {};
}

/** Go's fmt of a []string, as Argo CD's messages print revisions: `[a b]`. */
function goStrings(list: readonly string[]): string {
  return `[${list.join(' ')}]`;
}

/** Argo CD's phases that end an operation (OperationPhase.Completed). */
function completed(phase: string): boolean {
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Error';
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Argo CD's alreadyAttemptedSync: the last operation synced the same revision(s) and the same source(s) (one without
 * a result counts once it completed); a source the loop does not know (absent) compares equal.
 */
function alreadyAttempted(last: LastOperation | undefined, obs: Pick<Observation, 'revision' | 'revisions' | 'source'>): boolean {
  if (last === undefined) return false;
  if (!last.hasResult) return completed(last.phase);
  if (!sameList(last.revisions, obs.revisions ?? [obs.revision])) return false;
  return last.source === undefined || obs.source === undefined || last.source === obs.source;
}

/**
 * The memory with the recorded operation when it is not older than the loop's own (a read of a cache that has not
 * seen the loop's last record yet keeps the loop's): a restart, a manual sync or Argo CD's operation is decided from.
 * The record keeps times to the second; a self-heal count it does not keep is the loop's own for its own operation.
 */
export function withRecorded(memory: LoopMemory, recorded: LastOperation | undefined): LoopMemory {
  if (recorded === undefined) return memory;
  const mine = memory.last;
  const mineAt = mine === undefined ? undefined : Math.floor(mine.startedAt / 1000) * 1000;
  if (mine !== undefined && mineAt !== undefined && recorded.startedAt < mineAt) return memory;
  const same = mine !== undefined && recorded.startedAt === mineAt && sameList(recorded.revisions, mine.revisions);
  const last: LastOperation = { ...recorded };
  if (last.selfHealAttempts === undefined && same && mine.selfHealAttempts !== undefined) last.selfHealAttempts = mine.selfHealAttempts;
  if (same && mine.resumes !== undefined && !completed(recorded.phase)) last.resumes = mine.resumes;
  return { ...memory, last };
}

/**
 * The decision for one observation, as Argo CD's autoSync: nothing when nothing is out of sync, or when only extras
 * are and prune is off. Revision(s) and source(s) not yet attempted are synced (all out-of-sync objects applied,
 * extras pruned when prune is on). Already attempted: a failed last operation is not tried again (syncError), drift is
 * only reported with selfHeal off, and healed with selfHeal on, after Argo CD's per-app back-off (selfHealAttemptsCount,
 * reset once the app stayed synced for the cooldown). An unfinished operation (a prune waiting for its confirmation) is
 * taken up again on the back-off. Nothing is ever pruned when the render is empty, unless automated.allowEmpty says so
 * (syncError "auto-sync will wipe out all resources" only without AllowEmpty).
 */
export function decide(obs: Observation, memory: LoopMemory, policy: LoopPolicy, opts: DecideOptions = {}): Decision {
  const backoff = opts.backoff ?? SELF_HEAL_BACKOFF;
  const cooldownMs = opts.cooldownMs ?? SELF_HEAL_COOLDOWN_MS;
  const d: Decision = { reason: 'none', apply: [], prune: [], waiting: [], report: [] };
  const emptyRender = obs.desiredCount === 0 && policy.allowEmpty !== true;
  const mayPrune = (allowed: boolean): boolean => {
    if (!allowed || obs.extras.length === 0) return false;
    if (emptyRender) {
      d.pruneRefused = `the render at ${obs.revision.slice(0, 12)} is empty: never pruning everything from an empty source`;
      // Argo CD's autoSync: prune on, allowEmpty off and every resource requiring pruning.
      d.syncError = `Skipping sync attempt to ${goStrings(obs.revisions ?? [obs.revision])}: auto-sync will wipe out all resources`;
      return false;
    }
    return true;
  };
  // Synced: nothing to do. Only extras with prune off: "need to prune extra resources only but automated prune is disabled".
  if (obs.outOfSync.length === 0 && (obs.extras.length === 0 || !policy.prune)) {
    d.report = [...obs.extras];
    return d;
  }
  const last = memory.last;

  if (!alreadyAttempted(last, obs)) {
    d.reason = last === undefined ? 'initial' : 'new-revision';
    d.apply = [...obs.outOfSync];
    if (mayPrune(policy.prune)) d.prune = [...obs.extras];
    else if (!policy.prune) d.report = [...obs.extras];
    if (d.apply.length + d.prune.length === 0) d.reason = 'none';
    return d;
  }
  if (!completed(last!.phase)) {
    // Unfinished (Running: a prune waiting for its confirmation): taken up again on the back-off.
    const at = (last!.finishedAt ?? last!.startedAt) + selfHealDelay((last!.resumes ?? 0) + 1, backoff);
    if (obs.now < at) {
      d.waiting.push({ key: REVISION_KEY, until: at });
      d.nextWakeAt = at;
      return d;
    }
    d.reason = 'new-revision';
    d.apply = [...obs.outOfSync];
    if (mayPrune(policy.prune)) d.prune = [...obs.extras];
    else if (!policy.prune) d.report = [...obs.extras];
    // An operation in progress: Argo CD's autoSync returns no condition then ("another operation is in progress").
    delete d.syncError;
    return d;
  }
  if (last!.phase !== 'Succeeded') {
    d.syncError = `Failed last sync attempt to ${goStrings(last!.revisions)}: ${last!.message}`;
    return d;
  }
  if (!policy.selfHeal) {
    d.report = [...obs.outOfSync, ...obs.extras];
    return d;
  }
  // Argo CD's selfHealBackoffCooldownElapsed and selfHealRemainingBackoff, per Application.
  const finished = last!.finishedAt;
  const cooled = finished === undefined || obs.now - finished >= cooldownMs;
  const attempts = cooled ? 0 : (last!.selfHealAttempts ?? 0);
  const at = (finished ?? obs.now) + selfHealDelay(attempts, backoff);
  if (obs.now < at) {
    for (const key of [...obs.outOfSync, ...(policy.prune ? obs.extras : [])]) d.waiting.push({ key, until: at });
    d.nextWakeAt = at;
    if (!policy.prune) d.report = [...obs.extras];
    return d;
  }
  d.apply = [...obs.outOfSync];
  if (mayPrune(policy.prune)) d.prune = [...obs.extras];
  else d.report = [...obs.extras];
  if (d.apply.length > 0 || d.prune.length > 0) {
    d.reason = 'self-heal';
    d.selfHealAttempts = attempts + 1;
  }
  return d;
}

/** What happened when a decision was carried out. */
export interface Outcome {
  finishedAt: number;
  /** Keys whose apply or prune failed (a failed dry-run fails them all). */
  failed: string[];
  /** When the operation started (default: the observation's time). */
  startedAt?: number;
  /** The operation's phase (default: Failed when a key failed, else Succeeded) and message. */
  phase?: string;
  message?: string;
}

/** The fingerprint of drift left alone: the same drift reported twice in a row is reported once. */
export function reportFingerprint(d: Decision): string {
  return [...d.report].sort().join('\n');
}

/** The memory after a step: an operation that ran is the last operation, with its revision(s), source(s), phase and self-heal count. */
export function remember(memory: LoopMemory, obs: Observation, d: Decision, outcome: Outcome | undefined): LoopMemory {
  const next: LoopMemory = { ...memory };
  const fp = reportFingerprint(d);
  if (fp === '') delete next.reported;
  else next.reported = fp;
  if (d.reason === 'none' || outcome === undefined) return next;
  const phase = outcome.phase ?? (outcome.failed.length > 0 ? 'Failed' : 'Succeeded');
  const prev = memory.last;
  const resumed = prev !== undefined && !completed(prev.phase) && alreadyAttempted(prev, obs);
  next.last = {
    revisions: [...(obs.revisions ?? [obs.revision])],
    ...(obs.source !== undefined ? { source: obs.source } : {}),
    hasResult: true,
    phase,
    message: outcome.message ?? (phase === 'Succeeded' ? 'successfully synced (all tasks run)' : 'one or more objects failed to apply'),
    startedAt: outcome.startedAt ?? obs.now,
    finishedAt: outcome.finishedAt,
    selfHealAttempts: d.reason === 'self-heal' ? (d.selfHealAttempts ?? 1) : 0,
    ...(!completed(phase) && resumed ? { resumes: (prev.resumes ?? 0) + 1 } : {}),
  };
  return next;
}

/** A fingerprint of an Application source (or list of sources) as Go compares them: empty and false fields left out. */
export function sourceFingerprint(source: unknown): string | undefined {
  if (source === undefined || source === null) return undefined;
  return JSON.stringify(normalized(source) ?? null);
}

function normalized(v: unknown): unknown {
  if (v === null || v === undefined || v === '' || v === false || v === 0) return undefined;
  if (Array.isArray(v)) {
    const out = v.map((x) => normalized(x) ?? null);
    return out.length === 0 ? undefined : out;
  }
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) {
      const x = normalized((v as Record<string, unknown>)[k]);
      if (x !== undefined) out[k] = x;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v;
}
