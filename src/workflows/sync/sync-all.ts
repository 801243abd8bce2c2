// `sync --all`: the Applications of a namespace (or every namespace, or by label) synced in turn, one summary.
import type { RunContext } from '../../model/context.js';
import type { KubeObject } from '../../model/object.js';
import { ExitCode, exitCodeFor } from '../../model/errors.js';
import { listApplications } from '../list.js';
import type { GatewayPool } from '../session/session.js';
import { recordingErrors, recordNotice, recordSync } from '../session/record.js';
import { runStatus } from '../status/status.js';
import { finalizeThroughDelete, type SyncReport } from './execute.js';
import { syncExitCode, syncWithRetry, type SyncRequest } from './sync.js';

export const SYNC_ALL_SCHEMA_VERSION = 1;

export interface SyncedApp {
  name: string;
  namespace: string;
  /** The exit code a `sync APP` of this one alone would have given. */
  exitCode: ExitCode;
  /** Absent when it failed before a report (an unreadable Application, a refused destination…): see error. */
  report?: SyncReport;
  error?: string;
}

/** What `sync --all -o json` prints (schemaVersion 1). */
export interface SyncAllReport {
  schemaVersion: typeof SYNC_ALL_SCHEMA_VERSION;
  namespace?: string;
  selector?: string;
  dryRun: boolean;
  apps: SyncedApp[];
}

/** The exit code of the whole: the highest of the apps' (0 all synced, 3 a failure, 4 a refusal). */
export function syncAllExitCode(r: SyncAllReport): ExitCode {
  return r.apps.reduce<ExitCode>((m, a) => (a.exitCode > m ? a.exitCode : m), ExitCode.Ok);
}

/** What `sync --all` syncs and how: which Applications, and the options each one's sync gets. */
export interface SyncAllRequest {
  /** Every namespace's Applications, not only --app-namespace's. */
  allNamespaces: boolean;
  /** Only the Applications whose labels match. */
  appSelector?: string;
  dryRun: boolean;
  prune: boolean;
  forceConflicts: boolean;
  timeoutMs: number;
  /** Record each sync in its Application's status. */
  record: boolean;
  /** Try a failed sync again up to this many times (default: each Application's syncPolicy.retry). */
  retryLimit?: number;
  /** Argo CD's control-plane namespace (AppProjects, argocd-cm; default argocd). */
  argocdNamespace?: string;
}

/**
 * Lists the Applications and syncs them one after another (each through its own destination session, recorded as a
 * single sync is); `warn` gets each app's warnings with its name in front.
 */
export async function syncAll(ctx: RunContext, req: SyncAllRequest, warn: (line: string) => void): Promise<SyncAllReport> {
  const namespace = req.allNamespaces ? undefined : ctx.opts.appNamespace;
  return throughPool(ctx, req, warn, namespace, async (pool) => listApplications(await pool.controlPlane(), namespace, req.appSelector));
}

/**
 * Syncs the given Applications (their name and namespace) in turn, as syncAll syncs what it lists, through one pool of
 * its own (`appset sync --recursive`).
 */
export async function syncApplications(
  ctx: RunContext,
  apps: readonly KubeObject[],
  req: SyncAllRequest,
  warn: (line: string) => void,
): Promise<SyncAllReport> {
  return throughPool(ctx, req, warn, ctx.opts.appNamespace, async () => apps);
}

/**
 * One watch-fed cache per cluster for every app's sync (kube/cluster-cache.ts): each type is listed once over all
 * namespaces and kept current, every app's reads and waits are answered from it, and a read after a write waits for
 * the watch to deliver it. One read of each Git repository, revision and tree for all the apps. -v: its cost, once.
 */
async function throughPool(
  ctx: RunContext,
  req: SyncAllRequest,
  warn: (line: string) => void,
  namespace: string | undefined,
  appsOf: (pool: GatewayPool) => Promise<readonly KubeObject[]>,
): Promise<SyncAllReport> {
  const { GatewayPool } = await import('../session/session.js');
  const started = Date.now();
  const pool = await GatewayPool.watched(ctx);
  try {
    const apps = await appsOf(pool);
    const report = await syncEach(ctx, apps, req, warn, namespace, pool);
    await pool.reportCost('sync', apps.length, started);
    return report;
  } finally {
    pool.close();
  }
}

/** Syncs the listed Applications in turn, sharing the pool's connections, cluster caches and Git reads. */
async function syncEach(
  ctx: RunContext,
  apps: readonly KubeObject[],
  req: SyncAllRequest,
  warn: (line: string) => void,
  namespace: string | undefined,
  pool: GatewayPool,
): Promise<SyncAllReport> {
  const { withAppTarget } = await import('../session/session.js');
  const out: SyncedApp[] = [];
  for (const o of apps) {
    const name = o.metadata.name ?? '';
    const ns = o.metadata.namespace ?? '';
    const appCtx: RunContext = { ...ctx, opts: { ...ctx.opts, appNamespace: ns } };
    const args: SyncRequest = {
      app: name,
      argocdNamespace: req.argocdNamespace,
      dryRun: req.dryRun,
      prune: req.prune,
      forceConflicts: req.forceConflicts,
      timeoutMs: req.timeoutMs,
    };
    try {
      const report = await withAppTarget(
        appCtx,
        'sync',
        args,
        async (session) => {
          const deps = {
            io: ctx.io,
            opts: appCtx.opts,
            ...session,
            // A child Application its prune deletes is finished as `delete` would finish it (app-of-apps).
            finalizeApp: finalizeThroughDelete(ctx, req.timeoutMs, req.argocdNamespace),
          };
          const started = Date.now();
          const failure = { startedAtMs: started, record: req.record, dryRun: req.dryRun, prune: req.prune };
          const r = await recordingErrors(
            session,
            failure,
            () =>
              syncWithRetry(args, deps, {
                ...(req.retryLimit !== undefined ? { retryLimit: req.retryLimit } : {}),
                notify: (line) => warn(`${ns}/${name}: retry: ${line}`),
              }),
            warn,
          );
          const recorded = await recordSync(session, { report: r, startedAtMs: started, partial: false, record: req.record }, async (revision) =>
            runStatus({ ...args, ...(revision !== undefined ? { revision } : {}) }, deps),
          );
          const notice = recordNotice(recorded);
          if (notice !== undefined) warn(notice);
          return r;
        },
        pool,
      );
      for (const w of report.warnings) warn(`${ns}/${name}: ${w}`);
      out.push({ name, namespace: ns, exitCode: syncExitCode(report), report });
    } catch (err) {
      out.push({ name, namespace: ns, exitCode: exitCodeFor(err), error: (err as Error).message });
    }
  }
  return {
    schemaVersion: SYNC_ALL_SCHEMA_VERSION,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(req.appSelector !== undefined ? { selector: req.appSelector } : {}),
    dryRun: req.dryRun,
    apps: out,
  };
}
