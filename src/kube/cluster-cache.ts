// A cluster cache kept current by watches, for the commands that run on (`sync --watch --all`): what Argo CD's
// controller keeps in its cluster cache. Every app's session in the process reads through one per cluster:
// - the first read of a type (a LIST, full or metadata-only, or a GET) starts one list-then-watch of that type over
//   the whole cluster (kube/watch.ts follow: resourceVersion, bookmarks, a re-list after 410 Gone, bounded back-off);
//   every read after it is answered from what the watch keeps, with no request, shared and frozen (deepFreeze, once per
//   object the watch delivers: no copy per read). A metadata-only read is cut from a full
//   copy of the type when one is kept, so a type no app declares is kept as metadata only;
// - a write passes through, and the next read of that type waits (at most SETTLE_MS) until the watch has delivered
//   the written version (its resourceVersion, or the deletion): a loop reads its own writes, never the state before
//   them. A read whose wait runs out is sent to the server instead;
// - a LIST by label selector is answered from the cache too, as Argo CD's informers answer theirs: a metadata-only one
//   (label tracking's candidate scan) is cut from the type's cluster-wide copy, a full one from the type's full copy
//   when one is kept, else from a watch of that selector and namespace of its own (Argo CD's cluster Secrets: only
//   they are kept, not every Secret of the cluster); a selector this cache cannot read (`x>1`) goes to the server;
// - where the cluster-wide LIST is forbidden (403), the type is read from the server at every ask, as asked; a LIST
//   by field selector, a paged one, and a type that cannot be watched go to the server too;
// - `subscribe` hands the watch's events of a type to a listener (a loop's wake-up, watch/live.ts).
// While a watch is reconnecting, reads answer what it last had (as Argo CD's cache does); `stats()` counts the
// requests, so a round that reads only the cache costs none.
import { KubeApiError } from './errors.js';
import { follow, type FollowEvent } from './watch.js';
import type { ApplyOptions, DeleteOptions, KubeGateway, ListOptions, ListResult, PatchOptions, PatchType, UpdateOptions, WriteOptions } from './gateway.js';
import type { ResourceType } from '../model/resource-type.js';
import type { KubeObject } from '../model/object.js';
import { CLUSTER_WIDE_PAGE_SIZE, deepFreeze, metadataOf, SharedGateway, type SnapshotStats } from './snapshot.js';
import { parseSelector, selectorMatches, type Selector } from '../sync/subset.js';

/** How long a read waits for the watch to deliver a write made through the cache before it asks the server. */
const SETTLE_MS = 5_000;

export interface ClusterCacheOptions {
  /** The wait before reconnect attempt n (0-based). */
  reconnectDelay(attempt: number): number;
  /** Waits, resolving early when the signal aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** How long a read waits for a write to be seen (default SETTLE_MS). */
  settleMs?: number;
}

/** What a read waits for after a write: the object at this resourceVersion, or gone. */
interface Expected {
  resourceVersion?: string;
  gone: boolean;
  seen: () => void;
  done: Promise<void>;
}

/** A LIST's label selector and namespace, followed by a watch of its own (full objects). */
interface Scope {
  namespace?: string;
  labelSelector: string;
  selector: Selector;
}

/** One type followed over the whole cluster, full or metadata only; or, with `scope`, one label selector of it. */
interface Store {
  type: ResourceType;
  metadataOnly: boolean;
  scope?: Scope;
  objects: Map<string, KubeObject>;
  /** The same objects by namespace ('' for cluster-scoped), so that a namespace's read does not walk the whole type. */
  byNamespace: Map<string, Map<string, KubeObject>>;
  resourceVersion?: string;
  /** Settles when the first list is in: `ok`, or `forbidden` when the cluster-wide LIST is not allowed. */
  ready: Promise<'ok' | 'forbidden'>;
  /** Whether the first list is in. */
  listed: boolean;
  stop: AbortController;
  expected: Map<string, Expected>;
  /** The last few versions the watch delivered of each object it changed: a write seen before its wait was set up. */
  recent: Map<string, string[]>;
}

/** How many delivered versions of an object are remembered (a write's own, then a controller's status update or two). */
const RECENT = 4;

export type CacheEvent = FollowEvent;

function typeId(type: ResourceType): string {
  return `${type.group}|${type.version}|${type.resource}`;
}

/** A label selector of keys and values as Kubernetes spells them, with =, ==, !=, !, in and notin: what the cache reads. */
const READABLE_SELECTOR = /^[A-Za-z0-9._/\-\s,=!()]*$/;

/** A store's id: the type, full or metadata only, and the scope of a selector's store. */
function storeId(type: ResourceType, metadataOnly: boolean, scope?: Pick<Scope, 'namespace' | 'labelSelector'>): string {
  const base = `${typeId(type)}|${metadataOnly ? 'meta' : 'full'}`;
  return scope ? `${base}|${scope.namespace ?? '*'}|${scope.labelSelector}` : base;
}

function labelled(o: KubeObject, selector: Selector): boolean {
  return selectorMatches(selector, o.metadata.labels ?? {});
}

function objectKey(o: KubeObject): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** The store's index of the object's namespace, made on first use. */
function namespaceOf(s: Store, o: KubeObject): Map<string, KubeObject> {
  const ns = o.metadata.namespace ?? '';
  let m = s.byNamespace.get(ns);
  if (!m) {
    m = new Map();
    s.byNamespace.set(ns, m);
  }
  return m;
}

export class ClusterCache extends SharedGateway {
  private readonly stores = new Map<string, Store>();
  private readonly listeners = new Map<string, Set<(e: CacheEvent) => void>>();
  /** The types (by resource, for `-v`) and the stores (by id) whose cluster-wide LIST was forbidden. */
  private readonly forbidden = new Set<string>();
  private readonly forbiddenIds = new Set<string>();
  private closed = false;

  constructor(
    inner: KubeGateway,
    private readonly opts: ClusterCacheOptions,
  ) {
    super(inner);
  }

  /** The cache reads every type cluster-wide; nothing to seed. */
  seed(): void {}

  /** What the cache follows, for `-v`: its cluster-wide watches, and the types RBAC made it read namespace by namespace. */
  snapshotStats(): SnapshotStats {
    return { clusterWideLists: [...this.stores.values()].filter((s) => !s.scope).length, splitByNamespace: [...this.forbidden].sort() };
  }

  /** The types (full or metadata only) the cache keeps and how many objects each holds. */
  kept(): { resource: string; metadataOnly: boolean; objects: number }[] {
    return [...this.stores.values()].map((s) => ({ resource: s.type.resource, metadataOnly: s.metadataOnly, objects: s.objects.size }));
  }

  private static cacheable(type: ResourceType): boolean {
    return type.verbs.includes('list') && type.verbs.includes('watch');
  }

  /** The store of a type (full or metadata only; with `scope`, of one selector), its watch started on first use. */
  private store(type: ResourceType, metadataOnly: boolean, scope?: Scope): Store {
    const id = storeId(type, metadataOnly, scope);
    const existing = this.stores.get(id);
    if (existing) return existing;
    const stop = new AbortController();
    let settle!: (v: 'ok' | 'forbidden') => void;
    let fail!: (e: unknown) => void;
    const ready = new Promise<'ok' | 'forbidden'>((resolve, reject) => {
      settle = resolve;
      fail = reject;
    });
    const s: Store = {
      type,
      metadataOnly,
      ...(scope ? { scope } : {}),
      objects: new Map(),
      byNamespace: new Map(),
      ready,
      listed: false,
      stop,
      expected: new Map(),
      recent: new Map(),
    };
    // A store stopped before its first list (the cache closed) answers its waiting readers with an error, never silence.
    stop.signal.addEventListener('abort', () => fail(new Error(`the cluster cache stopped before ${type.resource} was listed`)), { once: true });
    this.stores.set(id, s);
    void follow(
      this.inner,
      {
        type,
        metadataOnly,
        pageSize: CLUSTER_WIDE_PAGE_SIZE,
        ...(scope ? { labelSelector: scope.labelSelector, ...(scope.namespace !== undefined ? { namespace: scope.namespace } : {}) } : {}),
      },
      (ev) => {
        if (!s.listed && ev.kind === 'disconnected') {
          // The first list failed: a 403 makes the type one read from the server as asked; anything else is the
          // reader's error, and the next reader starts afresh.
          if (this.stores.get(id) === s) this.stores.delete(id);
          if (ev.error instanceof KubeApiError && ev.error.status === 403) {
            this.forbidden.add(type.resource);
            this.forbiddenIds.add(id);
            settle('forbidden');
          } else fail(ev.error);
          stop.abort();
          return;
        }
        if (ev.kind === 'listed') {
          s.listed = true;
          this.take(s, ev);
          settle('ok');
          this.dropCopies(type);
        } else if (ev.kind === 'change') this.take(s, ev);
        // Listeners get the full copy's events (subscribe keeps one).
        if (!metadataOnly && !scope) for (const l of this.listeners.get(typeId(type)) ?? []) l(ev);
      },
      { signal: stop.signal, reconnectDelay: this.opts.reconnectDelay, sleep: this.opts.sleep },
    ).catch((e: unknown) => fail(e));
    ready.catch(() => undefined);
    return s;
  }

  /**
   * Once a type is kept in full, its metadata-only copy and its selectors' stores are no longer read (every read is cut
   * from the full one): their watches stop. A copy still being listed, or with a write its reader waits for, stops once
   * that is over (this runs again then).
   */
  private dropCopies(type: ResourceType): void {
    if (this.stores.get(storeId(type, false))?.listed !== true) return;
    const tid = typeId(type);
    for (const [id, s] of this.stores) {
      if (typeId(s.type) !== tid || !(s.metadataOnly || s.scope) || !s.listed || s.expected.size > 0) continue;
      s.stop.abort();
      this.stores.delete(id);
    }
  }

  /** A list or a change, into the store; a write waited for is marked seen. */
  private take(s: Store, ev: FollowEvent): void {
    if (ev.kind === 'listed') {
      s.objects = new Map(ev.items.map((o) => [objectKey(o), deepFreeze(o)]));
      s.byNamespace = new Map();
      for (const [k, o] of s.objects) namespaceOf(s, o).set(k, o);
      s.recent.clear();
      if (ev.resourceVersion !== undefined) s.resourceVersion = ev.resourceVersion;
      for (const [k, e] of s.expected) {
        const o = s.objects.get(k);
        if ((e.gone && o === undefined) || (o !== undefined && o.metadata.resourceVersion === e.resourceVersion)) this.seen(s, k);
      }
      return;
    }
    if (ev.kind !== 'change') return;
    deepFreeze(ev.object);
    const k = objectKey(ev.object);
    if (ev.type === 'DELETED') {
      s.objects.delete(k);
      namespaceOf(s, ev.object).delete(k);
      s.recent.delete(k);
    } else {
      s.objects.set(k, ev.object);
      namespaceOf(s, ev.object).set(k, ev.object);
    }
    const rv = ev.object.metadata.resourceVersion;
    if (rv !== undefined && rv !== '') s.resourceVersion = rv;
    if (rv !== undefined && rv !== '' && ev.type !== 'DELETED') {
      const versions = s.recent.get(k) ?? [];
      versions.push(rv);
      if (versions.length > RECENT) versions.shift();
      s.recent.set(k, versions);
    }
    const e = s.expected.get(k);
    if (e && (ev.type === 'DELETED' || rv === e.resourceVersion)) this.seen(s, k);
  }

  private seen(s: Store, k: string): void {
    const e = s.expected.get(k);
    if (!e) return;
    s.expected.delete(k);
    e.seen();
    if (s.expected.size === 0 && (s.metadataOnly || s.scope)) this.dropCopies(s.type);
  }

  /** Waits until the store has seen the writes made through the cache; false when the wait ran out. */
  private async settled(s: Store): Promise<boolean> {
    if (s.expected.size === 0) return true;
    const limit = this.opts.settleMs ?? SETTLE_MS;
    let timer: NodeJS.Timeout | undefined;
    const out = await Promise.race([
      Promise.all([...s.expected.values()].map((e) => e.done)).then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), limit);
      }),
    ]);
    clearTimeout(timer);
    if (!out) {
      s.expected.clear(); // not seen in time: the server answers this read, and the next ones wait no more
      if (s.metadataOnly || s.scope) this.dropCopies(s.type);
    }
    return out;
  }

  /**
   * A ready store that has seen the cache's own writes, or undefined where the server must answer. With `scope` (a full
   * read by label selector): the type's full copy when one is kept, else the selector's own store.
   */
  private async readable(type: ResourceType, metadataOnly: boolean, scope?: Scope): Promise<Store | undefined> {
    if (!ClusterCache.cacheable(type) || this.closed) return undefined;
    // A metadata-only read of a type kept in full, or a read of one selector of it, is cut from it.
    const full = metadataOnly || scope ? this.stores.get(storeId(type, false)) : undefined;
    const id = storeId(type, metadataOnly, scope);
    if (!full && this.forbiddenIds.has(id)) return undefined;
    const s = full ?? this.store(type, metadataOnly, scope);
    if ((await s.ready) === 'forbidden') return undefined;
    return (await this.settled(s)) ? s : undefined;
  }

  async list(type: ResourceType, opts: ListOptions = {}): Promise<ListResult> {
    if (opts.continue !== undefined || opts.fieldSelector !== undefined) return this.inner.list(type, opts);
    const metadataOnly = opts.metadataOnly === true;
    const ns = type.namespaced ? opts.namespace : undefined;
    const labelSelector = opts.labelSelector;
    let selector: Selector | undefined;
    if (labelSelector !== undefined) {
      // The server says what is wrong with a selector, and reads what this cache cannot (`x>1`, `x<1`).
      if (!READABLE_SELECTOR.test(labelSelector)) return this.inner.list(type, opts);
      try {
        selector = parseSelector(labelSelector);
      } catch {
        return this.inner.list(type, opts);
      }
    }
    // A full read by label selector follows that selector (in that namespace) unless the type is kept in full.
    const scope =
      labelSelector !== undefined && selector && !metadataOnly ? { labelSelector, selector, ...(ns !== undefined ? { namespace: ns } : {}) } : undefined;
    const s = await this.readable(type, metadataOnly, scope);
    if (!s) return this.inner.list(type, opts);
    const items: KubeObject[] = [];
    for (const o of (ns === undefined ? s.objects : (s.byNamespace.get(ns) ?? new Map<string, KubeObject>())).values()) {
      if (metadataOnly && opts.withAnnotation !== undefined && o.metadata.annotations?.[opts.withAnnotation] === undefined) continue;
      if (selector && !s.scope && !labelled(o, selector)) continue;
      items.push(metadataOnly && !s.metadataOnly ? metadataOf(o) : o);
    }
    return { items, pages: 0, ...(s.resourceVersion ? { resourceVersion: s.resourceVersion } : {}) };
  }

  async get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined> {
    const s = await this.readable(type, false);
    if (!s) return this.inner.get(type, namespace, name);
    return s.objects.get(`${type.namespaced ? namespace : ''}/${name}`);
  }

  /**
   * After a write: every kept copy of the type waits for the written version (or, with none, for the object to go). A
   * selector's store waits only for what its watch will deliver: the object when it matches, its going when it held it
   * and the object no longer matches (the API server's watch says DELETED then); an object it never held is not its.
   */
  private wrote(type: ResourceType, namespace: string, name: string, result: KubeObject | undefined): void {
    const k = `${type.namespaced ? namespace : ''}/${name}`;
    const rv = result?.metadata.resourceVersion;
    const tid = typeId(type);
    for (const s of this.stores.values()) {
      if (typeId(s.type) !== tid) continue;
      const now = s.objects.get(k);
      if (s.scope) {
        if (s.scope.namespace !== undefined && type.namespaced && s.scope.namespace !== namespace) continue;
        const matches = result !== undefined && labelled(result, s.scope.selector);
        if (!matches && now === undefined) continue;
        if (!matches) {
          this.expect(s, k, undefined, true);
          continue;
        }
      }
      // Seen already: the watch can deliver a write (and a controller's update after it) before its response is read.
      if (result === undefined ? now === undefined : now?.metadata.resourceVersion === rv || (rv !== undefined && s.recent.get(k)?.includes(rv))) continue;
      this.expect(s, k, rv, result === undefined);
    }
  }

  /** The store's next read waits until its watch delivers this version of `k` (or its going). */
  private expect(s: Store, k: string, resourceVersion: string | undefined, gone: boolean): void {
    let seen!: () => void;
    const done = new Promise<void>((resolve) => {
      seen = resolve;
    });
    s.expected.get(k)?.seen(); // an older write's wait is replaced by this one's
    s.expected.set(k, { ...(resourceVersion !== undefined ? { resourceVersion } : {}), gone, seen, done });
  }

  private keyOf(obj: KubeObject): [string, string] {
    return [obj.metadata.namespace ?? '', obj.metadata.name ?? ''];
  }

  async apply(type: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    const r = await this.inner.apply(type, obj, opts);
    if (!opts.dryRun) this.wrote(type, ...this.keyOf(r), r);
    return r;
  }

  async replace(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const r = await this.inner.replace(type, obj, opts);
    if (!opts.dryRun) this.wrote(type, ...this.keyOf(r), r);
    return r;
  }

  async create(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const r = await this.inner.create(type, obj, opts);
    if (!opts.dryRun) this.wrote(type, ...this.keyOf(r), r);
    return r;
  }

  async update(type: ResourceType, obj: KubeObject, opts: UpdateOptions): Promise<KubeObject> {
    const r = await this.inner.update(type, obj, opts);
    this.wrote(type, ...this.keyOf(r), r);
    return r;
  }

  async patch(type: ResourceType, namespace: string, name: string, patch: unknown, patchType: PatchType, opts: PatchOptions): Promise<KubeObject> {
    const r = await this.inner.patch(type, namespace, name, patch, patchType, opts);
    if (!opts.dryRun) this.wrote(type, namespace, name, r);
    return r;
  }

  async delete(type: ResourceType, namespace: string, name: string, opts?: DeleteOptions): Promise<KubeObject | undefined> {
    const r = await this.inner.delete(type, namespace, name, opts);
    // An object the server still holds (finalizers, a foreground deletion) comes back with its new version.
    if (!opts?.dryRun) this.wrote(type, namespace, name, r?.metadata.deletionTimestamp !== undefined ? r : undefined);
    return r;
  }

  /** Whether the cache can follow the type over the whole cluster (listable and watchable, its cluster-wide LIST not forbidden). */
  follows(type: ResourceType): boolean {
    return ClusterCache.cacheable(type) && !this.forbiddenIds.has(storeId(type, false));
  }

  /**
   * The events of a type's watch (started if it is not kept yet, in full): its lists and changes, and its connection
   * troubles; with `namespace`, only that namespace's objects (in lists and changes); with `signal`, until it aborts.
   * Returns the listener's removal, or undefined for a type the cache does not follow (see `follows`).
   */
  subscribe(type: ResourceType, listener: (e: CacheEvent) => void, scope: { namespace?: string; signal?: AbortSignal } = {}): (() => void) | undefined {
    if (!this.follows(type)) return undefined;
    const ns = type.namespaced ? scope.namespace : undefined;
    const mine = (o: KubeObject) => ns === undefined || o.metadata.namespace === ns;
    const scoped = (e: CacheEvent) => {
      if (e.kind === 'listed') listener(ns === undefined ? e : { ...e, items: e.items.filter(mine) });
      else if (e.kind !== 'change' || mine(e.object)) listener(e);
    };
    const id = typeId(type);
    const set = this.listeners.get(id) ?? new Set();
    set.add(scoped);
    this.listeners.set(id, set);
    const s = this.store(type, false);
    // A list already in (the type was kept before this listener came) is handed over as a list.
    if (s.listed)
      scoped({
        kind: 'listed',
        items: [...(ns === undefined ? s.objects : (s.byNamespace.get(ns) ?? new Map())).values()],
        ...(s.resourceVersion ? { resourceVersion: s.resourceVersion } : {}),
      });
    const off = () => set.delete(scoped);
    scope.signal?.addEventListener('abort', off, { once: true });
    if (scope.signal?.aborted) off();
    return off;
  }

  /** Stops every watch and closes the connection. */
  override closeInner(): void {
    this.closed = true;
    for (const s of this.stores.values()) s.stop.abort();
    this.stores.clear();
    super.closeInner();
  }
}
