// The diff report as data (schemaVersion 1): what `-o json|yaml` prints and what every renderer and workflow reads.
import type { FieldPath } from '../model/field-path.js';
import type { JsonValue, ResourceKey } from '../model/object.js';
import type { Owner } from '../ownership/index.js';
import type { IgnoreRuleRef } from './ignore.js';

export const DIFF_SCHEMA_VERSION = 1;

export type FieldVerdict = 'drift' | 'ignored' | 'conflict' | 'removed';
export type ObjectStatus = 'in-sync' | 'drifted' | 'missing';

/**
 * One declared field whose live value differs.
 * - `path`: the field, its list elements named by key where they have one (rendered for people, and in `-o json`, as
 *   `spec.template.spec.containers[name=orders].image`: renderPath);
 * - `pointer`: RFC 6901 pointer into the normalized object (`/spec/template/spec/containers/0/image`);
 * - `desired` / `live`: the values (absent when the field is absent; Secret data masked with `+`);
 * - `owners`: managedFields entries owning the live field (or its nearest owned ancestor);
 * - `verdict`: `drift`; `conflict` when another field manager owns it (SSA without force is refused);
 *   `ignored` when an ignoreDifferences rule removed it, with `rule`; `removed` when our field manager applied it
 *   and the desired object no longer declares it (a sync removes it; `desired` is absent).
 */
export interface FieldDiff {
  path: FieldPath;
  pointer: string;
  desired?: JsonValue;
  live?: JsonValue;
  owners: Owner[];
  verdict: FieldVerdict;
  rule?: IgnoreRuleRef;
}

/** One desired object and its verdict: `missing` (not live), `drifted` (a drift or conflict field) or `in-sync`. */
export interface ObjectDiff {
  key: ResourceKey;
  apiVersion: string;
  status: ObjectStatus;
  fields: FieldDiff[];
  /** Problems applying ignore rules to this object (jq errors, time limits). */
  warnings?: string[];
}

/**
 * The whole comparison. `sync` is OutOfSync when any object is drifted or missing, or when
 * `extras` (live objects of the app that are not desired: prune candidates) is not empty.
 */
export interface DiffReport {
  schemaVersion: typeof DIFF_SCHEMA_VERSION;
  sync: 'Synced' | 'OutOfSync';
  objects: ObjectDiff[];
  extras: ResourceKey[];
  warnings: string[];
}
