// Fields an ignoreDifferences rule leaves to their live owner: reported by diff and sync, kept live by RespectIgnoreDifferences.
import type { IgnoreDifference } from '../app/types.js';
import type { Segment } from '../diff/compare.js';
import { valueAt } from '../diff/compare.js';
import { planIgnores, ruleMatches, type IgnoreRuleRef } from '../diff/ignore.js';
import { jqRunner } from '../diff/jq.js';
import { formatPointer } from '../diff/pointer.js';
import { isPlainObject, keyOf, type JsonObject, type JsonValue, type KubeObject } from '../model/object.js';
import { normalizeObject } from '../normalize/index.js';
import { fieldPathOf, managedEntries, ownersOf, renderPath, type Owner } from '../ownership/index.js';

/** One live field an ignore rule hides, with who owns it. */
export interface IgnoredField {
  path: string;
  pointer: string;
  segments: Segment[];
  live?: JsonValue;
  /** The desired value when the desired object declares the field too. */
  desired?: JsonValue;
  owners: Owner[];
  rule: IgnoreRuleRef;
}

export interface IgnoredFields {
  /** Ignored fields present live (one per path, the first rule naming it). */
  live: IgnoredField[];
  /** Segments of ignored fields in the desired object. */
  desiredSegments: Segment[][];
  warnings: string[];
}

function same(a: readonly Segment[], b: readonly Segment[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** The ignored fields of one desired/live pair (empty when no rule matches). Never mutates its inputs. */
export async function ignoredFields(rules: readonly IgnoreDifference[], desired: KubeObject, live: KubeObject): Promise<IgnoredFields> {
  const key = { ...keyOf(desired), namespace: desired.metadata.namespace ?? live.metadata.namespace ?? '' };
  if (!rules.some((r) => ruleMatches(r, key))) return { live: [], desiredSegments: [], warnings: [] };
  const nd = normalizeObject(desired) as unknown as JsonObject;
  const nl = normalizeObject(live) as unknown as JsonObject;
  const plan = await planIgnores(rules, key, nd, nl, live, () => jqRunner());
  const entries = managedEntries(live);
  const out: IgnoredField[] = [];
  for (const p of plan.live) {
    if (out.some((f) => same(f.segments, p.segments))) continue;
    const fp = fieldPathOf(nl, p.segments, entries);
    const field: IgnoredField = { path: renderPath(fp), pointer: formatPointer(p.segments), segments: p.segments, owners: ownersOf(live, fp), rule: p.rule };
    const lv = valueAt(nl, p.segments);
    const dv = valueAt(nd, p.segments);
    if (lv !== undefined) field.live = lv;
    if (dv !== undefined) field.desired = dv;
    out.push(field);
  }
  return { live: out, desiredSegments: plan.desired.map((p) => p.segments), warnings: plan.warnings };
}

/** Owners of an ignored field other than our field manager (status writers excluded): those it is left to. */
export function otherOwners(f: IgnoredField, fieldManager: string): Owner[] {
  return f.owners.filter((o) => o.manager !== fieldManager && o.subresource !== 'status');
}

/**
 * The managers an ignored live field is left to: its other owners, or `-` when nobody owns it
 * (a server default changed through a subresource, e.g. `kubectl scale`, may record no owner);
 * none when only we own it (then our apply decides it) or it is status.
 */
export function leftTo(f: IgnoredField, fieldManager: string): string[] {
  if (f.segments[0] === 'status') return [];
  const others = otherOwners(f, fieldManager).map((o) => o.manager);
  if (others.length > 0) return [...new Set(others)];
  return f.owners.some((o) => o.manager === fieldManager) ? [] : ['-'];
}

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
