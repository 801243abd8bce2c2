// `status --wait` and its modes, as `argocd app wait` (cmd/argocd/commands/app.go, checkResourceStatus and
// waitOnApplicationStatus): which conditions a wait waits for, and whether one status report ends it. Pure.
import type { OperationProgress } from '../../app/types.js';
import type { HealthStatusCode } from '../../health/types.js';
import type { ResourceStatus, StatusReport } from '../../health/report.js';
import type { ResourceKey } from '../../model/object.js';
import { matchesResource, parseResourceFilter, type ResourceFilter } from '../../sync/subset.js';

/** What a wait waits for (the flags, after argocd app wait's default). */
export interface WaitSpec {
  /** --sync: Synced. */
  sync: boolean;
  /** --health: Healthy (with --suspended: Healthy or Suspended). */
  health: boolean;
  /** --suspended: Suspended (with --health: Healthy or Suspended). */
  suspended: boolean;
  /** --operation: no operation requested or running. */
  operation: boolean;
  /** --degraded: end at once, failed, when the app (or a named resource) is Degraded. */
  degraded: boolean;
  /** --resource: the wait looks at these resources only (sync and health per resource; the operation is the app's). */
  resources: ResourceFilter[];
}

export interface WaitFlags {
  sync?: boolean;
  health?: boolean;
  suspended?: boolean;
  operation?: boolean;
  degraded?: boolean;
  resource?: readonly string[];
}

/**
 * The wait the flags ask for. As argocd app wait: none of --sync, --health, --suspended, --operation means all of
 * sync, health and operation; --degraded and --resource only change how (fail fast; which resources), not what.
 * Throws InputError for a malformed --resource.
 */
export function waitSpec(flags: WaitFlags): WaitSpec {
  const chosen = flags.sync === true || flags.health === true || flags.suspended === true || flags.operation === true;
  return {
    sync: chosen ? flags.sync === true : true,
    health: chosen ? flags.health === true : true,
    suspended: flags.suspended === true,
    operation: chosen ? flags.operation === true : true,
    degraded: flags.degraded === true,
    resources: (flags.resource ?? []).map(parseResourceFilter),
  };
}

/** One condition not met yet: on the app (no `resource`) or on one named resource. */
export interface Unmet {
  condition: 'sync' | 'health' | 'operation';
  resource?: ResourceKey;
  /** What it is now (`OutOfSync`, `Progressing`, `Running`, `requested`). */
  now: string;
  /** The resource's health message, or the operation's message. */
  message?: string;
}

export type WaitVerdict =
  /** Every condition is met: the wait is over (exit 0). */
  | { outcome: 'met' }
  /** --degraded: the app (no `resource`) or a named resource is Degraded (exit 3 at once). */
  | { outcome: 'degraded'; resource?: ResourceKey; message?: string }
  /** Not yet: the conditions still unmet (exit 1 when the timeout comes). */
  | { outcome: 'waiting'; unmet: Unmet[] }
  /** A --resource names none of the app's resources: it never could be met (exit 2). */
  | { outcome: 'unmatched'; filters: string[] };

/** The health codes a wait accepts; undefined when it does not look at health. */
function acceptedHealth(spec: WaitSpec): readonly HealthStatusCode[] | undefined {
  if (spec.health && spec.suspended) return ['Healthy', 'Suspended'];
  if (spec.health) return ['Healthy'];
  if (spec.suspended) return ['Suspended'];
  return undefined;
}

/**
 * Argo CD's operationInProgress: an operation requested (the top-level `operation`), or a recorded one that has not
 * finished (phase Running or Terminating, or no finishedAt). Argo CD also waits for the controller's first
 * reconciliation after an operation; status compares afresh on every poll, so that wait has no counterpart here.
 */
export function operationInProgress(op: OperationProgress | undefined): Unmet | undefined {
  if (!op) return undefined;
  if (op.requested) return { condition: 'operation', now: 'requested' };
  if (op.phase === undefined) return undefined;
  if (op.phase === 'Running' || op.phase === 'Terminating' || op.finishedAt === undefined)
    return { condition: 'operation', now: op.phase, ...(op.message !== undefined ? { message: op.message } : {}) };
  return undefined;
}

/** The app's resources the --resource filters select (as a partial sync selects them: includes, then excludes). */
function selected(report: StatusReport, filters: readonly ResourceFilter[]): ResourceStatus[] {
  const includes = filters.filter((f) => !f.exclude);
  return report.resources.filter(
    (r) => (includes.length === 0 || includes.some((f) => matchesResource(f, r))) && !filters.some((f) => f.exclude && matchesResource(f, r)),
  );
}

function keyOf(r: ResourceKey): ResourceKey {
  return { group: r.group, kind: r.kind, namespace: r.namespace, name: r.name };
}

/**
 * Whether the report ends the wait: `degraded` first (--degraded), then `met` when every condition holds, else the
 * conditions not met. With --resource the sync status and health are each named resource's (a kind without health
 * counts as Healthy, as the app's health skips it; an extra that does not count for sync counts as Synced); the
 * operation is always the app's.
 */
export function waitVerdict(input: { report: StatusReport; operation?: OperationProgress }, spec: WaitSpec): WaitVerdict {
  const { report } = input;
  const accepted = acceptedHealth(spec);
  const unmet: Unmet[] = [];
  if (spec.resources.length > 0) {
    const unmatched = spec.resources.filter((f) => !f.exclude && !report.resources.some((r) => matchesResource(f, r)));
    if (unmatched.length > 0) return { outcome: 'unmatched', filters: unmatched.map((f) => f.text) };
    const targets = selected(report, spec.resources);
    if (spec.degraded) {
      const bad = targets.find((r) => r.health?.status === 'Degraded');
      if (bad) return { outcome: 'degraded', resource: keyOf(bad), ...(bad.health?.message ? { message: bad.health.message } : {}) };
    }
    for (const r of targets) {
      if (spec.sync && r.countsForSync && r.status !== 'Synced') unmet.push({ condition: 'sync', resource: keyOf(r), now: r.status });
      const health = r.health?.status ?? 'Healthy';
      if (accepted && !accepted.includes(health))
        unmet.push({ condition: 'health', resource: keyOf(r), now: health, ...(r.health?.message ? { message: r.health.message } : {}) });
    }
  } else {
    if (spec.degraded && report.health.status === 'Degraded') return { outcome: 'degraded' };
    if (spec.sync && report.sync.status !== 'Synced') unmet.push({ condition: 'sync', now: report.sync.status });
    if (accepted && !accepted.includes(report.health.status)) unmet.push({ condition: 'health', now: report.health.status });
  }
  if (spec.operation) {
    const op = operationInProgress(input.operation);
    if (op) unmet.push(op);
  }
  return unmet.length === 0 ? { outcome: 'met' } : { outcome: 'waiting', unmet };
}

function joinAnd(parts: readonly string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** What the wait waits for, in words: `Synced, Healthy and no operation running (--resource apps:Deployment:web)`. */
export function waitConditions(spec: WaitSpec): string {
  const parts: string[] = [];
  if (spec.sync) parts.push('Synced');
  const accepted = acceptedHealth(spec);
  if (accepted) parts.push(accepted.join(' or '));
  if (spec.operation) parts.push('no operation running');
  const scope = spec.resources.length > 0 ? ` (${spec.resources.map((f) => `--resource ${f.text}`).join(', ')})` : '';
  return `${joinAnd(parts)}${scope}`;
}

/** A resource as messages name it: `Deployment/web`, with the group when it is not the core's or apps' (`Rollout.argoproj.io/web`). */
export function resourceName(k: ResourceKey): string {
  return `${k.kind}${k.group !== '' && k.group !== 'apps' ? `.${k.group}` : ''}/${k.name}`;
}

/** One unmet condition in words; `appReason` is the app's most specific reason (for its health). */
export function describeUnmet(u: Unmet, appReason?: string): string {
  const who = u.resource ? `${resourceName(u.resource)} ` : '';
  const detail = u.resource ? u.message : u.condition === 'health' ? appReason : u.message;
  switch (u.condition) {
    case 'sync':
      return `${who}sync is ${u.now}`;
    case 'health':
      return `${who}health is ${u.now}${detail ? `: ${detail}` : ''}`;
    case 'operation':
      return u.now === 'requested' ? 'an operation is requested and has not started' : `the operation is ${u.now}${detail ? `: ${detail}` : ''}`;
  }
}
