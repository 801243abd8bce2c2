// The managedFields analyzer: who owns a field, what a manager owns, and which declared fields an SSA would conflict on.
import type { JsonObject, JsonValue, KubeObject } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { differences, type Difference, type Segment } from '../diff/compare.js';
import { FieldSet } from './fieldset.js';
import { decodeFieldsV1 } from './fieldsv1.js';
import { renderPath, type FieldPath, type PathElement } from './path.js';

export { FieldSet } from './fieldset.js';
export { decodeFieldsV1, encodeFieldsV1, decodeElement } from './fieldsv1.js';
export { renderPath, parsePath, pathKey, isPrefix, type FieldPath, type PathElement } from './path.js';

/** One managedFields entry's identity: who wrote, how, through which API version and subresource, when. */
export interface Owner {
  manager: string;
  operation: string;
  apiVersion: string;
  subresource?: string;
  time?: string;
}

export interface ManagedEntry {
  owner: Owner;
  fields: FieldSet;
}

const decoded = new WeakMap<object, ManagedEntry[]>();

/** Every managedFields entry of the object, decoded (cached per object; objects are never mutated). */
export function managedEntries(obj: KubeObject): ManagedEntry[] {
  const mf = obj.metadata?.managedFields;
  if (!Array.isArray(mf) || mf.length === 0) return [];
  const hit = decoded.get(mf);
  if (hit) return hit;
  // managedFields come from the server, but also from files (`diff --live-file`): any field may be of any type.
  const text = (v: unknown): string => (typeof v === 'string' ? v : '');
  const out: ManagedEntry[] = mf.map((e, i) => {
    if (!isPlainObject(e)) throw new Error(`decoding managedFields[${i}]: the entry is not an object`);
    const owner: Owner = { manager: text(e.manager), operation: text(e.operation) as Owner['operation'], apiVersion: text(e.apiVersion) };
    if (text(e.subresource)) owner.subresource = text(e.subresource);
    if (text(e.time)) owner.time = text(e.time);
    let fields = new FieldSet();
    if (e.fieldsV1 !== undefined) {
      if (!isPlainObject(e.fieldsV1)) throw new Error(`decoding managedFields[${i}] (${owner.manager}): fieldsV1 is not an object`);
      try {
        fields = decodeFieldsV1(e.fieldsV1);
      } catch (err) {
        throw new Error(`decoding managedFields[${i}] (${owner.manager})`, { cause: err });
      }
    }
    return { owner, fields };
  });
  decoded.set(mf, out);
  return out;
}

/** Known associative-list keys of built-in types, by list field name, for lists the managedFields say nothing about. */
const KNOWN_LIST_KEYS: Record<string, string[][]> = {
  containers: [['name']],
  initContainers: [['name']],
  ephemeralContainers: [['name']],
  env: [['name']],
  volumes: [['name']],
  imagePullSecrets: [['name']],
  volumeMounts: [['mountPath']],
  volumeDevices: [['devicePath']],
  ports: [['containerPort', 'protocol'], ['port', 'protocol'], ['containerPort'], ['port']],
  hostAliases: [['ip']],
  conditions: [['type']],
  topologySpreadConstraints: [['topologyKey', 'whenUnsatisfiable']],
};

/** Key field names the object's managedFields use for list elements directly under `prefix`. */
function keyNamesFromEntries(entries: readonly ManagedEntry[], prefix: FieldPath): string[] | undefined {
  for (const e of entries) {
    for (const el of e.fields.childrenOf(prefix)) if ('key' in el) return Object.keys(el.key);
  }
  return undefined;
}

function hasValueElements(entries: readonly ManagedEntry[], prefix: FieldPath): boolean {
  return entries.some((e) => e.fields.childrenOf(prefix).some((el) => 'value' in el));
}

function pickKey(el: JsonObject, names: readonly string[]): Record<string, JsonValue> | undefined {
  const key: Record<string, JsonValue> = {};
  for (const n of names) {
    if (el[n] === undefined) return undefined;
    key[n] = el[n]!;
  }
  return key;
}

/**
 * The field path of `segments` inside `obj`: list elements become `k:` keys (the key fields the
 * managedFields use, else Kubernetes' known list keys, else `name`), `v:` for set values the
 * managedFields name, and `i:` indices otherwise.
 */
export function fieldPathOf(obj: JsonValue, segments: readonly Segment[], entries: readonly ManagedEntry[] = []): FieldPath {
  const out: PathElement[] = [];
  let cur: JsonValue | undefined = obj;
  let parentField: string | undefined;
  for (const s of segments) {
    if (typeof s === 'string') {
      out.push({ field: s });
      parentField = s;
      cur = isPlainObject(cur) ? cur[s] : undefined;
      continue;
    }
    const el: JsonValue | undefined = Array.isArray(cur) ? cur[s] : undefined;
    out.push(listElement(el, s, out, parentField, entries));
    parentField = undefined;
    cur = el;
  }
  return out;
}

function listElement(el: JsonValue | undefined, index: number, prefix: FieldPath, parentField: string | undefined, entries: readonly ManagedEntry[]): PathElement {
  if (isPlainObject(el)) {
    const fromEntries = entries.length > 0 ? keyNamesFromEntries(entries, prefix) : undefined;
    if (fromEntries) {
      const key = pickKey(el, fromEntries);
      if (key) return { key };
    }
    for (const names of (parentField && KNOWN_LIST_KEYS[parentField]) || [['name']]) {
      const key = pickKey(el, names);
      if (key && names.every((n) => typeof key[n] !== 'object')) return { key };
    }
    return { index };
  }
  if (el !== undefined && !Array.isArray(el) && entries.length > 0 && hasValueElements(entries, prefix)) return { value: el };
  return { index };
}

/** The human path for `segments` inside `obj` (see renderPath). */
export function humanPath(obj: JsonValue, segments: readonly Segment[], entries: readonly ManagedEntry[] = []): string {
  return renderPath(fieldPathOf(obj, segments, entries));
}

/** Managers owning exactly `path`; if none, those owning its nearest owned ancestor (shared ownership lists every owner). */
export function ownersOf(obj: KubeObject, path: FieldPath): Owner[] {
  const entries = managedEntries(obj);
  for (let n = path.length; n > 0; n--) {
    const p = path.slice(0, n);
    const owners = entries.filter((e) => e.fields.has(p)).map((e) => e.owner);
    if (owners.length > 0) return owners;
  }
  return [];
}

/** Managers owning `path` itself or any field below it. */
export function ownersAtOrBelow(obj: KubeObject, path: FieldPath): Owner[] {
  return managedEntries(obj)
    .filter((e) => e.fields.has(path) || e.fields.hasBelow(path))
    .map((e) => e.owner);
}

/** Everything one manager owns (all its entries: Apply and Update, every subresource). */
export function fieldsOwnedBy(obj: KubeObject, manager: string): FieldSet {
  return managedEntries(obj)
    .filter((e) => e.owner.manager === manager)
    .reduce((acc, e) => acc.union(e.fields), new FieldSet());
}

/** A declared field another manager owns with a different value: an SSA without force is refused on it. */
export interface Conflict {
  path: FieldPath;
  /** The field path as people read it. */
  human: string;
  segments: Segment[];
  desired: JsonValue | undefined;
  live: JsonValue | undefined;
  managers: Owner[];
}

/**
 * The fields a server-side apply of `desired` by `fieldManager` would be refused on without
 * force (and that a forced apply takes over): declared values that differ from live, where a
 * manager other than ours owns the field or a field below it (desired `status` is never compared).
 */
export function predictConflicts(desired: KubeObject, live: KubeObject, fieldManager: string): Conflict[] {
  const entries = managedEntries(live);
  if (entries.length === 0) return [];
  const out: Conflict[] = [];
  const { metadata: dm, ...drest } = desired;
  const { metadata: lm, ...lrest } = live;
  const root = live as unknown as JsonObject;
  const diffs = [
    ...ssaDifferences(stripForConflicts(dm as unknown as JsonObject), lm as unknown as JsonObject, ['metadata'], root, entries),
    ...ssaDifferences(drest as JsonObject, lrest as JsonObject, [], root, entries),
  ];
  for (const d of diffs) {
    if (d.segments[0] === 'status') continue;
    const path = fieldPathOf(live as unknown as JsonObject, d.segments, entries);
    const managers = conflictingManagers(entries, path, fieldManager);
    if (managers.length > 0) out.push({ path, human: renderPath(path), segments: d.segments, desired: d.desired, live: d.live, managers });
  }
  return out;
}

/** Like `differences`, but keyed lists are matched element by element by key, as server-side apply merges them. */
function ssaDifferences(desired: JsonValue | undefined, live: JsonValue | undefined, at: Segment[], root: JsonObject, entries: readonly ManagedEntry[]): Difference[] {
  if (isPlainObject(desired) && isPlainObject(live)) {
    return Object.keys(desired).flatMap((k) => ssaDifferences(desired[k], live[k], [...at, k], root, entries));
  }
  if (Array.isArray(desired) && Array.isArray(live) && desired.length > 0) {
    const parent = at[at.length - 1];
    const pf = typeof parent === 'string' ? parent : '';
    const liveKeys = live.map((_, i) => fieldPathOf(root, [...at, i], entries).at(-1)!);
    const out: Difference[] = [];
    for (const el of desired) {
      const k = fieldPathOf({ [pf]: [el] } as JsonObject, [pf, 0], []).at(-1)!;
      if (!('key' in k) || !isPlainObject(el)) return differences(desired, live, at);
      const idx = liveKeys.findIndex((lk) => 'key' in lk && Object.keys(k.key).every((n) => JSON.stringify(lk.key[n]) === JSON.stringify(k.key[n])));
      if (idx >= 0) out.push(...ssaDifferences(el, live[idx], [...at, idx], root, entries));
    }
    return out;
  }
  return differences(desired, live, at);
}

function stripForConflicts(meta: JsonObject): JsonObject {
  const { managedFields: _m, resourceVersion: _r, uid: _u, creationTimestamp: _c, generation: _g, ...rest } = meta;
  return rest;
}

/**
 * Other managers than ours owning `path` or something below it. Entries written through a
 * subresource count too: `kubectl scale` owns spec.replicas through `scale`, and the deployment
 * controller's `status` entry also owns the revision annotation.
 */
export function conflictingManagers(entries: readonly ManagedEntry[], path: FieldPath, fieldManager: string): Owner[] {
  return entries
    .filter((e) => e.owner.manager !== fieldManager)
    .filter((e) => e.fields.has(path) || e.fields.hasBelow(path))
    .map((e) => e.owner);
}
