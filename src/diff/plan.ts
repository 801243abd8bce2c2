// What a change (base render -> head render) does to the live cluster, from the one comparison of the head render with
// live: each field and object a sync at head would change, and whether this change introduces it (base ≠ head there) or
// it is drift already there (live ≠ base, the change leaves it alone).
import { canonicalJson, fieldName, locate, valueAt } from '../model/field-path.js';
import { isPlainObject, keyOf, keyString, type JsonValue, type KubeObject, type ResourceKey } from '../model/object.js';
import { normalizeObject, normalizeSecret } from '../normalize/index.js';
import { compareApp, firstFailure, ignoredFieldDiff, secretMaskerOf, type CompareEntry, type CompareExtra, type Comparison } from './comparison.js';
import type { DiffOptions } from './index.js';
import { isSecret, lastAppliedData, SecretMasker } from './mask.js';
import type { FieldDiff } from './types.js';
import type { ObjectComparison } from './comparison.js';

/** `this-change`: the base render and the head render differ there; `already-there`: they agree, live differs from both. */
export type ChangeOrigin = 'this-change' | 'already-there';

/** A field a sync at head would change, with where the difference comes from and the base render's value (absent: not declared). */
export interface PlannedField extends FieldDiff {
  origin: ChangeOrigin;
  base?: JsonValue;
}

/**
 * `create` (not live), `update` (live, a field differs), `prune` (live, the app's, head declares it no more), `keep` (a
 * prune candidate a sync leaves: Prune=false, pruning off and the like, `reason` says why), `fail` (head declares it and
 * the sync at head would fail it: a kind nothing serves, `reason` says why).
 */
export type PlannedAction = 'create' | 'update' | 'prune' | 'keep' | 'fail';

export interface PlannedObject {
  key: ResourceKey;
  apiVersion: string;
  action: PlannedAction;
  /** `update`: this-change when any counted field is; `create`, `prune`, `keep`: whether the base render declared it. */
  origin: ChangeOrigin;
  /** `update`: the differing fields (ignored ones too: shown, never counted). */
  fields: PlannedField[];
  reason?: string;
}

export interface PlannedChanges {
  /** Head's objects in the order given (those in sync left out), then the prune candidates by key. */
  objects: PlannedObject[];
  /** Head's objects a sync would leave as they are. */
  inSync: number;
  /** The comparison the plan was read from (head render against live). */
  comparison: Comparison;
}

export interface PlanChangesInput extends DiffOptions {
  /** The objects as rendered at the base revision, namespaced as head's are (keyOf pairs them), unmarked. */
  base: readonly KubeObject[];
  /** The objects as rendered at the head revision, each with its live twin, as the comparison takes them. */
  head: readonly CompareEntry[];
  /** The live objects of the app that head does not declare (prune candidates, `skip`: why a prune leaves one). */
  extras: readonly CompareExtra[];
  /** The sync options that decide whether an ignored field is written by the sync at head (writesIgnored). */
  sync?: IgnoredWrites;
}

/** The Application's sync options that decide whether the sync writes an ignored field (RespectIgnoreDifferences, ApplyOutOfSyncOnly). */
export interface IgnoredWrites {
  respectIgnoreDifferences: boolean;
  applyOutOfSyncOnly: boolean;
}

/**
 * The ignored fields the sync at head writes after all, as the sync applies an object: ignoreDifferences changes only
 * the comparison, so an object the sync applies (every live one, unless ApplyOutOfSyncOnly=true and it is otherwise in
 * sync) is applied whole, and each ignored field it declares with another value than live's is taken back, unless
 * RespectIgnoreDifferences=true keeps it live (the sync's own rule: sync/ignored.ts keepLiveValues, execute.ts's
 * reportIgnored, which reports as left only the ignored fields the object does not declare or keeps live). Each such
 * field is counted as any other: `conflict` when another manager owns its live value (the sync's HEALED), else
 * `drift`; its rule is kept. Status is never written. `declared`: the object as rendered; `live`: its live twin.
 */
function writtenIgnored(
  c: Pick<ObjectComparison, 'status' | 'fields' | 'ignoredLive'>,
  declared: KubeObject,
  live: KubeObject,
  opts: { fieldManager: string; sensitiveAnnotations?: DiffOptions['sensitiveAnnotations'] } & IgnoredWrites,
): FieldDiff[] {
  if (opts.respectIgnoreDifferences || (opts.applyOutOfSyncOnly && c.status === 'in-sync')) return c.fields;
  const fields = [...c.fields];
  let masker: SecretMasker | undefined;
  for (const f of c.ignoredLive.live) {
    if (f.desired === undefined || fieldName(f.at[0]) === 'status' || same(f.desired, f.live)) continue;
    const others = f.owners.some((o) => o.manager !== opts.fieldManager && o.subresource !== 'status');
    const verdict = others ? ('conflict' as const) : ('drift' as const);
    const i = fields.findIndex((x) => x.pointer === f.pointer);
    if (i >= 0) {
      if (fields[i]!.verdict === 'ignored') fields[i] = { ...fields[i]!, verdict };
      continue;
    }
    masker ??= secretMaskerOf(declared, live, opts.sensitiveAnnotations);
    fields.push(ignoredFieldDiff(f, verdict, masker));
  }
  return fields;
}

/** The object as the comparison reads it (normalized, Secret data decoded as data). */
function normalized(o: KubeObject): JsonValue {
  return normalizeSecret(normalizeObject(o)) as unknown as JsonValue;
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return a === undefined || b === undefined ? a === b : canonicalJson(a) === canonicalJson(b);
}

/** The data map of a normalized Secret. */
function dataOf(o: JsonValue | undefined): Record<string, JsonValue> | undefined {
  return isPlainObject(o) && isPlainObject(o.data) ? o.data : undefined;
}

/** Whether a field counts as a change a sync makes (an ignored field is left to its owner). */
function counts(f: Pick<FieldDiff, 'verdict'>): boolean {
  return f.verdict !== 'ignored';
}

/**
 * Compares the head render with live (compareApp: the same comparison diff, status and sync read) and tells, for each
 * difference, whether the base render already declared what head declares there. Base and head values are compared
 * unmasked; Secret values are reported masked, the base value with the same masks as the comparison's. Throws the
 * comparison's first failure, as diff does.
 */
export async function planChanges(input: PlanChangesInput): Promise<PlannedChanges> {
  const { base, head, extras, sync, ...opts } = input;
  const comparison = await compareApp({ ...opts, desired: head, extras });
  const failed = firstFailure(comparison);
  if (failed) throw failed;
  const baseByKey = new Map(base.map((o) => [keyString(keyOf(o)), o]));
  const objects: PlannedObject[] = [];
  let inSync = 0;
  comparison.objects.forEach((c, i) => {
    const entry = head[i]!;
    const k = keyString(c.key);
    const baseObject = baseByKey.get(k);
    if (c.status === 'missing') {
      objects.push({ key: c.key, apiVersion: c.apiVersion, action: 'create', origin: baseObject ? 'already-there' : 'this-change', fields: [] });
      return;
    }
    // The ignored fields the sync writes after all (no RespectIgnoreDifferences) count as any other.
    const written = sync && entry.live ? writtenIgnored(c, entry.declared ?? entry.applied, entry.live, { ...sync, ...opts }) : c.fields;
    if (c.status === 'in-sync' && !written.some(counts)) {
      inSync++;
      return;
    }
    const nh = normalized(entry.declared ?? entry.applied);
    const nb = baseObject ? normalized(baseObject) : undefined;
    const masker =
      baseObject && isSecret(baseObject) && entry.live
        ? new SecretMasker(dataOf(nh), dataOf(normalized(entry.live)), lastAppliedData(entry.live), dataOf(nb)).hideAnnotations(
            input.sensitiveAnnotations,
            nh,
            entry.live,
            nb,
          )
        : undefined;
    const fields = written.map((f): PlannedField => {
      if (nb === undefined) return { ...f, origin: 'this-change' };
      const bv = valueAt(nb, f.path);
      const hv = valueAt(nh, f.path);
      const at = bv !== undefined ? locate(nb, f.path) : undefined;
      const shown = masker && at ? masker.maskAt(at, bv) : bv;
      return { ...f, origin: same(bv, hv) ? 'already-there' : 'this-change', ...(shown !== undefined ? { base: shown } : {}) };
    });
    const counted = fields.filter(counts);
    objects.push({
      key: c.key,
      apiVersion: c.apiVersion,
      action: 'update',
      origin: counted.some((f) => f.origin === 'this-change') ? 'this-change' : 'already-there',
      fields,
    });
  });
  for (const e of comparison.extras) {
    objects.push({
      key: e.key,
      apiVersion: e.object.apiVersion,
      action: e.skip ? 'keep' : 'prune',
      origin: baseByKey.has(keyString(e.key)) ? 'this-change' : 'already-there',
      fields: [],
      ...(e.skip ? { reason: e.skip } : {}),
    });
  }
  return { objects, inSync, comparison };
}

/** One object of a render as the offline plan takes it: marked as a sync would apply it, and as rendered. */
export interface RenderedEntry {
  key: ResourceKey;
  applied: KubeObject;
  declared?: KubeObject;
}

export interface PlanRendersInput extends DiffOptions {
  base: readonly RenderedEntry[];
  head: readonly RenderedEntry[];
  /** The sync options that decide whether an ignored field is written by the sync at head (writtenIgnored). */
  sync?: IgnoredWrites;
}

/**
 * `plan --offline`: the head render against the base render, no cluster. Each difference is this change: the one
 * comparison of head with base taken as live (a field head declares otherwise), then of base with head taken as live
 * for the fields base declares and head no longer does (`removed`, its head value absent). A head object the base
 * lacks is created, a base object head lacks pruned. Secret values masked as the comparison masks them.
 */
export async function planRenders(input: PlanRendersInput): Promise<PlannedChanges> {
  const { base, head, sync, ...opts } = input;
  const baseByKey = new Map(base.map((b) => [keyString(b.key), b]));
  const headKeys = new Set(head.map((h) => keyString(h.key)));
  const compared: CompareEntry[] = head.map((h) => {
    const b = baseByKey.get(keyString(h.key));
    return { key: h.key, applied: h.applied, ...(h.declared ? { declared: h.declared } : {}), ...(b ? { live: b.applied } : {}) };
  });
  const comparison = await compareApp({ ...opts, desired: compared });
  const failed = firstFailure(comparison);
  if (failed) throw failed;
  const objects: PlannedObject[] = [];
  let inSync = 0;
  for (const [i, c] of comparison.objects.entries()) {
    const h = head[i]!;
    const b = baseByKey.get(keyString(c.key));
    if (!b) {
      objects.push({ key: c.key, apiVersion: c.apiVersion, action: 'create', origin: 'this-change', fields: [] });
      continue;
    }
    // Base stands for live: an ignored field head declares otherwise is written by the sync all the same (writtenIgnored).
    const written = sync ? writtenIgnored(c, h.declared ?? h.applied, b.applied, { ...sync, ...opts }) : c.fields;
    const fields: PlannedField[] = written.map(({ live, ...f }) => ({
      ...f,
      origin: 'this-change',
      owners: [],
      ...(live !== undefined ? { base: live } : {}),
    }));
    const reverse = await compareApp({
      ...opts,
      desired: [{ key: b.key, applied: b.applied, ...(b.declared ? { declared: b.declared } : {}), live: h.applied }],
    });
    const failedReverse = firstFailure(reverse);
    if (failedReverse) throw failedReverse;
    const seen = new Set(fields.map((f) => f.pointer));
    for (const r of reverse.objects[0]!.fields) {
      if (seen.has(r.pointer) || r.verdict === 'ignored' || r.live !== undefined) continue;
      fields.push({
        path: r.path,
        pointer: r.pointer,
        owners: [],
        verdict: 'removed',
        origin: 'this-change',
        ...(r.desired !== undefined ? { base: r.desired } : {}),
      });
    }
    if (fields.every((f) => !counts(f))) {
      inSync++;
      continue;
    }
    objects.push({ key: c.key, apiVersion: c.apiVersion, action: 'update', origin: 'this-change', fields });
  }
  const gone = base.filter((b) => !headKeys.has(keyString(b.key))).sort((x, y) => (keyString(x.key) < keyString(y.key) ? -1 : 1));
  for (const b of gone) objects.push({ key: b.key, apiVersion: b.applied.apiVersion, action: 'prune', origin: 'this-change', fields: [] });
  return { objects, inSync, comparison };
}
