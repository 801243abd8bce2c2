// A gateway shared by the sessions of one command over many Applications (`list`): one connection per cluster, and
// each cluster-scoped metadata-only LIST made once for all of them (every app's candidate scan asks the same ones).
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

export class SharedReads implements KubeGateway {
  private readonly lists = new Map<string, Promise<ListResult>>();

  constructor(private readonly inner: KubeGateway) {}

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

  resolve(apiVersion: string, kind: string): Promise<ResourceType | undefined> {
    return this.inner.resolve(apiVersion, kind);
  }

  get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.inner.get(type, namespace, name);
  }

  /** Cluster-scoped, metadata-only, whole lists are shared (a failed one is asked again); each caller gets its own copy. */
  async list(type: ResourceType, opts: ListOptions = {}): Promise<ListResult> {
    const shareable = !type.namespaced && opts.metadataOnly === true && opts.continue === undefined && opts.maxPages === undefined;
    if (!shareable) return this.inner.list(type, opts);
    const key = JSON.stringify([
      type.group,
      type.version,
      type.resource,
      opts.labelSelector ?? '',
      opts.fieldSelector ?? '',
      opts.withAnnotation ?? '',
      opts.pageSize ?? 0,
    ]);
    let p = this.lists.get(key);
    if (!p) {
      p = this.inner.list(type, opts);
      this.lists.set(key, p);
      p.catch(() => this.lists.delete(key));
    }
    const res = await p;
    return { ...res, items: structuredClone(res.items) };
  }

  apply(type: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    return this.inner.apply(type, obj, opts);
  }

  replace(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    return this.inner.replace(type, obj, opts);
  }

  create(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    return this.inner.create(type, obj, opts);
  }

  update(type: ResourceType, obj: KubeObject, opts: UpdateOptions): Promise<KubeObject> {
    return this.inner.update(type, obj, opts);
  }

  openApi(group: string, version: string): Promise<unknown> {
    return this.inner.openApi ? this.inner.openApi(group, version) : Promise.resolve(undefined);
  }

  patch(type: ResourceType, namespace: string, name: string, patch: unknown, patchType: PatchType, opts: PatchOptions): Promise<KubeObject> {
    return this.inner.patch(type, namespace, name, patch, patchType, opts);
  }

  delete(type: ResourceType, namespace: string, name: string, opts?: DeleteOptions): Promise<KubeObject | undefined> {
    return this.inner.delete(type, namespace, name, opts);
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

  /** The owner (the pool) closes the connection; a session's close leaves it open for the next one. */
  close(): void {}

  closeInner(): void {
    this.inner.close();
  }
}
