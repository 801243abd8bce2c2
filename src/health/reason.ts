// The most specific cause of an unhealthy resource, found by walking its live tree (beyond Argo CD).
import type { JsonValue, ResourceKey } from '../model/object.js';
import type { TreeNode } from './tree.js';
import { walk } from './tree.js';
import { at, condition, conditions, list, num, str } from './fields.js';
import { isFailingWaitReason } from './checks/pod.js';

/** Where a cause was read from, most specific first. */
export type CauseSource =
  | 'ContainerWaiting'
  | 'PodUnschedulable'
  | 'JobFailed'
  | 'ContainerTerminated'
  | 'PodFailed'
  | 'ReplicaFailure'
  | 'ContainerNotReady'
  | 'Health';

/** A cause as data; render/ turns it into words. */
export interface Cause {
  /** The object that carries the cause (a Pod, a Job, or the resource itself). */
  object: ResourceKey;
  source: CauseSource;
  container?: string;
  /** The machine reason (`ImagePullBackOff`, `Unschedulable`, `BackoffLimitExceeded`…), when there is one. */
  reason: string;
  message: string;
}

const RANK: readonly CauseSource[] = [
  'ContainerWaiting',
  'PodUnschedulable',
  'JobFailed',
  'ContainerTerminated',
  'PodFailed',
  'ReplicaFailure',
  'ContainerNotReady',
  'Health',
];

function containerStatuses(node: TreeNode): JsonValue[] {
  return [...list(node.object, 'status', 'initContainerStatuses'), ...list(node.object, 'status', 'containerStatuses')];
}

/** The causes one object shows by itself. */
function causesOf(node: TreeNode): Cause[] {
  const object = node.key;
  const out: Cause[] = [];
  const group = object.group;
  if (group === '' && object.kind === 'Pod') {
    for (const c of containerStatuses(node)) {
      const waiting = str(c, 'state', 'waiting', 'reason');
      if (isFailingWaitReason(waiting)) {
        out.push({ object, source: 'ContainerWaiting', container: str(c, 'name'), reason: waiting, message: str(c, 'state', 'waiting', 'message') });
      }
    }
    const scheduled = condition(node.object, 'PodScheduled');
    if (scheduled?.status === 'False') {
      out.push({ object, source: 'PodUnschedulable', reason: scheduled.reason, message: scheduled.message });
    }
    for (const c of containerStatuses(node)) {
      const terminated = at(c, 'state', 'terminated') ?? at(c, 'lastState', 'terminated');
      const exitCode = num(terminated, 'exitCode');
      if (terminated !== undefined && exitCode !== 0) {
        const reason = str(terminated, 'reason');
        const message = str(terminated, 'message') || `exit code ${exitCode}`;
        out.push({ object, source: 'ContainerTerminated', container: str(c, 'name'), reason, message });
      }
    }
    if (str(node.object, 'status', 'phase') === 'Failed') {
      out.push({ object, source: 'PodFailed', reason: str(node.object, 'status', 'reason'), message: str(node.object, 'status', 'message') });
    }
    for (const c of list(node.object, 'status', 'containerStatuses')) {
      const waiting = str(c, 'state', 'waiting', 'reason');
      if (waiting !== '' && !isFailingWaitReason(waiting)) {
        out.push({ object, source: 'ContainerNotReady', container: str(c, 'name'), reason: waiting, message: str(c, 'state', 'waiting', 'message') });
      }
    }
  }
  if (group === 'batch' && object.kind === 'Job') {
    const failed = conditions(node.object).find((c) => c.type === 'Failed' && c.status === 'True');
    if (failed) out.push({ object, source: 'JobFailed', reason: failed.reason, message: failed.message });
  }
  const replicaFailure = condition(node.object, 'ReplicaFailure');
  if (replicaFailure?.status === 'True') {
    out.push({ object, source: 'ReplicaFailure', reason: replicaFailure.reason, message: replicaFailure.message });
  }
  return out;
}

function isUnhealthy(n: TreeNode): boolean {
  return n.health === undefined || n.health.status !== 'Healthy';
}

/** The highest ranked of several causes (the first on ties), or undefined for none. */
export function mostSpecific(causes: readonly Cause[]): Cause | undefined {
  let best: Cause | undefined;
  for (const c of causes) {
    if (best === undefined || RANK.indexOf(c.source) < RANK.indexOf(best.source)) best = c;
  }
  return best;
}

/** The most specific cause one object shows by itself (not its children), when it is not Healthy. */
export function ownCause(node: TreeNode): Cause | undefined {
  return isUnhealthy(node) ? mostSpecific(causesOf(node)) : undefined;
}

/**
 * The most specific cause under `root`: among the tree's objects that are not Healthy, the highest
 * ranked cause (a container back-off, then the scheduler's refusal, a failed Job, a terminated
 * container, a failed Pod, a ReplicaSet failure, a container still starting), parents before
 * children on ties. Falls back to the root's own health message; undefined when there is none.
 */
export function findCause(root: TreeNode): Cause | undefined {
  const best = mostSpecific(walk(root).filter(isUnhealthy).flatMap(causesOf));
  if (best) return best;
  const message = root.health?.message ?? '';
  return message === '' ? undefined : { object: root.key, source: 'Health', reason: root.health?.status ?? '', message };
}
