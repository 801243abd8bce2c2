// DaemonSet health, as gitops-engine's health_daemonset.go.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { generation, num, str } from '../fields.js';

export function daemonSetHealth(obj: KubeObject): HealthStatus {
  if (generation(obj) > num(obj, 'status', 'observedGeneration')) {
    return { status: 'Progressing', message: 'Waiting for rollout to finish: observed daemon set generation less than desired generation' };
  }
  const name = obj.metadata.name ?? '';
  const desired = num(obj, 'status', 'desiredNumberScheduled');
  const updated = num(obj, 'status', 'updatedNumberScheduled');
  const available = num(obj, 'status', 'numberAvailable');
  if (str(obj, 'spec', 'updateStrategy', 'type') === 'OnDelete') {
    return { status: 'Healthy', message: `daemon set ${updated} out of ${desired} new pods have been updated` };
  }
  if (updated < desired) {
    return { status: 'Progressing', message: `Waiting for daemon set "${name}" rollout to finish: ${updated} out of ${desired} new pods have been updated...` };
  }
  if (available < desired) {
    return { status: 'Progressing', message: `Waiting for daemon set "${name}" rollout to finish: ${available} of ${desired} updated pods are available...` };
  }
  return { status: 'Healthy', message: '' };
}
