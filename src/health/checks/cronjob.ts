// CronJob health, as Argo CD v3.2.11's bundled resource_customizations/batch/CronJob/health.lua.
import type { KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { at, list, str } from '../fields.js';

export function cronJobHealth(obj: KubeObject): HealthStatus {
  // Healthy, not Suspended, as the Lua says "until bug is resolved" (argo-cd#24428).
  if (at(obj, 'spec', 'suspend') === true) return { status: 'Healthy', message: 'CronJob is Suspended' };
  if (obj.status === undefined || obj.status === null) return { status: 'Progressing', message: 'Waiting for CronJob' };
  const lastSchedule = str(obj, 'status', 'lastScheduleTime');
  if (lastSchedule === '') return { status: 'Healthy', message: 'CronJob has not been scheduled yet' };
  const lastSuccess = str(obj, 'status', 'lastSuccessfulTime');
  if (lastSuccess === '') {
    // The Lua's own spelling, kept so messages match Argo CD's.
    return { status: 'Healthy', message: 'The Cronjob never completed succesfully. It may not be healthy' };
  }
  if (list(obj, 'status', 'active').length > 0) {
    return { status: 'Healthy', message: 'The job is running. Its last execution may not have been successful' };
  }
  // RFC 3339 timestamps in UTC compare correctly as strings, as the Lua does.
  if (lastSuccess < lastSchedule) {
    return { status: 'Degraded', message: 'CronJob has not completed its last execution successfully' };
  }
  return { status: 'Healthy', message: 'CronJob has completed its last execution successfully' };
}
