// The Kubernetes object model shared by every layer; imports nothing.

/** A JSON value as it appears in a manifest or an API response. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
  [key: string]: JsonValue | undefined | OwnerReference[] | ManagedFieldsEntry[] | Record<string, string>;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update' | string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: JsonObject;
  subresource?: string;
}

/** Any Kubernetes object, typed loosely enough for unstructured data. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [key: string]: JsonValue | ObjectMeta | undefined;
}

/** How a delete reaches the object's dependents: the API's propagationPolicy, as Argo CD's PrunePropagationPolicy spells it. */
export const PROPAGATION_POLICIES = ['foreground', 'background', 'orphan'] as const;
export type PropagationPolicy = (typeof PROPAGATION_POLICIES)[number];

/** Identifies one object: group (empty for core), kind, namespace (empty when cluster-scoped), name. */
export interface ResourceKey {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

/** The API group of an apiVersion: `apps/v1` -> `apps`, `v1` -> ``. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The version part of an apiVersion: `apps/v1` -> `v1`. */
export function versionOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export function keyOf(obj: KubeObject): ResourceKey {
  return {
    group: groupOf(obj.apiVersion),
    kind: obj.kind,
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
  };
}

/** A stable string form of a key, `group/Kind/namespace/name`, for maps and sorting. */
export function keyString(k: ResourceKey): string {
  return `${k.group}/${k.kind}/${k.namespace}/${k.name}`;
}

/**
 * The order of `a.localeCompare(b)` (ECMA-402 defines it as a Collator of the default locale and options), from one
 * collator made once: `localeCompare` sets one up per call, which cost ~20 ms to sort 1,000 keys in a cold process.
 */
export function compareText(a: string, b: string): number {
  collator ??= new Intl.Collator();
  return collator.compare(a, b);
}
// Made on first use, not at load (this module is in the start-up snapshot).
let collator: Intl.Collator | undefined;

/**
 * A name as one token of a line: as it is when plain, JSON-quoted when it holds blanks, quotes, a
 * backslash or control characters (a newline in a name read from a file must not start a new kv line).
 */
export function nameToken(s: string): string {
  return /^[^\s"\\\p{Cc}]*$/u.test(s) ? s : JSON.stringify(s);
}

/** How people and kv lines name an object: `Kind/name` (each part quoted when it must be, see nameToken). */
export function displayName(k: Pick<ResourceKey, 'kind' | 'name'>): string {
  return `${nameToken(k.kind)}/${nameToken(k.name)}`;
}

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
