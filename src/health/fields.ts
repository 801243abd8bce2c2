// Typed reads of unstructured object fields (status counts, conditions, strings) for the health checks.
import { isPlainObject, type JsonValue, type KubeObject } from '../model/object.js';

/** The value at a dotted path, or undefined when any step is missing. */
export function at(obj: KubeObject | JsonValue | undefined, ...path: string[]): JsonValue | undefined {
  let cur: unknown = obj;
  for (const p of path) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur as JsonValue | undefined;
}

/** A number at a path; Kubernetes omits zero counts, so absent means 0. */
export function num(obj: KubeObject | JsonValue | undefined, ...path: string[]): number {
  const v = at(obj, ...path);
  return typeof v === 'number' ? v : 0;
}

/** A number at a path, or undefined when absent (for `spec.replicas`, whose absence differs from 0). */
export function optNum(obj: KubeObject | JsonValue | undefined, ...path: string[]): number | undefined {
  const v = at(obj, ...path);
  return typeof v === 'number' ? v : undefined;
}

export function str(obj: KubeObject | JsonValue | undefined, ...path: string[]): string {
  const v = at(obj, ...path);
  return typeof v === 'string' ? v : '';
}

export function list(obj: KubeObject | JsonValue | undefined, ...path: string[]): JsonValue[] {
  const v = at(obj, ...path);
  return Array.isArray(v) ? v : [];
}

/** One entry of `status.conditions`. */
export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

export function toCondition(v: JsonValue): Condition | undefined {
  if (!isPlainObject(v)) return undefined;
  return { type: str(v, 'type'), status: str(v, 'status'), reason: str(v, 'reason'), message: str(v, 'message') };
}

/** `status.conditions` as typed records (malformed entries are skipped). */
export function conditions(obj: KubeObject): Condition[] {
  return list(obj, 'status', 'conditions').flatMap((c) => toCondition(c) ?? []);
}

/** The first condition of a type, as Argo CD's getCondition helpers. */
export function condition(obj: KubeObject, type: string): Condition | undefined {
  return conditions(obj).find((c) => c.type === type);
}

/** metadata.generation, 0 when absent. */
export function generation(obj: KubeObject): number {
  return typeof obj.metadata.generation === 'number' ? obj.metadata.generation : 0;
}
