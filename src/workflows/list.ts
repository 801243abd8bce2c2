// `list` (and `status -A`): every Application's two axes at once, each compared live against its destination, a
// bounded number side by side.
import type { RunContext } from '../model/context.js';
import { InputError } from '../model/errors.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { ResourceType } from '../model/resource-type.js';
import type { AppStateArgs } from './session/app-state.js';
import type { TargetSession } from './session/session.js';
import { isPlainObject, type JsonObject, type KubeObject } from '../model/object.js';

export const LIST_SCHEMA_VERSION = 1;

/** How many Applications are compared at once (each one is a whole status: render, reads, a scan). */
export const LIST_CONCURRENCY = 4;

export interface ListedApp {
  name: string;
  namespace: string;
  project: string;
  /** Synced, OutOfSync or Unknown (Unknown when it could not be compared: see error). */
  sync: string;
  health: string;
  /** The commit compared against, when the source is Git. */
  revision?: string;
  destination: { server?: string; name?: string; namespace?: string };
  /** The kubeconfig context the destination resolved to. */
  context?: string;
  /** When the last sync recorded in the Application's status finished. */
  lastSync?: string;
  /** Why it could not be compared (a refusal, a render error, the cluster). */
  error?: string;
  /** With --stored: when the Application was created, and its age then, as kubectl prints it (`5m`, `3d4h`). */
  created?: string;
  age?: string;
}

/** What `list -o json` prints (schemaVersion 1). */
export interface ListReport {
  schemaVersion: typeof LIST_SCHEMA_VERSION;
  /** The namespace listed, or absent for all namespaces. */
  namespace?: string;
  selector?: string;
  /** --stored: each app's recorded status (what the last sync or status wrote), not a live comparison. */
  stored?: true;
  apps: ListedApp[];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The last sync the status records: operationState.finishedAt, else the newest history entry. */
export function lastSyncOf(app: KubeObject): string | undefined {
  const status = isPlainObject(app.status) ? (app.status as JsonObject) : {};
  const op = isPlainObject(status.operationState) ? (status.operationState as JsonObject) : {};
  const history = Array.isArray(status.history) ? status.history : [];
  const newest = history[history.length - 1];
  return str(op.finishedAt) ?? (isPlainObject(newest) ? str(newest.deployedAt) : undefined);
}

/**
 * A duration as kubectl prints an object's age (apimachinery's duration.HumanDuration): `45s`, `5m30s`, `95m`, `3h20m`,
 * `30h`, `3d4h`, `120d`, `2y30d`, `9y`; a clock up to a second behind is `0s`, more is `<invalid>`.
 */
export function humanAge(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (years < 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/**
 * An Application's row from what its status records (sync and health as the last sync or status wrote them, as
 * `kubectl get applications` shows them), read at `now`: Unknown where nothing is recorded yet.
 */
export function storedRow(o: KubeObject, now: number): ListedApp {
  const spec = isPlainObject(o.spec) ? (o.spec as JsonObject) : {};
  const status = isPlainObject(o.status) ? (o.status as JsonObject) : {};
  const sync = isPlainObject(status.sync) ? (status.sync as JsonObject) : {};
  const health = isPlainObject(status.health) ? (status.health as JsonObject) : {};
  const last = lastSyncOf(o);
  const created = str(o.metadata.creationTimestamp);
  return {
    ...baseRow(o, spec),
    sync: str(sync.status) ?? 'Unknown',
    health: str(health.status) ?? 'Unknown',
    ...(str(sync.revision) ? { revision: str(sync.revision) } : {}),
    ...(last ? { lastSync: last } : {}),
    ...(created ? { created, age: humanAge(now - Date.parse(created)) } : {}),
  };
}

/** The row's fields that come from the Application itself. */
function baseRow(o: KubeObject, spec: JsonObject): ListedApp {
  const d = isPlainObject(spec.destination) ? (spec.destination as JsonObject) : {};
  const destination = {
    ...(str(d.server) ? { server: str(d.server) } : {}),
    ...(str(d.name) ? { name: str(d.name) } : {}),
    ...(str(d.namespace) ? { namespace: str(d.namespace) } : {}),
  };
  return {
    name: o.metadata.name ?? '',
    namespace: o.metadata.namespace ?? '',
    project: str(spec.project) ?? 'default',
    sync: 'Unknown',
    health: 'Unknown',
    destination,
  };
}

/** `list --stored`: the Applications and what their status records, in one LIST and no comparison. */
export async function runStoredList(ctx: RunContext, req: { allNamespaces: boolean; selector?: string }): Promise<ListReport> {
  const { withControlPlane } = await import('./session/session.js');
  const namespace = req.allNamespaces ? undefined : ctx.opts.appNamespace;
  const apps = await withControlPlane(ctx, 'list', (gw) => listApplications(gw, namespace, req.selector));
  const now = Date.now();
  return {
    schemaVersion: LIST_SCHEMA_VERSION,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(req.selector !== undefined ? { selector: req.selector } : {}),
    stored: true,
    apps: apps.map((o) => storedRow(o, now)),
  };
}

/** Runs `fn` over `items`, at most `n` at once, keeping the order of the results. */
export async function mapBounded<T, R>(items: readonly T[], n: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= items.length) return;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

/** The cluster's Application type (argoproj.io), or an input error when no Argo CD CRD serves it. */
export async function applicationType(gw: KubeGateway): Promise<ResourceType> {
  const { preferred } = await gw.discover();
  const type = preferred.find((t) => t.group === 'argoproj.io' && t.kind === 'Application');
  if (!type) throw new InputError('the cluster does not serve argoproj.io Applications (no Argo CD CRD)');
  return type;
}

/** The Applications in `namespace` (all namespaces when undefined) matching the selector, sorted by namespace and name. */
export async function listApplications(gw: KubeGateway, namespace: string | undefined, selector: string | undefined): Promise<KubeObject[]> {
  const type = await applicationType(gw);
  const res = await gw.list(type, { ...(namespace !== undefined ? { namespace } : {}), ...(selector !== undefined ? { labelSelector: selector } : {}) });
  const key = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  return [...res.items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Lists the Applications and compares each live (as `status` does, through its own destination session); an app that
 * cannot be compared is listed Unknown with the reason rather than failing the list. Every app reads one snapshot per
 * destination cluster (kube/snapshot.ts), the Applications included: the requests do not grow with their number.
 */
export async function runList(
  ctx: RunContext,
  req: { allNamespaces: boolean; selector?: string; concurrency?: number; argocdNamespace?: string },
): Promise<ListReport> {
  const { GatewayPool, withAppTarget } = await import('./session/session.js');
  const namespace = req.allNamespaces ? undefined : ctx.opts.appNamespace;
  const started = Date.now();
  const pool = new GatewayPool(ctx);
  try {
    const controlPlane = await pool.controlPlane();
    // The settings every app reads first (argocd-cm…) are read beside the Applications, not after them.
    const { prefetchRules } = await import('./session/rules.js');
    const [apps] = await Promise.all([
      listApplications(controlPlane, namespace, req.selector),
      prefetchRules(controlPlane, req.argocdNamespace !== undefined ? { argocdNamespace: req.argocdNamespace } : {}),
    ]);
    // Each session reads its Application again (a GET): the one just listed answers it.
    controlPlane.seed(await applicationType(controlPlane), apps);
    const report = await listRows(ctx, apps, req, namespace, (appCtx, args, fn) => withAppTarget(appCtx, 'list', args, fn, pool));
    await pool.reportCost('list', apps.length, started);
    return report;
  } finally {
    pool.close();
  }
}

async function listRows(
  ctx: RunContext,
  apps: readonly KubeObject[],
  req: { selector?: string; concurrency?: number; argocdNamespace?: string },
  namespace: string | undefined,
  inSession: <T>(appCtx: RunContext, args: AppStateArgs, fn: (session: TargetSession) => Promise<T>) => Promise<T>,
): Promise<ListReport> {
  const { runStatus } = await import('./status/status.js');
  const rows = await mapBounded(apps, req.concurrency ?? LIST_CONCURRENCY, async (o): Promise<ListedApp> => {
    const name = o.metadata.name ?? '';
    const ns = o.metadata.namespace ?? '';
    const base = baseRow(o, isPlainObject(o.spec) ? (o.spec as JsonObject) : {});
    const last = lastSyncOf(o);
    if (last) base.lastSync = last;
    const appCtx: RunContext = { ...ctx, opts: { ...ctx.opts, appNamespace: ns, verbose: false } };
    try {
      const args: AppStateArgs = { app: name, ...(req.argocdNamespace !== undefined ? { argocdNamespace: req.argocdNamespace } : {}) };
      return await inSession(appCtx, args, async (session) => {
        const r = await runStatus(args, { io: ctx.io, opts: appCtx.opts, ...session });
        return {
          ...base,
          sync: r.report.sync.status,
          health: r.report.health.status,
          ...(r.report.source.revision ? { revision: r.report.source.revision } : {}),
          context: session.target.context,
          ...(r.report.sync.reason ? { error: r.report.sync.reason } : {}),
        };
      });
    } catch (err) {
      return { ...base, error: (err as Error).message };
    }
  });
  return {
    schemaVersion: LIST_SCHEMA_VERSION,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(req.selector !== undefined ? { selector: req.selector } : {}),
    apps: rows,
  };
}
