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
 * The printable ASCII characters in the order of the Unicode root collation (CLDR root, as `Intl.Collator('en')` sorts:
 * punctuation and symbols, then digits, then letters), each entry's characters equal at the primary level (a letter and
 * its capital, the lower case first at the tertiary level). test/unit/model/compare-text.test.ts checks it against the
 * collator itself.
 */
const ROOT_ORDER = [...' _-,;:!?.\'"()[]{}@*/\\&#%`^+<=>|~$0123456789'].concat([...'abcdefghijklmnopqrstuvwxyz'].map((c) => c + c.toUpperCase()));

/** Per printable ASCII code: its primary weight as one character (from '!'), and its tertiary one ('b' for a capital). */
const PRIMARY: string[] = [];
const TERTIARY: string[] = [];
ROOT_ORDER.forEach((chars, rank) => {
  [...chars].forEach((c, i) => {
    PRIMARY[c.charCodeAt(0)] = String.fromCharCode(0x21 + rank);
    TERTIARY[c.charCodeAt(0)] = i === 0 ? 'a' : 'b';
  });
});

/**
 * A string whose plain (code unit) order is the root collation's order of `s`, for a string of printable ASCII (every
 * resource key: Kubernetes names, kinds and groups are); undefined for any other. The primary weights, a separator below
 * every weight (so a prefix sorts first), then the case of each character (compared only when the primaries are equal).
 */
export function collationKey(s: string): string | undefined {
  let primary = '';
  let tertiary = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const p = PRIMARY[c];
    if (p === undefined) return undefined;
    primary += p;
    tertiary += TERTIARY[c];
  }
  return `${primary}\u0001${tertiary}`;
}

/**
 * The order of the resource keys in every report and tree: the Unicode root collation's (as `localeCompare` orders in
 * an English locale), the same whatever the user's locale (`localeCompare` itself would follow it: Lithuanian sorts `y`
 * before `j`). Printable ASCII is ordered by collationKey, with no collator set up (~15 ms in a cold plain Node process,
 * ~3 ms in the executable); anything else by one `Intl.Collator('en')`, made on first use (this module is in the
 * start-up snapshot).
 */
export function compareText(a: string, b: string): number {
  const ka = collationKey(a);
  const kb = collationKey(b);
  if (ka !== undefined && kb !== undefined) return ka < kb ? -1 : ka > kb ? 1 : 0;
  collator ??= new Intl.Collator('en');
  return collator.compare(a, b);
}
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
