// The kube gateway: everything the tool asks of an API server, as one interface (no client library types).
import type { KubeObject, PropagationPolicy } from '../model/object.js';
import type { ResourceType } from '../model/resource-type.js';

export interface Discovery {
  /** Every served type in every served version; the preferred version of each group comes first. */
  all: ResourceType[];
  /** One entry per group+kind: the group's preferred version, or the first version that serves the kind. */
  preferred: ResourceType[];
}

export interface ListOptions {
  /** Omit for every namespace (or for cluster-scoped types). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Ask for PartialObjectMetadataList: items carry only apiVersion, kind and metadata. */
  metadataOnly?: boolean;
  /**
   * With `metadataOnly`: only the items that carry this annotation are wanted. The gateway may leave out
   * any item without it (the real one does so without decoding them: see list-scan.ts); what it returns
   * is whole.
   */
  withAnnotation?: string;
  /** Page size (the gateway follows `continue` until the list is complete). */
  pageSize?: number;
  /** Stop after this many pages even when the list goes on (the result then carries `continue`). */
  maxPages?: number;
  /** Go on from where an earlier, stopped list of the same type and options ended. */
  continue?: string;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion?: string;
  /** How many HTTP requests the list took (pages). */
  pages: number;
  /** Only when `maxPages` stopped the list early: the token to go on with. */
  continue?: string;
  /** With `continue`: how many items the server says are left (when it says). */
  remainingItemCount?: number;
}

/** A write sent as another user (the Impersonate-User header; Argo CD's sync impersonation of a ServiceAccount). */
export interface AsUser {
  /** The user the API server is asked to act as, e.g. `system:serviceaccount:shop:deployer`. */
  impersonate?: string;
}

export interface ApplyOptions extends AsUser {
  fieldManager: string;
  force: boolean;
  dryRun: boolean;
  /** `Ignore` for Argo CD's Validate=false; the server's default when absent. */
  fieldValidation?: 'Ignore' | 'Strict';
}

/** A whole-object write (`kubectl replace` / `kubectl create`): recorded as an Update by the field manager. */
export interface WriteOptions extends AsUser {
  fieldManager: string;
  dryRun: boolean;
  fieldValidation?: 'Ignore' | 'Strict';
}

/** A whole-object update (PUT): the object's metadata.resourceVersion makes it conditional (409 when it moved). */
export interface UpdateOptions extends AsUser {
  fieldManager: string;
}

/** A PATCH's body type: RFC 6902 JSON patch, RFC 7386 merge patch, or Kubernetes' strategic merge patch. */
export type PatchType = 'json' | 'merge' | 'strategic';

export interface PatchOptions extends AsUser {
  fieldManager: string;
  dryRun?: boolean;
  fieldValidation?: 'Ignore' | 'Strict';
}

export interface DeleteOptions extends AsUser {
  /** The delete only happens if the live object still has this uid and resourceVersion. */
  preconditions?: { uid?: string; resourceVersion?: string };
  propagationPolicy?: PropagationPolicy;
  dryRun?: boolean;
}

export interface AccessCheck extends AsUser {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
  name?: string;
}

export interface AccessResult {
  allowed: boolean;
  reason?: string;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject;
}

export interface WatchOptions extends Pick<ListOptions, 'namespace' | 'labelSelector' | 'fieldSelector' | 'metadataOnly'> {
  resourceVersion?: string;
  signal?: AbortSignal;
}

/** Counters a benchmark or `-v` can print. */
export interface GatewayStats {
  requests: number;
  retries: number;
}

/**
 * What the tool needs from a cluster. Errors are ClusterErrors (see src/kube/errors.ts); a GET of
 * an absent object resolves to undefined rather than throwing.
 */
export interface KubeGateway {
  /** Where requests go, for messages (`https://127.0.0.1:6443`). */
  readonly server: string;
  /** The served types, fetched once and cached. */
  discover(): Promise<Discovery>;
  /** Drops the cached discovery: the next discover() or resolve() reads it again (a long-running loop after a new CRD). */
  forgetDiscovery?(): void;
  /** The API server's OpenAPI v3 document of one group-version (`/openapi/v3/apis/apps/v1`), fetched once; undefined when it serves none. */
  openApi?(group: string, version: string): Promise<unknown>;
  /**
   * The API server's version as Argo CD's controller reads it and hands it to renders (gitops-engine
   * KubectlCmd.GetServerVersion): `/version`'s major and minor, `1.35` (`1.30+` where the minor carries a `+`); no patch.
   */
  serverVersion?(): Promise<string>;
  /**
   * The types one group-version serves now, read again past the cached discovery (a CRD of a new group is served only
   * once its handler is installed, after the CRD is Established); undefined when the server does not serve it (404).
   */
  servedTypes?(group: string, version: string): Promise<ResourceType[] | undefined>;
  /** The type for `apiVersion`+`kind`, or undefined when the cluster does not serve it. */
  resolve(apiVersion: string, kind: string): Promise<ResourceType | undefined>;
  get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined>;
  /** Every page of a list; items carry apiVersion and kind even though the API omits them in lists. */
  list(type: ResourceType, opts?: ListOptions): Promise<ListResult>;
  /** Server-side apply; a field-manager conflict throws an ApplyConflictError carrying the conflicts as data. */
  apply(type: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject>;
  /** Replaces a live object whole (PUT), as `kubectl replace`. */
  replace(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject>;
  /** Creates an object (POST), as `kubectl create`. */
  create(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject>;
  /** Replaces one object (PUT); a resourceVersion that is no longer current throws a KubeApiError with status 409. */
  update(type: ResourceType, obj: KubeObject, opts: UpdateOptions): Promise<KubeObject>;
  /** Patches one object (recorded as an Update by the field manager); a failed JSON-patch `test` throws a KubeApiError with status 422. */
  patch(type: ResourceType, namespace: string, name: string, patch: unknown, patchType: PatchType, opts: PatchOptions): Promise<KubeObject>;
  /** Deletes one object; resolves to the returned object or status. A failed precondition throws a KubeApiError with status 409. */
  delete(type: ResourceType, namespace: string, name: string, opts?: DeleteOptions): Promise<KubeObject | undefined>;
  /** A SelfSubjectAccessReview. */
  canI(check: AccessCheck): Promise<AccessResult>;
  /** Streams watch events until the signal aborts or the server closes the stream. */
  watch(type: ResourceType, opts: WatchOptions, onEvent: (e: WatchEvent) => void): Promise<void>;
  stats(): GatewayStats;
  /** Releases keep-alive connections. */
  close(): void;
}

/** The URL path of a type's collection (`/apis/apps/v1/namespaces/ns/deployments`). */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const base = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const ns = type.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${ns}/${type.resource}`;
}

/** The URL path of one object. */
export function objectPath(type: ResourceType, namespace: string, name: string): string {
  return `${collectionPath(type, namespace)}/${encodeURIComponent(name)}`;
}
