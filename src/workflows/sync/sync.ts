// `sync`: load the app state and hand it to the one executor (execute.ts); the exit code of a report, and retries.
import { compareAppState, loadAppState, type AppStateArgs, type AppStateDeps } from '../session/app-state.js';
import { executeSync, noResults, SYNC_SCHEMA_VERSION, type SyncDeps, type SyncReport } from './execute.js';
import type { Application, RetryPolicy } from '../../app/types.js';
import { syncStrategyOf } from '../../app/run-options.js';
import { DEFAULT_RETRY_BACKOFF, isDeletionApproved } from '../../app/application.js';
import { keyString, type ResourceKey } from '../../model/object.js';
import { syncUser } from '../session/rules.js';
import { writesAs } from '../../kube/impersonate.js';
import { InputError, UnrenderableError } from '../../model/errors.js';
import { matchesResource, parseResourceFilter, parseSelector, selectorMatches, type ResourceFilter, type Selector } from '../../sync/subset.js';

/** What a sync of the fields other managers own does by default: take them back, as Argo CD's sync does. */
const DEFAULT_FORCE_REASON = 'server-side apply with force, as Argo CD';

export interface SyncRequest extends AppStateArgs {
  dryRun: boolean;
  prune: boolean;
  /** Take the fields other managers own (the default); false (--no-force-conflicts): predicted conflicts stop the sync before any write. */
  forceConflicts: boolean;
  /** `--resource [!]GROUP:KIND:[NAMESPACE/]NAME`: sync only these (a partial sync, which never prunes). */
  resources?: readonly string[];
  /** `-l`: sync only the desired objects whose labels match (a partial sync, which never prunes). */
  selector?: string;
  /** How long a sync with waves or hooks may wait for health and hooks in all (ms). */
  timeoutMs: number;
  /** Argo CD's apply strategy (what its rollback uses): the resources only, no hook is run. */
  skipHooks?: boolean;
  /** Why fields are taken (the report's forceReason) when forceConflicts is on; default DEFAULT_FORCE_REASON. */
  forceReason?: string;
  /** --confirm-prune: the deletions Prune=confirm holds are approved for this run. */
  confirmPrune?: boolean;
}

/** The exit code a report stands for: 4 refused, 3 any failure, unapplied conflict or interruption, else 0. */
export function syncExitCode(r: SyncReport): 0 | 3 | 4 {
  if (r.refused) return 4;
  if (r.dryRun) return r.failures.length > 0 ? 3 : 0;
  if (r.failures.length > 0 || r.conflicts.length > 0 || r.interrupted) return 3;
  // Applied, but the prune waits for its confirmation: the sync is not finished.
  if (r.prune.waiting !== undefined) return 3;
  return 0;
}

/** Runs a sync (or plans it with dryRun) and reports per resource; throws only for input and loading errors. */
export async function syncApp(req: SyncRequest, deps: SyncDeps): Promise<SyncReport> {
  const filters = parseSubset(req);
  const partial = filters !== undefined;
  if (partial && req.prune) throw new InputError('--prune does not go with --resource or -l: a partial sync applies what it names and never prunes');
  const startedMs = Date.now();
  try {
    // A dry run lists the prune candidates whether or not this sync would prune them.
    const state = await loadAppState(req, deps, { extras: req.prune || req.dryRun });
    // The one comparison (diff/comparison.ts): its verdicts drive ApplyOutOfSyncOnly, its ignored fields the IGNORED
    // lines and RespectIgnoreDifferences.
    const comparison = await compareAppState(state, deps.opts.fieldManager, deps.gateway);
    const selection = filters ? { apply: new Set(selectSubset(state.desired, filters).map((d) => keyString(d.key))) } : {};
    // Argo CD's sync impersonation: the writes (and the permission preflight) as the project's destination ServiceAccount.
    const user = syncUser(state.app, state.rules, state.target?.server);
    const report = await executeSync(
      state,
      comparison,
      selection,
      {
        dryRun: req.dryRun,
        prune: { enabled: req.prune, off: pruneOff(state.app, partial) },
        forceConflicts: req.forceConflicts,
        ...(req.forceConflicts ? { forceReason: req.forceReason ?? DEFAULT_FORCE_REASON } : {}),
        timeoutMs: req.timeoutMs,
        // A selective sync runs no hooks, as Argo CD's (docs/user-guide/selective_sync.md; its resource filter drops them).
        // --strategy apply (Argo CD's SyncStrategyApply) runs the resources only, as a rollback does.
        skipHooks: req.skipHooks === true || partial || req.runOptions?.strategy === 'apply',
        manual: true,
        pruneConfirmed: req.confirmPrune === true || isDeletionApproved(state.app, startedMs),
      },
      user !== undefined ? { ...deps, gateway: writesAs(deps.gateway, user) } : deps,
    );
    if (user !== undefined) report.serviceAccount = user;
    // The run's overrides, as the operation records them (operationState.operation.sync).
    if (req.runOptions?.items) report.syncOptions = [...req.runOptions.items];
    const strategy = req.runOptions ? syncStrategyOf(req.runOptions) : undefined;
    if (strategy) report.syncStrategy = strategy;
    return report;
  } catch (err) {
    if (err instanceof UnrenderableError) return refusedReport(req, deps, err.message, err.app);
    throw err;
  }
}

/** Why a sync that does not prune does not. */
function pruneOff(app: Application, partial: boolean): string {
  if (partial) return 'a partial sync (--resource, -l) never prunes';
  if (app.automated?.prune) return 'a manual sync prunes only with --prune, as argocd app sync does; automated.prune is for the automated loop (sync --watch)';
  return 'pruning is off (no --prune)';
}

/** The report of a sync refused before anything was read from the cluster it would change. */
function refusedReport(req: SyncRequest, deps: AppStateDeps, refused: string, appName?: string): SyncReport {
  return {
    schemaVersion: SYNC_SCHEMA_VERSION,
    app: appName ?? req.app ?? req.appFile ?? '',
    ...(deps.target ? { context: deps.target.context, server: deps.target.server } : {}),
    origin: '',
    dryRun: req.dryRun,
    refused,
    force: false,
    ...noResults(),
    prune: { enabled: false, why: 'refused', last: false, propagationPolicy: 'foreground', results: [] },
    warnings: [...(deps.target?.warnings ?? [])],
  };
}

interface Subset {
  resources: ResourceFilter[];
  selector?: Selector;
}

function parseSubset(req: SyncRequest): Subset | undefined {
  const resources = (req.resources ?? []).map(parseResourceFilter);
  const selector = req.selector !== undefined ? parseSelector(req.selector) : undefined;
  return resources.length > 0 || selector ? { resources, ...(selector ? { selector } : {}) } : undefined;
}

/** The desired objects a partial sync names; a --resource that names none of the app's objects is an input error. */
function selectSubset<T extends { key: ResourceKey; object: { metadata: { labels?: Record<string, string> } } }>(desired: readonly T[], s: Subset): T[] {
  const includes = s.resources.filter((f) => !f.exclude);
  for (const f of includes) {
    if (!desired.some((d) => matchesResource(f, d.key))) throw new InputError(`--resource ${f.text} names no object of the Application`);
  }
  return desired.filter(
    (d) =>
      (includes.length === 0 || includes.some((f) => matchesResource(f, d.key))) &&
      !s.resources.some((f) => f.exclude && matchesResource(f, d.key)) &&
      (!s.selector || selectorMatches(s.selector, d.object.metadata.labels ?? {})),
  );
}

/**
 * The wait before retry attempt `n` (1-based), as Argo CD's NextRetryAt: duration × factor^(n-1), at most maxDuration
 * (when one is set). Shared by `sync APP`'s retries and the watch loop's.
 */
export function retryDelayMs(retry: RetryPolicy, n: number): number {
  const wait = retry.durationMs * retry.factor ** (n - 1);
  return retry.maxDurationMs > 0 ? Math.min(wait, retry.maxDurationMs) : wait;
}

/**
 * A failed sync that trying again may cure (exit 3: a failed apply, hook or wave), as Argo CD retries an operation; not
 * a refusal, nor conflicts the user asked to stop on (--no-force-conflicts), which stand until someone acts.
 */
export function retryable(report: SyncReport): boolean {
  if (syncExitCode(report) !== 3) return false;
  return !(report.stoppedBeforeWriting !== undefined && report.conflicts.length > 0);
}

/**
 * A sync tried again after a failure (exit 3: a failed apply, hook or wave), as Argo CD retries a sync operation:
 * `retry` from --retry-limit, else the Application's syncPolicy.retry; refusals, input errors and a stop on conflicts
 * (--no-force-conflicts) are never retried.
 * Each retry is said through `notify`; the last attempt's report is returned, with the number of attempts.
 */
export async function syncWithRetry(
  req: SyncRequest,
  deps: SyncDeps,
  opts: { retryLimit?: number; notify: (line: string) => void; sleep?: (ms: number) => Promise<void> },
): Promise<SyncReport> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let attempt = 0;
  let request = req;
  for (;;) {
    const report = await syncApp(request, deps);
    if (req.dryRun || !retryable(report) || deps.signal?.aborted) return attemptsOf(report, attempt);
    // The Application is read again by each attempt; its retry policy as last read decides.
    const policy = retryPolicyFor(report, opts.retryLimit);
    if (!policy || (policy.limit !== -1 && attempt >= policy.limit)) return attemptsOf(report, attempt);
    attempt++;
    // As Argo CD: a retry syncs the revision the first attempt resolved, unless retry.refresh reads the source again.
    if (attempt === 1 && !policy.refresh) request = pinnedRevisions(req, report);
    const wait = retryDelayMs(policy, attempt);
    const why = report.failures[0]?.message ?? 'the sync failed';
    opts.notify(`${why}. Retrying attempt #${attempt} at ${new Date(Date.now() + wait).toISOString()}.`);
    await sleep(wait);
  }
}

/** The request with the revision(s) a report synced, when it read them from the Application's source(s). */
function pinnedRevisions(req: SyncRequest, report: SyncReport): SyncRequest {
  if (req.desired !== undefined || req.revision !== undefined) return req;
  if (report.revisions !== undefined && report.revisions.length > 0) return { ...req, revisions: report.revisions };
  if (report.revision !== undefined && report.revision !== '') return { ...req, revision: report.revision };
  return req;
}

function attemptsOf(report: SyncReport, retries: number): SyncReport {
  return retries > 0 ? { ...report, retries } : report;
}

function retryPolicyFor(report: SyncReport, retryLimit: number | undefined): RetryPolicy | undefined {
  const base = report.retryPolicy;
  if (retryLimit !== undefined)
    return {
      ...(base ?? { durationMs: DEFAULT_RETRY_BACKOFF.durationMs, factor: DEFAULT_RETRY_BACKOFF.factor, maxDurationMs: DEFAULT_RETRY_BACKOFF.maxDurationMs }),
      limit: retryLimit,
    };
  return base;
}
