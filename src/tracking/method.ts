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
 * Whether the object belongs to this Argo CD installation's apps at all: with an installationID, only
 * objects annotated with that id do (getAppInstanceValue); label tracking ignores the id.
 */
export function sameInstallation(obj: Pick<KubeObject, 'metadata'>, t: Tracking): boolean {
  if (byLabel(t) || t.installationID === '') return true;
  return obj.metadata.annotations?.[INSTALLATION_ID] === t.installationID;
}

/** What a metadata-only candidate list asks for (the gateway's list options of the same names): only objects carrying the method's mark. */
export function markFilter(t: Tracking): { withAnnotation?: string; labelSelector?: string } {
  return byLabel(t) ? { labelSelector: t.labelKey } : { withAnnotation: TRACKING_ID };
}

/** The app instance a mark names (the label value, or the tracking-id's app part). */
export function appOfMark(mark: string, t: Tracking): string {
  return byLabel(t) ? mark : (mark.split(':')[0] ?? '');
}
