// Argo CD's sync order: waves, then Helm's kind order, then name; namespaces and CRDs moved ahead of their users.
import { SYNC_WAVE } from '../model/keys.js';
import { groupOf, isPlainObject, type KubeObject } from '../model/object.js';
import type { HookPhase } from './hooks.js';

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

/** Helm's hook weight, which gitops-engine also reads as the wave of an object without a valid sync-wave (hook or not). */
const HELM_HOOK_WEIGHT = 'helm.sh/hook-weight';

/**
 * The object's wave as gitops-engine's syncwaves.Wave reads it (hook or not): `argocd.argoproj.io/sync-wave` when Go's
 * strconv.Atoi accepts it, else `helm.sh/hook-weight` when Atoi accepts that, else 0. A value Atoi refuses (` 5`,
 * `1.5`, `x`) is passed over with an error message naming it.
 */
export function waveOf(obj: KubeObject): { wave: number; error?: string } {
  const a = obj.metadata.annotations;
  const wave = parseWave(a?.[SYNC_WAVE], SYNC_WAVE);
  if (a?.[SYNC_WAVE] !== undefined && a[SYNC_WAVE] !== '' && !wave.error) return wave;
  const weight = parseWave(a?.[HELM_HOOK_WEIGHT], HELM_HOOK_WEIGHT);
  const errors = [wave.error, weight.error].filter((e): e is string => e !== undefined);
  return { wave: weight.wave, ...(errors.length > 0 ? { error: errors.join('; ') } : {}) };
}

/**
 * A wave annotation's value as Go's strconv.Atoi reads it: an optional sign and decimal digits, nothing else (no
 * space, no underscore, no prefix), within int64. Absent or empty: 0. Anything else: 0 with an error naming `what`.
 */
function parseWave(raw: string | undefined, what: string): { wave: number; error?: string } {
  // Empty: Atoi refuses it too, but there is nothing to warn of (the fallback is taken all the same).
  if (raw === undefined || raw === '') return { wave: 0 };
  const bad = { wave: 0, error: `${what} ${JSON.stringify(raw)} is not an integer` };
  if (!/^[-+]?[0-9]+$/.test(raw)) return bad;
  const n = BigInt(raw);
  if (n < -(2n ** 63n) || n >= 2n ** 63n) return bad;
  return { wave: Number(n) };
}

export interface Ordered<T> {
  item: T;
  object: KubeObject;
  wave: number;
}

/** A task of the sync operation: a resource (Sync phase) or a hook in one of its phases. */
export interface PhasedOrdered<T> extends Ordered<T> {
  phase: HookPhase;
}

const PHASE_RANK: Readonly<Record<HookPhase, number>> = { PreSync: -1, Sync: 0, PostSync: 1, SyncFail: 2 };

/** gitops-engine's `syncTasks.Less`: wave, kind order, then the name as Go compares strings (bytewise, not by locale). */
function compare<T>(a: Ordered<T>, b: Ordered<T>): number {
  const x = a.object.metadata.name ?? '';
  const y = b.object.metadata.name ?? '';
  return a.wave - b.wave || kindRank(a.object.kind) - kindRank(b.object.kind) || (x < y ? -1 : x > y ? 1 : 0);
}

function namespaceDep(o: KubeObject): string | undefined {
  return o.kind === 'Namespace' && groupOf(o.apiVersion) === '' ? (o.metadata.name ?? '') : undefined;
}

function crdDep(o: KubeObject): string | undefined {
  if (o.kind !== 'CustomResourceDefinition' || groupOf(o.apiVersion) !== 'apiextensions.k8s.io') return undefined;
  const spec = isPlainObject(o.spec) ? o.spec : {};
  const names = isPlainObject(spec.names) ? spec.names : {};
  return typeof spec.group === 'string' && typeof names.kind === 'string' ? `${spec.group}/${names.kind}` : undefined;
}

/**
 * gitops-engine's adjustDeps, in place: each dependency (isDep gives its key) that comes after the first object that
 * refers to it (refersTo) moves to just before that object and takes its wave (and phase, `take`).
 */
function adjustDeps<T, O extends Ordered<T>>(
  out: O[],
  isDep: (o: KubeObject) => string | undefined,
  refersTo: (o: KubeObject) => string | undefined,
  take: (dep: O, user: O) => O,
): void {
  const first = new Map<string, number>();
  for (let i = 0; i < out.length; i++) {
    const t = out[i] as O;
    const dep = isDep(t.object);
    if (dep !== undefined) {
      const at = first.get(dep);
      if (at === undefined) continue;
      out.splice(i, 1);
      out.splice(at, 0, take(t, out[at] as O));
      for (const [k, v] of first) if (v >= at) first.set(k, v + 1);
    } else {
      const ref = refersTo(t.object);
      if (ref !== undefined && !first.has(ref)) first.set(ref, i);
    }
  }
}

function adjusted<T, O extends Ordered<T>>(out: O[], take: (dep: O, user: O) => O): O[] {
  // Namespaces ahead of the objects in them, then CRDs ahead of their custom resources (Sort's two adjustDeps).
  adjustDeps(out, namespaceDep, (o) => (o.metadata.namespace ? o.metadata.namespace : undefined), take);
  adjustDeps(out, crdDep, (o) => `${groupOf(o.apiVersion)}/${o.kind}`, take);
  return out;
}

/**
 * Sorts by (wave, kind rank, name), then moves each Namespace and CRD ahead of the first object
 * that needs it, giving it that object's wave (gitops-engine's adjustDeps). Returns a new array.
 */
export function syncOrder<T>(items: readonly Ordered<T>[]): Ordered<T>[] {
  return adjusted([...items].sort(compare), (dep, user) => ({ ...dep, wave: user.wave }));
}

/**
 * The order of every task of a sync operation, as gitops-engine's syncTasks.Sort: (phase, wave, kind rank, name),
 * hooks and resources together; then each Namespace and CRD moved ahead of the first task that needs it (a hook
 * among them), taking that task's phase and wave. Returns a new array.
 */
export function taskOrder<T>(items: readonly PhasedOrdered<T>[]): PhasedOrdered<T>[] {
  const sorted = [...items].sort((a, b) => PHASE_RANK[a.phase] - PHASE_RANK[b.phase] || compare(a, b));
  return adjusted(sorted, (dep, user) => ({ ...dep, wave: user.wave, phase: user.phase }));
}

/** Deletion order: the reverse of creation (waves mirrored, kinds reversed). Returns a new array. */
export function pruneOrder<T>(items: readonly Ordered<T>[]): Ordered<T>[] {
  return [...items].sort((a, b) => -compare(a, b));
}
