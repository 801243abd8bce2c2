// RespectIgnoreDifferences: the desired object with its ignored fields kept at their live values.
import type { Segment } from '../diff/compare.js';
import { same, type IgnoredFields } from '../diff/ignored-fields.js';
import { isPlainObject, type JsonValue, type KubeObject } from '../model/object.js';

export { leftTo, otherOwners, type IgnoredField, type IgnoredFields } from '../diff/ignored-fields.js';

function setAt(root: JsonValue, segments: readonly Segment[], value: JsonValue): JsonValue {
  if (segments.length === 0) return value;
  const [head, ...rest] = segments as [Segment, ...Segment[]];
  if (Array.isArray(root) && typeof head === 'number') {
    const copy = [...root];
    copy[head] = setAt(copy[head] ?? {}, rest, value);
    return copy;
  }
  const obj = isPlainObject(root) ? { ...root } : {};
  obj[String(head)] = setAt(obj[String(head)] ?? (typeof rest[0] === 'number' ? [] : {}), rest, value);
  return obj;
}

function removeAt(root: JsonValue, segments: readonly Segment[]): JsonValue {
  if (segments.length === 0) return root;
  const [head, ...rest] = segments as [Segment, ...Segment[]];
  if (Array.isArray(root) && typeof head === 'number') {
    if (rest.length === 0) return root.filter((_, i) => i !== head);
    return root.map((v, i) => (i === head ? removeAt(v, rest) : v));
  }
  if (!isPlainObject(root) || !(String(head) in root)) return root;
  if (rest.length === 0) {
    const { [String(head)]: _gone, ...others } = root;
    return others;
  }
  return { ...root, [String(head)]: removeAt(root[String(head)] as JsonValue, rest) };
}

/**
 * RespectIgnoreDifferences: a copy of `desired` in which every ignored field the desired object
 * declares takes its live value (or is dropped when it is not live), so applying it leaves those
 * fields as they are. Only when the object is live, as Argo CD does.
 */
export function keepLiveValues(desired: KubeObject, ignored: IgnoredFields): KubeObject {
  let out = desired as unknown as JsonValue;
  const removals: Segment[][] = [];
  for (const segs of ignored.desiredSegments) {
    if (segs[0] === 'status') continue;
    const live = ignored.live.find((f) => same(f.segments, segs));
    if (live?.live !== undefined) out = setAt(out, segs, live.live);
    else removals.push(segs);
  }
  // Drop from the end so list indices stay valid.
  removals.sort((a, b) => (JSON.stringify(b) > JSON.stringify(a) ? 1 : -1));
  for (const segs of removals) out = removeAt(out, segs);
  return out as unknown as KubeObject;
}
