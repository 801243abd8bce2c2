// Prune candidates (pure): live objects with this app's self-referencing mark, no owner, not desired; skips with reasons.
import type { ResourceType } from '../model/resource-type.js';
import { keyOf, keyString, type KubeObject, type ResourceKey } from '../model/object.js';
import { hasSyncOption, resourceSyncOptions } from '../sync/options.js';
import { pruneOrder, waveOf } from '../sync/order.js';
import { isHookObject } from '../sync/hooks.js';
import { isAppHook, ownershipVerdict, type NotOwnedReason } from '../tracking/select.js';
import type { Tracking } from '../tracking/method.js';

export interface LiveEntry {
  /** What a metadata-only list returns: apiVersion, kind and metadata. */
  object: KubeObject;
  type: ResourceType;
  /** The whole object, when the scan took it from a full LIST (status reads its health from it). */
  whole?: KubeObject;
}

export interface PruneCandidate {
  object: KubeObject;
  type: ResourceType;
  /** As in LiveEntry. */
  whole?: KubeObject;
  key: ResourceKey;
  wave: number;
  /** Why it is listed but must not be deleted (e.g. `Prune=false`); absent when it may be deleted. */
  skip?: string;
  /**
   * `Prune=confirm` (its annotation, or the Application's when it has none): deleted only once the deletion is
   * approved; until then a sync prunes nothing at all, as gitops-engine holds every prune task.
   */
  confirm?: true;
}

export interface PrunePlan {
  /**
   * In deletion order: the reverse of creation (wave by wave, then kind order), except that objects annotated
   * `argocd.argoproj.io/sync-options: PruneLast=true` come after every other, as Argo CD prunes them in an implicit
   * wave after all the others.
   */
  candidates: PruneCandidate[];
  /** Objects that carry some tracking-id but are not candidates, with the reason (for -v and JSON). */
  notOwned: { key: ResourceKey; reason: NotOwnedReason }[];
  /** The app's hooks still in the cluster (a run's objects no delete policy removed): listed by status, never pruned. */
  hooks: PruneCandidate[];
}

export interface PruneInput {
  live: readonly LiveEntry[];
  appInstance: string;
  desired: readonly ResourceKey[];
  /** The app-level `Prune=false` sync option (a resource annotation wins over it). */
  appPruneDefault: boolean;
  /** The app-level `Prune=confirm` sync option (a resource annotation wins over it). */
  appPruneConfirm?: boolean;
  /** The cluster's tracking method (default: the tracking-id annotation). */
  tracking?: Tracking;
}

/** Why a candidate must not be deleted, or undefined. */
function skipReason(obj: KubeObject, appPruneDefault: boolean): string | undefined {
  if (obj.metadata.deletionTimestamp) return 'already being deleted';
  const prune = resourceSyncOptions(obj).get('Prune');
  if (prune === 'false') return 'annotated argocd.argoproj.io/sync-options: Prune=false';
  if (prune === undefined && !appPruneDefault) return 'the Application sets syncOptions Prune=false';
  return undefined;
}

/** Whether deleting it needs an approval (gitops-engine's objRequiresPruneConfirmation: the annotation, else the app's option). */
function needsConfirmation(obj: KubeObject, appPruneConfirm: boolean): boolean {
  const prune = resourceSyncOptions(obj).get('Prune');
  return prune === 'confirm' || (prune === undefined && appPruneConfirm);
}

/** Plans a prune; never mutates its input. Objects seen twice (one object served by two groups) count once. */
export function planPrune(input: PruneInput): PrunePlan {
  const desired = new Set(input.desired.map(keyString));
  const seenUids = new Set<string>();
  const found: { item: PruneCandidate; object: KubeObject; wave: number }[] = [];
  const notOwned: PrunePlan['notOwned'] = [];
  const hooks: PruneCandidate[] = [];
  for (const { object, type, whole } of input.live) {
    const uid = object.metadata.uid;
    if (uid) {
      if (seenUids.has(uid)) continue;
      seenUids.add(uid);
    }
    const key = keyOf(object);
    // Hooks are run by a sync, never pruned (gitops-engine leaves live hooks out of its prune tasks).
    if (isHookObject(object)) {
      if (isAppHook(object, input.appInstance, input.tracking)) hooks.push({ object, type, ...(whole ? { whole } : {}), key, wave: waveOf(object).wave });
      continue;
    }
    const reason = ownershipVerdict(object, input.appInstance, input.tracking);
    if (reason) {
      if (reason.code !== 'unmarked') notOwned.push({ key, reason });
      continue;
    }
    if (desired.has(keyString(key))) continue;
    const wave = waveOf(object).wave;
    const skip = skipReason(object, input.appPruneDefault);
    const confirm = !skip && needsConfirmation(object, input.appPruneConfirm === true);
    found.push({ item: { object, type, ...(whole ? { whole } : {}), key, wave, ...(skip ? { skip } : {}), ...(confirm ? { confirm } : {}) }, object, wave });
  }
  const ordered = pruneOrder(found).map((o) => o.item);
  return { candidates: [...ordered.filter((c) => !isPruneLast(c)), ...ordered.filter(isPruneLast)], notOwned, hooks };
}

/** Whether a candidate is pruned after every other (PruneLast=true on it), in gitops-engine's implicit last wave. */
export function isPruneLast(c: Pick<PruneCandidate, 'object'>): boolean {
  return hasSyncOption(c.object, 'PruneLast=true');
}
