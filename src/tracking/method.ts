// The cluster's Argo CD tracking method (argocd-cm application.resourceTrackingMethod), as util/argo/resource_tracking.go
// applies it: which mark a sync writes (the tracking-id annotation, the instance label, or both, plus the
// installation id), and which mark says what app an object belongs to.
import type { TrackingMethod } from '../settings/argocd-cm.js';
import { DEFAULT_INSTANCE_LABEL_KEY, TRACKING_ID } from '../model/keys.js';
import type { KubeObject } from '../model/object.js';

export const INSTALLATION_ID = 'argocd.argoproj.io/installation-id';

export interface Tracking {
  method: TrackingMethod;
  /** application.instanceLabelKey (default app.kubernetes.io/instance). */
  labelKey: string;
  /** installationID: when set, only objects annotated with it are any app's. */
  installationID: string;
}

export const DEFAULT_TRACKING: Tracking = { method: 'annotation', labelKey: DEFAULT_INSTANCE_LABEL_KEY, installationID: '' };

/** Whether the app's ownership is read from the instance label (label tracking) rather than the tracking-id annotation. */
export function byLabel(t: Tracking): boolean {
  return t.method === 'label';
}

/** TruncateLabel: at most 63 characters, not ending in a special character (annotation+label's label). */
export function truncateLabel(value: string): string {
  if (value.length <= 63) return value;
  let v = value.slice(0, 63);
  while (!/[a-zA-Z0-9]$/.test(v)) {
    if (v.length <= 1) throw new Error('unable to truncate label to not end with a special character');
    v = v.slice(0, -1);
  }
  return v;
}

/** The mark an object carries under this method: the tracking-id value, or (label tracking) the label's value. */
export function markOf(obj: Pick<KubeObject, 'metadata'>, t: Tracking): string | undefined {
  return byLabel(t) ? obj.metadata.labels?.[t.labelKey] : obj.metadata.annotations?.[TRACKING_ID];
}

/**
 * Whether the object belongs to this Argo CD installation's apps at all (getAppInstanceValue): its
 * `argocd.argoproj.io/installation-id` annotation (none counts as empty) must equal the installationID, so with
 * no installationID set an object annotated with any id is no app's, and with one set only objects annotated
 * with it are. Label tracking reads the label alone (GetAppName), so the id does not count there.
 */
export function sameInstallation(obj: Pick<KubeObject, 'metadata'>, t: Tracking): boolean {
  if (byLabel(t)) return true;
  return (obj.metadata.annotations?.[INSTALLATION_ID] ?? '') === t.installationID;
}

/** What a metadata-only candidate list asks for (the gateway's list options of the same names): only objects carrying the method's mark. */
export function markFilter(t: Tracking): { withAnnotation?: string; labelSelector?: string } {
  return byLabel(t) ? { labelSelector: t.labelKey } : { withAnnotation: TRACKING_ID };
}

/** The app instance a mark names (the label value, or the tracking-id's app part). */
export function appOfMark(mark: string, t: Tracking): string {
  return byLabel(t) ? mark : (mark.split(':')[0] ?? '');
}

/**
 * Argo CD's resourceTracking.Normalize (util/argo/resource_tracking.go), which its diff applies to every (desired, live)
 * pair before comparing them (util/argo/diff/diff.go preDiffNormalize), for the comparison only: under annotation or
 * annotation+label tracking, a live object that carries the instance label with a value, and is not a
 * CustomResourceDefinition, is compared as carrying the desired object's tracking-id, and without the label when the
 * desired object has none. So an object labelled by label tracking (before a switch to annotation tracking), or one
 * with the label and another app's tracking-id, is not drift on those two fields. Returns `live` itself when nothing
 * applies, else a copy; never changes its inputs.
 */
export function normalizeTracking(desired: Pick<KubeObject, 'metadata'>, live: KubeObject, t: Tracking): KubeObject {
  if (byLabel(t)) return live;
  const label = live.metadata.labels?.[t.labelKey];
  if (label === undefined || label === '') return live;
  if (live.kind === 'CustomResourceDefinition' && live.apiVersion.startsWith('apiextensions.k8s.io/')) return live;
  const metadata = {
    ...live.metadata,
    annotations: { ...(live.metadata.annotations ?? {}), [TRACKING_ID]: desired.metadata.annotations?.[TRACKING_ID] ?? '' },
  };
  const desiredLabel = desired.metadata.labels?.[t.labelKey];
  if (desiredLabel === undefined || desiredLabel === '') {
    const { [t.labelKey]: _removed, ...labels } = live.metadata.labels ?? {};
    if (Object.keys(labels).length > 0) metadata.labels = labels;
    else delete metadata.labels;
  }
  return { ...live, metadata };
}
