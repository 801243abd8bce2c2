// Pod health, as gitops-engine's health_pod.go (container back-offs, phases, readiness).
import { isPlainObject, type JsonValue, type KubeObject } from '../../model/object.js';
import type { HealthStatus } from '../types.js';
import { at, condition, list, num, str } from '../fields.js';

/** A waiting reason that means the container cannot start: `Err*`, `*Error`, `*BackOff`. */
export function isFailingWaitReason(reason: string): boolean {
  return reason.startsWith('Err') || reason.endsWith('Error') || reason.endsWith('BackOff');
}

/** spec.restartPolicy as written: the API server always sets it (Always by default); a Pod without one is no served Pod. */
function restartPolicy(obj: KubeObject): string {
  return str(obj, 'spec', 'restartPolicy');
}

/**
 * Whether the pod restarts its containers: only then are back-offs Degraded and is Running read through readiness. As
 * in gitops-engine 5baed56 (Argo CD v3.2.11), the restart policy alone decides (exactly Always; no annotation overrides it).
 */
function behavesAsAlways(obj: KubeObject): boolean {
  return restartPolicy(obj) === 'Always';
}

function failMessage(ctr: JsonValue): string {
  const terminated = at(ctr, 'state', 'terminated');
  if (!isPlainObject(terminated)) return '';
  const message = str(terminated, 'message');
  if (message !== '') return message;
  if (str(terminated, 'reason') === 'OOMKilled') return 'OOMKilled';
  const exitCode = num(terminated, 'exitCode');
  return exitCode !== 0 ? `container "${str(ctr, 'name')}" failed with exit code ${exitCode}` : '';
}

export function podHealth(obj: KubeObject): HealthStatus {
  const statuses = list(obj, 'status', 'containerStatuses');
  const message = str(obj, 'status', 'message');
  if (behavesAsAlways(obj)) {
    const failing = statuses.filter((c) => isFailingWaitReason(str(c, 'state', 'waiting', 'reason')));
    if (failing.length > 0) {
      return { status: 'Degraded', message: failing.map((c) => str(c, 'state', 'waiting', 'message')).join(', ') };
    }
  }
  switch (str(obj, 'status', 'phase')) {
    case 'Pending':
      return { status: 'Progressing', message };
    case 'Succeeded':
      return { status: 'Healthy', message };
    case 'Failed': {
      if (message !== '') return { status: 'Degraded', message };
      for (const ctr of [...list(obj, 'status', 'initContainerStatuses'), ...statuses]) {
        const m = failMessage(ctr);
        if (m !== '') return { status: 'Degraded', message: m };
      }
      return { status: 'Degraded', message: '' };
    }
    case 'Running': {
      const policy = restartPolicy(obj);
      // Finite pods (typically hooks) are Progressing while they run; a policy that is none of the three, Unknown.
      if (policy === 'OnFailure' || policy === 'Never') return { status: 'Progressing', message };
      if (policy !== 'Always') return { status: 'Unknown', message };
      if (condition(obj, 'Ready')?.status === 'True') return { status: 'Healthy', message };
      if (statuses.some((c) => isPlainObject(at(c, 'lastState', 'terminated')))) return { status: 'Degraded', message };
      return { status: 'Progressing', message };
    }
    default:
      return { status: 'Unknown', message };
  }
}
