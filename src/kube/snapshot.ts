// One read of a cluster for every Application of a command that touches many (`list`, `status -A`, a dashboard round):
// the gateway the sessions of such a command share. As Argo CD's cluster cache, it reads each namespaced type over all
// namespaces at once and hands each app the part in its namespaces, so the requests of a many-app command do not grow
// with the number of apps:
// - a namespaced LIST (full, metadata-only or by label) is answered from one cluster-wide LIST of that type (paginated
//   by the gateway); where RBAC forbids the cluster-wide LIST (403), namespace by namespace, each once, as before;
// - a metadata-only LIST of a type whose full cluster-wide LIST was asked is cut from it (no second transfer);
// - a GET of a namespaced type is answered from the type's cluster-wide LIST (absent there: absent), or, where listing
//   is not allowed, by the GET itself, made once; a cluster-scoped LIST or GET is made once; `seed` hands in objects
//   read already (the Applications `list` listed);
// - every answer is shared, frozen (deeply, once, as it is first handed out: a cluster-wide LIST's items a namespace at a
//   time, so the objects of namespaces no app reads are never walked): a caller that would change an object makes its own
//   copy; a mutation throws instead of changing what the other apps read (cloning every answer for every app cost
//   more than the comparisons of `list`); a list's array is the caller's own. A failed read is asked again by the
//   next caller.
// It is a snapshot: it never reads a type and scope again. A write through it passes through and forgets what was read
// of that type, so a read after it is fresh. A long-running command makes a new one for each round (dashboard.ts).
import { KubeApiError } from './errors.js';
import type {
  AccessCheck,
  AccessResult,
  ApplyOptions,
  DeleteOptions,
  Discovery,
  GatewayStats,
  KubeGateway,
  ListOptions,
  ListResult,
  PatchOptions,
  PatchType,
  UpdateOptions,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './gateway.js';
import type { ResourceType } from '../model/resource-type.js';
import type { KubeObject } from '../model/object.js';

/**
 * The page size of a cluster-wide LIST (full or metadata-only), here and in the watch-fed cache: pages of 5,000, not the
 * gateway's 500 for full objects, because such a LIST holds every app's objects of the type and its pages come one
 * after another (20,000 ConfigMaps of 1,000 apps: 4 round trips, not 40). Argo CD's cluster cache lists in pages of 500
 * and fetches the next page while it processes one; this process takes every page whole, so fewer, larger pages it is.
 */
export const CLUSTER_WIDE_PAGE_SIZE = 5000;

/** What a list asks for besides its scope. */
interface Variant {
  metadataOnly: boolean;
  withAnnotation?: string;
  labelSelector?: string;
}

/** A cluster-wide LIST: its items by namespace, or the 403 that refused it. */
type Wide = { ok: true; res: ListResult; byNamespace: Map<string, KubeObject[]> } | { ok: false; err: KubeApiError };

/** What the snapshot read, for `-v`: LISTs over all namespaces, and those RBAC made it split namespace by namespace. */
export interface SnapshotStats {
  clusterWideLists: number;
  /** `configmaps` for a type whose cluster-wide LIST was forbidden. */
  splitByNamespace: string[];
}

function typeId(type: ResourceType): string {
  return `${type.group}|${type.version}|${type.resource}`;
}

function variantOf(opts: ListOptions): Variant {
  const metadataOnly = opts.metadataOnly === true;
  return {
    metadataOnly,
    ...(metadataOnly && opts.withAnnotation !== undefined ? { withAnnotation: opts.withAnnotation } : {}),
    ...(opts.labelSelector !== undefined ? { labelSelector: opts.labelSelector } : {}),
  };
}

function byNamespace(items: readonly KubeObject[]): Map<string, KubeObject[]> {
  const out = new Map<string, KubeObject[]>();
  for (const o of items) {
    const ns = o.metadata.namespace ?? '';
    const list = out.get(ns);
    if (list) list.push(o);
    else out.set(ns, [o]);
  }
  return out;
}

/** A full object as a metadata-only list returns it: apiVersion, kind and metadata (frozen, as the object it is cut from). */
export function metadataOf(o: KubeObject): KubeObject {
  return Object.freeze({ apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata });
}

/**
 * Freezes a value read from the API server, deeply, in place, and returns it: what a shared gateway (this snapshot, the
 * watch-fed cluster cache) hands every app of a process. Values already frozen are not walked again.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const v of value) deepFreeze(v);
  else for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  return value;
}

/** Frozen items of a list read (in place). */
function frozenList(res: ListResult): ListResult {
  frozenItems(res.items);
  return res;
}

/** The items, each frozen (in place; an item frozen already costs one check). */
function frozenItems(items: KubeObject[]): KubeObject[] {
  for (const o of items) deepFreeze(o);
  return items;
}

/**
 * What a gateway shared by a command's sessions (this snapshot, and cluster-cache.ts's watch-fed cache) passes to the
 * connection under it unchanged: discovery, access checks, raw watches and the request counts. A session's `close`
 * leaves the connection open for the next session; its owner (the pool) ends it with `closeInner`.
 */
export abstract class SharedGateway implements KubeGateway {
  constructor(protected readonly inner: KubeGateway) {}

  get server(): string {
    return this.inner.server;
  }

  discover(): Promise<Discovery> {
    return this.inner.discover();
  }

  forgetDiscovery(): void {
    this.inner.forgetDiscovery?.();
  }

  servedTypes(group: string, version: string): Promise<ResourceType[] | undefined> {
    return this.inner.servedTypes ? this.inner.servedTypes(group, version) : Promise.resolve(undefined);
  }

  openApi(group: string, version: string): Promise<unknown> {
    return this.inner.openApi ? this.inner.openApi(group, version) : Promise.resolve(undefined);
  }

  serverVersion(): Promise<string> {
    return this.inner.serverVersion ? this.inner.serverVersion() : Promise.resolve('');
  }

  resolve(apiVersion: string, kind: string): Promise<ResourceType | undefined> {
    return this.inner.resolve(apiVersion, kind);
  }

  canI(check: AccessCheck): Promise<AccessResult> {
    return this.inner.canI(check);
  }

  watch(type: ResourceType, opts: WatchOptions, onEvent: (e: WatchEvent) => void): Promise<void> {
    return this.inner.watch(type, opts, onEvent);
  }

  stats(): GatewayStats {
    return this.inner.stats();
  }

  close(): void {}

  closeInner(): void {
    this.inner.close();
  }

  abstract list(type: ResourceType, opts?: ListOptions): Promise<ListResult>;
  abstract get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined>;
  abstract apply(type: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject>;
  abstract replace(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject>;
  abstract create(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject>;
  abstract update(type: ResourceType, obj: KubeObject, opts: UpdateOptions): Promise<KubeObject>;
  abstract patch(type: ResourceType, namespace: string, name: string, patch: unknown, patchType: PatchType, opts: PatchOptions): Promise<KubeObject>;
  abstract delete(type: ResourceType, namespace: string, name: string, opts?: DeleteOptions): Promise<KubeObject | undefined>;
  /** What the shared reads cost, for `-v`. */
  abstract snapshotStats(): SnapshotStats;
  /** Objects read already by the caller, for later reads to be answered from. */
  abstract seed(type: ResourceType, objects: readonly KubeObject[]): void;

  /** A GET every app of the command will make, started now (see ClusterSnapshot's); a watch-fed cache has no need. */
  prefetch(_type: ResourceType, _namespace: string, _name: string): void {}
}

export class ClusterSnapshot extends SharedGateway {
  private readonly wides = new Map<string, Promise<Wide>>();
  private readonly exact = new Map<string, Promise<ListResult>>();
  private readonly gets = new Map<string, Promise<KubeObject | undefined>>();
  private readonly split = new Set<string>();
  private wideLists = 0;

  /**
   * `wide: false` keeps each namespaced read to its namespace (made once all the same): for a command over one app,
   * where a cluster-wide LIST would read more than the app needs.
   */
  constructor(
    inner: KubeGateway,
    private readonly opts: { wide: boolean } = { wide: true },
  ) {
    super(inner);
  }

  /** Objects read already (by a LIST the caller made): later GETs of them are answered from here. */
  seed(type: ResourceType, objects: readonly KubeObject[]): void {
    // The caller keeps its objects (and may change them): the snapshot keeps a frozen copy, unless they are frozen already
    // (read through a shared gateway).
    for (const o of objects)
      this.gets.set(
        this.getKey(type, o.metadata.namespace ?? '', o.metadata.name ?? ''),
        Promise.resolve(Object.isFrozen(o) ? o : deepFreeze(structuredClone(o))),
      );
  }

  /**
   * Starts the GET of one object now, straight to the server (once; its later GETs are answered by it): for a read every
   * app makes before its LISTs (argocd-cm, argocd-cmd-params-cm), which, answered from its type's cluster-wide LIST,
   * would wait for that whole LIST (every app's ConfigMaps), and each app's reads with it. One request more, whatever
   * the number of apps.
   */
  override prefetch(type: ResourceType, namespace: string, name: string): void {
    this.once(this.gets, this.getKey(type, namespace, name), async () => deepFreeze(await this.inner.get(type, namespace, name))).catch(() => undefined);
  }

  snapshotStats(): SnapshotStats {
    return { clusterWideLists: this.wideLists, splitByNamespace: [...this.split].sort() };
  }

  private getKey(type: ResourceType, namespace: string, name: string): string {
    return `${typeId(type)}|${type.namespaced ? namespace : ''}|${name}`;
  }

  /** Made once per key; a failure is forgotten, so the next caller asks again. */
  private once<V>(map: Map<string, Promise<V>>, key: string, read: () => Promise<V>): Promise<V> {
    let p = map.get(key);
    if (!p) {
      p = read();
      map.set(key, p);
      p.catch(() => {
        if (map.get(key) === p) map.delete(key);
      });
    }
    return p;
  }

  /** The cluster-wide LIST of a namespaced type, or the 403 that refused it. */
  private wide(type: ResourceType, v: Variant): Promise<Wide> {
    return this.once(this.wides, JSON.stringify([typeId(type), v]), async () => {
      try {
        this.wideLists++;
        // Frozen as handed out (frozenItems), a namespace's share at a time: objects of namespaces no app reads, often
        // most of a cluster-wide LIST, are never walked.
        const res = await this.inner.list(type, { ...v, pageSize: CLUSTER_WIDE_PAGE_SIZE });
        return { ok: true, res, byNamespace: byNamespace(res.items) };
      } catch (err) {
        if (!(err instanceof KubeApiError && err.status === 403)) throw err;
        this.split.add(type.resource);
        return { ok: false, err };
      }
    });
  }

  /** The LIST exactly as asked, made once. */
  private listOnce(type: ResourceType, namespace: string | undefined, v: Variant): Promise<ListResult> {
    const scope = type.namespaced && namespace !== undefined ? { namespace } : {};
    return this.once(this.exact, JSON.stringify([typeId(type), scope, v]), async () => frozenList(await this.inner.list(type, { ...scope, ...v })));
  }

  /** The items of a namespaced type in one namespace (every namespace when undefined), shared; never mutated. */
  private async scoped(type: ResourceType, namespace: string | undefined, v: Variant): Promise<{ items: readonly KubeObject[]; resourceVersion?: string }> {
    // A metadata-only ask for a type already listed in full (the live twins of some app) is cut from that list.
    const fullKey = JSON.stringify([typeId(type), { metadataOnly: false }]);
    if (v.metadataOnly && v.labelSelector === undefined && this.wides.has(fullKey)) {
      const full = await this.wide(type, { metadataOnly: false });
      if (full.ok) {
        const items = (namespace === undefined ? full.res.items : (full.byNamespace.get(namespace) ?? []))
          .filter((o) => v.withAnnotation === undefined || o.metadata.annotations?.[v.withAnnotation] !== undefined)
          .map((o) => metadataOf(deepFreeze(o)));
        return { items, ...(full.res.resourceVersion ? { resourceVersion: full.res.resourceVersion } : {}) };
      }
    }
    const w = await this.wide(type, v);
    if (w.ok) {
      const items = frozenItems(namespace === undefined ? w.res.items : (w.byNamespace.get(namespace) ?? []));
      return { items, ...(w.res.resourceVersion ? { resourceVersion: w.res.resourceVersion } : {}) };
    }
    if (namespace === undefined) throw w.err;
    return this.listOnce(type, namespace, v);
  }

  /**
   * Answered from the snapshot (whole: `maxPages` and `pageSize` make no difference to what is returned, and the
   * result never carries `continue`). A field selector, or a `continue` of a list read elsewhere, goes to the server.
   */
  async list(type: ResourceType, opts: ListOptions = {}): Promise<ListResult> {
    if (opts.continue !== undefined || opts.fieldSelector !== undefined) return this.inner.list(type, opts);
    const v = variantOf(opts);
    const res =
      type.namespaced && this.opts.wide
        ? await this.scoped(type, opts.namespace, v)
        : await this.listOnce(type, type.namespaced ? opts.namespace : undefined, v);
    return { items: [...res.items], pages: 0, ...(res.resourceVersion ? { resourceVersion: res.resourceVersion } : {}) };
  }

  async get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined> {
    const key = this.getKey(type, namespace, name);
    const seeded = this.gets.get(key);
    if (seeded) return seeded;
    if (type.namespaced && this.opts.wide && type.verbs.includes('list')) {
      try {
        const { items } = await this.scoped(type, namespace, { metadataOnly: false });
        return items.find((x) => x.metadata.name === name);
      } catch {
        // Not to be listed here (403 namespace by namespace too, a type gone): the GET says what it says.
      }
    }
    return this.once(this.gets, key, async () => deepFreeze(await this.inner.get(type, namespace, name)));
  }

  /** After a write, what was read of the type is read again. */
  private forget(type: ResourceType): void {
    const id = JSON.stringify(typeId(type));
    for (const map of [this.wides, this.exact] as Map<string, unknown>[]) for (const k of [...map.keys()]) if (k.startsWith(`[${id},`)) map.delete(k);
    for (const k of [...this.gets.keys()]) if (k.startsWith(`${typeId(type)}|`)) this.gets.delete(k);
  }

  async apply(type: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    if (!opts.dryRun) this.forget(type);
    return this.inner.apply(type, obj, opts);
  }

  async replace(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    if (!opts.dryRun) this.forget(type);
    return this.inner.replace(type, obj, opts);
  }

  async create(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    if (!opts.dryRun) this.forget(type);
    return this.inner.create(type, obj, opts);
  }

  async update(type: ResourceType, obj: KubeObject, opts: UpdateOptions): Promise<KubeObject> {
    this.forget(type);
    return this.inner.update(type, obj, opts);
  }

  async patch(type: ResourceType, namespace: string, name: string, patch: unknown, patchType: PatchType, opts: PatchOptions): Promise<KubeObject> {
    if (!opts.dryRun) this.forget(type);
    return this.inner.patch(type, namespace, name, patch, patchType, opts);
  }

  async delete(type: ResourceType, namespace: string, name: string, opts?: DeleteOptions): Promise<KubeObject | undefined> {
    if (!opts?.dryRun) this.forget(type);
    return this.inner.delete(type, namespace, name, opts);
  }
}
