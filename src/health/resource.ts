// The health of one live object: pending deletion first, then a Lua check, then the built-in check for its kind.
// A kind with neither (ConfigMap, a custom resource without a Lua check) has no health, as in gitops-engine's
// GetResourceHealth.
import { groupOf, type KubeObject } from '../model/object.js';
import type { HealthStatus } from './types.js';
import { deploymentHealth } from './checks/deployment.js';
import { statefulSetHealth } from './checks/statefulset.js';
import { daemonSetHealth } from './checks/daemonset.js';
import { replicaSetHealth } from './checks/replicaset.js';
import { podHealth } from './checks/pod.js';
import { serviceHealth } from './checks/service.js';
import { ingressHealth } from './checks/ingress.js';
import { pvcHealth } from './checks/pvc.js';
import { jobHealth } from './checks/job.js';
import { cronJobHealth } from './checks/cronjob.js';
import { hpaHealth } from './checks/hpa.js';
import { apiServiceHealth } from './checks/apiservice.js';
import { pdbHealth } from './checks/pdb.js';
import { argoWorkflowHealth } from './checks/argo-workflow.js';
import { customHealthOf } from './custom.js';

type Check = (obj: KubeObject) => HealthStatus;

const HOOK_FINALIZER = 'argocd.argoproj.io/hook-finalizer';

/** `group/Kind` → check: gitops-engine's GetHealthCheckFunc. */
const BUILT_IN: ReadonlyMap<string, Check> = new Map<string, Check>([
  ['apps/Deployment', deploymentHealth],
  ['apps/StatefulSet', statefulSetHealth],
  ['apps/DaemonSet', daemonSetHealth],
  ['apps/ReplicaSet', replicaSetHealth],
  ['/Pod', podHealth],
  ['/Service', serviceHealth],
  ['/PersistentVolumeClaim', pvcHealth],
  ['extensions/Ingress', ingressHealth],
  ['networking.k8s.io/Ingress', ingressHealth],
  ['argoproj.io/Workflow', argoWorkflowHealth],
  ['batch/Job', jobHealth],
  ['autoscaling/HorizontalPodAutoscaler', hpaHealth],
  ['apiregistration.k8s.io/APIService', apiServiceHealth],
]);

/**
 * The built-in checks plus ports of Argo CD's bundled CronJob and PDB scripts (resource_customizations/), which
 * stand in for them when no library of scripts is loaded (a loaded one's script comes first, as a Lua check).
 */
const CHECKS: ReadonlyMap<string, Check> = new Map<string, Check>([...BUILT_IN, ['batch/CronJob', cronJobHealth], ['policy/PodDisruptionBudget', pdbHealth]]);

/** Groups served by Kubernetes itself: their kinds without a check (ConfigMap, Role…) have no health. */
function isKubernetesGroup(group: string): boolean {
  return ['', 'apps', 'batch', 'autoscaling', 'policy', 'extensions'].includes(group) || group.endsWith('.k8s.io');
}

/** Whether any check may apply to this kind (a built-in one, or a Lua check, which any custom resource may have). */
export function hasHealthCheck(group: string, kind: string): boolean {
  return CHECKS.has(`${group}/${kind}`) || !isKubernetesGroup(group);
}

/**
 * Whether gitops-engine has a check of its own for the kind (GetHealthCheckFunc is not nil): a missing resource
 * of such a kind counts in the app's health (controller/health.go); the bundled Lua scripts do not count there.
 */
export function hasBuiltInHealthCheck(group: string, kind: string): boolean {
  return BUILT_IN.has(`${group}/${kind}`);
}

/**
 * The object's health, or undefined when its kind has none (ConfigMap, Secret, a custom resource
 * without a Lua check); such objects do not count in the app's health.
 */
export function resourceHealth(obj: KubeObject): HealthStatus | undefined {
  const finalizers: unknown = obj.metadata.finalizers;
  const hookFinalizer = Array.isArray(finalizers) && finalizers.includes(HOOK_FINALIZER);
  if (obj.metadata.deletionTimestamp && !hookFinalizer) {
    return { status: 'Progressing', message: 'Pending deletion' };
  }
  // A Lua check (argocd-cm or --lua-dir) comes before the built-in ones, as in gitops-engine's GetResourceHealth.
  const custom = customHealthOf(obj);
  if (custom !== undefined) return custom ?? undefined;
  const group = groupOf(obj.apiVersion);
  const check = CHECKS.get(`${group}/${obj.kind}`);
  return check ? check(obj) : undefined;
}
