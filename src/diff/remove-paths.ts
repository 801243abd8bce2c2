// Taking values out of a copy of an object (pure): what the ignore rules hide is removed from both sides before comparing.
import { stepText, type LocatedPath } from '../model/field-path.js';
import type { JsonValue } from '../model/object.js';
import { isPlainObject } from '../model/object.js';

/** A copy of `root` without the values at `paths` (paths that do not exist are skipped, as Argo CD does). */
export function removePaths<T extends JsonValue>(root: T, paths: readonly LocatedPath[]): T {
  if (paths.length === 0) return root;
  // Remove deeper list indices first so earlier removals do not shift later ones.
  const sorted = [...paths].sort(laterFirst);
  let out = root;
  for (const p of sorted) out = removeOne(out, p, 0) as T;
  return out;
}

/** Orders paths so that a later list index comes before an earlier one of the same list (and a child before its parent). */
function laterFirst(a: LocatedPath, b: LocatedPath): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ('index' in x && 'index' in y) {
      if (x.index !== y.index) return y.index - x.index;
      continue;
    }
    const xs = stepText(x);
    const ys = stepText(y);
    if (xs !== ys) return ys < xs ? -1 : 1;
  }
  return b.length - a.length;
}

function removeOne(cur: JsonValue, p: LocatedPath, i: number): JsonValue {
  const s = p[i]!;
  const last = i === p.length - 1;
  if (Array.isArray(cur) && 'index' in s && s.index < cur.length) {
    const copy = cur.slice();
    if (last) copy.splice(s.index, 1);
    else copy[s.index] = removeOne(cur[s.index]!, p, i + 1);
    return copy;
  }
  if (isPlainObject(cur) && 'field' in s && Object.prototype.hasOwnProperty.call(cur, s.field)) {
    const copy = { ...cur };
    if (last) delete copy[s.field];
    else copy[s.field] = removeOne(cur[s.field]!, p, i + 1);
    return copy;
  }
  return cur;
}
