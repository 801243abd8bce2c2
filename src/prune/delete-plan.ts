// What deleting an Application deletes (pure), as Argo CD's controller finalizes one (controller/appcontroller.go
// finalizeApplicationDeletion, shouldBeDeleted, sort_delete.go): every live object with the app's own mark, highest
// sync wave first, except CustomResourceDefinitions, the Application itself (an app that manages itself), objects
// annotated `argocd.argoproj.io/sync-options: Delete=false` and Helm's `helm.sh/resource-policy: keep`; objects
// annotated `Delete=confirm` hold the whole deletion until it is approved. Delete hooks are run, not deleted here.
import { keyOf, keyString, type ResourceKey } from '../model/object.js';
import { resourceSyncOptions } from '../sync/options.js';
import { pruneOrder, waveOf } from '../sync/order.js';
import { hookOf, isHookObject } from '../sync/hooks.js';
import { marksUnnamedDeclaration, ownershipVerdict, type NotOwnedReason } from '../tracking/select.js';
import type { Tracking } from '../tracking/method.js';
import type { LiveEntry, PruneCandidate } from './plan.js';

const HELM_RESOURCE_POLICY = 'helm.sh/resource-policy';

/** How an Application's objects go with it: deleted with that propagation, or left (`orphan`). */
export type Cascade = 'foreground' | 'background' | 'orphan';
export const CASCADES: readonly Cascade[] = ['foreground', 'background', 'orphan'];

/** Argo CD's finalizers on an Application (pkg/apis/application/v1alpha1/application_defaults.go). */
const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';
const FOREGROUND_FINALIZER = `${RESOURCES_FINALIZER}/foreground`;
const BACKGROUND_FINALIZER = `${RESOURCES_FINALIZER}/background`;
const PRE_DELETE_FINALIZER = 'pre-delete-finalizer.argocd.argoproj.io';
const POST_DELETE_FINALIZER = 'post-delete-finalizer.argocd.argoproj.io';
const OURS = [RESOURCES_FINALIZER, FOREGROUND_FINALIZER, BACKGROUND_FINALIZER, PRE_DELETE_FINALIZER, POST_DELETE_FINALIZER];

function isOurs(f: string): boolean {
  return OURS.includes(f) || f.startsWith(`${PRE_DELETE_FINALIZER}/`) || f.startsWith(`${POST_DELETE_FINALIZER}/`);
}

/** The cascade an Application's finalizers ask for (Argo CD's CascadedDeletion and GetPropagationPolicy). */
export function cascadeOf(finalizers: readonly string[]): Cascade {
  if (finalizers.includes(BACKGROUND_FINALIZER)) return 'background';
  if (finalizers.includes(RESOURCES_FINALIZER) || finalizers.includes(FOREGROUND_FINALIZER)) return 'foreground';
  return 'orphan';
}

/**
 * The finalizers an Application gets before it is deleted (as Argo CD's API server sets them for `argocd app delete`,
 * and its controller for delete hooks): the cascade's own instead of any other propagation finalizer, and the
 * pre-/post-delete ones when the app has such hooks; anyone else's are kept.
 */
export function finalizersFor(current: readonly string[], cascade: Cascade, hooks: { pre: boolean; post: boolean }): string[] {
  const out = current.filter((f) => cascadeOf([f]) === 'orphan');
  const add = (f: string) => {
    if (!out.includes(f)) out.push(f);
  };
  if (cascade === 'foreground') add(RESOURCES_FINALIZER);
  if (cascade === 'background') add(BACKGROUND_FINALIZER);
  if (hooks.pre) add(PRE_DELETE_FINALIZER);
  if (hooks.post) add(POST_DELETE_FINALIZER);
  return out;
}

/** An Argo CD Application whose finalizers ask for the deletion of its objects or its delete hooks (a controller's work). */
export function isFinalizedApplication(c: Pick<PruneCandidate, 'key' | 'object'>): boolean {
  if (!isApplication(c.key)) return false;
  const finalizers = (c.object.metadata.finalizers as string[] | undefined) ?? [];
  return finalizersAfter(finalizers).length !== finalizers.length;
}

/** Whether a key names an Argo CD Application. */
export function isApplication(key: Pick<ResourceKey, 'group' | 'kind'>): boolean {
  return key.group === 'argoproj.io' && key.kind === 'Application';
}

/** The finalizers left once the deletion is done: every one of Argo CD's deletion finalizers removed. */
export function finalizersAfter(current: readonly string[]): string[] {
  return current.filter((f) => !isOurs(f));
}

export interface KeptObject {
  key: ResourceKey;
  uid?: string;
  reason: string;
}

export interface DeleteWave {
  wave: number;
  /** In deletion order within the wave (the reverse of the kind order a sync creates them in). */
  objects: PruneCandidate[];
}

export interface DeletePlan {
  /** Highest wave first: each is deleted, and gone, before the next starts. */
  waves: DeleteWave[];
  /** Objects with the app's mark that stay, and why. */
  kept: KeptObject[];
  /** `Delete=confirm` objects: while any is unapproved, nothing is deleted at all (as Argo CD waits before its first delete). */
  needConfirmation: ResourceKey[];
  /** Live PreDelete / PostDelete hooks of the app (from an earlier, interrupted deletion): run on, not created again. */
  liveDeleteHooks: PruneCandidate[];
  /** Objects with some tracking mark that are not this app's (another app, a copied mark, owned), for -o json. */
  notOwned: { key: ResourceKey; reason: NotOwnedReason }[];
}

export interface DeleteInput {
  live: readonly LiveEntry[];
  appInstance: string;
  tracking?: Tracking;
  /** The Application being deleted: never one of its own objects (Argo CD's isSelfReferencedApp). */
  application?: { namespace: string; name: string };
  /** The Application's own `Delete=` sync option, for objects whose annotation has none (Argo CD's fallback). */
  appDelete?: 'false' | 'confirm' | 'true';
  /** Whether `Delete=confirm` deletions are approved (--confirm-delete, or deletion-approved after the deletion began). */
  approved: boolean;
}

function csvHas(value: string | undefined, want: string): boolean {
  return (value ?? '').split(',').some((v) => v.trim() === want);
}

/** Why an object of the app stays when the app is deleted, or undefined. */
function keepReason(c: PruneCandidate, application: DeleteInput['application'], appDelete: DeleteInput['appDelete']): string | undefined {
  if (c.key.group === 'apiextensions.k8s.io' && c.key.kind === 'CustomResourceDefinition') return 'a CustomResourceDefinition is never deleted with an app';
  if (
    application &&
    c.key.group === 'argoproj.io' &&
    c.key.kind === 'Application' &&
    c.key.namespace === application.namespace &&
    c.key.name === application.name
  )
    return 'the Application being deleted';
  const own = resourceSyncOptions(c.object).get('Delete');
  if (own === 'false') return 'annotated argocd.argoproj.io/sync-options: Delete=false';
  if (own === undefined && appDelete === 'false') return 'the Application sets syncOptions Delete=false';
  if (csvHas(c.object.metadata.annotations?.[HELM_RESOURCE_POLICY], 'keep')) return 'annotated helm.sh/resource-policy: keep';
  return undefined;
}

/** Plans the deletion of an app's objects; never mutates its input. An object served by two groups counts once. */
export function planDelete(input: DeleteInput): DeletePlan {
  const seen = new Set<string>();
  const found: { item: PruneCandidate; object: PruneCandidate['object']; wave: number }[] = [];
  const plan: DeletePlan = { waves: [], kept: [], needConfirmation: [], liveDeleteHooks: [], notOwned: [] };
  for (const { object, type, whole } of input.live) {
    const id = object.metadata.uid ?? keyString(keyOf(object));
    if (seen.has(id)) continue;
    seen.add(id);
    const key = keyOf(object);
    const reason = ownershipVerdict(object, input.appInstance, input.tracking);
    // A hook Argo CD's sync made from a generateName declaration carries a mark with no name: the app's all the same.
    if (reason && !(isHookObject(object) && marksUnnamedDeclaration(object, reason))) {
      if (reason.code !== 'unmarked') plan.notOwned.push({ key, reason });
      continue;
    }
    const wave = waveOf(object).wave;
    const candidate: PruneCandidate = { object, type, ...(whole ? { whole } : {}), key, wave };
    if ((hookOf(object)?.deletePhases.length ?? 0) > 0) {
      plan.liveDeleteHooks.push(candidate);
      continue;
    }
    const keep = keepReason(candidate, input.application, input.appDelete);
    if (keep) {
      plan.kept.push({ key, ...(object.metadata.uid ? { uid: object.metadata.uid } : {}), reason: keep });
      continue;
    }
    if ((resourceSyncOptions(object).get('Delete') ?? input.appDelete) === 'confirm' && !input.approved) plan.needConfirmation.push(key);
    found.push({ item: candidate, object, wave });
  }
  for (const { item } of pruneOrder(found)) {
    const last = plan.waves[plan.waves.length - 1];
    if (last && last.wave === item.wave) last.objects.push(item);
    else plan.waves.push({ wave: item.wave, objects: [item] });
  }
  return plan;
}
