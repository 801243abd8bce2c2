// The field-level diff: desired contained in live after normalizing both, each difference with its owners and verdict.
import type { IgnoreDifference } from '../app/types.js';
import type { JsonObject, JsonValue, KubeObject, ResourceKey } from '../model/object.js';
import { groupOf, isPlainObject, keyOf } from '../model/object.js';
import { normalizeObject, normalizeSecret, SERVER_METADATA } from '../normalize/index.js';
import { LAST_APPLIED } from '../model/keys.js';
import {
  atOrBelowPointer,
  elementString,
  formatPointer,
  onOneLine,
  parsePointer,
  pathKey,
  sameLocation,
  valueAt,
  type FieldPath,
  type LocatedPath,
} from '../model/field-path.js';
import type { Tracking } from '../tracking/method.js';
import { conflictingManagers, keyedPath, managedEntries, ownersOf, type ManagedEntry } from '../ownership/index.js';
import { differences, type Difference } from './compare.js';
import type { IgnoredField, IgnoredFields } from './ignored-fields.js';
import { planIgnores, ruleMatches, type IgnoredPath, type JqPaths } from './ignore.js';
import { omitsZeroValues, strategicListRule } from './list-rule.js';
import type { KnownTypeField } from './compare.js';
import { isSecret, lastAppliedData, SecretMasker } from './mask.js';
import { removePaths } from './remove-paths.js';
import { removedFields, removedSinceLastApplied, type RemovedField } from './removed.js';
import type { FieldDiff, ObjectDiff } from './types.js';

export * from './types.js';

export interface DiffOptions {
  rules: readonly IgnoreDifference[];
  /** Our field manager: fields only it owns are plain drift, fields another manager owns are conflicts. */
  fieldManager: string;
  /** Supplies jq for jqPathExpressions rules (the workflows give src/jq/load.ts's; without it such a rule is a warning). */
  jq?: () => Promise<JqPaths>;
  /**
   * argocd-cm's `resource.compareoptions` `ignoreResourceStatusField`: `all` (Argo CD's default: status is
   * never compared), `crd` (only a CustomResourceDefinition's status is ignored), anything else (`none`): a
   * status the desired object declares is compared with the live one.
   */
  ignoreResourceStatusField?: string;
  /** argocd-cm's knownTypeFields by `group/Kind` (core: `/Kind`): custom resources' fields compared as the Kubernetes type they hold. */
  knownTypeFields?: ReadonlyMap<string, readonly KnownTypeField[]>;
  /** argocd-cm's `resource.sensitive.mask.annotations`: a Secret's annotations whose values are masked as its data is. */
  sensitiveAnnotations?: ReadonlySet<string>;
  /**
   * The cluster's tracking method (argocd-cm): the comparison (compareObject) normalizes each live object's mark as
   * Argo CD's diff does (tracking/method.ts normalizeTracking). Without it, live is compared as it is.
   */
  tracking?: Tracking;
}

/** Argo CD's own default (knownTypesNormalizer): an Argo Rollout's pod template spec is a PodSpec, unless argocd-cm says otherwise. */
const ROLLOUT_POD_SPEC: readonly KnownTypeField[] = [{ path: ['spec', 'template', 'spec'], type: 'core/v1/PodSpec' }];

/** The known-type fields of the desired object's kind. */
export function knownTypesOf(
  desired: Pick<KubeObject, 'apiVersion' | 'kind'>,
  configured?: ReadonlyMap<string, readonly KnownTypeField[]>,
): readonly KnownTypeField[] {
  const gk = `${groupOf(desired.apiVersion)}/${desired.kind}`;
  return configured?.get(gk) ?? (gk === 'argoproj.io/Rollout' ? ROLLOUT_POD_SPEC : []);
}

/** Whether the desired object's status is compared, as ignoreResourceStatusField says (Argo CD: an ignore rule for `/status`). */
export function statusCompared(desired: KubeObject, ignoreResourceStatusField: string | undefined): boolean {
  const v = ignoreResourceStatusField ?? 'all';
  if (v === '' || v === 'all' || desired.status === undefined) return false;
  if (v === 'crd') return !(desired.kind === 'CustomResourceDefinition' && desired.apiVersion.startsWith('apiextensions.k8s.io/'));
  return true;
}

export interface DiffInput extends DiffOptions {
  desired: KubeObject;
  live?: KubeObject;
}

/**
 * What is compared of an object: normalizeObject, normalizeSecret and comparable at once. An object that is not a
 * Secret is copied in one pass (two copies, each with `delete`s, made the comparison of a fleet slower than needed).
 */
/** A compared object with what the comparison leaves out put back (apiVersion, kind, name, namespace, status), for jq. */
function withIdentity(compared: JsonObject, obj: KubeObject): JsonObject {
  const meta = isPlainObject(compared.metadata) ? compared.metadata : {};
  const out: JsonObject = {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    ...compared,
    metadata: {
      ...(obj.metadata.name !== undefined ? { name: obj.metadata.name } : {}),
      ...(obj.metadata.namespace !== undefined ? { namespace: obj.metadata.namespace } : {}),
      ...meta,
    },
  };
  if (out.status === undefined && obj.status !== undefined) out.status = obj.status as JsonValue;
  return out;
}

export function comparableNormalized(obj: KubeObject): JsonObject {
  if (obj.kind === 'Secret' && obj.apiVersion === 'v1') return comparable(normalizeSecret(normalizeObject(obj)));
  const out: JsonObject = {};
  for (const k in obj) if (k !== 'apiVersion' && k !== 'kind' && k !== 'status') out[k] = (obj as unknown as JsonObject)[k] as JsonValue;
  const m = obj.metadata as unknown;
  if (isPlainObject(m)) {
    const meta: JsonObject = {};
    for (const k in m) {
      if (k === 'namespace' || k === 'name' || SKIPPED_METADATA.has(k)) continue;
      if (k === 'annotations') {
        const ann = m.annotations;
        if (isPlainObject(ann) && LAST_APPLIED in ann) {
          const rest: JsonObject = {};
          for (const a in ann) if (a !== LAST_APPLIED) rest[a] = ann[a] as JsonValue;
          if (Object.keys(rest).length > 0) meta.annotations = rest;
          continue;
        }
      }
      meta[k] = m[k] as JsonValue;
    }
    out.metadata = meta;
  } else out.metadata = {};
  return out;
}

const SKIPPED_METADATA: ReadonlySet<string> = new Set(SERVER_METADATA);

/** Fields that identify an object rather than describe it: never compared. */
function comparable(obj: KubeObject): JsonObject {
  // Copied key by key (no `delete`, which would leave the copies slow to read for the walk that follows).
  const out: JsonObject = {};
  for (const k in obj) if (k !== 'apiVersion' && k !== 'kind') out[k] = (obj as unknown as JsonObject)[k] as JsonValue;
  const meta: JsonObject = {};
  const m = obj.metadata as unknown as JsonObject | undefined;
  for (const k in m) if (k !== 'namespace' && k !== 'name') meta[k] = m[k] as JsonValue;
  out.metadata = meta;
  return out;
}

/**
 * One path for both sides: where desired and live disagree on a list element's key (a reordered
 * list), the element is named by its index, so that the path means the same on both sides.
 */
function agreedPath(d: FieldPath, l: FieldPath, at: LocatedPath): FieldPath {
  return l.map((el, i) => {
    const other = d[i];
    const s = at[i];
    if (!s || !('index' in s) || !other || elementString(other) === elementString(el)) return el;
    // Absent on one side: keep the side that has the element.
    if ('index' in other) return el;
    if ('index' in el) return other;
    // Desired may leave out a key field the server defaults (protocol: TCP): the same element.
    if ('key' in el && 'key' in other && Object.entries(other.key).every(([k, v]) => JSON.stringify(el.key[k]) === JSON.stringify(v))) return el;
    return s;
  });
}

/** Compares one desired object with its live counterpart (absent live: `missing`). Never mutates its inputs. */
export async function diffObject(input: DiffInput): Promise<ObjectDiff> {
  return (await diffObjectDetailed({ ...input, ignoredLive: false })).diff;
}

/** The diff and the ignored fields present live, from one pass of the ignore rules. */
export interface DetailedDiff {
  diff: ObjectDiff;
  ignored: IgnoredFields;
}

const NO_IGNORED: IgnoredFields = { live: [], desiredAt: [], warnings: [] };

/**
 * diffObject, plus every field the ignore rules hide live (with owners and both values: the comparison lists those
 * left to another manager, RespectIgnoreDifferences keeps them). `declared`: the object as rendered, before the
 * tracking mark or a server-side prediction, whose values the ignored fields carry (default: `desired`).
 * `ignoredLive: false`: the rules are evaluated only when something differs (jq is then never loaded for an object in
 * sync), and the ignored live fields of an object in sync are not listed.
 */
export async function diffObjectDetailed(input: DiffInput & { declared?: KubeObject; ignoredLive?: boolean }): Promise<DetailedDiff> {
  const { desired, live, rules, fieldManager } = input;
  const key: ResourceKey = { ...keyOf(desired) };
  if (!key.namespace && live?.metadata?.namespace) key.namespace = live.metadata.namespace;
  const base = { key, apiVersion: desired.apiVersion };
  if (!live) return { diff: { ...base, status: 'missing', fields: [] }, ignored: NO_IGNORED };

  const nd = comparableNormalized(desired);
  const nl = comparableNormalized(live);
  if (statusCompared(desired, input.ignoreResourceStatusField)) {
    nd.status = desired.status as JsonObject;
    if (live.status !== undefined) nl.status = live.status as JsonObject;
  }
  const raw = differences(nd, nl, [], strategicListRule(desired.apiVersion, desired.kind), {
    zeroValuesOmitted: omitsZeroValues(desired.apiVersion),
    knownTypes: knownTypesOf(desired, input.knownTypeFields),
  });

  const warnings: string[] = [];
  let entries: ManagedEntry[] = [];
  try {
    entries = managedEntries(live);
  } catch (err) {
    warnings.push(`reading managedFields: ${(err as Error).message}`);
  }
  // Fields our manager applied that Git no longer declares: a sync removes them, so they are drift.
  // A removed element of a list the comparison already reports whole (an atomic list, replaced by the apply) is that
  // list's drift, not a row of its own.
  const removed = [
    ...removedFields(desired, live, entries, fieldManager),
    ...removedSinceLastApplied(normalizeSecret(desired), live, entries, fieldManager),
  ].filter((r) => !ignoredRemoval(rules, key, r) && !raw.some((d) => d.at.length < r.at.length && sameLocation(d.at, r.at.slice(0, d.at.length))));

  // The ignore rules, once per object: what they hide from the comparison and which live fields they leave alone.
  let plan: Awaited<ReturnType<typeof planIgnores>> | undefined;
  if ((input.ignoredLive !== false || raw.length > 0 || removed.length > 0) && rules.some((r) => ruleMatches(r, key))) {
    plan = await planIgnores(rules, key, nd, nl, entries.length > 0 ? live : { ...live, metadata: { ...live.metadata, managedFields: [] } }, input.jq, {
      hideValues: isSecret(desired),
      jqInput: () => ({ desired: withIdentity(nd, desired), live: withIdentity(nl, live) }),
    });
    warnings.push(...plan.warnings);
  }
  const ignoredLive = plan
    ? ignoredLiveFields(plan, nl, input.declared && input.declared !== desired ? comparableNormalized(input.declared) : nd, live, entries)
    : NO_IGNORED;
  if (raw.length === 0 && removed.length === 0)
    return { diff: { ...base, status: 'in-sync', fields: [], ...(warnings.length > 0 ? { warnings } : {}) }, ignored: ignoredLive };

  let real: Difference[] = raw;
  let ignored: IgnoredPath[] = [];
  // The objects with the ignored fields taken out: `real`'s paths point into these.
  let ndReal = nd;
  let nlReal = nl;
  if (plan) {
    ignored = [...plan.desired, ...plan.live];
    if (ignored.length > 0) {
      ndReal = removePaths(
        nd,
        plan.desired.map((p) => p.at),
      );
      nlReal = removePaths(
        nl,
        plan.live.map((p) => p.at),
      );
      real = differences(ndReal, nlReal, [], strategicListRule(desired.apiVersion, desired.kind), {
        zeroValuesOmitted: omitsZeroValues(desired.apiVersion),
        knownTypes: knownTypesOf(desired, input.knownTypeFields),
      });
    }
  }

  const masker = isSecret(desired)
    ? new SecretMasker(nd.data as JsonObject | undefined, nl.data as JsonObject | undefined, lastAppliedData(live)).hideAnnotations(
        input.sensitiveAnnotations,
        nd,
        nl,
      )
    : undefined;
  const field = (
    d: Difference,
    verdict: FieldDiff['verdict'],
    rule?: IgnoredPath['rule'],
    sides: { nd: JsonObject; nl: JsonObject } = { nd, nl },
  ): FieldDiff => {
    const lp = keyedPath(sides.nl, d.at, entries);
    const fp = agreedPath(keyedPath(sides.nd, d.desiredAt ?? d.at, entries), lp, d.at);
    const owners = entries.length > 0 ? ownersOf(live, lp) : [];
    let v = verdict;
    if (v === 'drift' && d.live !== undefined) {
      // A list of another length: SSA merges keyed lists element by element, so only an atomic
      // list (owned as a whole) conflicts; anything else conflicts when owned at or below the path.
      const others = conflictingManagers(entries, lp, fieldManager);
      const wholeList = Array.isArray(d.desired) && Array.isArray(d.live);
      if (wholeList ? others.some((o) => entries.some((e) => e.owner === o && e.fields.has(lp))) : others.length > 0) v = 'conflict';
    }
    const dv = masker ? masker.maskAt(d.at, d.desired) : d.desired;
    const lv = masker ? masker.maskAt(d.at, d.live) : d.live;
    // Key order is the JSON output's: path, pointer, desired, live, owners, verdict, rule.
    return {
      path: fp,
      pointer: formatPointer(d.at),
      ...(dv !== undefined ? { desired: dv } : {}),
      ...(lv !== undefined ? { live: lv } : {}),
      owners,
      verdict: v,
      ...(rule ? { rule } : {}),
    };
  };

  // A difference before and after the ignore rules is the same field when it has the same name (list elements by key):
  // indices shift when a rule takes out a whole element.
  const nameIn = (obj: JsonObject, d: Difference): string => pathKey(keyedPath(obj, d.at, entries));
  const realNames = new Set(real === raw ? [] : real.map((r) => nameIn(nlReal, r)));
  const rawNames = new Set(real === raw ? [] : raw.map((r) => nameIn(nl, r)));
  const fields: FieldDiff[] = [];
  for (const d of raw) {
    if (real !== raw && !realNames.has(nameIn(nl, d))) {
      const hit = ignored.find((p) => onOneLine(p.at, d.at)) ?? ignored[0]!;
      fields.push(field(d, 'ignored', hit.rule));
    } else fields.push(field(d, 'drift'));
  }
  if (real !== raw) {
    for (const d of real) if (!rawNames.has(nameIn(nlReal, d))) fields.push(field(d, 'drift', undefined, { nd: ndReal, nl: nlReal }));
  }
  for (const r of removed) {
    const lv = masker ? masker.maskAt(r.at, r.live) : r.live;
    fields.push({ path: r.path, pointer: formatPointer(r.at), live: lv, owners: ownersOf(live, r.path), verdict: 'removed' });
  }
  const status = fields.some((f) => f.verdict !== 'ignored') ? 'drifted' : 'in-sync';
  const out: ObjectDiff = { ...base, status, fields };
  if (warnings.length > 0) out.warnings = warnings;
  return { diff: out, ignored: ignoredLive };
}

/** The live fields an ignore plan hides (one per path, the first rule naming it), with owners and values. */
function ignoredLiveFields(
  plan: { desired: readonly IgnoredPath[]; live: readonly IgnoredPath[] },
  nl: JsonObject,
  declared: JsonObject,
  live: KubeObject,
  entries: ManagedEntry[],
): IgnoredFields {
  const out: IgnoredField[] = [];
  for (const p of plan.live) {
    if (out.some((f) => sameLocation(f.at, p.at))) continue;
    const fp = keyedPath(nl, p.at, entries);
    const field: IgnoredField = { path: fp, pointer: formatPointer(p.at), at: p.at, owners: entries.length > 0 ? ownersOf(live, fp) : [], rule: p.rule };
    const lv = valueAt(nl, p.at);
    const dv = valueAt(declared, p.at);
    if (lv !== undefined) field.live = lv;
    if (dv !== undefined) field.desired = dv;
    out.push(field);
  }
  return { live: out, desiredAt: plan.desired.map((p) => p.at), warnings: [] };
}

/** A removed field that an ignoreDifferences rule's JSON pointer covers is not reported (jq rules: not evaluated here). */
function ignoredRemoval(rules: readonly IgnoreDifference[], key: ResourceKey, r: RemovedField): boolean {
  return rules.some(
    (rule) => ruleMatches(rule, key) && rule.jsonPointers.some((p) => p !== '' && p.startsWith('/') && atOrBelowPointer(r.at, parsePointer(p))),
  );
}

export interface DiffPair {
  desired: KubeObject;
  live?: KubeObject;
}
