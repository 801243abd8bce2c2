// Job health from its conditions (Failed, Complete, Suspended), as gitops-engine's health_job.go.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { conditions } from '../fields.js';

export function jobHealth(obj: KubeObject): HealthStatus {
  let failed = false;
  let complete = false;
  let suspended = false;
  let failMessage = '';
  let message = '';
  for (const c of conditions(obj)) {
    if (c.type === 'Failed') {
      failed = complete = true;
      failMessage = c.message;
    } else if (c.type === 'Complete') {
      complete = true;
      message = c.message;
    } else if (c.type === 'Suspended') {
      complete = true;
      message = c.message;
      if (c.status === 'True') suspended = true;
    }
  }
  if (!complete) return { status: 'Progressing', message };
  if (failed) return { status: 'Degraded', message: failMessage };
  // Suspended, and so is the app's health (setApplicationHealth has no exception for a Job). The message is the failed
  // condition's (none), as in every released Argo CD up to v3.5.1; its dev branch gives the Suspended condition's (#28738).
  if (suspended) return { status: 'Suspended', message: failMessage };
  return { status: 'Healthy', message };
}
