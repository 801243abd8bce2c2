// PodDisruptionBudget health, as Argo CD's bundled resource_customizations/policy/PodDisruptionBudget/health.lua.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { conditions } from '../fields.js';

export function pdbHealth(obj: KubeObject): HealthStatus {
  let result: HealthStatus = { status: 'Progressing', message: 'Waiting for status' };
  for (const c of conditions(obj)) {
    // InsufficientPods can be intended (argo-cd#20171), so only other False reasons degrade.
    if (c.status === 'False' && c.reason !== 'InsufficientPods') return { status: 'Degraded', message: `PodDisruptionBudget has ${c.reason}` };
    result = { status: 'Healthy', message: `PodDisruptionBudget has ${c.reason}` };
  }
  return result;
}
