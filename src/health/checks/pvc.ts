// PersistentVolumeClaim health by phase: Bound, Pending, Lost, anything else Unknown.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { str } from '../fields.js';

export function pvcHealth(obj: KubeObject): HealthStatus {
  switch (str(obj, 'status', 'phase')) {
    case 'Bound':
      return { status: 'Healthy', message: '' };
    case 'Pending':
      return { status: 'Progressing', message: '' };
    case 'Lost':
      return { status: 'Degraded', message: '' };
    default:
      return { status: 'Unknown', message: '' };
  }
}
