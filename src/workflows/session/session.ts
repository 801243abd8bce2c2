// One cluster session per command: read the Application, resolve its destination to a kubeconfig context, connect
// to that cluster, run, and on -v report what it cost (requests, retries, time) as a session event (cli/ prints it).
import { access } from 'node:fs/promises';
import type { RunContext } from '../../model/context.js';
import { applicationFileError } from '../../app/application.js';
import {
  describeDestination,
  IN_CLUSTER_NAME,
  IN_CLUSTER_SERVER,
  normalizeServer,
  resolveDestination,
  type ClusterSecretInfo,
  type ContextInfo,
} from '../../app/destination.js';
import type { SelectedContext } from '../../kube/kubeconfig.js';
import type { Application } from '../../app/types.js';
import { InputError, RefusedError } from '../../model/errors.js';
import { manifestPathError } from '../../manifest/index.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { MergedKubeconfig } from '../../kube/kubeconfig.js';
import type { ConnectOptions } from '../../model/context.js';
import { ClusterSnapshot, type SnapshotStats } from '../../kube/snapshot.js';
import { ClusterCache, type ClusterCacheOptions } from '../../kube/cluster-cache.js';
import { SourceReads } from '../../source/shared-reads.js';
import { controlPlaneNamespace, SECRET_TYPE } from '../../model/keys.js';
import { KubeApiError } from '../../kube/errors.js';
import type { AppStateArgs, AppTarget } from './app-state.js';
import { loadApplicationFromCluster, loadApplicationFromFile } from './application-source.js';

/** The connection's log lines (kube/connect.ts writes them from -v 4 on), handed to the caller as session events. */
function sessionLog(ctx: RunContext): (line: string) => void {
  return (line) => ctx.onSession?.({ kind: 'log', line });
}

/** The local paths a command reads besides the cluster. */
export interface LocalSources {
  appFile?: string;
  desired?: string;
}

/**
 * Fails on a named Application file or --desired path that does not exist, before any connection: a
 * typo is reported as itself even where no kubeconfig is set. The messages are those the readers give.
 */
export async function checkLocalSources(sources: LocalSources): Promise<void> {
  const check = async (path: string | undefined, error: (path: string, err: unknown) => Error): Promise<void> => {
    if (path === undefined || path === '' || path === '-') return;
    await access(path).catch((err: unknown) => {
      throw error(path, err);
    });
  };
  await check(sources.appFile, applicationFileError);
  await check(sources.desired, manifestPathError);
}

/** What a command acting on an Application's destination gets: the gateway to that cluster and the Application. */
export interface TargetSession {
  /** The destination's cluster, reached with its context's credentials. */
  gateway: KubeGateway;
  /** The cluster the Application was read from, where Argo CD runs (its AppProjects and argocd-cm); the destination's for a file. */
  controlPlane: KubeGateway;
  /** Reads the Application again (the watch loop does so every round), refusing if its destination moved. */
  application: () => Promise<Application>;
  target: AppTarget;
  /** The Application as an object in `controlPlane` (absent for an Application file): where its status is recorded. */
  appRef?: { namespace: string; name: string };
  /** Who acts, as the kubeconfig names them (--as, else --user, else the context's user): the history's initiatedBy. */
  user?: string;
  /** The Git reads the apps of a many-app command share (its pool's). */
  sourceReads?: SourceReads;
}

/**
 * The context a child Application (app-of-apps) is read and acted on in: its own namespace as --app-namespace, and not
 * the parent's -n, which named the parent's objects.
 */
export function childAppContext(ctx: RunContext, appNamespace: string): RunContext {
  const { namespace: _parentsOverride, ...opts } = ctx.opts;
  return { ...ctx, opts: { ...opts, appNamespace } };
}

/**
 * Reads the Application (from `-f FILE`, or `APP` from the selected context's cluster), resolves its destination to a
 * kubeconfig context (see app/destination.ts) and runs `fn` with a gateway to that context's cluster. A destination
 * that names no context, several, or another cluster than an explicit --context is a refusal (exit 4) before any
 * request reaches a cluster it could change. Both connections are closed afterwards; with -v their requests are reported
 * to `ctx.onSession`.
 */
export async function withAppTarget<T>(
  ctx: RunContext,
  what: string,
  args: AppStateArgs,
  fn: (session: TargetSession) => Promise<T>,
  pool?: GatewayPool,
): Promise<T> {
  await checkLocalSources(args);
  const { readMergedKubeconfig, selectContext, contextsOf } = await import('../../kube/kubeconfig.js');
  const connect = await import('../../kube/connect.js');
  const connectContext = pool ? pool.connect : connect.connectContext;
  const { connectSelected } = connect;
  const merged = pool ? await pool.kubeconfig() : await readMergedKubeconfig({ kubeconfig: ctx.opts.kubeconfig, env: ctx.io.env });
  const explicitContext = ctx.opts.context !== undefined && ctx.opts.context !== '';
  // --server (or --cluster) builds a context as kubectl does: the selected one with that server, or one of the flags
  // alone when there is no kubeconfig or no current context.
  const o = ctx.opts.overrides;
  let flagSel: SelectedContext | undefined;
  let flagContext: (ContextInfo & { via: string }) | undefined;
  if (o !== undefined && (o.server !== undefined || o.cluster !== undefined)) {
    const { applyOverrides } = await import('../../kube/overrides.js');
    flagSel = applyOverrides(merged, ctx.opts.context, o);
    const server = String(flagSel.cluster.value.server);
    flagContext = {
      name: flagSel.name,
      cluster: flagSel.cluster.name,
      server,
      via: o.server !== undefined ? `--server ${o.server}` : `--cluster ${o.cluster ?? ''} (${server})`,
    };
  }
  const gateways: KubeGateway[] = [];
  const started = Date.now();
  try {
    let appGateway: KubeGateway | undefined;
    let appContext: string | undefined;
    let appRef: TargetSession['appRef'];
    let user: string | undefined;
    let load: () => Promise<Application>;
    if (args.appFile) {
      const file = args.appFile;
      load = () => loadApplicationFromFile(file, ctx.io);
      if (explicitContext) selectContext(merged, ctx.opts.context); // a --context that does not exist is a typo, said at once
      appContext = explicitContext ? ctx.opts.context : (merged.currentContext ?? flagSel?.name);
    } else {
      if (!args.app) throw new InputError('name an Application (APP) or give -f/--app-file FILE');
      const log = sessionLog(ctx);
      const selected = flagSel ?? selectContext(merged, ctx.opts.context);
      appContext = selected.name;
      const gw = flagSel ? await connectSelected(flagSel, ctx.opts, ctx.io.env, log) : await connectContext(selected, ctx.opts, ctx.io.env, log);
      user = ctx.opts.overrides?.as ?? ctx.opts.overrides?.user ?? selected.user?.name;
      appRef = { namespace: ctx.opts.appNamespace, name: args.app };
      gateways.push(gw);
      appGateway = gw;
      const name = args.app;
      load = () => loadApplicationFromCluster(gw, name, ctx.opts.appNamespace);
    }
    const warnings: string[] = [];
    const resolve = async (app: Application) => {
      const d = app.destination;
      const inCluster = (d.server !== undefined && normalizeServer(d.server) === IN_CLUSTER_SERVER) || d.name === IN_CLUSTER_NAME;
      if (inCluster && appContext === undefined) selectContext(merged, ctx.opts.context); // says no context is selected, exit 2
      const clusterSecrets = appGateway && !inCluster ? await readClusterSecrets(appGateway, controlPlaneNamespace(args.argocdNamespace), warnings) : [];
      const res = resolveDestination({
        destination: d,
        contexts: contextsOf(merged),
        ...(appContext !== undefined ? { appContext } : {}),
        appFromCluster: appGateway !== undefined,
        explicitContext,
        clusterSecrets,
        ...(flagContext ? { flagContext } : {}),
      });
      if (!res.ok) throw new RefusedError(`refusing to act on Application ${app.name}: ${res.refused}; nothing was changed`);
      // --server and --cluster replace the cluster a context reaches: the destination must still be that cluster.
      if (flagContext && normalizeServer(flagContext.server) !== normalizeServer(res.server)) {
        throw new RefusedError(
          `refusing to act on Application ${app.name}: spec.destination (${describeDestination(d)}) is reached by context ${res.context} (${res.server}), but ${flagContext.via} names another cluster; nothing was changed`,
        );
      }
      return res;
    };
    const first = await load();
    const res = await resolve(first);
    let gateway: KubeGateway;
    if (appGateway && res.context === appContext) gateway = appGateway;
    else if (flagSel && res.context === flagSel.name) {
      gateway = await connectSelected(flagSel, ctx.opts, ctx.io.env, sessionLog(ctx));
      gateways.push(gateway);
    } else {
      gateway = await connectContext(selectContext(merged, res.context), ctx.opts, ctx.io.env, sessionLog(ctx));
      gateways.push(gateway);
    }
    let pending: Application | undefined = first;
    const application = async () => {
      if (pending) {
        const app = pending;
        pending = undefined;
        return app;
      }
      const app = await load();
      const again = await resolve(app);
      if (again.context !== res.context)
        throw new RefusedError(
          `Application ${app.name}'s destination now resolves to context ${again.context}, not ${res.context}: restart the command to act there`,
        );
      return app;
    };
    const target: AppTarget = { context: res.context, server: res.server, why: res.why, ...(appContext !== undefined ? { appContext } : {}), warnings };
    return await fn({
      gateway,
      controlPlane: appGateway ?? gateway,
      application,
      target,
      ...(appRef ? { appRef } : {}),
      ...(user !== undefined ? { user } : {}),
      ...(pool ? { sourceReads: pool.sourceReads } : {}),
    });
  } finally {
    // A pool's connections are shared by many sessions: its owner reports what they cost, once.
    if (ctx.opts.verbose && !pool) {
      const s = gateways.reduce((a, g) => ({ requests: a.requests + g.stats().requests, retries: a.retries + g.stats().retries }), { requests: 0, retries: 0 });
      ctx.onSession?.({ kind: 'requests', what, ...s, ms: Date.now() - started });
    }
    for (const g of gateways) g.close();
  }
}

/**
 * Connections kept open across the sessions of one command over many Applications (`list`, `status -A`, a dashboard
 * round): one per context, each a snapshot of its cluster that every app's session reads (kube/snapshot.ts: each type
 * listed once over all namespaces, unless `wide: false`), the kubeconfig read once, and the Git sources' repositories,
 * revisions and trees read once (source/shared-reads.ts); `close()` ends the connections. With `watch` (a command that
 * runs on: `sync --watch --all`), each context's connection is a cache its watches keep current (kube/cluster-cache.ts).
 */
export class GatewayPool {
  private readonly open = new Map<string, Promise<ClusterSnapshot | ClusterCache>>();
  private merged: Promise<MergedKubeconfig> | undefined;
  private reads = new SourceReads();

  constructor(
    private readonly ctx: RunContext,
    private readonly opts: { wide: boolean; watch?: ClusterCacheOptions } = { wide: true },
  ) {}

  /**
   * A pool whose connections are watch-fed caches (a command that runs on, or acts on many apps and waits on what it
   * did: `sync --all`, `sync --watch --all`, the dashboard), reconnecting with the watch loop's jittered back-off.
   */
  static async watched(ctx: RunContext): Promise<GatewayPool> {
    const { reconnectDelay } = await import('../../watch/backoff.js');
    const { systemClock } = await import('../../watch/loop.js');
    return new GatewayPool(ctx, { wide: true, watch: { reconnectDelay: (n) => reconnectDelay(n, Math.random()), sleep: systemClock.sleep } });
  }

  /** With -v: what the pool's connections cost `what` over `apps` Applications since `startedAtMs`, said once. */
  async reportCost(what: string, apps: number, startedAtMs: number): Promise<void> {
    if (!this.ctx.opts.verbose) return;
    const s = await this.stats();
    this.ctx.onSession?.({
      kind: 'requests',
      what,
      requests: s.requests,
      retries: s.retries,
      ms: Date.now() - startedAtMs,
      fleet: {
        apps,
        clusters: s.clusters.length,
        clusterWideLists: s.clusters.reduce((n, c) => n + c.snapshot.clusterWideLists, 0),
        splitByNamespace: [...new Set(s.clusters.flatMap((c) => c.snapshot.splitByNamespace))].sort(),
        ...(this.opts.watch ? { watched: true } : {}),
      },
    });
  }

  /** Each Git repository, revision and tree the apps' renders read, read once for all of them (until `freshSources`). */
  get sourceReads(): SourceReads {
    return this.reads;
  }

  /** Git is read anew from here on (a long-lived pool's next round: a branch may have moved). */
  freshSources(): void {
    this.reads.close();
    this.reads = new SourceReads();
  }

  kubeconfig(): Promise<MergedKubeconfig> {
    this.merged ??= import('../../kube/kubeconfig.js').then((k) => k.readMergedKubeconfig({ kubeconfig: this.ctx.opts.kubeconfig, env: this.ctx.io.env }));
    return this.merged;
  }

  readonly connect = async (
    selected: SelectedContext,
    opts: ConnectOptions,
    env: Record<string, string | undefined>,
    log: (line: string) => void,
  ): Promise<ClusterSnapshot | ClusterCache> => {
    let g = this.open.get(selected.name);
    if (!g) {
      const watch = this.opts.watch;
      g = import('../../kube/connect.js').then(async ({ connectContext }) => {
        const inner = await connectContext(selected, opts, env, log);
        return watch ? new ClusterCache(inner, watch) : new ClusterSnapshot(inner, this.opts);
      });
      this.open.set(selected.name, g);
      g.catch(() => this.open.delete(selected.name));
    }
    return g;
  };

  /** The connection (snapshot or cache) of the named kubeconfig context's cluster. */
  async forContext(name: string): Promise<ClusterSnapshot | ClusterCache> {
    const { selectContext } = await import('../../kube/kubeconfig.js');
    return this.connect(selectContext(await this.kubeconfig(), name), this.ctx.opts, this.ctx.io.env, sessionLog(this.ctx));
  }

  /** The snapshot of the selected context's cluster (--context, else the current context): where Applications are read. */
  async controlPlane(): Promise<ClusterSnapshot | ClusterCache> {
    const { selectContext } = await import('../../kube/kubeconfig.js');
    return this.connect(selectContext(await this.kubeconfig(), this.ctx.opts.context), this.ctx.opts, this.ctx.io.env, sessionLog(this.ctx));
  }

  /** What the pool's connections cost so far: requests and retries, and what each snapshot read, by context. */
  async stats(): Promise<{ requests: number; retries: number; clusters: { context: string; snapshot: SnapshotStats }[] }> {
    const open = await Promise.all(
      [...this.open].map(async ([context, g]) => {
        const snapshot = await g.then(
          (x) => x,
          () => undefined,
        );
        return snapshot ? [{ context, requests: snapshot.stats(), snapshot: snapshot.snapshotStats() }] : [];
      }),
    );
    const clusters = open.flat();
    return {
      requests: clusters.reduce((n, c) => n + c.requests.requests, 0),
      retries: clusters.reduce((n, c) => n + c.requests.retries, 0),
      clusters: clusters.map((c) => ({ context: c.context, snapshot: c.snapshot })),
    };
  }

  close(): void {
    this.reads.close();
    for (const g of this.open.values())
      void g.then(
        (x) => x.closeInner(),
        () => undefined,
      );
  }
}

/**
 * The `name` and `server` of Argo CD's cluster Secrets in `namespace` (Argo CD's control-plane namespace). Only those two
 * keys are decoded and kept; the credentials beside them are never decoded, kept or printed. Not being allowed to list
 * them is a warning: the kubeconfig alone then decides.
 */
async function readClusterSecrets(gw: KubeGateway, namespace: string, warnings: string[]): Promise<ClusterSecretInfo[]> {
  const type = await gw.resolve('v1', 'Secret');
  if (!type) return [];
  try {
    const res = await gw.list(type, { namespace, labelSelector: `${SECRET_TYPE}=cluster` });
    return res.items.map((o) => {
      const data = (o as { data?: Record<string, unknown> }).data ?? {};
      const text = (k: string) => (typeof data[k] === 'string' ? Buffer.from(data[k] as string, 'base64').toString('utf8') : undefined);
      const name = text('name');
      const server = text('server');
      return { secret: `${namespace}/${o.metadata.name ?? ''}`, ...(name ? { name } : {}), ...(server ? { server } : {}) };
    });
  } catch (err) {
    if (!(err instanceof KubeApiError)) throw err;
    warnings.push(`cannot list Argo CD's cluster Secrets in namespace ${namespace}, so the destination is matched against the kubeconfig only: ${err.message}`);
    return [];
  }
}

/**
 * Runs `fn` with a gateway to the selected context's cluster (--context, else the current context): for commands that
 * read Applications themselves (history, list) and never act on a destination.
 */
export async function withControlPlane<T>(ctx: RunContext, what: string, fn: (gw: KubeGateway, user: string | undefined) => Promise<T>): Promise<T> {
  const { readMergedKubeconfig, selectContext } = await import('../../kube/kubeconfig.js');
  const { connectContext } = await import('../../kube/connect.js');
  const merged = await readMergedKubeconfig({ kubeconfig: ctx.opts.kubeconfig, env: ctx.io.env });
  const selected = selectContext(merged, ctx.opts.context);
  const started = Date.now();
  const gw = await connectContext(selected, ctx.opts, ctx.io.env, sessionLog(ctx));
  try {
    return await fn(gw, ctx.opts.overrides?.as ?? ctx.opts.overrides?.user ?? selected.user?.name);
  } finally {
    if (ctx.opts.verbose) ctx.onSession?.({ kind: 'requests', what, requests: gw.stats().requests, retries: gw.stats().retries, ms: Date.now() - started });
    gw.close();
  }
}
