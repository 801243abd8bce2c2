// `sync --watch --all`: one process reconciles every Application of --app-namespace (-A: every namespace; -l: by
// label) whose syncPolicy is automated, each through its own `sync --watch` loop (watch.ts: the one executor, its own
// selfHeal back-off, prune, allowEmpty, retry, sync windows and AppProject), side by side. Applications created,
// changed and deleted while it runs are picked up from a watch of the Applications: a new automated one gets a loop,
// one deleted (or no longer automated) has its loop stopped after the step in progress. An app that is not automated is
// never touched. One app's failure never stops the others; SIGINT/SIGTERM stop every loop cleanly. At most
// RECONCILE_BOUND loops look or act at once. One webhook, when asked for, wakes the loops of the apps whose source is
// the repository pushed to.
import { once } from 'node:events';
import type { RunContext } from '../../model/context.js';
import { ExitCode } from '../../model/errors.js';
import { isPlainObject, type JsonValue, type KubeObject } from '../../model/object.js';
import { requestedOperationOf } from '../../app/requested-operation.js';
import type { KubeGateway } from '../../kube/gateway.js';
import { ClusterCache } from '../../kube/cluster-cache.js';
import type { FollowEvent } from '../../kube/watch.js';
import type { LoopEvent } from '../../watch/events.js';
import { pollingOf, type WatchRequest } from './watch.js';
import { bounded } from './bounded.js';

/** `sync --watch --all`: which Applications, and what each loop is given (its source is the Application itself). */
export interface WatchAllRequest extends Omit<WatchRequest, 'source'> {
  allNamespaces: boolean;
  appSelector?: string;
  argocdNamespace?: string;
}

/** Whether an Application (as the API returns it) asks for automated sync: syncPolicy.automated, not `enabled: false`. */
export function isAutomated(o: KubeObject): boolean {
  const spec = isPlainObject(o.spec) ? o.spec : {};
  const policy = isPlainObject(spec.syncPolicy) ? spec.syncPolicy : {};
  const auto = policy.automated;
  return isPlainObject(auto) && auto.enabled !== false;
}

const idOf = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

/**
 * How many loops look or act at once (each look renders and reads the cluster; each act applies): Argo CD's controller
 * runs 10 operation processors by default (--operation-processors), and so many loops act here side by side.
 */
export const RECONCILE_BOUND = 10;

/**
 * How long the loops' looks share one read of each Git repository and revision (a push is seen after at most this
 * much, or the --interval when shorter; a webhook push at once). Argo CD's repo-server keeps a resolved revision for
 * 3 minutes (--revision-cache-expiration); a loop here polls every minute by default, so a shorter time keeps what a
 * push takes to be seen close to that.
 */
export const GIT_READS_TTL_MS = 10_000;

/** The repositories an Application's sources read (spec.source, spec.sources). */
export function repoURLsOf(o: KubeObject): string[] {
  const spec = isPlainObject(o.spec) ? o.spec : {};
  const sources = [spec.source, ...(Array.isArray(spec.sources) ? spec.sources : [])];
  return sources.flatMap((s) => (isPlainObject(s) && typeof s.repoURL === 'string' ? [s.repoURL] : []));
}

/** Test seams: the stop signal and whether to install the process's signal handlers. */
export interface WatchAllDeps {
  signal?: AbortSignal;
  handleSignals?: boolean;
}

/** Runs until SIGINT/SIGTERM (or `deps.signal`); every loop's events go to `onEvent` with `app` set to `namespace/name`. */
export async function runWatchAll(req: WatchAllRequest, ctx: RunContext, onEvent: (e: LoopEvent) => void, deps: WatchAllDeps = {}): Promise<ExitCode> {
  const { runWatch } = await import('./watch.js');
  const { GatewayPool } = await import('../session/session.js');
  const { listApplications } = await import('../list.js');
  const emit = (e: Omit<LoopEvent, 'time'>) => onEvent({ ...e, time: new Date() });
  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    emit({ action: 'stop', result: 'stopping', message: `${sig}: stopping every loop after its step in progress` });
    stop.abort();
  };
  if (deps.handleSignals !== false) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  deps.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const namespace = req.allNamespaces ? undefined : ctx.opts.appNamespace;
  const loops = new Map<string, { stop: AbortController; done: Promise<void> }>();
  const wakers = new Map<string, { wake: () => void; repos: string[] }>();
  /** Each loop's listener for its Application's updates (a refresh asked, a changed spec: see watch/app-change.ts). */
  const appListeners = new Map<string, (o: KubeObject) => void>();
  const turn = bounded(RECONCILE_BOUND);
  const started = Date.now();
  /** Every Application that had a loop, for -v's summary. */
  const seen = new Set<string>();
  // One watch-fed cache per cluster for every loop (kube/cluster-cache.ts): a look reads it, not the API server, and
  // its watches wake the loops whose objects changed.
  const pool = await GatewayPool.watched(ctx);
  // One read of each repository, revision and tree for every loop's looks for a while (rather than each look's own git
  // processes, which at 1,000 apps were most of the process's CPU).
  const { RotatingSourceReads } = await import('../../source/shared-reads.js');
  const gitReads = new RotatingSourceReads(Math.min(GIT_READS_TTL_MS, req.intervalMs ?? GIT_READS_TTL_MS));
  // A stop stops every loop (each finishes its step in progress).
  stop.signal.addEventListener('abort', () => {
    for (const l of loops.values()) l.stop.abort();
  });

  const start = (o: KubeObject) => {
    const id = idOf(o);
    if (loops.has(id) || stop.signal.aborted) return;
    const own = new AbortController();
    const appCtx: RunContext = { ...ctx, opts: { ...ctx.opts, appNamespace: o.metadata.namespace ?? '' } };
    const { webhookAddr: _one, webhookSecret: _forAll, ...perApp } = req;
    seen.add(id);
    emit({ action: 'app', object: id, result: 'started', message: 'automated: reconciled by its own loop' });
    const done = runWatch(
      { ...perApp, source: { app: o.metadata.name ?? '', ...(req.argocdNamespace !== undefined ? { argocdNamespace: req.argocdNamespace } : {}) } },
      appCtx,
      (e) => onEvent({ ...e, app: id }),
      {
        signal: own.signal,
        handleSignals: false,
        turn,
        pool,
        sourceReads: gitReads,
        onWake: (wake) => {
          wakers.set(id, { wake, repos: repoURLsOf(o) });
          return () => wakers.delete(id);
        },
        onAppChange: (listener) => {
          appListeners.set(id, listener);
          listener(o);
          return () => appListeners.delete(id);
        },
      },
    )
      .then(
        () => undefined,
        (err: unknown) =>
          emit({
            action: 'error',
            object: id,
            result: 'loop-ended',
            message: `${(err as Error).message} (its loop starts again when the Application changes)`,
          }),
      )
      .finally(() => {
        if (loops.get(id) === entry) loops.delete(id);
      });
    const entry = { stop: own, done };
    loops.set(id, entry);
  };
  const forget = (id: string, why: string) => {
    const loop = loops.get(id);
    if (!loop) return;
    loops.delete(id);
    loop.stop.abort();
    emit({ action: 'app', object: id, result: 'stopped', message: why });
  };
  // An Application with no loop (not automated) is synced only when a sync is requested through its `operation`
  // field: each request is run once (sync/requested.ts), bounded with the loops' steps.
  let control: KubeGateway | undefined;
  const servedOps = new Map<string, string>();
  const requests = new Set<Promise<void>>();
  const serveRequested = (o: KubeObject) => {
    const id = idOf(o);
    const op = requestedOperationOf(o.operation as JsonValue | undefined);
    if (op === undefined) servedOps.delete(id);
    if (op === undefined || servedOps.get(id) === op.key || control === undefined || stop.signal.aborted) return;
    servedOps.set(id, op.key);
    if ('refused' in op) {
      emit({ app: id, action: 'app', object: id, result: 'operation-refused', message: `${op.refused}; the request is left in place` });
      return;
    }
    const cp = control;
    const ref = { namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' };
    emit({
      app: id,
      action: 'app',
      object: id,
      result: 'operation',
      message: `a sync requested${op.username !== undefined ? ` by ${op.username}` : ''}: running it`,
    });
    const running = (async () => {
      const { runRequestedSync } = await import('./requested.js');
      const done = await turn(() =>
        runRequestedSync(ctx, ref, op, {
          controlPlane: cp,
          timeoutMs: req.timeoutMs,
          record: req.record,
          ...(req.argocdNamespace !== undefined ? { argocdNamespace: req.argocdNamespace } : {}),
          pool,
          say: (line) => emit({ app: id, action: 'app', object: id, result: 'operation', message: line }),
        }),
      );
      emit({ app: id, action: 'app', object: id, result: done.ok ? 'operation-succeeded' : 'operation-failed', message: done.message });
    })().catch(() => undefined);
    requests.add(running);
    void running.finally(() => requests.delete(running));
  };
  const consider = (o: KubeObject) => {
    const id = idOf(o);
    if (isAutomated(o)) {
      if (!loops.has(id)) return start(o);
      // A running loop hears of its Application's update (its sources may have moved to other repositories too).
      const waker = wakers.get(id);
      if (waker) waker.repos = repoURLsOf(o);
      appListeners.get(id)?.(o);
    } else {
      if (loops.has(id)) forget(id, 'no longer automated: left alone from now on');
      serveRequested(o);
    }
  };
  /** After a fresh list: the loops of Applications no longer there are stopped (deleted while no watch was open). */
  const present = (ids: ReadonlySet<string>) => {
    for (const id of [...loops.keys()]) if (!ids.has(id)) forget(id, 'deleted: its loop stopped');
  };

  let webhook: import('../../watch/webhook.js').WebhookServer | undefined;
  try {
    // The Applications are read, and followed, through the control plane's cache, which the loops read them from too.
    control = await pool.controlPlane();
    const apps = await listApplications(control, namespace, req.appSelector);
    emit({
      action: 'start',
      message: `reconciling the automated Applications ${namespace !== undefined ? `of ${namespace}` : 'of every namespace'}${req.appSelector !== undefined ? ` matching ${req.appSelector}` : ''} ${pollingOf(req)}`,
      detail: { apps: apps.length, automated: apps.filter((o) => isAutomated(o)).length },
    });
    for (const o of apps) {
      if (isAutomated(o)) start(o);
      else {
        emit({
          action: 'app',
          object: idOf(o),
          result: 'skipped',
          message: 'not automated: synced only when a sync is requested (sync APP, or its operation field)',
        });
        serveRequested(o);
      }
    }
    if (req.webhookAddr !== undefined) {
      const { pushTouches, startWebhook } = await import('../../watch/webhook.js');
      webhook = await startWebhook({
        addr: req.webhookAddr,
        ...(req.webhookSecret ? { secret: req.webhookSecret } : {}),
        onPush: (push) => {
          // Git is read anew by the looks this push wakes.
          gitReads.expire();
          for (const w of wakers.values()) if (pushTouches(push, w.repos)) w.wake();
        },
        onRequest: (r) => emit({ action: 'webhook', result: r.outcome === 'push' ? 'accepted' : r.outcome, message: r.reason, detail: { status: r.status } }),
      });
      emit({
        action: 'start',
        message: `webhook on ${webhook.host}:${webhook.port}: a push wakes the loops of the apps whose source is that repository`,
        detail: { webhookPort: webhook.port },
      });
    }
    // Applications created, changed and deleted while it runs.
    await followApplications(control, namespace, req.appSelector, stop.signal, { consider, forget, present });
    await Promise.all([...loops.values()].map((l) => l.done));
    await Promise.all([...requests]);
    emit({ action: 'stop', result: 'stopped' });
    return ExitCode.Ok;
  } finally {
    stop.abort();
    for (const l of loops.values()) l.stop.abort();
    await Promise.all([...loops.values()].map((l) => l.done));
    await webhook?.close();
    await pool.reportCost('watch', seen.size, started);
    pool.close();
    gitReads.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Watches the Applications until `signal` aborts, re-watching (from a fresh list) when the stream ends or fails. */
export async function followApplications(
  gw: KubeGateway,
  namespace: string | undefined,
  selector: string | undefined,
  signal: AbortSignal,
  on: { consider: (o: KubeObject) => void; forget: (id: string, why: string) => void; present: (ids: ReadonlySet<string>) => void },
  /** One Application's loop: the server sends only its updates (`metadata.name=NAME`). */
  fieldSelector?: string,
): Promise<void> {
  const { preferred } = await gw.discover();
  const type = preferred.find((t) => t.group === 'argoproj.io' && t.kind === 'Application');
  if (!type) return;
  // Through the cache's own watch of the Applications when it keeps one (no label selector: that one the server filters).
  const onCached = (ev: FollowEvent) => {
    if (ev.kind === 'listed') {
      for (const o of ev.items) on.consider(o);
      on.present(new Set(ev.items.map(idOf)));
    } else if (ev.kind === 'change') {
      if (ev.type === 'DELETED') on.forget(idOf(ev.object), 'deleted: its loop stopped');
      else on.consider(ev.object);
    }
  };
  if (gw instanceof ClusterCache && selector === undefined && gw.subscribe(type, onCached, { ...(namespace !== undefined ? { namespace } : {}), signal })) {
    if (!signal.aborted) await once(signal, 'abort');
    return;
  }
  let failures = 0;
  while (!signal.aborted) {
    try {
      const filters = { ...(selector !== undefined ? { labelSelector: selector } : {}), ...(fieldSelector !== undefined ? { fieldSelector } : {}) };
      const list = await gw.list(type, { ...(namespace !== undefined ? { namespace } : {}), ...filters });
      for (const o of list.items) on.consider(o);
      on.present(new Set(list.items.map(idOf)));
      await gw.watch(
        type,
        {
          ...(namespace !== undefined ? { namespace } : {}),
          ...filters,
          ...(list.resourceVersion ? { resourceVersion: list.resourceVersion } : {}),
          signal,
        },
        (e) => {
          if (e.type === 'ADDED' || e.type === 'MODIFIED') on.consider(e.object);
          else if (e.type === 'DELETED') on.forget(idOf(e.object), 'deleted: its loop stopped');
        },
      );
      failures = 0;
    } catch {
      if (signal.aborted) return;
      failures++;
    }
    // Bounded back-off before watching again (a stream the server closed, a lost connection, 410 Gone).
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
      signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
  }
}
