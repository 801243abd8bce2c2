// HorizontalPodAutoscaler health (v1 through the conditions annotation, v2 through status), as health_hpa.go.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { conditions, toCondition, type Condition } from '../fields.js';
import { groupOf, versionOf } from '../../model/object.js';

const V1_CONDITIONS = 'autoscaling.alpha.kubernetes.io/conditions';
const WAITING: HealthStatus = { status: 'Progressing', message: 'Waiting to Autoscale' };

/** isDegraded's list in gitops-engine 5baed56 (Argo CD v3.2.11); later versions add the other metric failures. */
const DEGRADED: ReadonlyArray<readonly [string, string]> = [
  ['AbleToScale', 'FailedGetScale'],
  ['AbleToScale', 'FailedUpdateScale'],
  ['ScalingActive', 'FailedGetResourceMetric'],
  ['ScalingActive', 'InvalidSelector'],
];

function v1Conditions(obj: KubeObject): Condition[] | Error {
  const raw = obj.metadata.annotations?.[V1_CONDITIONS];
  if (raw === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.flatMap((c) => toCondition(c) ?? []) : [];
  } catch (err) {
    return new Error(`failed to convert conditions annotation to typed: ${(err as Error).message}`, { cause: err });
  }
}

export function hpaHealth(obj: KubeObject): HealthStatus {
  const isV1 = groupOf(obj.apiVersion) === 'autoscaling' && versionOf(obj.apiVersion) === 'v1';
  const conds = isV1 ? v1Conditions(obj) : conditions(obj);
  if (conds instanceof Error) return { status: 'Unknown', message: conds.message };
  for (const c of conds) {
    if (DEGRADED.some(([type, reason]) => c.type === type && c.reason === reason)) return { status: 'Degraded', message: c.message };
    if ((c.type === 'AbleToScale' || c.type === 'ScalingLimited') && c.status === 'True') return { status: 'Healthy', message: c.message };
  }
  return WAITING;
}
