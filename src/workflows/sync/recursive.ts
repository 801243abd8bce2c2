// `sync APP --recursive`: app-of-apps. Once the parent's sync has applied its child Applications, each child is synced
// (through the one operation: runOperation, recorded as `sync CHILD` would be) in the parent's wave order, the children
// of one wave side by side (at most WAVE_BOUND at once), each one's own children after it, to any depth; a wave of
// children then waits for each child's sync status and health, computed afresh (never the Application's stored
// .status), before the next wave starts, as hooks and waves wait. A failed or unhealthy child stops the walk (exit 3;
// a refused one exits 4); an Application that is its own ancestor is refused (exit 4) before any child of that level
// is synced. SIGINT/SIGTERM let the children in progress finish their step and start nothing after them (exit 130/143).
import type { RunContext } from '../../model/context.js';
import { ExitCode, exitCodeFor } from '../../model/errors.js';
import type { StatusReport } from '../../health/report.js';
import type { Clock } from '../status/status.js';
import type { SyncReport } from './execute.js';
import type { SyncRequest } from './sync.js';
import { bounded } from './bounded.js';

/** A child Application the parent's sync applied, and the parent's wave it was applied in. */
export interface ChildRef {
  namespace: string;
  name: string;
  wave: number;
  /** Whether its sync prunes, when not the parent's --prune (a RollingSync step's defaultPrune). */
  prune?: boolean;
}

/** How one child ended. */
export interface ChildSync extends ChildRef {
  /**
   * `synced`: its sync succeeded and it was Synced and Healthy before the next wave (or its wave's wait was never reached:
   * another child of its wave failed); `failed`: its sync (or one of its
   * own children) failed; `refused`: its sync was refused (exit 4); `unhealthy`: synced, but Degraded, not comparable,
   * or not Synced and Healthy within --timeout; `not-synced`: the walk stopped before it.
   */
  outcome: 'synced' | 'failed' | 'refused' | 'unhealthy' | 'not-synced';
  exitCode: ExitCode;
  /** As computed after its wave (absent when it was not waited for). */
  sync?: string;
  health?: string;
  /** The commit its sync applied. */
  revision?: string;
  message?: string;
  /** Its own children, when it has any. */
  children?: ChildSync[];
}

export interface ChildWalk {
  children: ChildSync[];
  exitCode: ExitCode;
  /** Why the walk stopped early (absent when every child was synced). */
  stopped?: string;
}

/** What the walk asks of the cluster: a child's sync, and how it stands afresh (waiting up to --timeout). */
export interface WalkDeps {
  sync(child: ChildRef): Promise<{ exitCode: ExitCode; report?: SyncReport; error?: string }>;
  settle(child: ChildRef): Promise<{ converged: boolean; sync: string; health: string; reason?: string }>;
  /** The signal that asked the walk to stop (SIGINT/SIGTERM), if one did: no child or wait starts after it. */
  interrupted?(): NodeJS.Signals | undefined;
  /** How a wave is named in messages (`wave 1` by default; a RollingSync walk says `step 1`). */
  label?(wave: number): string;
}

/** The shell's code for a walk a signal stopped (128 + its number). */
function signalCode(signal: NodeJS.Signals): ExitCode {
  return signal === 'SIGTERM' ? ExitCode.Terminated : ExitCode.Interrupted;
}

const key = (c: Pick<ChildRef, 'namespace' | 'name'>) => `${c.namespace}/${c.name}`;

/** How many child Applications of one wave are synced at once (each a whole sync: renders, applies, hooks). */
export const WAVE_BOUND = 4;

/** The child Applications a sync applied (Application objects of argoproj.io), by the parent's wave, then namespace and name. */
export function childrenOf(report: SyncReport): ChildRef[] {
  const seen = new Set<string>();
  const out: ChildRef[] = [];
  for (const s of report.steps) {
    if (s.group !== 'argoproj.io' || s.kind !== 'Application' || !['applied', 'skipped'].includes(s.outcome) || seen.has(key(s))) continue;
    seen.add(key(s));
    out.push({ namespace: s.namespace, name: s.name, wave: s.wave ?? 0 });
  }
  return out.sort((a, b) => a.wave - b.wave || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** Every child left as it is: the walk stopped before them. */
function notSynced(children: readonly ChildRef[]): ChildSync[] {
  return children.map((c) => ({ ...c, outcome: 'not-synced', exitCode: ExitCode.Ok }));
}

/**
 * Syncs `children` wave by wave (each one's own children right after it), then waits for the wave; `chain` is the path
 * of Applications above them (`namespace/name`), for the cycle check. Pure but for `deps`.
 */
export async function walkChildren(children: readonly ChildRef[], chain: readonly string[], deps: WalkDeps): Promise<ChildWalk> {
  const cycle = children.find((c) => chain.includes(key(c)));
  if (cycle) {
    return {
      children: notSynced(children),
      exitCode: ExitCode.Refused,
      stopped: `refusing to sync the child Applications of ${chain[chain.length - 1] ?? ''}: ${key(cycle)} is its own ancestor (${[...chain, key(cycle)].join(' -> ')}); none of them was synced`,
    };
  }
  const out: ChildSync[] = [];
  const name = deps.label ?? ((w: number) => `wave ${w}`);
  const waves = [...new Set(children.map((c) => c.wave))].sort((a, b) => a - b);
  let stopped: { why: string; code: ExitCode } | undefined;
  for (const wave of waves) {
    const batch = children.filter((c) => c.wave === wave);
    if (stopped) {
      out.push(...notSynced(batch));
      continue;
    }
    // The wave's children are synced side by side (at most WAVE_BOUND at once), as Argo CD's controller syncs the
    // Applications a parent applied, each one's own children right after it; once one fails, no child of the wave
    // starts (those already running finish their sync), and the walk stops after the wave.
    const turn = bounded(WAVE_BOUND);
    const one = async (c: ChildRef): Promise<ChildSync> => {
      const signal: NodeJS.Signals | undefined = stopped ? undefined : deps.interrupted?.();
      if (signal) stopped = { why: `interrupted by ${signal} before child Application ${key(c)} (${name(wave)})`, code: signalCode(signal) };
      if (stopped) return notSynced([c])[0]!;
      const r = await deps.sync(c);
      if (r.exitCode !== ExitCode.Ok) {
        const refused = r.exitCode === ExitCode.Refused;
        const message = r.error ?? r.report?.refused ?? r.report?.failures[0]?.message ?? r.report?.stoppedBeforeWriting ?? `exit ${r.exitCode}`;
        stopped ??= { why: `child Application ${key(c)} (${name(wave)}) ${refused ? 'was refused' : 'failed'}: ${message}`, code: r.exitCode };
        return {
          ...c,
          outcome: refused ? 'refused' : 'failed',
          exitCode: r.exitCode,
          message,
          ...(r.report?.revision ? { revision: r.report.revision } : {}),
        };
      }
      const entry: ChildSync = { ...c, outcome: 'synced', exitCode: ExitCode.Ok, ...(r.report?.revision ? { revision: r.report.revision } : {}) };
      const own = r.report ? childrenOf(r.report) : [];
      if (own.length > 0) {
        const sub = await walkChildren(own, [...chain, key(c)], deps);
        entry.children = sub.children;
        if (sub.exitCode !== ExitCode.Ok) {
          entry.outcome = sub.exitCode === ExitCode.Refused ? 'refused' : 'failed';
          entry.exitCode = sub.exitCode;
          entry.message = sub.stopped ?? 'a child Application failed';
          stopped ??= { why: sub.stopped ?? `a child Application of ${key(c)} failed`, code: sub.exitCode };
        }
      }
      return entry;
    };
    const synced = await Promise.all(batch.map((c) => turn(() => one(c))));
    out.push(...synced);
    // The wave waits for every child it synced, each computed afresh, before the next one starts: all of them at once,
    // so that --timeout bounds the wave (not each child in turn), and each child's standing is told even when another
    // child of the wave is what stops the walk.
    const waiting = stopped ? [] : synced.filter((e) => e.outcome === 'synced');
    const before = waiting.length > 0 ? deps.interrupted?.() : undefined;
    if (before) {
      stopped = { why: `interrupted by ${before} while ${name(wave)} waited for its children`, code: signalCode(before) };
      continue;
    }
    const settled = await Promise.all(waiting.map((entry) => deps.settle(entry)));
    waiting.forEach((entry, i) => {
      const s = settled[i]!;
      entry.sync = s.sync;
      entry.health = s.health;
      if (s.converged) return;
      entry.outcome = 'unhealthy';
      entry.exitCode = ExitCode.Cluster;
      entry.message = s.reason ?? `${s.sync}, ${s.health}`;
      if (stopped) return;
      const signal = deps.interrupted?.();
      stopped = signal
        ? { why: `interrupted by ${signal} while ${name(wave)} waited for ${key(entry)}`, code: signalCode(signal) }
        : { why: `child Application ${key(entry)} (${name(wave)}) is ${s.sync} and ${s.health}: ${entry.message}`, code: ExitCode.Cluster };
    });
  }
  return { children: out, exitCode: stopped?.code ?? ExitCode.Ok, ...(stopped ? { stopped: stopped.why } : {}) };
}

/** How often a wave polls its children's status while it waits. */
const SETTLE_INTERVAL_MS = 2000;

/** What the walk on the cluster is told: how to report, record, describe a status and wait. */
export interface ChildSyncOptions {
  record: boolean;
  retryLimit?: number;
  say: (line: string) => void;
  describe: (r: StatusReport) => string;
  clock: Clock;
  /** Install SIGINT/SIGTERM handlers (default true). */
  handleSignals?: boolean;
}

/** The walk's cost for -v: its children's requests and the clusters they were read from, once at the end. */
const WALK_WHAT = 'sync --recursive';

/**
 * The walk on the cluster: each child synced as `sync CHILD` with the parent's --prune (or its own `prune`),
 * --force-conflicts, --timeout, --retry-limit and --record (never the parent's -n, --revision or source flags), through
 * its own destination; each wave settled by `status CHILD` polled until Synced and Healthy, Degraded (at once), or the
 * timeout. Every child is synced and polled through one pool of connections with one watch-fed cache per cluster (as
 * `sync --all`): a kind is listed once for all the children, a poll reads the cache, and a read after a child's write
 * waits for the watch to deliver it. `dispose` removes the signal handlers and closes the pool (with -v, its cost said once).
 */
export async function childSyncDeps(ctx: RunContext, request: SyncRequest, opts: ChildSyncOptions): Promise<{ deps: WalkDeps; dispose(): Promise<void> }> {
  const { runOperation } = await import('./operation.js');
  const { childAppContext, withAppTarget, GatewayPool } = await import('../session/session.js');
  const pool = await GatewayPool.watched(ctx);
  const started = Date.now();
  const children = new Set<string>();
  const { runStatus } = await import('../status/status.js');
  const childCtx = (c: ChildRef): RunContext => childAppContext(ctx, c.namespace);
  const childRequest = (c: ChildRef): SyncRequest => ({
    app: c.name,
    dryRun: false,
    prune: c.prune ?? request.prune,
    forceConflicts: request.forceConflicts,
    timeoutMs: request.timeoutMs,
    ...(request.argocdNamespace !== undefined ? { argocdNamespace: request.argocdNamespace } : {}),
  });
  // SIGINT/SIGTERM: the child being synced finishes its step (runOperation stops it as it stops `sync`), and no child
  // or wait starts after it; a second signal ends the process at once (the handlers are gone by then).
  let received: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    received ??= sig;
    opts.say(`sync --recursive: ${sig}: no child Application starts after this one (again to force)`);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  if (opts.handleSignals !== false) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  const deps: WalkDeps = {
    interrupted: () => received,
    async sync(c) {
      opts.say(`syncing child Application ${key(c)} (${deps.label ? deps.label(c.wave) : `wave ${c.wave}`})`);
      children.add(key(c));
      try {
        const r = await runOperation(
          childCtx(c),
          { kind: 'sync', request: childRequest(c), record: opts.record, ...(opts.retryLimit !== undefined ? { retryLimit: opts.retryLimit } : {}) },
          { say: (line) => opts.say(`${key(c)}: ${line}`), pool },
        );
        for (const w of r.warnings) opts.say(`warning: ${key(c)}: ${w}`);
        return { exitCode: r.exitCode, ...(r.report ? { report: r.report } : {}) };
      } catch (err) {
        return { exitCode: exitCodeFor(err) === ExitCode.Refused ? ExitCode.Refused : ExitCode.Cluster, error: (err as Error).message };
      }
    },
    async settle(c) {
      const appCtx = childCtx(c);
      const args = { app: c.name, ...(request.argocdNamespace !== undefined ? { argocdNamespace: request.argocdNamespace } : {}) };
      return withAppTarget(
        appCtx,
        'status',
        args,
        async (session) => {
          const start = opts.clock.now();
          for (;;) {
            // Each poll reads Git anew (a branch may have moved), the cluster from the pool's cache.
            pool.freshSources();
            const { report } = await runStatus(args, { io: ctx.io, opts: appCtx.opts, ...session, sourceReads: pool.sourceReads });
            const now = { sync: report.sync.status, health: report.health.status };
            if (now.sync === 'Synced' && now.health === 'Healthy') return { converged: true, ...now };
            if (now.health === 'Degraded' || report.sync.reason !== undefined) return { converged: false, ...now, reason: opts.describe(report) };
            if (received) return { converged: false, ...now, reason: `interrupted by ${received}` };
            if (opts.clock.now() - start >= request.timeoutMs)
              return {
                converged: false,
                ...now,
                reason: `not Synced and Healthy within the --timeout: ${opts.describe(report) || `${now.sync}, ${now.health}`}`,
              };
            await opts.clock.sleep(SETTLE_INTERVAL_MS);
          }
        },
        pool,
      );
    },
  };
  return {
    deps,
    dispose: async () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      try {
        // Said only when a child was synced (a parent without child Applications has no walk to tell of).
        if (children.size > 0) await pool.reportCost(WALK_WHAT, children.size, started);
      } finally {
        pool.close();
      }
    },
  };
}

/** The child Applications of a parent's sync (childrenOf), walked on the cluster (childSyncDeps). */
export async function syncChildrenOf(
  ctx: RunContext,
  parent: { namespace: string; name: string; report: SyncReport },
  request: SyncRequest,
  opts: ChildSyncOptions,
): Promise<ChildWalk> {
  const { deps, dispose } = await childSyncDeps(ctx, request, opts);
  try {
    return await walkChildren(childrenOf(parent.report), [`${parent.namespace}/${parent.name}`], deps);
  } finally {
    await dispose();
  }
}
