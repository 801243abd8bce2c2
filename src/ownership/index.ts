// The managedFields analyzer: who owns a field, what a manager owns, and which declared fields an SSA would conflict on.
import type { JsonObject, JsonValue, KubeObject } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import type { FieldPath, LocatedPath, PathElement } from '../model/field-path.js';
import { FieldSet } from './fieldset.js';
import { checkFieldsV1, decodeFieldsV1 } from './fieldsv1.js';

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
  /** The paths the entry owns, decoded from its FieldsV1 trie when first read. */
  readonly fields: FieldSet;
  /** The entry's FieldsV1 trie as the server wrote it (already checked to decode), for a walk that needs no path set. */
  readonly fieldsV1?: JsonObject;
}

/** An entry whose trie is decoded into a path set only when something asks for its fields: an object in sync needs none. */
class LazyEntry implements ManagedEntry {
  private decoded?: FieldSet;
  constructor(
    readonly owner: Owner,
    readonly fieldsV1: JsonObject | undefined,
  ) {}
  get fields(): FieldSet {
    this.decoded ??= this.fieldsV1 === undefined ? new FieldSet() : decodeFieldsV1(this.fieldsV1);
    return this.decoded;
  }
}

const decoded = new WeakMap<object, ManagedEntry[]>();

/**
 * Every managedFields entry of the object (cached per object; objects are never mutated). Each trie is checked here,
 * so a malformed entry fails now with the entry named, and decoded into a path set only when its fields are read.
 */
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
    if (e.fieldsV1 === undefined) return new LazyEntry(owner, undefined);
    if (!isPlainObject(e.fieldsV1)) throw new Error(`decoding managedFields[${i}] (${owner.manager}): fieldsV1 is not an object`);
    try {
      checkFieldsV1(e.fieldsV1);
    } catch (err) {
      throw new Error(`decoding managedFields[${i}] (${owner.manager})`, { cause: err });
    }
    return new LazyEntry(owner, e.fieldsV1);
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
 * A located path inside `obj` with its list elements named as managedFields name them: by key (the key fields the
 * managedFields use, else Kubernetes' known list keys, else `name`), by value for set values the managedFields name,
 * by index otherwise. The same place, named so that it means the same in another version of the object.
 */
export function keyedPath(obj: JsonValue, at: LocatedPath, entries: readonly ManagedEntry[] = []): FieldPath {
  const out: PathElement[] = [];
  let cur: JsonValue | undefined = obj;
  let parentField: string | undefined;
  for (const s of at) {
    if ('field' in s) {
      out.push(s);
      parentField = s.field;
      cur = isPlainObject(cur) ? cur[s.field] : undefined;
      continue;
    }
    const el: JsonValue | undefined = Array.isArray(cur) ? cur[s.index] : undefined;
    out.push(listElement(el, s.index, out, parentField, entries));
    parentField = undefined;
    cur = el;
  }
  return out;
}

function listElement(
  el: JsonValue | undefined,
  index: number,
  prefix: FieldPath,
  parentField: string | undefined,
  entries: readonly ManagedEntry[],
): PathElement {
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

/** Everything one manager owns (all its entries: Apply and Update, every subresource). */
export function fieldsOwnedBy(obj: KubeObject, manager: string): FieldSet {
  return managedEntries(obj)
    .filter((e) => e.owner.manager === manager)
    .reduce((acc, e) => acc.union(e.fields), new FieldSet());
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
