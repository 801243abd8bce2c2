// Health of a custom resource that follows the standard `Ready` condition (beyond Argo CD's built-ins).
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { condition, generation, num } from '../fields.js';

/**
 * Ready=True → Healthy, Ready=False → Degraded, Ready=Unknown or a status not yet observed for the
 * current generation → Progressing; undefined when the object has no Ready condition (no health).
 */
export function readyConditionHealth(obj: KubeObject): HealthStatus | undefined {
  const ready = condition(obj, 'Ready');
  if (ready === undefined) return undefined;
  const message = [ready.reason, ready.message].filter((s) => s !== '').join(': ');
  const observed = num(obj, 'status', 'observedGeneration');
  if (observed !== 0 && generation(obj) > observed) {
    return { status: 'Progressing', message: 'Waiting for the latest generation to be observed' };
  }
  if (ready.status === 'True') return { status: 'Healthy', message };
  if (ready.status === 'False') return { status: 'Degraded', message };
  return { status: 'Progressing', message };
}
