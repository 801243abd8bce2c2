// Service health: a LoadBalancer waits for an ingress address; every other type is Healthy.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { list, str } from '../fields.js';

export function serviceHealth(obj: KubeObject): HealthStatus {
  if (str(obj, 'spec', 'type') === 'LoadBalancer' && list(obj, 'status', 'loadBalancer', 'ingress').length === 0) {
    return { status: 'Progressing', message: '' };
  }
  return { status: 'Healthy', message: '' };
}
