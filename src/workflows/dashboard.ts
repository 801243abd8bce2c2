// `dashboard`: keeps every shown Application compared (status + live diff, as `status` and `diff` do), follows their
// objects with watches and re-compares what changed, re-compares all on an interval (a new commit in the source) and
// an app at once when its spec changes or a refresh is asked through its `argocd.argoproj.io/refresh` annotation, and
// keeps the reports for the dashboard's server (dashboard/source.ts makes the views). Never writes to a cluster (the
// annotation is left for whoever serves it: Argo CD's controller, `sync --watch`), never draws or prints (logs
// through `log`).
import type { RunContext } from '../model/context.js';
import { UnrenderableError } from '../model/errors.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { ResourceType } from '../model/resource-type.js';
import { follow, type FollowEvent } from '../kube/watch.js';
import { isPlainObject, keyString, type JsonObject, type KubeObject, type ResourceKey } from '../model/object.js';
import { concerned, followedOf, targetsOf, type Followed } from '../dashboard/follow.js';
import { reconnectDelay } from '../watch/backoff.js';
import { appChangeOf, type AppSeen } from '../watch/app-change.js';
import { systemClock } from '../watch/loop.js';
import { displayObject } from '../dashboard/live-object.js';
import type { AppRow } from '../dashboard/view.js';
import type { DashboardEvent } from '../dashboard/server.js';
import type { ComparedApp, DashboardData } from '../dashboard/source.js';
import type { TreeReport } from '../health/report.js';
import { lastSyncOf, listApplications, mapBounded, LIST_CONCURRENCY } from './list.js';
import type { GatewayPool } from './session/session.js';
import { ClusterCache } from '../kube/cluster-cache.js';
import type { AppStateArgs } from './session/app-state.js';

export interface DashboardRequest {
  /** The Applications named on the command line (in --app-namespace); empty for all. */
  apps: string[];
  allNamespaces: boolean;
  /** Every app is compared again this often (a new commit in its source shows up so). */
  intervalMs: number;
}

/** Changes arriving within this window are compared together. */
const DEBOUNCE_MS = 400;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The list row of an Application object, before any comparison. */
export function baseRow(o: KubeObject): AppRow {
  const name = o.metadata.name ?? '';
  const namespace = o.metadata.namespace ?? '';
  const spec = isPlainObject(o.spec) ? (o.spec as JsonObject) : {};
  const d = isPlainObject(spec.destination) ? (spec.destination as JsonObject) : {};
  const last = lastSyncOf(o);
  return {
    id: `${namespace}/${name}`,
    name,
    namespace,
    project: str(spec.project) ?? 'default',
    labels: { ...(o.metadata.labels ?? {}) },
    sync: 'Unknown',
    health: 'Unknown',
    destination: {
      ...(str(d.server) ? { server: str(d.server) } : {}),
      ...(str(d.name) ? { name: str(d.name) } : {}),
      ...(str(d.namespace) ? { namespace: str(d.namespace) } : {}),
    },
    ...(last ? { lastSync: last } : {}),
  };
}

export class DashboardWorkflow implements DashboardData {
  private readonly rows = new Map<string, AppRow>();
  private readonly compared = new Map<string, ComparedApp>();
  /** Each app's argocd-cm `resource.sensitive.mask.annotations`, as last read: masked on the Secrets liveObject shows. */
  private readonly sensitive = new Map<string, ReadonlySet<string>>();
  private readonly followed = new Map<string, Followed>();
  private readonly listeners = new Set<(ev: DashboardEvent) => void>();
  private readonly pending = new Set<string>();
  /** Apps named on the command line that do not exist: listed with the error, never compared. */
  private readonly absent = new Set<string>();
  /** Apps whose next comparison bypasses the render cache (a hard refresh was asked). */
  private readonly hard = new Set<string>();
  private readonly watches = new Map<string, AbortController>();
  /** One watch-fed cache per cluster (kube/cluster-cache.ts), kept for the dashboard's life: every round reads it. */
  private pool: Promise<GatewayPool> | undefined;
  private readonly stop = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private interval: NodeJS.Timeout | undefined;
  private running = false;
  private loading = true;
  private controlContext = '';

  constructor(
    private readonly ctx: RunContext,
    private readonly req: DashboardRequest,
    private readonly log: (line: string) => void,
  ) {}

  /** Lists the Applications, starts their first comparison and the watches; resolves once the list is known. */
  async start(): Promise<void> {
    const { readMergedKubeconfig, selectContext } = await import('../kube/kubeconfig.js');
    const merged = await readMergedKubeconfig({ kubeconfig: this.ctx.opts.kubeconfig, env: this.ctx.io.env });
    this.controlContext = selectContext(merged, this.ctx.opts.context).name;
    const control = await this.gateway(this.controlContext);
    const namespace = this.req.allNamespaces ? undefined : this.ctx.opts.appNamespace;
    const apps = await listApplications(control, namespace, undefined);
    const named = new Set(this.req.apps);
    for (const o of apps) if (named.size === 0 || named.has(o.metadata.name ?? '')) this.rows.set(baseRow(o).id, baseRow(o));
    for (const name of this.req.apps) {
      const id = `${this.ctx.opts.appNamespace}/${name}`;
      if (this.rows.has(id)) continue;
      this.absent.add(id);
      this.rows.set(id, {
        id,
        name,
        namespace: this.ctx.opts.appNamespace,
        project: '',
        labels: {},
        sync: 'Unknown',
        health: 'Unknown',
        destination: {},
        error: `Application ${name} not found in namespace ${this.ctx.opts.appNamespace}`,
      });
    }
    this.followApplications(control, namespace);
    this.schedule([...this.rows.keys()], 0);
    if (this.pending.size === 0) this.loading = false;
    this.interval = setInterval(() => this.schedule([...this.rows.keys()]), this.req.intervalMs);
    this.interval.unref();
  }

  list(): { apps: AppRow[]; loading: boolean } {
    return { apps: [...this.rows.values()], loading: this.loading };
  }

  app(id: string): ComparedApp | undefined {
    const row = this.rows.get(id);
    if (!row) return undefined;
    const c = this.compared.get(id);
    return c && c.row === row ? c : { ...(c ?? { warnings: [] }), row };
  }

  async liveObject(appId: string, key: ResourceKey): Promise<{ object?: KubeObject; error?: string }> {
    const c = this.compared.get(appId);
    const f = this.followed.get(appId);
    const wanted = keyString(key);
    // Only the app's own objects: its resources and what they own, as last compared.
    const known =
      (c?.report?.resources ?? []).some((r) => keyString(r) === wanted) ||
      (c?.report?.trees ?? []).some((t) => walkTree(t).some((n) => keyString(n) === wanted));
    if (!c || !f || !known) return { error: 'not an object of this app' };
    try {
      const gw = await this.gateway(f.context);
      const type = (await gw.discover()).preferred.find((t) => t.group === key.group && t.kind === key.kind);
      if (!type) return { error: `the cluster does not serve ${key.kind}.${key.group}` };
      const obj = await gw.get(type, key.namespace, key.name);
      return obj ? { object: displayObject(obj, this.sensitive.get(appId)) } : { error: 'not in the cluster' };
    } catch (err) {
      return { error: (err as Error).message };
    }
  }

  refresh(appId?: string): void {
    this.schedule(appId === undefined ? [...this.rows.keys()] : [appId], 0);
  }

  subscribe(fn: (ev: DashboardEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Stops the watches and timers and closes the connections. */
  async close(): Promise<void> {
    this.stop.abort();
    for (const w of this.watches.values()) w.abort();
    this.watches.clear();
    if (this.timer) clearTimeout(this.timer);
    if (this.interval) clearInterval(this.interval);
    const pool = this.pool;
    this.pool = undefined;
    if (pool)
      void pool.then(
        (p) => p.close(),
        () => undefined,
      );
  }

  private emit(ev: DashboardEvent): void {
    for (const fn of this.listeners) fn(ev);
  }

  /** The connections of the dashboard's life: a watch-fed cache per cluster, shared by every round, watch and node detail. */
  private poolOf(): Promise<GatewayPool> {
    this.pool ??= import('./session/session.js').then(({ GatewayPool }) => GatewayPool.watched(this.ctx));
    return this.pool;
  }

  /** The cache of a context's cluster (its connection is made on first use). */
  private async gateway(context: string): Promise<KubeGateway> {
    return (await this.poolOf()).forContext(context);
  }

  /** Compares these apps after `delay` ms, together with whatever else is asked for meanwhile. */
  private schedule(ids: readonly string[], delay = DEBOUNCE_MS): void {
    for (const id of ids) if (this.rows.has(id) && !this.absent.has(id)) this.pending.add(id);
    if (this.pending.size === 0 || this.timer || this.stop.signal.aborted) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.round();
    }, delay);
  }

  private async round(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const ids = [...this.pending];
    this.pending.clear();
    // Every round reads the clusters' caches, which their watches keep current: a round costs no requests once the
    // types are kept, and sees every change the watches have delivered.
    try {
      const pool = await this.poolOf();
      // Git, unlike the clusters, has no watch: each round reads its sources anew (once for all of the round's apps).
      pool.freshSources();
      await mapBounded(ids, LIST_CONCURRENCY, (id) => this.compare(id, pool));
      this.updateWatches();
    } finally {
      this.running = false;
      this.loading = false;
    }
    this.emit({ type: 'apps' });
    if (this.pending.size > 0) this.schedule([], DEBOUNCE_MS);
  }

  private async compare(id: string, pool: GatewayPool): Promise<void> {
    const row = this.rows.get(id);
    if (!row || this.stop.signal.aborted) return;
    const { withAppTarget } = await import('./session/session.js');
    const { runStatus } = await import('./status/status.js');
    const { liveDiff } = await import('./diff/live-diff.js');
    const appCtx: RunContext = {
      ...this.ctx,
      opts: { ...this.ctx.opts, appNamespace: row.namespace, verbose: false },
      onSession: (e) => (e.kind === 'log' && this.ctx.opts.verbose ? this.log(e.line) : undefined),
    };
    const args: AppStateArgs = { app: row.name, ...(this.hard.delete(id) ? { hardRefresh: true } : {}) };
    const started = Date.now();
    try {
      const out = await withAppTarget(
        appCtx,
        'dashboard',
        args,
        async (session) => {
          const deps = { io: appCtx.io, opts: appCtx.opts, ...session };
          const st = await runStatus(args, deps);
          let diff;
          // The field tables are only for drifted objects: an app without one is spared the second comparison.
          if (st.report.sync.reason === undefined && st.report.resources.some((r) => r.syncReason === 'drifted')) {
            try {
              diff = await liveDiff({ ...args, serverSide: false }, deps);
            } catch (err) {
              if (!(err instanceof UnrenderableError)) throw err;
            }
          }
          return { st, diff, context: session.target.context };
        },
        pool,
      );
      // Deleted while it was compared: it stays gone.
      const current = this.rows.get(id);
      if (!current) return;
      const r = out.st.report;
      const { error: _e, reason: _r, ...kept } = current;
      const next: AppRow = {
        ...kept,
        sync: r.sync.status,
        health: r.health.status,
        ...(r.source.revision ? { revision: r.source.revision } : {}),
        ...(r.sync.reason ? { error: r.sync.reason } : {}),
        comparedAt: new Date().toISOString(),
      };
      this.rows.set(id, next);
      this.compared.set(id, { row: next, report: r, ...(out.diff ? { diff: out.diff } : {}), warnings: [...out.st.warnings] });
      if (out.st.sensitiveAnnotations) this.sensitive.set(id, out.st.sensitiveAnnotations);
      this.follow(id, out.context, { name: row.name, namespace: row.namespace }, r.resources);
      if (this.ctx.opts.verbose) this.log(`dashboard: compared ${id} in ${Date.now() - started} ms: ${r.sync.status}, ${r.health.status}\n`);
    } catch (err) {
      const current = this.rows.get(id);
      if (!current) return;
      const next: AppRow = { ...current, sync: 'Unknown', health: 'Unknown', error: (err as Error).message, comparedAt: new Date().toISOString() };
      this.rows.set(id, next);
      this.compared.set(id, { row: next, warnings: [] });
    }
    this.emit({ type: 'app', id });
  }

  /**
   * Notes the collections the app's resources and their children live in (shared between apps); the round that compared
   * it then starts the watches they need and stops those no app needs, once for all of its apps.
   */
  private follow(id: string, context: string, app: { name: string; namespace: string }, resources: readonly ResourceKey[]): void {
    this.followed.set(id, followedOf(context, app, resources));
  }

  private updateWatches(): void {
    const wanted = new Set<string>();
    for (const f of this.followed.values()) for (const t of targetsOf(f)) wanted.add(`${f.context}|${t}`);
    for (const [wid, stop] of this.watches) {
      if (wanted.has(wid)) continue;
      stop.abort();
      this.watches.delete(wid);
    }
    for (const wid of wanted) {
      if (this.watches.has(wid)) continue;
      const stop = new AbortController();
      this.watches.set(wid, stop);
      const [context, target] = wid.split('|') as [string, string];
      void this.watchTarget(context, target, stop.signal).catch((err: unknown) => this.log(`dashboard: cannot watch ${target}: ${(err as Error).message}\n`));
    }
  }

  private async watchTarget(context: string, target: string, signal: AbortSignal): Promise<void> {
    const [gk, namespace = ''] = target.split('@') as [string, string?];
    const slash = gk.indexOf('/');
    const group = gk.slice(0, slash);
    const kind = gk.slice(slash + 1);
    const gw = await this.gateway(context);
    const type: ResourceType | undefined = (await gw.discover()).preferred.find((t) => t.group === group && t.kind === kind);
    if (!type) return;
    let listed = false;
    const onEvent = (ev: FollowEvent) => {
      if (ev.kind === 'listed') {
        // The first list is what was just compared; a later one (after 410 Gone) may hide changes.
        if (listed) this.schedule(concerned(this.followed, context, { group, kind, namespace }, undefined));
        listed = true;
      } else if (ev.kind === 'change') {
        this.schedule(concerned(this.followed, context, { group, kind, namespace }, ev.object));
      } else if (ev.kind === 'disconnected' && ev.attempt === 0) {
        this.log(
          `dashboard: the watch of ${kind} in ${namespace || 'the cluster'} was lost, reconnecting: ${(ev.error as Error)?.message ?? String(ev.error)}\n`,
        );
      }
    };
    const where = type.namespaced && namespace !== '' ? { namespace } : {};
    const until = AbortSignal.any([signal, this.stop.signal]);
    // The cache's own watch of the type, when it keeps one: a round scheduled by its event reads what the event brought.
    if (gw instanceof ClusterCache && gw.subscribe(type, onEvent, { ...where, signal: until })) return;
    await follow(gw, { type, ...where, metadataOnly: true }, onEvent, {
      signal: until,
      reconnectDelay: (attempt) => reconnectDelay(attempt, Math.random()),
      sleep: systemClock.sleep,
    });
  }

  /**
   * Follows the Applications themselves: new ones are listed and compared, deleted ones leave; a changed spec, or a
   * refresh asked through the annotation (`hard`: the render cache bypassed), is compared again at once, as Argo CD's
   * controller reads its informer's updates (watch/app-change.ts). A change of the status alone asks for nothing.
   */
  private followApplications(control: KubeGateway, namespace: string | undefined): void {
    void (async () => {
      const type = (await control.discover()).preferred.find((t) => t.group === 'argoproj.io' && t.kind === 'Application');
      if (!type) return;
      const seen = new Map<string, AppSeen>();
      let listed = false;
      const onEvent = (ev: FollowEvent) => {
        if (ev.kind === 'listed') {
          for (const o of ev.items) seen.set(baseRow(o).id, appChangeOf(seen.get(baseRow(o).id), o).seen);
          if (listed) this.schedule([...this.rows.keys()]);
          listed = true;
          return;
        }
        if (ev.kind !== 'change') return;
        const row = baseRow(ev.object);
        this.absent.delete(row.id);
        if (this.req.apps.length > 0 && !(this.req.apps.includes(row.name) && row.namespace === this.ctx.opts.appNamespace)) return;
        if (ev.type === 'DELETED') {
          this.rows.delete(row.id);
          this.compared.delete(row.id);
          this.sensitive.delete(row.id);
          this.followed.delete(row.id);
          this.updateWatches();
          seen.delete(row.id);
          this.emit({ type: 'apps' });
          return;
        }
        const current = this.rows.get(row.id);
        const { sync: _s, health: _h, ...meta } = row;
        this.rows.set(row.id, current ? { ...current, ...meta, ...(row.lastSync === undefined ? {} : { lastSync: row.lastSync }) } : row);
        const change = appChangeOf(seen.get(row.id), ev.object);
        seen.set(row.id, change.seen);
        if (change.refresh === 'hard') this.hard.add(row.id);
        if (!current || change.wake) this.schedule([row.id]);
        this.emit({ type: 'app', id: row.id });
      };
      const scope = namespace !== undefined ? { namespace } : {};
      // Through the cache's watch of the Applications when it keeps one (a round then reads the spec the event brought).
      if (control instanceof ClusterCache && control.subscribe(type, onEvent, { ...scope, signal: this.stop.signal })) return;
      await follow(control, { type, ...scope }, onEvent, {
        signal: this.stop.signal,
        reconnectDelay: (attempt) => reconnectDelay(attempt, Math.random()),
        sleep: systemClock.sleep,
      });
    })().catch((err: unknown) => this.log(`dashboard: cannot watch Applications: ${(err as Error).message}\n`));
  }
}

/** Every node of a tree report, parents first. */
function walkTree(t: TreeReport): TreeReport[] {
  return [t, ...t.children.flatMap(walkTree)];
}
