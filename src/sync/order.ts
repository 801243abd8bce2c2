// Argo CD's sync order: waves, then Helm's kind order, then name; namespaces and CRDs moved ahead of their users.
import { SYNC_WAVE } from '../model/keys.js';
import { groupOf, isPlainObject, type KubeObject } from '../model/object.js';

/** Helm's install order as gitops-engine uses it; unknown kinds (custom resources) sort after all of these. */
const KIND_ORDER: readonly string[] = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
];

/** Known kinds get negative ranks in list order; anything else 0 (so custom resources come last). */
export function kindRank(kind: string): number {
  const i = KIND_ORDER.indexOf(kind);
  return i < 0 ? 0 : i - KIND_ORDER.length;
}

/** The object's `argocd.argoproj.io/sync-wave` (an integer), else 0; a malformed value is an error message. */
export function waveOf(obj: KubeObject): { wave: number; error?: string } {
  return parseWave(obj.metadata.annotations?.[SYNC_WAVE], SYNC_WAVE);
}

/** A wave annotation's value: an integer, 0 when absent, 0 with an error naming `what` when malformed. */
export function parseWave(raw: string | undefined, what: string): { wave: number; error?: string } {
  if (raw === undefined || raw.trim() === '') return { wave: 0 };
  if (!/^[-+]?\d+$/.test(raw.trim())) return { wave: 0, error: `${what} "${raw}" is not an integer` };
  return { wave: Number(raw.trim()) };
}

export interface Ordered<T> {
  item: T;
  object: KubeObject;
  wave: number;
}

/** gitops-engine's `syncTasks.Less`: wave, kind order, then the name as Go compares strings (bytewise, not by locale). */
function compare<T>(a: Ordered<T>, b: Ordered<T>): number {
  const x = a.object.metadata.name ?? '';
  const y = b.object.metadata.name ?? '';
  return a.wave - b.wave || kindRank(a.object.kind) - kindRank(b.object.kind) || (x < y ? -1 : x > y ? 1 : 0);
}

function dependsOn(dep: KubeObject, user: KubeObject): boolean {
  if (dep.kind === 'Namespace' && groupOf(dep.apiVersion) === '') return user.metadata.namespace === dep.metadata.name;
  if (dep.kind === 'CustomResourceDefinition' && groupOf(dep.apiVersion) === 'apiextensions.k8s.io') {
    const spec = isPlainObject(dep.spec) ? dep.spec : {};
    const names = isPlainObject(spec.names) ? spec.names : {};
    return groupOf(user.apiVersion) === spec.group && user.kind === names.kind;
  }
  return false;
}

/**
 * Sorts by (wave, kind rank, name), then moves each Namespace and CRD ahead of the first object
 * that needs it, giving it that object's wave (gitops-engine's adjustDeps). Returns a new array.
 */
export function syncOrder<T>(items: readonly Ordered<T>[]): Ordered<T>[] {
  const out = [...items].sort(compare);
  for (let i = 0; i < out.length; i++) {
    const dep = out[i] as Ordered<T>;
    if (dep.object.kind !== 'Namespace' && dep.object.kind !== 'CustomResourceDefinition') continue;
    const first = out.findIndex((x) => x !== dep && dependsOn(dep.object, x.object));
    if (first >= 0 && first < i) {
      out.splice(i, 1);
      out.splice(first, 0, { ...dep, wave: (out[first] as Ordered<T>).wave });
    }
  }
  return out;
}

/** Deletion order: the reverse of creation (waves mirrored, kinds reversed). Returns a new array. */
export function pruneOrder<T>(items: readonly Ordered<T>[]): Ordered<T>[] {
  return [...items].sort((a, b) => -compare(a, b));
}
