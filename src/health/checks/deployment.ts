// Deployment health, as gitops-engine's health_deployment.go (kubectl rollout status logic).
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { at, condition, generation, num, optNum } from '../fields.js';

export function deploymentHealth(obj: KubeObject): HealthStatus {
  if (at(obj, 'spec', 'paused') === true) return { status: 'Suspended', message: 'Deployment is paused' };
  if (generation(obj) > num(obj, 'status', 'observedGeneration')) {
    return { status: 'Progressing', message: 'Waiting for rollout to finish: observed deployment generation less than desired generation' };
  }
  const replicas = optNum(obj, 'spec', 'replicas');
  const updated = num(obj, 'status', 'updatedReplicas');
  const current = num(obj, 'status', 'replicas');
  const available = num(obj, 'status', 'availableReplicas');
  if (condition(obj, 'Progressing')?.reason === 'ProgressDeadlineExceeded') {
    return { status: 'Degraded', message: `Deployment "${obj.metadata.name ?? ''}" exceeded its progress deadline` };
  }
  if (replicas !== undefined && updated < replicas) {
    return { status: 'Progressing', message: `Waiting for rollout to finish: ${updated} out of ${replicas} new replicas have been updated...` };
  }
  if (current > updated) {
    return { status: 'Progressing', message: `Waiting for rollout to finish: ${current - updated} old replicas are pending termination...` };
  }
  if (available < updated) {
    return { status: 'Progressing', message: `Waiting for rollout to finish: ${available} of ${updated} updated replicas are available...` };
  }
  return { status: 'Healthy', message: '' };
}
