// RespectIgnoreDifferences: the desired object with its ignored fields kept at their live values.
import type { IgnoredFields } from '../diff/ignored-fields.js';
import { removePaths } from '../diff/remove-paths.js';
import { fieldName, sameLocation, type LocatedPath } from '../model/field-path.js';
import { isPlainObject, type JsonValue, type KubeObject } from '../model/object.js';

function setAt(root: JsonValue, at: LocatedPath, value: JsonValue): JsonValue {
  if (at.length === 0) return value;
  const [head, ...rest] = at;
  if (Array.isArray(root) && 'index' in head!) {
    const copy = [...root];
    copy[head.index] = setAt(copy[head.index] ?? {}, rest, value);
    return copy;
  }
  const name = 'field' in head! ? head.field : String(head!.index);
  const obj = isPlainObject(root) ? { ...root } : {};
  obj[name] = setAt(obj[name] ?? (rest[0] && 'index' in rest[0] ? [] : {}), rest, value);
  return obj;
}

/**
 * RespectIgnoreDifferences: a copy of `desired` in which every ignored field the desired object
 * declares takes its live value (or is dropped when it is not live), so applying it leaves those
 * fields as they are. Only when the object is live, as Argo CD does.
 */
export function keepLiveValues(desired: KubeObject, ignored: IgnoredFields): KubeObject {
  let out = desired as unknown as JsonValue;
  const removals: LocatedPath[] = [];
  for (const at of ignored.desiredAt) {
    if (fieldName(at[0]) === 'status') continue;
    const live = ignored.live.find((f) => sameLocation(f.at, at));
    if (live?.live !== undefined) out = setAt(out, at, live.live);
    else removals.push(at);
  }
  // removePaths drops later list elements first, so indices stay valid.
  return removePaths(out, removals) as unknown as KubeObject;
}
