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
}

export interface AttemptState {
  attempts: number;
  lastAt: number;
}

/** What the loop carries from one step to the next. */
export interface LoopMemory {
  /** The last revision whose sync finished without a failure. */
  syncedRevision?: string;
  /** Failed syncs of a revision not yet synced, for back-off. */
  revisionTry?: AttemptState & { revision: string };
  /** Self-heal attempts per object while the revision stays the same. */
  heals: Record<string, AttemptState>;
  /** A fingerprint of the drift last reported and left alone, so it is said once, not every poll. */
  reported?: string;
}

export type DecisionReason = 'initial' | 'new-revision' | 'self-heal' | 'none';

export interface Decision {
  reason: DecisionReason;
  apply: string[];
  prune: string[];
  /** Self-heals (or a failed revision's retry) held back by the back-off, with when they are due. */
  waiting: { key: string; until: number }[];
  /** Drift seen and left alone (selfHeal or prune off). */
  report: string[];
  /** Why prune candidates were not pruned although prune is on. */
  pruneRefused?: string;
  /** The earliest moment a waiting action becomes due. */
  nextWakeAt?: number;
}

export interface DecideOptions {
  backoff?: Backoff;
}

/** The revision sentinel for a revision attempt (not an object key). */
export const REVISION_KEY = '<revision>';

export function emptyMemory(): LoopMemory {
  return { heals: {} };
}

function due(state: AttemptState | undefined, backoff: Backoff): number {
  if (state === undefined) return Number.NEGATIVE_INFINITY;
  return state.lastAt + selfHealDelay(state.attempts, backoff);
}

/**
 * The decision for one observation. A revision not yet synced is synced (all out-of-sync objects applied, extras
 * pruned when prune is on), retried with back-off when it failed. At the same revision, drift is healed per object
 * with Argo CD's growing self-heal back-off when selfHeal is on, and only reported when it is off. Nothing is ever
 * pruned when the render is empty, unless the Application's automated.allowEmpty says so (controller/appcontroller.go
 * autoSync: "auto-sync will wipe out all resources" only without AllowEmpty).
 */
export function decide(obs: Observation, memory: LoopMemory, policy: LoopPolicy, opts: DecideOptions = {}): Decision {
  const backoff = opts.backoff ?? SELF_HEAL_BACKOFF;
  const d: Decision = { reason: 'none', apply: [], prune: [], waiting: [], report: [] };
  const emptyRender = obs.desiredCount === 0 && policy.allowEmpty !== true;
  const mayPrune = (allowed: boolean): boolean => {
    if (!allowed || obs.extras.length === 0) return false;
    if (emptyRender) {
      d.pruneRefused = `the render at ${obs.revision.slice(0, 12)} is empty: never pruning everything from an empty source`;
      return false;
    }
    return true;
  };

  if (obs.revision !== memory.syncedRevision) {
    const tryState = memory.revisionTry?.revision === obs.revision ? memory.revisionTry : undefined;
    const at = due(tryState, backoff);
    if (obs.now < at) {
      d.waiting.push({ key: REVISION_KEY, until: at });
      d.nextWakeAt = at;
      return d;
    }
    d.reason = memory.syncedRevision === undefined && tryState === undefined ? 'initial' : 'new-revision';
    d.apply = [...obs.outOfSync];
    if (mayPrune(policy.prune)) d.prune = [...obs.extras];
    else if (!policy.prune) d.report = [...obs.extras];
    return d;
  }

  for (const key of obs.outOfSync) {
    if (!policy.selfHeal) {
      d.report.push(key);
      continue;
    }
    const at = due(memory.heals[key], backoff);
    if (obs.now >= at) d.apply.push(key);
    else d.waiting.push({ key, until: at });
  }
  if (mayPrune(policy.prune && policy.selfHeal)) d.prune = [...obs.extras];
  else d.report.push(...obs.extras);
  if (d.apply.length > 0 || d.prune.length > 0) d.reason = 'self-heal';
  if (d.waiting.length > 0) d.nextWakeAt = Math.min(...d.waiting.map((w) => w.until));
  return d;
}

/** What happened when a decision was carried out. */
export interface Outcome {
  finishedAt: number;
  /** Keys whose apply or prune failed (a failed dry-run fails them all). */
  failed: string[];
}

/** The fingerprint of drift left alone: the same drift reported twice in a row is reported once. */
export function reportFingerprint(d: Decision): string {
  return [...d.report].sort().join('\n');
}

/**
 * The memory after a step: a fully successful revision sync records the revision and forgets heal counts; a
 * failed one counts an attempt; each heal counts an attempt for its object; objects found in sync again for
 * longer than the back-off cap are forgotten, so a drift that comes back much later starts at no delay.
 */
export function remember(memory: LoopMemory, obs: Observation, d: Decision, outcome: Outcome | undefined, opts: DecideOptions = {}): LoopMemory {
  const backoff = opts.backoff ?? SELF_HEAL_BACKOFF;
  const next: LoopMemory = { ...memory, heals: { ...memory.heals } };
  next.reported = reportFingerprint(d) === '' ? undefined : reportFingerprint(d);
  if (d.reason === 'initial' || d.reason === 'new-revision') {
    if (outcome !== undefined && outcome.failed.length === 0) {
      next.syncedRevision = obs.revision;
      next.revisionTry = undefined;
      next.heals = {};
    } else {
      const prev = memory.revisionTry?.revision === obs.revision ? memory.revisionTry.attempts : 0;
      next.revisionTry = { revision: obs.revision, attempts: prev + 1, lastAt: outcome?.finishedAt ?? obs.now };
    }
    return next;
  }
  if (d.reason === 'self-heal' && outcome !== undefined) {
    for (const key of [...d.apply, ...d.prune]) {
      next.heals[key] = { attempts: (memory.heals[key]?.attempts ?? 0) + 1, lastAt: outcome.finishedAt };
    }
  }
  const drifting = new Set([...obs.outOfSync, ...obs.extras]);
  for (const [key, st] of Object.entries(next.heals)) {
    if (!drifting.has(key) && obs.now - st.lastAt > backoff.capMs) delete next.heals[key];
  }
  return next;
}
