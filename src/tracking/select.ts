// Which live objects an app owns by its mark, and why each other object is not (never guessed at).
import type { KubeObject } from '../model/object.js';
import { displayName, groupOf, keyOf } from '../model/object.js';
import { isSelfReferenced, parseTrackingId, trackingIdOf } from './tracking-id.js';
import { byLabel, DEFAULT_TRACKING, sameInstallation, type Tracking } from './method.js';

export type NotOwnedReason =
  | { code: 'unmarked' }
  | { code: 'other-installation'; id: string }
  | { code: 'malformed'; value: string; error: string }
  | { code: 'other-app'; app: string }
  | { code: 'not-self'; value: string }
  | { code: 'has-owner'; owner: string }
  /** Carries this app's mark, but the AppProject does not permit it (Argo CD drops such live objects before it plans). */
  | { code: 'not-permitted'; why: string };

export interface Selection {
  owned: KubeObject[];
  notOwned: { object: KubeObject; reason: NotOwnedReason }[];
}

/**
 * Why an object is not this app's root object, or undefined when it is. Under label tracking the instance
 * label's value names the app and nothing more is checked (Argo CD cannot: the label does not say which
 * object it was put on); otherwise the tracking-id must name this app and this very object, and carry
 * the installation id when one is set.
 */
export function ownershipVerdict(obj: KubeObject, appInstance: string, tracking: Tracking = DEFAULT_TRACKING): NotOwnedReason | undefined {
  if (byLabel(tracking)) {
    const label = obj.metadata.labels?.[tracking.labelKey];
    if (label === undefined || label === '') return { code: 'unmarked' };
    if (label !== appInstance) return { code: 'other-app', app: label };
    const owner = ownerOf(obj);
    return owner ? { code: 'has-owner', owner } : undefined;
  }
  const value = trackingIdOf(obj);
  if (value !== undefined && !sameInstallation(obj, tracking))
    return { code: 'other-installation', id: obj.metadata.annotations?.['argocd.argoproj.io/installation-id'] ?? '' };
  if (value === undefined) return { code: 'unmarked' };
  const parsed = parseTrackingId(value);
  if (!parsed.ok) return { code: 'malformed', value, error: parsed.error };
  if (parsed.id.app !== appInstance) return { code: 'other-app', app: parsed.id.app };
  if (!isSelfReferenced(keyOf(obj), parsed.id)) return { code: 'not-self', value };
  const owner = ownerOf(obj);
  if (owner) return { code: 'has-owner', owner };
  return undefined;
}

/**
 * The object's owner, from its ownerReferences or, where it has none, the owner gitops-engine's cluster cache infers
 * (pkg/cache/references.go resolveResourceReferences), so that it is not a root object of any app: an Endpoints is the
 * child of the Service of its name (the endpoints controller copies the Service's labels, the instance label among
 * them, onto it), a service-account token Secret the child of its ServiceAccount, and an OLM ClusterServiceVersion the
 * child of its OperatorGroup. The token Secret is known here by the token controller's two annotations (name and uid);
 * the metadata-only scan does not see its `type`, which gitops-engine checks too.
 */
function ownerOf(obj: KubeObject): string | undefined {
  const owner = obj.metadata.ownerReferences?.[0];
  if (owner) return displayName(owner);
  const group = groupOf(obj.apiVersion);
  const a = obj.metadata.annotations ?? {};
  if (group === '' && obj.kind === 'Endpoints') return `Service/${obj.metadata.name ?? ''} (inferred, as Argo CD infers it)`;
  if (group === '' && obj.kind === 'Secret' && a['kubernetes.io/service-account.name'] && a['kubernetes.io/service-account.uid'])
    return `ServiceAccount/${a['kubernetes.io/service-account.name']} (inferred: a service-account token, as Argo CD infers it)`;
  if (group === 'operators.coreos.com' && obj.kind === 'ClusterServiceVersion' && a['olm.operatorGroup'])
    return `OperatorGroup/${a['olm.operatorGroup']} (inferred, as Argo CD infers it)`;
  return undefined;
}

/**
 * Whether a live hook is this app's, as Argo CD lists it among the app's resources (`hook: true`): owned by its mark as
 * any object is, or marked for this app with a tracking-id that names another object. A hook Argo CD's sync made from a
 * `generateName` declaration carries the mark of that declaration, whose name was still empty (`app:batch/Job:ns/`);
 * Argo CD's controller lists it all the same (its isSelfReferencedObj keeps such an object out of the app's sync status
 * and prune only, and a hook is in neither).
 */
export function isAppHook(obj: KubeObject, appInstance: string, tracking: Tracking = DEFAULT_TRACKING): boolean {
  const reason = ownershipVerdict(obj, appInstance, tracking);
  return reason === undefined || (reason.code === 'not-self' && ownerOf(obj) === undefined);
}

/**
 * Whether an object whose verdict is `reason` carries this app's mark as Argo CD's sync writes it on a declaration with
 * only `generateName`: a mark naming this app (the verdict's not-self) and the object's own group, kind and namespace,
 * with an empty name (the mark is set before the object is named), and no owner. Argo CD makes only hooks so; with a
 * hook annotation this is the app's own object, as Argo CD's deletion takes it (it deletes every live object its mark
 * names, isSelfReferencedObj or not).
 */
export function marksUnnamedDeclaration(obj: KubeObject, reason: NotOwnedReason | undefined): boolean {
  if (reason?.code !== 'not-self') return false;
  const parsed = parseTrackingId(reason.value);
  if (!parsed.ok || parsed.id.name !== '') return false;
  return isSelfReferenced({ ...keyOf(obj), name: '' }, parsed.id) && ownerOf(obj) === undefined;
}

/** Splits live objects into those this app owns (its mark, naming the object itself, no owner) and the rest. */
export function selectOwned(liveObjects: readonly KubeObject[], appInstance: string, tracking: Tracking = DEFAULT_TRACKING): Selection {
  const out: Selection = { owned: [], notOwned: [] };
  for (const object of liveObjects) {
    const reason = ownershipVerdict(object, appInstance, tracking);
    if (reason) out.notOwned.push({ object, reason });
    else out.owned.push(object);
  }
  return out;
}

/** A one-line explanation of a reason, for tables and -v. */
export function describeNotOwned(r: NotOwnedReason): string {
  switch (r.code) {
    case 'unmarked':
      return 'no tracking-id';
    case 'other-installation':
      return r.id === '' ? 'no installation-id annotation (argocd-cm sets installationID)' : `installation-id ${r.id} is another Argo CD installation's`;
    case 'malformed':
      return `malformed tracking-id "${r.value}": ${r.error}`;
    case 'other-app':
      return `tracked by application ${r.app.replace('_', '/')}`;
    case 'not-self':
      return `tracking-id "${r.value}" names another object (copied mark)`;
    case 'not-permitted':
      return r.why;
    case 'has-owner':
      return `has an owner (${r.owner})`;
  }
}
