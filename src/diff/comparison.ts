// The one comparison of an app, the shape of Argo CD's CompareAppState: every desired object against its live
// counterpart (field verdicts, owners, removed fields, ignored fields left to their owners), the extras, and the
// app's sync verdict. Every command (file diff, cluster diff, diff --server-side, sync's plan, status, watch) reads it.
import { pathKey, pathsEqual, type FieldPath } from '../model/field-path.js';
import { keyString, type KubeObject, type ResourceKey } from '../model/object.js';
import { COMPARE_OPTIONS } from '../model/keys.js';
import { normalizeObject, normalizeSecret } from '../normalize/index.js';
import { normalizeTracking } from '../tracking/method.js';
import { diffObjectDetailed, type DiffOptions } from './index.js';
import { leftTo, type IgnoredField, type IgnoredFields } from './ignored-fields.js';
import { isSecret, lastAppliedData, SecretMasker } from './mask.js';
import type { FieldDiff, ObjectDiff } from './types.js';

/** One desired object to compare. */
export interface CompareEntry {
  key: ResourceKey;
  /** The object as we would apply it: rendered and marked with the app's tracking (see tracking/asApplied). */
  applied: KubeObject;
  /** The object as rendered, before the mark: what the ignore rules and RespectIgnoreDifferences read. Default: `applied`. */
  declared?: KubeObject;
  live?: KubeObject;
  /**
   * diff --server-side: the object as the API server predicts it after our apply (a dry-run), compared instead of
   * `applied`, and the fields the non-forced dry-run refused (the prediction's conflicts replace the core's guesses).
   */
  server?: { predicted?: KubeObject; conflicts: readonly { at: FieldPath }[] };
}

/** One live object of the app that nothing desired declares (a prune candidate). */
export interface CompareExtra {
  key: ResourceKey;
  object: KubeObject;
  /** Why a prune would leave it (Prune=false and the like): it still counts. */
  skip?: string;
}

/** The comparison of one desired object: the diff (fields, verdicts, owners) plus what the ignore rules hide live. */
export interface ObjectComparison extends ObjectDiff {
  /** Every ignored field present live (values unmasked: only the sync reads them, to keep them live). */
  ignoredLive: IgnoredFields;
  /** The object could not be compared (a jq failure, a bad managedFields entry...): its verdict is unknown. */
  failure?: Error;
}

export interface ExtraComparison extends CompareExtra {
  /** Whether it makes the app OutOfSync: not when annotated `compare-options: IgnoreExtraneous`. */
  counts: boolean;
}

export interface Comparison {
  sync: 'Synced' | 'OutOfSync';
  objects: ObjectComparison[];
  extras: ExtraComparison[];
  /** Per-object warnings, prefixed with the object (`Kind/name: ...`). */
  warnings: string[];
}

export interface CompareRequest extends DiffOptions {
  desired: readonly CompareEntry[];
  extras?: readonly CompareExtra[];
}

const NO_IGNORED: IgnoredFields = { live: [], desiredAt: [], warnings: [] };

/** Whether an extra is annotated `argocd.argoproj.io/compare-options: IgnoreExtraneous` (then it does not count). */
function ignoresExtraneous(obj: KubeObject | undefined): boolean {
  return (obj?.metadata.annotations?.[COMPARE_OPTIONS] ?? '').split(',').some((o) => o.trim() === 'IgnoreExtraneous');
}

/** Compares one desired object with its live counterpart. Throws when the object cannot be compared. */
export async function compareObject(entry: CompareEntry, opts: DiffOptions): Promise<ObjectComparison> {
  // Argo CD's tracking normalization (before its diff, for the comparison only): the entry's live object is untouched.
  const live = entry.live && opts.tracking ? normalizeTracking(entry.applied, entry.live, opts.tracking) : entry.live;
  const declared = entry.declared ?? entry.applied;
  const compared = entry.server?.predicted && live ? entry.server.predicted : entry.applied;
  const { diff, ignored: ignoredLive } = await diffObjectDetailed({ ...opts, desired: compared, declared, live });
  if (!live) return { ...diff, ignoredLive: NO_IGNORED };
  // In sync with nothing left to another manager (most objects): the diff as it is.
  if (diff.fields.length === 0 && ignoredLive.live.length === 0 && diff.warnings === undefined) return { ...diff, ignoredLive };
  const fields: FieldDiff[] = [...diff.fields];

  // Server-side: the core's 'conflict' is a prediction; the dry-run is the truth.
  if (entry.server) {
    const refused = new Set(entry.server.conflicts.map((c) => pathKey(c.at)));
    for (const f of fields) {
      if (refused.has(pathKey(f.path))) f.verdict = 'conflict';
      else if (f.verdict === 'conflict') f.verdict = 'drift';
    }
  }

  // Ignored fields the desired object leaves to another manager (spec.replicas after kubectl scale): shown, never counted.
  const masker = secretMaskerOf(declared, live, opts.sensitiveAnnotations);
  for (const f of ignoredLive.live) {
    if (fields.some((x) => pathsEqual(x.path, f.path))) continue;
    if (leftTo(f, opts.fieldManager).length === 0) continue;
    fields.push(ignoredFieldDiff(f, 'ignored', masker));
  }
  const warnings = diff.warnings ?? [];
  const status = fields.some((f) => f.verdict !== 'ignored') ? 'drifted' : 'in-sync';
  const { warnings: _w, ...rest } = diff;
  return { ...rest, status, fields, ignoredLive, ...(warnings.length > 0 ? { warnings } : {}) };
}

/** The masker of a Secret's values for fields read outside the diff (undefined for any other kind). */
export function secretMaskerOf(declared: KubeObject, live: KubeObject, sensitiveAnnotations: DiffOptions['sensitiveAnnotations']): SecretMasker | undefined {
  return isSecret(declared)
    ? new SecretMasker(
        normalizeSecret(normalizeObject(declared)).data as never,
        normalizeSecret(normalizeObject(live)).data as never,
        lastAppliedData(live),
      ).hideAnnotations(sensitiveAnnotations, declared, live)
    : undefined;
}

/** An ignored live field as a reported field, with `verdict`, its values masked when `masker` is given (a Secret). */
export function ignoredFieldDiff(f: IgnoredField, verdict: FieldDiff['verdict'], masker: SecretMasker | undefined): FieldDiff {
  const dv = masker ? masker.maskAt(f.at, f.desired) : f.desired;
  const lv = masker ? masker.maskAt(f.at, f.live) : f.live;
  return {
    path: f.path,
    pointer: f.pointer,
    ...(dv !== undefined ? { desired: dv } : {}),
    ...(lv !== undefined ? { live: lv } : {}),
    owners: f.owners,
    verdict,
    rule: f.rule,
  };
}

/** The app's sync verdict: OutOfSync when an object is drifted, missing or not compared, or an extra counts. */
export function appSync(
  objects: readonly Pick<ObjectComparison, 'status' | 'failure'>[],
  extras: readonly Pick<ExtraComparison, 'counts'>[],
): Comparison['sync'] {
  return objects.some((o) => o.status !== 'in-sync' || o.failure !== undefined) || extras.some((e) => e.counts) ? 'OutOfSync' : 'Synced';
}

/** Classifies the extras (sorted by key): each counts unless it ignores itself (IgnoreExtraneous). */
export function compareExtras(extras: readonly CompareExtra[]): ExtraComparison[] {
  return [...extras]
    .sort((a, b) => (keyString(a.key) < keyString(b.key) ? -1 : keyString(a.key) > keyString(b.key) ? 1 : 0))
    .map((e) => ({ ...e, counts: !ignoresExtraneous(e.object) }));
}

/** Prefixes each object's warnings with the object. */
export function objectWarnings(objects: readonly Pick<ObjectDiff, 'key' | 'warnings'>[]): string[] {
  return objects.flatMap((o) => (o.warnings ?? []).map((w) => `${o.key.kind}/${o.key.name}: ${w}`));
}

/**
 * Compares the whole app, in the order given. An object that cannot be compared gets `failure` (and counts as
 * OutOfSync); the caller decides whether that fails the command (diff) or makes that resource Unknown (status).
 */
export async function compareApp(req: CompareRequest): Promise<Comparison> {
  const { desired, extras: extraInput, ...opts } = req;
  const objects: ObjectComparison[] = [];
  for (const entry of desired) {
    try {
      objects.push(await compareObject(entry, opts));
    } catch (err) {
      objects.push({
        key: entry.key,
        apiVersion: entry.applied.apiVersion,
        status: entry.live ? 'drifted' : 'missing',
        fields: [],
        ignoredLive: NO_IGNORED,
        failure: err instanceof Error ? err : new Error(String(err)),
      });
    }
  }
  const extras = compareExtras(extraInput ?? []);
  return { sync: appSync(objects, extras), objects, extras, warnings: objectWarnings(objects) };
}

/** The first object that could not be compared, as the error the diff commands fail with. */
export function firstFailure(c: Pick<Comparison, 'objects'>): Error | undefined {
  const o = c.objects.find((x) => x.failure !== undefined);
  return o ? new Error(`diffing ${o.key.kind}/${o.key.name}`, { cause: o.failure }) : undefined;
}

/** The object diff as reports print it (schemaVersion 1): without the comparison's working data. */
export function reportedDiff(o: ObjectComparison): ObjectDiff {
  const { ignoredLive: _i, failure: _f, ...diff } = o;
  return diff;
}
