// Resource hooks as gitops-engine reads them (pure): the phases of `argocd.argoproj.io/hook` (or Helm's `helm.sh/hook`,
// mapped), the delete policies, and the name a `generateName` hook gets (the wave is order.ts's waveOf, as for any object).
import { isPlainObject, type KubeObject } from '../model/object.js';

const HOOK = 'argocd.argoproj.io/hook';
const HOOK_DELETE_POLICY = 'argocd.argoproj.io/hook-delete-policy';
const HELM_HOOK = 'helm.sh/hook';
const HELM_HOOK_DELETE_POLICY = 'helm.sh/hook-delete-policy';
/** The finalizer Argo CD puts on hooks it creates, removed once their phase is over. */
export const HOOK_FINALIZER = 'argocd.argoproj.io/hook-finalizer';

export type HookPhase = 'PreSync' | 'Sync' | 'PostSync' | 'SyncFail';
const HOOK_PHASES: readonly HookPhase[] = ['PreSync', 'Sync', 'PostSync', 'SyncFail'];
export type DeletePolicy = 'HookSucceeded' | 'HookFailed' | 'BeforeHookCreation';
/** The hooks an Application's deletion runs (Argo CD's controller/hook.go), never a sync. */
export type DeleteHookPhase = 'PreDelete' | 'PostDelete';
const DELETE_PHASES: readonly DeleteHookPhase[] = ['PreDelete', 'PostDelete'];

export interface HookInfo {
  /** Empty for a `Skip` hook (or a Helm hook of a type Argo CD does not run, such as `test`): never applied. */
  phases: HookPhase[];
  /** `PreDelete` / `PostDelete` (Helm's `pre-delete` / `post-delete`): run by `delete`, never by a sync. */
  deletePhases: DeleteHookPhase[];
  deletePolicies: DeletePolicy[];
  /** Whether a delete policy was written (a delete hook without one is removed once the deletion is over). */
  policyDeclared: boolean;
  /** From `helm.sh/hook` (no Argo CD hook annotation). */
  helm: boolean;
  /** Annotation values that are no phase or policy (a warning each). */
  unknown: string[];
}

/** Helm's hook types that gitops-engine maps (pkg/sync/hook/helm/type.go); any other Helm hook is not run. */
const HELM_PHASES: Readonly<Record<string, HookPhase>> = {
  'pre-install': 'PreSync',
  'pre-upgrade': 'PreSync',
  'post-install': 'PostSync',
  'post-upgrade': 'PostSync',
};
const HELM_DELETE_PHASES: Readonly<Record<string, DeleteHookPhase>> = { 'pre-delete': 'PreDelete', 'post-delete': 'PostDelete' };
const HELM_POLICIES: Readonly<Record<string, DeletePolicy>> = {
  'hook-succeeded': 'HookSucceeded',
  'hook-failed': 'HookFailed',
  'before-hook-creation': 'BeforeHookCreation',
};
const POLICIES: readonly DeletePolicy[] = ['HookSucceeded', 'HookFailed', 'BeforeHookCreation'];

/** An annotation's comma-separated values, trimmed, empty ones dropped, each once (gitops-engine's GetAnnotationCSVs). */
function csv(v: string | undefined): string[] {
  return [
    ...new Set(
      (v ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    ),
  ];
}

/**
 * Whether `helm.sh/hook` makes the object a hook: any value but exactly `crd-install`, which Helm puts on CRDs that
 * are no hooks (gitops-engine pkg/sync/hook/helm/hook.go IsHook). Such a CRD is an ordinary resource.
 */
function isHelmHook(a: Readonly<Record<string, string>>): boolean {
  return a[HELM_HOOK] !== undefined && a[HELM_HOOK] !== 'crd-install';
}

/**
 * The object's hook, or undefined when it is an ordinary resource. As gitops-engine's pkg/sync/hook reads it: the
 * types of `argocd.argoproj.io/hook`, or Helm's (mapped) when that annotation names no type gitops-engine knows;
 * `Skip` skips the object only when it is the one type named (`PreSync,Skip` is a PreSync hook, hook.go Skip); the
 * delete policies of both annotations together (delete_policy.go), BeforeHookCreation when neither names one.
 */
export function hookOf(obj: KubeObject): HookInfo | undefined {
  const a = obj.metadata.annotations ?? {};
  const unknown: string[] = [];
  const argo = a[HOOK] !== undefined;
  if (!argo && !isHelmHook(a)) return undefined;
  const phases: HookPhase[] = [];
  const deletePhases: DeleteHookPhase[] = [];
  let skip = false;
  if (argo) {
    for (const v of csv(a[HOOK])) {
      if (v === 'Skip') skip = true;
      else if ((HOOK_PHASES as readonly string[]).includes(v)) phases.push(v as HookPhase);
      else if ((DELETE_PHASES as readonly string[]).includes(v)) deletePhases.push(v as DeleteHookPhase);
      else unknown.push(`${HOOK}: ${v}`);
    }
  }
  // Helm's types count when there is no Argo CD annotation, or when it names no type gitops-engine knows (hook.Types).
  if ((!argo || (phases.length === 0 && !skip)) && a[HELM_HOOK] !== undefined) {
    const types = csv(a[HELM_HOOK]);
    for (const t of types) {
      const p = HELM_PHASES[t];
      if (p && !phases.includes(p)) phases.push(p);
    }
    if (!argo) for (const t of types) if (HELM_DELETE_PHASES[t]) deletePhases.push(HELM_DELETE_PHASES[t]);
  }
  const policies: DeletePolicy[] = [];
  for (const p of csv(a[HOOK_DELETE_POLICY])) {
    if ((POLICIES as readonly string[]).includes(p)) policies.push(p as DeletePolicy);
    else unknown.push(`${HOOK_DELETE_POLICY}: ${p}`);
  }
  for (const p of csv(a[HELM_HOOK_DELETE_POLICY])) {
    const q = HELM_POLICIES[p];
    if (q && !policies.includes(q)) policies.push(q);
  }
  return {
    phases,
    deletePhases,
    deletePolicies: policies.length ? policies : ['BeforeHookCreation'],
    policyDeclared: policies.length > 0,
    helm: !argo,
    unknown,
  };
}

/**
 * The name of a hook declared with `generateName` only, as Argo CD makes it: generateName, then the first seven
 * characters of the revision, the phase and the sync's start time in Unix seconds, lower-cased.
 */
export function generatedHookName(generateName: string, revision: string, phase: HookPhase, startedAtMs: number): string {
  return `${generateName}${`${revision.slice(0, 7)}-${phase}-${Math.floor(startedAtMs / 1000)}`.toLowerCase()}`;
}

/** Whether an object declares only `generateName` (a hook that gets a name per sync). */
export function needsGeneratedName(obj: KubeObject): boolean {
  return !obj.metadata.name && typeof obj.metadata.generateName === 'string' && obj.metadata.generateName !== '';
}

/** Whether a live object is a hook (hooks are never prune candidates, nor part of the sync status). */
export function isHookObject(obj: KubeObject): boolean {
  const a = isPlainObject(obj.metadata.annotations) ? (obj.metadata.annotations as Record<string, string>) : {};
  return a[HOOK] !== undefined || isHelmHook(a);
}
