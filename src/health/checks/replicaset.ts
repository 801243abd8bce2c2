// ReplicaSet health, as gitops-engine's health_replicaset.go.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { condition, generation, num, optNum } from '../fields.js';

export function replicaSetHealth(obj: KubeObject): HealthStatus {
  if (generation(obj) > num(obj, 'status', 'observedGeneration')) {
    return { status: 'Progressing', message: 'Waiting for rollout to finish: observed replica set generation less than desired generation' };
  }
  const failure = condition(obj, 'ReplicaFailure');
  if (failure?.status === 'True') return { status: 'Degraded', message: failure.message };
  const replicas = optNum(obj, 'spec', 'replicas');
  const available = num(obj, 'status', 'availableReplicas');
  if (replicas !== undefined && available < replicas) {
    return { status: 'Progressing', message: `Waiting for rollout to finish: ${available} out of ${replicas} new replicas are available...` };
  }
  return { status: 'Healthy', message: '' };
}
