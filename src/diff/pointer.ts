// RFC 6901 JSON pointers: formatting, parsing (`~0`/`~1` escapes) and removal on a copy.
import type { JsonValue } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import type { Segment } from './compare.js';

export function formatPointer(segments: readonly Segment[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** Parses a pointer into raw tokens (strings; whether a token is an index depends on the value it walks). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`parsing JSON pointer ${JSON.stringify(pointer)}: it must start with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Resolves pointer tokens against a value into segments, or undefined when the path does not exist. */
export function resolvePointer(root: JsonValue | undefined, tokens: readonly string[]): Segment[] | undefined {
  const out: Segment[] = [];
  let cur = root;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(t)) return undefined;
      const i = Number(t);
      if (i >= cur.length) return undefined;
      out.push(i);
      cur = cur[i];
    } else if (isPlainObject(cur)) {
      if (!(t in cur)) return undefined;
      out.push(t);
      cur = cur[t];
    } else return undefined;
  }
  return out;
}

/** A copy of `root` without the values at `paths` (paths that do not exist are skipped, as Argo CD does). */
export function removePaths<T extends JsonValue>(root: T, paths: readonly (readonly Segment[])[]): T {
  if (paths.length === 0) return root;
  // Remove deeper list indices first so earlier removals do not shift later ones.
  const sorted = [...paths].sort((a, b) => compareSegmentsDesc(a, b));
  let out = root;
  for (const p of sorted) out = removeOne(out, p, 0) as T;
  return out;
}

function compareSegmentsDesc(a: readonly Segment[], b: readonly Segment[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return y - x;
    return String(y) < String(x) ? -1 : 1;
  }
  return b.length - a.length;
}

function removeOne(cur: JsonValue, p: readonly Segment[], i: number): JsonValue {
  const s = p[i]!;
  const last = i === p.length - 1;
  if (Array.isArray(cur) && typeof s === 'number' && s < cur.length) {
    const copy = cur.slice();
    if (last) copy.splice(s, 1);
    else copy[s] = removeOne(cur[s]!, p, i + 1);
    return copy;
  }
  if (isPlainObject(cur) && typeof s === 'string' && s in cur) {
    const copy = { ...cur };
    if (last) delete copy[s];
    else copy[s] = removeOne(cur[s]!, p, i + 1);
    return copy;
  }
  return cur;
}
