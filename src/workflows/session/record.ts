// Writes what a command found and did into the Application's status (the team's shared record), as Argo CD's controller
// does: a read-modify-write of the whole object guarded by its resourceVersion, tried again on a conflict.
import type { RunContext } from '../../model/context.js';
import { InputError } from '../../model/errors.js';
import { isRbacDenial, KubeApiError } from '../../kube/errors.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { ResourceType } from '../../model/resource-type.js';
import type { JsonObject, KubeObject } from '../../model/object.js';
import {
  controllerWrite,
  kubeTime,
  nextStatus,
  operationPhase,
  RECORD_FIELD_MANAGER,
  resourceId,
  withSyncError,
  type ComparedState,
  type Initiator,
  type SyncOperation,
  type SyncResultResource,
} from '../../record/app-status.js';
import type { SyncReport } from '../sync/execute.js';

/**
 * How a write ended: `written`, `unchanged` (the status already said it: nothing written), `skipped` (Argo CD's
 * controller keeps this Application), or a warning (not allowed, gone, failed).
 */
export interface RecordOutcome {
  outcome: 'written' | 'unchanged' | 'skipped' | 'forbidden' | 'gone' | 'failed';
  /** For everything but `written` and `unchanged`: what to tell the user (once). */
  message?: string;
  /** Writes tried (conflicts make more than one). */
  attempts: number;
}

export interface RecordOptions {
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Writes tried before giving up on conflicts (default 10). */
  maxAttempts?: number;
}

const APPLICATION: ResourceType = { group: 'argoproj.io', version: 'v1alpha1', kind: 'Application', resource: 'applications', namespaced: true, verbs: [] };

/** The Application type as the control plane serves it (its own, else argoproj.io/v1alpha1's). */
export async function applicationType(gw: KubeGateway): Promise<ResourceType> {
  return (await gw.resolve('argoproj.io/v1alpha1', 'Application').catch(() => undefined)) ?? APPLICATION;
}

/**
 * Reads the Application, computes its next status from what is stored (`compute`; undefined: nothing to change, no
 * write), and writes the whole object back with the resourceVersion read (spec unchanged: a concurrent change of it
 * makes the write a 409, and the loop reads again). Never throws for the write itself: a record that cannot be made
 * must not turn a sync into a failure.
 */
export async function writeApplicationStatus(
  gw: KubeGateway,
  ref: { namespace: string; name: string },
  compute: (app: KubeObject, now: string) => JsonObject | undefined,
  opts: RecordOptions = {},
): Promise<RecordOutcome> {
  const now = opts.now ?? (() => Date.now());
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const max = opts.maxAttempts ?? 10;
  const where = `Application ${ref.namespace}/${ref.name}`;
  const type = await applicationType(gw);
  for (let attempt = 1; ; attempt++) {
    try {
      const app = await gw.get(type, ref.namespace, ref.name);
      if (!app) return { outcome: 'gone', message: `${where} is gone: its status was not recorded`, attempts: attempt - 1 };
      const t = now();
      const managed = controllerWrite(app, t);
      if (managed) {
        return {
          outcome: 'skipped',
          message: `${where} is kept by an Argo CD controller (${managed.manager} wrote it at ${managed.time}): its status was left to it`,
          attempts: attempt - 1,
        };
      }
      const status = compute(app, kubeTime(t));
      if (status === undefined) return { outcome: 'unchanged', attempts: attempt - 1 };
      await gw.update(type, { ...app, status }, { fieldManager: RECORD_FIELD_MANAGER });
      return { outcome: 'written', attempts: attempt };
    } catch (err) {
      if (!(err instanceof KubeApiError))
        return { outcome: 'failed', message: `recording the status of ${where}: ${(err as Error).message}`, attempts: attempt };
      if (err.status === 409 && attempt < max) {
        await sleep(20 * attempt + Math.floor(Math.random() * 30));
        continue;
      }
      // Only an RBAC refusal is "not allowed"; a webhook's or quota's 403 is a failure with the server's words.
      if (isRbacDenial(err) as boolean)
        return {
          outcome: 'forbidden',
          message: `not allowed to update ${where}, so its status was not recorded (the result above stands): ${err.message}`,
          attempts: attempt,
        };
      return { outcome: 'failed', message: `recording the status of ${where}: ${err.message}`, attempts: attempt };
    }
  }
}

/** Argo CD's per-resource sync result status for one of our step outcomes (of the steps it records: see `recorded`). */
function stepStatus(outcome: string): string {
  return outcome === 'applied' ? 'Synced' : 'SyncFailed';
}

/**
 * The steps gitops-engine would have a result for. A step skipped (ApplyOutOfSyncOnly's in-sync objects, which
 * `filterOutOfSyncTasks` drops before the first pass; CreateNamespace's namespace that already exists, for which
 * Argo CD's `syncNamespace` makes no task) was never a task; a step not applied because the sync stopped before its
 * first write was a task that passed its dry run, and a dry run records only the tasks that failed it.
 */
function recorded(s: SyncReport['steps'][number]): boolean {
  return s.outcome !== 'skipped' && s.outcome !== 'not-applied';
}

/**
 * kubectl's words for an apply, as Argo CD shows them: `deployment.apps/web serverside-applied` where the app or the
 * object asks for ServerSideApply=true (Argo CD then applies server-side), else a client-side apply's `created`,
 * `configured` or `unchanged` (what Argo CD's default apply would have said).
 */
function applyMessage(s: SyncReport['steps'][number]): string {
  const what = `${s.kind.toLowerCase()}${s.group ? `.${s.group}` : ''}/${s.name}`;
  if (s.serverSideApply && s.outcome === 'applied') return `${what} serverside-applied`;
  const verb = s.outcome === 'applied' ? (s.action === 'create' ? 'created' : 'configured') : s.outcome;
  return `${what} ${verb}`;
}

/**
 * How gitops-engine ends a sync that ran every task: `(all tasks run)` when the last (phase, wave) it ran had no hook,
 * leaving that step's resources Running (it does not wait for their health: in a one-pass sync, every resource);
 * `(no more tasks)` when that step had a hook, which it waited for, so every task had ended.
 */
function howItEnded(r: SyncReport): { message: string; leftRunning: (wave: number | null) => boolean } {
  const ran = (r.waves ?? []).filter((w) => w.phase !== 'SyncFail' && w.outcome !== 'not-run');
  const last = ran[ran.length - 1];
  if (!last) return { message: 'successfully synced (all tasks run)', leftRunning: () => true };
  if (last.hooks > 0) return { message: 'successfully synced (no more tasks)', leftRunning: () => false };
  return { message: 'successfully synced (all tasks run)', leftRunning: (wave) => last.phase === 'Sync' && wave === last.wave };
}

/** The sync operation a (not dry-run) sync report stands for, in Argo CD's terms. */
export function syncOperationOf(
  r: SyncReport,
  opts: {
    versions: Readonly<Record<string, string>>;
    images?: Readonly<Record<string, readonly string[]>>;
    startedAt: string;
    finishedAt: string;
    initiatedBy: Initiator;
    partial: boolean;
  },
): SyncOperation {
  const v = (k: { group: string; kind: string; namespace: string; name: string }) => opts.versions[resourceId(k)] ?? '';
  const resources: SyncResultResource[] = [];
  const end = howItEnded(r);
  for (const s of r.steps) {
    if (!recorded(s)) continue;
    const status = stepStatus(s.outcome);
    // CreateNamespace's namespace (no wave) is gitops-engine's PreSync task, waited for before the Sync phase.
    const createdNamespace = s.wave === null;
    // gitops-engine's task state: Failed, else Running where it ended without waiting, Succeeded where it waited.
    const hookPhase = status === 'SyncFailed' ? 'Failed' : !createdNamespace && end.leftRunning(s.wave) ? 'Running' : 'Succeeded';
    const images = opts.images?.[resourceId(s)];
    resources.push({
      group: s.group,
      version: v(s),
      kind: s.kind,
      namespace: s.namespace,
      name: s.name,
      status,
      message: s.message ?? applyMessage(s),
      syncPhase: createdNamespace ? 'PreSync' : 'Sync',
      hookPhase,
      ...(images && images.length > 0 ? { images: [...images] } : {}),
    });
  }
  for (const h of r.hooks) {
    const phase = h.outcome === 'would-run' ? 'Running' : h.outcome;
    resources.push({
      group: h.group,
      version: v(h),
      kind: h.kind,
      namespace: h.namespace,
      name: h.name,
      // Argo CD creates a hook (`kubectl create`: `<name> created`) and sets no sync status unless that failed: once a
      // hook runs, each look at it writes its phase with an empty status, so a hook that ran and failed has none.
      ...(h.notCreated ? { status: 'SyncFailed' } : {}),
      message: h.message || `${h.name} created`,
      syncPhase: h.phase,
      hookPhase: phase,
      hookType: h.phase,
    });
  }
  for (const p of r.prune.results) {
    const status = p.outcome === 'pruned' || p.outcome === 'gone' ? 'Pruned' : p.outcome === 'skipped' ? 'PruneSkipped' : 'SyncFailed';
    resources.push({
      group: p.group,
      version: v(p),
      kind: p.kind,
      namespace: p.namespace,
      name: p.name,
      status,
      message: p.message ?? (status === 'Pruned' ? 'pruned' : p.outcome),
      syncPhase: 'Sync',
    });
  }
  const failed = r.failures.length > 0 || r.conflicts.length > 0 || r.interrupted !== undefined;
  // Applied, the prune held for its confirmation: Argo CD's operation stays Running with gitops-engine's message.
  const waiting = failed ? undefined : r.prune.waiting;
  // A stopped sync ends as Argo CD's terminated operation does: Failed, "Operation terminated" (and where it stopped).
  const message = r.interrupted
    ? `${TERMINATED}: ${r.interrupted.message}`
    : failed
      ? (r.failures[0]?.message ?? `${r.conflicts.length} field(s) owned by other managers were not applied (conflicts)`)
      : end.message;
  return {
    initiatedBy: opts.initiatedBy,
    startedAt: opts.startedAt,
    finishedAt: opts.finishedAt,
    ...(r.revision ? { revision: r.revision } : {}),
    ...(r.revisions ? { revisions: r.revisions } : {}),
    prune: r.prune.enabled,
    dryRun: false,
    phase: operationPhase(r),
    message: waiting ?? message,
    resources,
    ...(r.retries ? { retryCount: r.retries } : {}),
    partial: opts.partial,
    ...(r.syncOptions ? { syncOptions: [...r.syncOptions] } : {}),
    ...(r.syncStrategy ? { syncStrategy: r.syncStrategy } : {}),
  };
}

/** Argo CD's message for an operation stopped on request (gitops-engine's sync context, when terminated). */
const TERMINATED = 'Operation terminated';

/** Argo CD's message for a sync refused over a shared resource (FailOnSharedResource): its operation Failed, not Error. */
const SHARED_RESOURCE_REFUSAL = /^Shared resource found: /;

/** The phase an operation that never reached its tasks ends in: Error, or Failed for a shared-resource refusal. */
function unrunPhase(message: string): 'Failed' | 'Error' {
  return SHARED_RESOURCE_REFUSAL.test(message) ? 'Failed' : 'Error';
}

/**
 * The phase the operation of a sync that gave a report ends in, as it is recorded (and as `sync -o kv|json` ends with
 * it): a refusal's Error (Failed over a shared resource), else Running, Failed or Succeeded (operationPhase).
 */
export function syncReportPhase(report: SyncReport): 'Running' | 'Failed' | 'Succeeded' | 'Error' {
  if (report.refused !== undefined) return report.invalidTasks ? 'Failed' : unrunPhase(report.refused);
  return operationPhase(report);
}

/** gitops-engine's message when a task does not pass validation (the project's permission validator among them). */
const INVALID_TASKS = 'one or more synchronization tasks are not valid';

/**
 * The operation of a sync that never reached its tasks: refused by a rule, or stopped by an error (the source did not
 * render, the destination could not be reached). Argo CD's controller ends such an operation in phase Error with the
 * error's message (Failed for a shared resource under FailOnSharedResource), with no per-resource results.
 */
export function unrunOperation(
  message: string,
  opts: { startedAt: string; finishedAt: string; initiatedBy: Initiator; prune: boolean; revision?: string; revisions?: string[]; phase?: 'Failed' },
): SyncOperation {
  return {
    initiatedBy: opts.initiatedBy,
    startedAt: opts.startedAt,
    finishedAt: opts.finishedAt,
    ...(opts.revision ? { revision: opts.revision } : {}),
    ...(opts.revisions ? { revisions: opts.revisions } : {}),
    prune: opts.prune,
    dryRun: false,
    phase: opts.phase ?? unrunPhase(message),
    message,
    resources: [],
    partial: false,
  };
}

/** Records a comparison (status) and, for a sync, its operation and history entry. */
export function recordState(
  gw: KubeGateway,
  ref: { namespace: string; name: string },
  input: { compared?: ComparedState; warnings?: readonly string[]; sync?: SyncOperation; syncedSource?: { source?: JsonObject; sources?: JsonObject[] } },
  opts: RecordOptions = {},
): Promise<RecordOutcome> {
  return writeApplicationStatus(gw, ref, (app, now) => nextStatus(app, { ...input, now }), opts);
}

/**
 * The automated loop's autoSync verdict on the Application's SyncError condition (watch/decide.ts syncError), as Argo
 * CD's reconcile sets it: the condition given (undefined: the SyncError conditions cleared). Written only when that
 * changes the stored conditions (`unchanged` otherwise).
 */
export function recordSyncError(
  gw: KubeGateway,
  ref: { namespace: string; name: string },
  message: string | undefined,
  opts: RecordOptions = {},
): Promise<RecordOutcome> {
  return writeApplicationStatus(gw, ref, (app, now) => withSyncError(app, message, now), opts);
}

/** What the commands that record need from their session. */
export interface RecordSession {
  controlPlane: KubeGateway;
  appRef?: { namespace: string; name: string };
  user?: string;
}

/** Who initiated a sync by hand: the kubeconfig's user (Argo CD records the logged-in user). */
function manualInitiator(session: Pick<RecordSession, 'user'>): Initiator {
  return { username: session.user ?? 'unknown' };
}

/**
 * After a sync: compares again (at the revision the sync used), and records that comparison with the sync's
 * operationState and, when it succeeded, a history entry; a refused sync is recorded as an operation in phase Error
 * with the refusal (and the SyncError condition). Undefined when there is nothing to record: an Application file,
 * --no-record or a dry run.
 */
export async function recordSync(
  session: RecordSession,
  input: {
    report: SyncReport;
    startedAtMs: number;
    partial: boolean;
    record: boolean;
    initiatedBy?: Initiator;
    syncedSource?: { source?: JsonObject; sources?: JsonObject[] };
    /** The automated loop's self-heal: operation.sync.autoHealAttemptsCount (Argo CD's SelfHealAttemptsCount). */
    selfHealAttemptsCount?: number;
  },
  compare: (revision: string | undefined) => Promise<{ compared?: ComparedState; warnings: readonly string[] }>,
  opts: RecordOptions = {},
): Promise<RecordOutcome | undefined> {
  const { report } = input;
  if (!input.record || !session.appRef || report.dryRun) return undefined;
  const now = opts.now ?? (() => Date.now());
  const finishedAt = kubeTime(now());
  let after: { compared?: ComparedState; warnings: readonly string[] } = { warnings: [] };
  try {
    after = await compare(report.revision);
  } catch {
    // The record still gets the operation; the comparison is left as it was.
  }
  const versions: Record<string, string> = { ...(after.compared?.versions ?? {}) };
  const startedAt = kubeTime(input.startedAtMs);
  const initiatedBy = input.initiatedBy ?? manualInitiator(session);
  const op: SyncOperation = report.invalidTasks
    ? {
        ...unrunOperation(INVALID_TASKS, {
          startedAt,
          finishedAt,
          initiatedBy,
          prune: report.prune.enabled,
          phase: 'Failed' as const,
          ...(report.revision ? { revision: report.revision } : {}),
          ...(report.revisions ? { revisions: report.revisions } : {}),
        }),
        // Each task gitops-engine's validation failed: SyncFailed with the validator's words, in the Sync phase.
        resources: report.invalidTasks.map((t) => ({
          group: t.key.group,
          version: t.version,
          kind: t.key.kind,
          namespace: t.key.namespace,
          name: t.key.name,
          status: 'SyncFailed',
          message: t.message,
          syncPhase: 'Sync',
        })),
      }
    : report.refused
      ? unrunOperation(report.refused, {
          startedAt,
          finishedAt,
          initiatedBy,
          prune: report.prune.enabled,
          ...(report.revision ? { revision: report.revision } : {}),
          ...(report.revisions ? { revisions: report.revisions } : {}),
        })
      : syncOperationOf(report, {
          versions,
          ...(after.compared?.resourceImages ? { images: after.compared.resourceImages } : {}),
          startedAt,
          finishedAt,
          initiatedBy,
          partial: input.partial,
        });
  const sync: SyncOperation = input.selfHealAttemptsCount ? { ...op, selfHealAttemptsCount: input.selfHealAttemptsCount } : op;
  return recordState(
    session.controlPlane,
    session.appRef,
    {
      ...(after.compared ? { compared: after.compared } : {}),
      warnings: after.warnings,
      sync,
      ...(input.syncedSource ? { syncedSource: input.syncedSource } : {}),
    },
    opts,
  );
}

/**
 * Runs a sync (or rollback) in its session; when it throws before giving a report, records the error as the
 * operation (phase Error with the message, and the SyncError condition; the comparison is left as stored) and throws
 * it again. Nothing is recorded for an Application file, --no-record or a dry run; `notice` gets a record's warning.
 */
export async function recordingErrors<T>(
  session: RecordSession,
  input: {
    startedAtMs: number;
    record: boolean;
    dryRun: boolean;
    prune: boolean;
    initiatedBy?: Initiator;
    syncedSource?: { source?: JsonObject; sources?: JsonObject[] };
  },
  run: () => Promise<T>,
  notice: (line: string) => void,
  opts: RecordOptions = {},
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (input.record && !input.dryRun && session.appRef) {
      const outcome = await recordError(
        session.controlPlane,
        session.appRef,
        err,
        { ...input, initiatedBy: input.initiatedBy ?? manualInitiator(session) },
        opts,
      );
      const line = recordNotice(outcome);
      if (line !== undefined) notice(line);
    }
    throw err;
  }
}

/** The text Argo CD's controller keeps for an error: its message, and each cause's that it does not already contain. */
export function errorText(err: unknown): string {
  let text = err instanceof Error ? err.message : String(err);
  let cause = err instanceof Error ? err.cause : undefined;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++, cause = cause.cause) {
    if (!text.includes(cause.message)) text = `${text}: ${cause.message}`;
  }
  return text;
}

/** Records a sync that ended in an error before its tasks (see recordingErrors), in the Application `ref` of `gw`. */
function recordError(
  gw: KubeGateway,
  ref: { namespace: string; name: string },
  err: unknown,
  input: { startedAtMs: number; prune: boolean; initiatedBy: Initiator; syncedSource?: { source?: JsonObject; sources?: JsonObject[] } },
  opts: RecordOptions = {},
): Promise<RecordOutcome> {
  const now = opts.now ?? (() => Date.now());
  const sync = unrunOperation(errorText(err), {
    startedAt: kubeTime(input.startedAtMs),
    finishedAt: kubeTime(now()),
    initiatedBy: input.initiatedBy,
    prune: input.prune,
  });
  return recordState(gw, ref, { sync, ...(input.syncedSource ? { syncedSource: input.syncedSource } : {}) }, opts);
}

/**
 * A sync a second signal forced to stop before it reported: recorded as Argo CD records a terminated operation (phase
 * Failed, "Operation terminated: …"), with no per-resource results (what ran is not known).
 */
export function recordTerminated(
  session: RecordSession,
  input: { startedAtMs: number; prune: boolean; message: string },
  opts: RecordOptions = {},
): Promise<RecordOutcome | undefined> {
  if (!session.appRef) return Promise.resolve(undefined);
  const now = opts.now ?? (() => Date.now());
  const sync = unrunOperation(`${TERMINATED}: ${input.message}`, {
    startedAt: kubeTime(input.startedAtMs),
    finishedAt: kubeTime(now()),
    initiatedBy: manualInitiator(session),
    prune: input.prune,
    phase: 'Failed',
  });
  return recordState(session.controlPlane, session.appRef, { sync }, opts);
}

/**
 * For an error before the command's session began (the destination refused or unreachable): records it as recordError
 * does, through a connection of its own to the selected context's cluster. Bad input (exit 2: no such Application, a
 * kubeconfig problem) is not recorded; a record that cannot be made is a notice, never a second error.
 */
export async function recordSessionError(
  ctx: RunContext,
  name: string | undefined,
  err: unknown,
  input: { startedAtMs: number; record: boolean; dryRun: boolean; prune: boolean },
  notice: (line: string) => void,
): Promise<void> {
  if (!input.record || input.dryRun || name === undefined || name === '' || err instanceof InputError) return;
  const { withControlPlane } = await import('./session.js');
  try {
    const outcome = await withControlPlane(ctx, 'record', (gw, user) =>
      recordError(gw, { namespace: ctx.opts.appNamespace, name }, err, { ...input, initiatedBy: manualInitiator({ ...(user !== undefined ? { user } : {}) }) }),
    );
    const line = recordNotice(outcome);
    if (line !== undefined) notice(line);
  } catch {
    // The cluster the Application lives in cannot be reached either: the error itself says enough.
  }
}

/** After `status`: records the comparison (undefined for an Application file or --no-record). */
export async function recordStatus(
  session: RecordSession,
  input: { compared?: ComparedState; warnings: readonly string[]; record: boolean },
  opts: RecordOptions = {},
): Promise<RecordOutcome | undefined> {
  if (!input.record || !session.appRef || !input.compared) return undefined;
  return recordState(session.controlPlane, session.appRef, { compared: input.compared, warnings: input.warnings }, opts);
}

/** The line a command prints about its record, if any (on stderr): only when it was not written. */
export function recordNotice(o: RecordOutcome | undefined): string | undefined {
  if (!o || o.outcome === 'written' || o.outcome === 'unchanged') return undefined;
  return o.message;
}
