// One sync operation, whoever asks for it (`sync APP`, `rollback`): run through the one executor (with retries),
// recorded in the Application's status after the report, on an error before it, and when SIGINT/SIGTERM stops it.
import type { RunContext } from '../../model/context.js';
import { ExitCode } from '../../model/errors.js';
import { rollbackTargetOf, syncRollback } from '../history/rollback.js';
import {
  recordingErrors,
  recordNotice,
  recordSessionError,
  recordSync,
  recordTerminated,
  syncReportPhase,
  type RecordOutcome,
  type RecordSession,
} from '../session/record.js';
import { withAppTarget, type GatewayPool } from '../session/session.js';
import { runStatus } from '../status/status.js';
import { finalizeThroughDelete, type SyncReport } from './execute.js';
import type { SyncEvent } from './sync-phases.js';
import { syncExitCode, syncWithRetry, type SyncRequest } from './sync.js';
import { signalExitCode, stopper } from '../session/stopper.js';
import type { Initiator } from '../../record/app-status.js';

/** `sync APP` (or `-f FILE`): the request, and --retry-limit. */
export interface SyncOperationInput {
  kind: 'sync';
  request: SyncRequest;
  retryLimit?: number;
  /** Record the operation in the Application's status (--record). */
  record: boolean;
  /** Who the record says initiated it (default: the kubeconfig's user); a requested operation's own initiatedBy. */
  initiatedBy?: Initiator;
}

/** `rollback APP [ID]`: the Application's own source request (flags included) and the history ID (default: the one before the newest). */
export interface RollbackOperationInput {
  kind: 'rollback';
  request: SyncRequest;
  name: string;
  id?: number;
  record: boolean;
}

export type OperationInput = SyncOperationInput | RollbackOperationInput;

/** Where an operation tells what happens while it runs (all optional but `say`). */
export interface OperationHooks {
  /** One line for the user as it happens (a retry, a signal received); the caller prints it. */
  say: (line: string) => void;
  progress?: (line: string) => void;
  onEvent?: (e: SyncEvent) => void;
  /** Install SIGINT/SIGTERM handlers (default true); tests pass `signals` instead. */
  handleSignals?: boolean;
  /** A test seam: signals delivered as if by the process. */
  signals?: EventTarget;
  /** How long a forced stop may spend recording (default 2 s). */
  forcedRecordMs?: number;
  /** The connections and cluster cache to act through, shared with other apps (a recursive walk's children). */
  pool?: GatewayPool;
}

/** What an operation ended with: the report (absent only when a second signal forced the stop), the record, the exit code. */
export interface OperationResult {
  report?: SyncReport;
  /** rollback: the history entry it returned to. */
  rollback?: { id: number; revision: string };
  recorded?: RecordOutcome;
  /** The report's warnings and the record's notice, in that order. */
  warnings: string[];
  /** The signal that asked the operation to stop, and whether a second one forced it. */
  stopped?: { signal: NodeJS.Signals; forced: boolean; where: string };
  exitCode: ExitCode;
}

/** The closing words of an operation a signal stopped (the first finishes the step in progress, a second forces). */
export function stoppedLine(kind: OperationInput['kind'], s: NonNullable<OperationResult['stopped']>): string {
  return s.forced
    ? `${kind} interrupted: a second ${s.signal} forced the stop ${s.where}; the step in progress may be half done (run ${kind} again to finish)`
    : `${kind} interrupted by ${s.signal}: stopped ${s.where}`;
}

/** Where a sync was when it stopped, from the last event it told (a phase and wave), or the report's own words. */
function whereOf(report: SyncReport | undefined, last: SyncEvent | undefined): string {
  if (report?.interrupted) return report.interrupted.message.replace(/^interrupted: stopped /, '');
  if (last) return `during ${last.phase} wave ${last.wave} (${last.key.kind}/${last.key.name} ${last.status})`;
  return 'before its first step';
}

/**
 * Runs a sync or a rollback on the Application's destination and records it, for every caller: an error before a
 * report is recorded as the operation's (phase Error, as Argo CD's controller does), a report with its after-comparison,
 * a stop by a signal as a terminated operation (phase Failed, "Operation terminated: …"). Throws what the sync throws
 * (input errors, refusals before an operation exists), after recording it.
 */
export async function runOperation(ctx: RunContext, input: OperationInput, hooks: OperationHooks): Promise<OperationResult> {
  const { request } = input;
  const startedAtMs = Date.now();
  const failure = { startedAtMs, record: input.record, dryRun: request.dryRun, prune: request.prune };
  const warnings: string[] = [];
  const stop = stopper(hooks, input.kind);
  let inSession = false;
  try {
    return await withAppTarget(
      ctx,
      input.kind,
      request,
      async (session) => {
        inSession = true;
        let last: SyncEvent | undefined;
        const onEvent = (e: SyncEvent) => {
          last = e;
          hooks.onEvent?.(e);
        };
        const deps = {
          io: ctx.io,
          opts: ctx.opts,
          ...session,
          ...(hooks.progress ? { progress: hooks.progress } : {}),
          onEvent,
          signal: stop.signal,
          // A child Application the prune deletes is finished as `delete` would finish it (app-of-apps).
          finalizeApp: finalizeThroughDelete(ctx, request.timeoutMs, request.argocdNamespace),
        };
        const retry = (line: string) => hooks.say(`retry: ${line}`);
        const started = Date.now();
        let run: () => Promise<SyncReport>;
        let recordInput: Omit<Parameters<typeof recordSync>[1], 'report'>;
        let compare: Parameters<typeof recordSync>[2];
        let rollback: OperationResult['rollback'];
        if (input.kind === 'rollback') {
          // Refusals (auto-sync on, no such entry) come before an operation exists: nothing is recorded for them, as in Argo CD.
          const target = await rollbackTargetOf(deps, session.appRef ?? { namespace: ctx.opts.appNamespace, name: input.name }, input.id);
          rollback = { id: target.entry.id, revision: target.entry.revision ?? target.entry.revisions?.join(',') ?? '-' };
          // Argo CD's rollback syncs with the apply strategy: the resources only, no hooks.
          run = () => syncRollback({ ...request, skipHooks: true }, target, deps, { notify: retry });
          recordInput = { startedAtMs: started, partial: false, record: input.record, syncedSource: target.synced };
          // The comparison recorded afterwards is against the Application's own source, as Argo CD's next refresh is.
          compare = async () => runStatus(request, deps);
        } else {
          const partial = (request.resources?.length ?? 0) > 0 || request.selector !== undefined;
          run = () => syncWithRetry(request, deps, { ...(input.retryLimit !== undefined ? { retryLimit: input.retryLimit } : {}), notify: retry });
          recordInput = { startedAtMs: started, partial, record: input.record, ...(input.initiatedBy ? { initiatedBy: input.initiatedBy } : {}) };
          // Compared as the Application declares itself (as Argo CD's next refresh): at the commit the sync used when that
          // is its targetRevision's, else (--revision) at its targetRevision again.
          compare = async (revision) => {
            const { revision: _given, ...own } = request;
            return runStatus({ ...own, ...(revision !== undefined && request.revision === undefined ? { revision } : {}) }, deps);
          };
        }
        const running = recordingErrors(
          session,
          { ...failure, startedAtMs: started, ...(recordInput.syncedSource ? { syncedSource: recordInput.syncedSource } : {}) },
          run,
          (l) => warnings.push(l),
        );
        const outcome = await Promise.race([running.then((report) => ({ report })), stop.forced.then((signal) => ({ signal }))]);
        if ('signal' in outcome) {
          running.catch(() => undefined); // abandoned: the process ends with the forced stop
          const where = whereOf(undefined, last);
          const recorded =
            input.record && !request.dryRun
              ? await forcedRecord(
                  session,
                  { startedAtMs: started, prune: request.prune, message: `forced by a second ${outcome.signal} ${where}` },
                  hooks.forcedRecordMs ?? 2000,
                )
              : undefined;
          const notice = recordNotice(recorded);
          if (notice !== undefined) warnings.push(notice);
          return {
            ...(rollback ? { rollback } : {}),
            ...(recorded ? { recorded } : {}),
            warnings,
            stopped: { signal: stop.received() ?? outcome.signal, forced: true, where },
            exitCode: signalExitCode(outcome.signal),
          };
        }
        const { report } = outcome;
        // The operation's phase as recorded, which `sync -o kv|json` ends with (a dry run is no operation).
        if (!report.dryRun) report.phase = syncReportPhase(report);
        hooks.progress?.('recording the status');
        const recorded = await recordSync(session, { ...recordInput, report }, compare);
        warnings.push(...report.warnings);
        const notice = recordNotice(recorded);
        if (notice !== undefined) warnings.push(notice);
        const signal = stop.received();
        const stopped = signal && report.interrupted ? { stopped: { signal, forced: false, where: whereOf(report, last) } } : {};
        return {
          report,
          ...(rollback ? { rollback } : {}),
          ...(recorded ? { recorded } : {}),
          warnings,
          ...stopped,
          exitCode: signal && report.interrupted ? signalExitCode(signal) : syncExitCode(report),
        };
      },
      hooks.pool,
    );
  } catch (err) {
    if (!inSession)
      await recordSessionError(
        ctx,
        input.kind === 'rollback' ? input.name : request.app !== undefined && request.appFile === undefined ? request.app : undefined,
        err,
        failure,
        (l) => hooks.say(`warning: ${l}`),
      );
    else for (const w of warnings) hooks.say(`warning: ${w}`);
    throw err;
  } finally {
    stop.dispose();
  }
}

/** A forced stop's record: a terminated operation, written within `ms` or not at all (the process is ending). */
async function forcedRecord(
  session: RecordSession,
  input: { startedAtMs: number; prune: boolean; message: string },
  ms: number,
): Promise<RecordOutcome | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<RecordOutcome>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          outcome: 'failed',
          message: `the stop was not recorded within ${ms} ms: the Application's status still shows the operation as it was`,
          attempts: 0,
        }),
      ms,
    );
  });
  try {
    return await Promise.race([recordTerminated(session, input), late]);
  } finally {
    clearTimeout(timer);
  }
}
