// APIService health from its Available condition, as health_apiservice.go.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { condition } from '../fields.js';

export function apiServiceHealth(obj: KubeObject): HealthStatus {
  const available = condition(obj, 'Available');
  if (available === undefined) return { status: 'Progressing', message: 'Waiting to be processed' };
  const message = `${available.reason}: ${available.message}`;
  return { status: available.status === 'True' ? 'Healthy' : 'Progressing', message };
}
