// Fields removed from Git (pure): what our field manager applied (its Apply entries in managedFields) that the desired
// object no longer declares and no other manager owns. A server-side apply of the desired object removes exactly those,
// so they are drift, as Argo CD's server-side diff finds them.
import type { JsonObject, JsonValue, KubeObject } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { LAST_APPLIED, TRACKING_ID } from '../model/keys.js';
import type { ManagedEntry } from '../ownership/index.js';
import { cachedElement } from '../ownership/fieldsv1.js';
import { canonicalJson, fields, locate, pathKey, startsWithFields, stepInto, valueAt, type FieldPath, type Step } from '../model/field-path.js';
import { strategicListRule } from './list-rule.js';

export interface RemovedField {
  /** The shortest path that the desired object no longer has (a whole list element, not each of its fields). */
  path: FieldPath;
  /** Where it is in the live object. */
  at: Step[];
  live: JsonValue;
}

/** The fields of `live` that `fieldManager` applied and `desired` no longer declares, nobody else owning them. */
export function removedFields(desired: KubeObject, live: KubeObject, entries: readonly ManagedEntry[], fieldManager: string): RemovedField[] {
  const ours = entries.filter((e) => e.owner.manager === fieldManager && e.owner.operation === 'Apply' && !e.owner.subresource);
  if (ours.length === 0) return [];
  // Most objects declare everything our manager applied: a walk of the raw tries finds that without decoding them.
  if (ours.every((e) => (e.fieldsV1 === undefined ? e.fields.size === 0 : !missesSomething(e.fieldsV1, desired as unknown as JsonValue)))) return [];
  const others = entries.filter((e) => !(e.owner.manager === fieldManager && e.owner.operation === 'Apply'));
  const out: RemovedField[] = [];
  const seen = new Set<string>();
  for (const e of ours) {
    for (const p of e.fields.paths()) {
      // The tracking mark is the stamping's business (compared through the marked desired object), not Git's; the
      // last-applied annotation, which a migrated client-side entry hands to us, is never compared (Argo CD's diff
      // removes it from both sides).
      if (isTrackingMark(p) || isLastApplied(p)) continue;
      // The first element of the path the desired object does not have.
      let node: JsonValue | undefined = desired as unknown as JsonValue;
      let missing = -1;
      for (let i = 0; i < p.length; i++) {
        const next = stepInto(node, p[i]!);
        if (!next) {
          missing = i;
          break;
        }
        node = next.value;
      }
      if (missing < 0) continue;
      const removed = p.slice(0, missing + 1);
      const k = pathKey(removed);
      if (seen.has(k)) continue;
      seen.add(k);
      // Co-owned by another manager: an apply leaves it to them.
      if (others.some((o) => o.fields.has(removed) || o.fields.hasBelow(removed))) continue;
      const at = locate(live as unknown as JsonValue, removed);
      if (!at) continue; // already gone from the live object
      out.push({ path: removed, at, live: valueAt(live as unknown as JsonValue, at)! });
    }
  }
  return out;
}

/**
 * Whether some path of a FieldsV1 trie is not in `node`: the same answer as stepping each decoded path into it (every
 * key of the trie is a prefix of some path, so a key that does not step in leaves that path missing).
 */
function missesSomething(trie: JsonObject, node: JsonValue | undefined): boolean {
  for (const k of Object.keys(trie)) {
    if (k === '.') continue;
    let value: JsonValue | undefined;
    if (k.startsWith('f:')) {
      // A map field, the common key: looked up without the step objects stepInto returns.
      const name = k.slice(2);
      if (!isPlainObject(node) || !Object.prototype.hasOwnProperty.call(node, name)) return true;
      value = node[name];
    } else {
      const next = stepInto(node, cachedElement(k));
      if (!next) return true;
      value = next.value;
    }
    if (missesSomething(trie[k] as JsonObject, value)) return true;
  }
  return false;
}

/**
 * The three-way rule of client-side apply (kubectl's, and Argo CD's legacy diff), for an object our field manager
 * never applied server-side but that carries a last-applied configuration: a field that configuration declared, the
 * desired object no longer does, and the live object still has, is removed by the next apply, so it is drift. Maps
 * are followed by key, lists of objects by their merge key (see list-rule.ts; `name` for lists it does not know),
 * lists of scalars by value (other lists are left alone).
 * A field another manager than the one that wrote the annotation owns is theirs, never reported.
 */
export function removedSinceLastApplied(desired: KubeObject, live: KubeObject, entries: readonly ManagedEntry[], fieldManager: string): RemovedField[] {
  if (entries.some((e) => e.owner.manager === fieldManager && e.owner.operation === 'Apply' && !e.owner.subresource)) return [];
  const text = live.metadata.annotations?.[LAST_APPLIED];
  if (!text) return [];
  let last: JsonValue;
  try {
    last = JSON.parse(text) as JsonValue;
  } catch {
    return [];
  }
  const annotation: FieldPath = fields('metadata', 'annotations', LAST_APPLIED);
  const applier = entries.find((e) => e.fields.has(annotation))?.owner.manager;
  const others = entries.filter((e) => applier !== undefined && e.owner.manager !== applier && !e.owner.subresource);
  const out: RemovedField[] = [];
  const report = (path: FieldPath, at: Step[], value: JsonValue) => {
    if (others.some((o) => o.fields.has(path) || o.fields.hasBelow(path))) return;
    out.push({ path, at, live: value });
  };
  const lists = strategicListRule(desired.apiVersion, desired.kind);
  const walk = (l: JsonValue | undefined, d: JsonValue | undefined, lv: JsonValue | undefined, path: FieldPath, at: Step[]): void => {
    if (isPlainObject(l)) {
      if (!isPlainObject(lv)) return;
      for (const k of Object.keys(l)) {
        const p: FieldPath = [...path, { field: k }];
        if (isTrackingMark(p) || pathKey(p) === pathKey(annotation) || !Object.prototype.hasOwnProperty.call(lv, k)) continue;
        const declared = isPlainObject(d) && Object.prototype.hasOwnProperty.call(d, k);
        // metadata and its annotations hold the last-applied annotation itself (a Secret's values, for one): never
        // reported whole, only what is in them key by key.
        if (declared || isAnnotationParent(p)) walk(l[k], declared ? (d as Record<string, JsonValue>)[k] : {}, lv[k], p, [...at, { field: k }]);
        else report(p, [...at, { field: k }], lv[k] as JsonValue);
      }
      return;
    }
    if (!Array.isArray(l) || !Array.isArray(d) || !Array.isArray(lv)) return;
    const key = lists?.(at)?.key ?? 'name';
    const keyed = (list: readonly JsonValue[], v: JsonValue) => list.findIndex((x) => isPlainObject(x) && x[key] === v);
    for (const item of l) {
      const k = isPlainObject(item) ? item[key] : undefined;
      if (typeof k === 'string' || typeof k === 'number') {
        const li = keyed(lv, k);
        if (li < 0) continue;
        const p: FieldPath = [...path, { key: { [key]: k } }];
        const di = keyed(d, k);
        if (di < 0) report(p, [...at, { index: li }], lv[li] as JsonValue);
        else walk(item, d[di], lv[li], p, [...at, { index: li }]);
      } else if (!isPlainObject(item) && !Array.isArray(item)) {
        const want = canonicalJson(item);
        const li = lv.findIndex((x) => canonicalJson(x) === want);
        if (li >= 0 && !d.some((x) => canonicalJson(x) === want)) report([...path, { value: item }], [...at, { index: li }], lv[li] as JsonValue);
      }
    }
  };
  walk(last, desired as unknown as JsonValue, live as unknown as JsonValue, [], []);
  return out;
}

/** `metadata` or `metadata.annotations`: where the last-applied annotation lives. */
function isAnnotationParent(p: FieldPath): boolean {
  return (p.length === 1 && startsWithFields(p, 'metadata')) || (p.length === 2 && startsWithFields(p, 'metadata', 'annotations'));
}

function isLastApplied(p: FieldPath): boolean {
  return p.length === 3 && startsWithFields(p, 'metadata', 'annotations', LAST_APPLIED);
}

function isTrackingMark(p: FieldPath): boolean {
  return p.length === 3 && startsWithFields(p, 'metadata', 'annotations', TRACKING_ID);
}
