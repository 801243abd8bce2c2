// Argo Workflow health, as gitops-engine's getArgoWorkflowHealth (pkg/health/health_argo.go).
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { str } from '../fields.js';

export function argoWorkflowHealth(obj: KubeObject): HealthStatus {
  const message = str(obj, 'status', 'message');
  switch (str(obj, 'status', 'phase')) {
    case '':
    case 'Pending':
    case 'Running':
      return { status: 'Progressing', message };
    case 'Succeeded':
      return { status: 'Healthy', message };
    case 'Failed':
    case 'Error':
      return { status: 'Degraded', message };
    default:
      return { status: 'Unknown', message };
  }
}
