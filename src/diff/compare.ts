// Containment: is the desired value contained in the live one? Returns every place where it is not.
import type { JsonValue } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { isQuantityPath, quantitiesEqual } from './quantity.js';

/** A path into a JSON value: strings for map keys, numbers for list indices. */
export type Segment = string | number;

/** One place where desired is not contained in live; `live` is undefined when the field is absent live. */
export interface Difference {
  segments: Segment[];
  desired: JsonValue | undefined;
  live: JsonValue | undefined;
}

/** Desired values that count as satisfied by an absent live field (the API server omits empty values). */
function isEmptyish(v: JsonValue | undefined): boolean {
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/**
 * Every place where `desired` is not contained in `live`: maps recursively (live's extra keys do
 * not count), lists by length and then element by element, scalars by value (quantities by
 * value under resource maps; a number never equals a string otherwise). A desired null, `{}` or
 * `[]` is satisfied by an absent live field.
 */
export function differences(desired: JsonValue | undefined, live: JsonValue | undefined, base: Segment[] = []): Difference[] {
  const out: Difference[] = [];
  walk(desired, live, base, out);
  return out;
}

function walk(desired: JsonValue | undefined, live: JsonValue | undefined, at: Segment[], out: Difference[]): void {
  if (desired === undefined) return;
  if (live === undefined) {
    if (!isEmptyish(desired)) out.push({ segments: at, desired, live });
    return;
  }
  if (isPlainObject(desired)) {
    if (!isPlainObject(live)) {
      if (!(live === null && Object.keys(desired).length === 0)) out.push({ segments: at, desired, live });
      return;
    }
    for (const k of Object.keys(desired)) {
      walk(desired[k], live[k], [...at, k], out);
    }
    return;
  }
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) {
      if (!(live === null && desired.length === 0)) out.push({ segments: at, desired, live });
      return;
    }
    if (desired.length !== live.length) {
      out.push({ segments: at, desired, live });
      return;
    }
    for (let i = 0; i < desired.length; i++) walk(desired[i], live[i], [...at, i], out);
    return;
  }
  if (desired === live) return;
  if (desired === null && live === null) return;
  if (isQuantityPath(at) && quantitiesEqual(desired, live)) return;
  out.push({ segments: at, desired, live });
}

/** The value at a path, or undefined. */
export function valueAt(root: JsonValue | undefined, segments: readonly Segment[]): JsonValue | undefined {
  let cur: JsonValue | undefined = root;
  for (const s of segments) {
    if (typeof s === 'number') cur = Array.isArray(cur) ? cur[s] : undefined;
    else cur = isPlainObject(cur) ? cur[s] : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Whether two JSON values are deeply equal (same rules as containment both ways, without quantities). */
export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}
