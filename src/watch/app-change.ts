// What a change to the Application object itself asks of its loop, as Argo CD's controller reads an update of its
// Application informer (controller/appcontroller.go: needRefreshAppStatus): a refresh requested through the
// `argocd.argoproj.io/refresh` annotation (`argocd app get --refresh`, the UI's Refresh button, kubectl annotate), a
// changed spec, or a deletion begun are looked at now, not at the next poll. A change of the status alone (what the
// loop records itself) asks for nothing.
import { isPlainObject, type KubeObject } from '../model/object.js';

export const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';

/** What the loop remembers of its Application between two of its changes. */
export interface AppSeen {
  spec: string;
  deleting: boolean;
  /** The refresh annotation's value (absent: none): a request is served once, however many updates carry it. */
  refresh?: string;
}

export interface AppChange {
  seen: AppSeen;
  /** Look now (the source re-resolved, as a poll). */
  wake: boolean;
  /** The refresh the annotation asks for: `hard` also bypasses the render cache. */
  refresh?: 'normal' | 'hard';
  /** Why, for the log. */
  why?: string;
}

/** The change `app` is against what was `seen` (undefined: the first sight, which only remembers, bar a refresh asked). */
export function appChangeOf(seen: AppSeen | undefined, app: KubeObject): AppChange {
  const asked = app.metadata.annotations?.[REFRESH_ANNOTATION];
  const now: AppSeen = {
    spec: JSON.stringify(isPlainObject(app.spec) ? app.spec : null),
    deleting: app.metadata.deletionTimestamp !== undefined,
    ...(asked !== undefined ? { refresh: asked } : {}),
  };
  // Argo CD reads any value other than `hard` as a normal refresh (Application.IsRefreshRequested).
  if (asked !== undefined && asked !== seen?.refresh)
    return { seen: now, wake: true, refresh: asked === 'hard' ? 'hard' : 'normal', why: `${REFRESH_ANNOTATION}=${asked}` };
  if (seen === undefined) return { seen: now, wake: false };
  if (now.deleting && !seen.deleting) return { seen: now, wake: true, why: 'the Application is being deleted' };
  if (now.spec !== seen.spec) return { seen: now, wake: true, why: 'the Application spec changed' };
  return { seen: now, wake: false };
}
