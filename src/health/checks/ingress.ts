// Ingress health (extensions and networking.k8s.io): Healthy once the controller publishes an address.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { list } from '../fields.js';

export function ingressHealth(obj: KubeObject): HealthStatus {
  const assigned = list(obj, 'status', 'loadBalancer', 'ingress').length > 0;
  return { status: assigned ? 'Healthy' : 'Progressing', message: '' };
}
