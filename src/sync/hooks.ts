// Resource hooks as gitops-engine reads them (pure): the phases of `argocd.argoproj.io/hook` (or Helm's `helm.sh/hook`,
// mapped), the delete policies, the wave, and the name a `generateName` hook gets.
import { isPlainObject, type KubeObject } from '../model/object.js';

const HOOK = 'argocd.argoproj.io/hook';
const HOOK_DELETE_POLICY = 'argocd.argoproj.io/hook-delete-policy';
const HELM_HOOK = 'helm.sh/hook';
const HELM_HOOK_DELETE_POLICY = 'helm.sh/hook-delete-policy';
const HELM_HOOK_WEIGHT = 'helm.sh/hook-weight';
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

/** Helm's hook types that gitops-engine maps; any other Helm hook is not run. */
const HELM_PHASES: Readonly<Record<string, HookPhase>> = {
  'crd-install': 'PreSync',
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

function csv(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The object's hook, or undefined when it is an ordinary resource. */
export function hookOf(obj: KubeObject): HookInfo | undefined {
  const a = obj.metadata.annotations ?? {};
  const unknown: string[] = [];
  if (a[HOOK] !== undefined) {
    const values = csv(a[HOOK]);
    const phases: HookPhase[] = [];
    const deletePhases: DeleteHookPhase[] = [];
    let skip = false;
    for (const v of values) {
      if (v === 'Skip') skip = true;
      else if ((HOOK_PHASES as readonly string[]).includes(v)) phases.push(v as HookPhase);
      else if ((DELETE_PHASES as readonly string[]).includes(v)) deletePhases.push(v as DeleteHookPhase);
      else unknown.push(`${HOOK}: ${v}`);
    }
    const policies = csv(a[HOOK_DELETE_POLICY]).filter((p) => {
      const ok = p === 'HookSucceeded' || p === 'HookFailed' || p === 'BeforeHookCreation';
      if (!ok) unknown.push(`${HOOK_DELETE_POLICY}: ${p}`);
      return ok;
    }) as DeletePolicy[];
    return {
      phases: skip ? [] : phases,
      deletePhases,
      deletePolicies: policies.length ? policies : ['BeforeHookCreation'],
      policyDeclared: policies.length > 0,
      helm: false,
      unknown,
    };
  }
  if (a[HELM_HOOK] !== undefined) {
    const types = csv(a[HELM_HOOK]);
    const phases = [...new Set(types.flatMap((t) => (HELM_PHASES[t] ? [HELM_PHASES[t]] : [])))];
    const deletePhases = [...new Set(types.flatMap((t) => (HELM_DELETE_PHASES[t] ? [HELM_DELETE_PHASES[t]] : [])))];
    const policies = csv(a[HELM_HOOK_DELETE_POLICY]).flatMap((p) => (HELM_POLICIES[p] ? [HELM_POLICIES[p]] : []));
    return {
      phases,
      deletePhases,
      deletePolicies: policies.length ? policies : ['BeforeHookCreation'],
      policyDeclared: policies.length > 0,
      helm: true,
      unknown,
    };
  }
  return undefined;
}

/** A hook's wave: `argocd.argoproj.io/sync-wave`, else `helm.sh/hook-weight`, else 0 (malformed values are reported by the caller). */
export function hookWeight(obj: KubeObject): string | undefined {
  return obj.metadata.annotations?.['argocd.argoproj.io/sync-wave'] ?? obj.metadata.annotations?.[HELM_HOOK_WEIGHT];
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
  const a = isPlainObject(obj.metadata.annotations) ? obj.metadata.annotations : {};
  return a[HOOK] !== undefined || a[HELM_HOOK] !== undefined;
}
