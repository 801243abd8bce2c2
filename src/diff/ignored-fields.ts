// Fields an ignoreDifferences rule hides, present live, with their owners: the comparison reports those left to another manager; RespectIgnoreDifferences keeps them live.
import { fieldName, type FieldPath, type Step } from '../model/field-path.js';
import type { IgnoreRuleRef } from './ignore.js';
import type { JsonValue } from '../model/object.js';
import type { Owner } from '../ownership/index.js';

/** One live field an ignore rule hides, with who owns it. */
export interface IgnoredField {
  /** The field, its list elements named by key (renderPath makes the text reports show). */
  path: FieldPath;
  pointer: string;
  /** Where it is in the live object. */
  at: Step[];
  live?: JsonValue;
  /** The desired value when the desired object declares the field too. */
  desired?: JsonValue;
  owners: Owner[];
  rule: IgnoreRuleRef;
}

export interface IgnoredFields {
  /** Ignored fields present live (one per path, the first rule naming it). */
  live: IgnoredField[];
  /** Where ignored fields are in the desired object. */
  desiredAt: Step[][];
  warnings: string[];
}

/** Owners of an ignored field other than our field manager (status writers excluded): those it is left to. */
function otherOwners(f: IgnoredField, fieldManager: string): Owner[] {
  return f.owners.filter((o) => o.manager !== fieldManager && o.subresource !== 'status');
}

/**
 * The managers an ignored live field is left to: its other owners, or `-` when nobody owns it
 * (a server default changed through a subresource, e.g. `kubectl scale`, may record no owner);
 * none when only we own it (then our apply decides it) or it is status.
 */
export function leftTo(f: IgnoredField, fieldManager: string): string[] {
  if (fieldName(f.at[0]) === 'status') return [];
  const others = otherOwners(f, fieldManager).map((o) => o.manager);
  if (others.length > 0) return [...new Set(others)];
  return f.owners.some((o) => o.manager === fieldManager) ? [] : ['-'];
}
