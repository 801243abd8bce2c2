// Fields an ignoreDifferences rule hides, present live, with their owners: the comparison reports those left to another manager; RespectIgnoreDifferences keeps them live.
import type { IgnoreDifference } from '../app/types.js';
import type { Segment } from './compare.js';
import { valueAt } from './compare.js';
import { planIgnores, ruleMatches, type IgnoreRuleRef } from './ignore.js';
import type { JqRunner } from './jq.js';
import { formatPointer } from './pointer.js';
import { keyOf, type JsonObject, type JsonValue, type KubeObject } from '../model/object.js';
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

/** jq is loaded only when a rule needs it. */
const loadJq = (): Promise<JqRunner> => import('./jq.js').then((m) => m.jqRunner());

export function same(a: readonly Segment[], b: readonly Segment[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** The ignored fields of one desired/live pair (empty when no rule matches). Never mutates its inputs. */
export async function ignoredFields(rules: readonly IgnoreDifference[], desired: KubeObject, live: KubeObject, jq: () => Promise<JqRunner> = loadJq): Promise<IgnoredFields> {
  const key = { ...keyOf(desired), namespace: desired.metadata.namespace ?? live.metadata.namespace ?? '' };
  if (!rules.some((r) => ruleMatches(r, key))) return { live: [], desiredSegments: [], warnings: [] };
  const nd = normalizeObject(desired) as unknown as JsonObject;
  const nl = normalizeObject(live) as unknown as JsonObject;
  const plan = await planIgnores(rules, key, nd, nl, live, jq);
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
