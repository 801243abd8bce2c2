// What a change to the Application object itself asks of its loop, as Argo CD's controller reads an update of its
// Application informer (controller/appcontroller.go: needRefreshAppStatus): a refresh requested through the
// `argocd.argoproj.io/refresh` annotation (`argocd app get --refresh`, the UI's Refresh button, kubectl annotate), a
// changed spec, or a deletion begun are looked at now, not at the next poll. A change of the status alone (what the
// loop records itself) asks for nothing.
import { isPlainObject, type JsonObject, type JsonValue, type KubeObject } from '../model/object.js';
import { sourceFingerprint, type LastOperation } from './decide.js';

export const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';

function obj(v: unknown): JsonObject {
  return isPlainObject(v) ? v : {};
}

/** Whether the Application declares spec.sources (Argo CD's HasMultipleSources; a source hydrator app never does). */
function multipleSources(app: KubeObject): boolean {
  const spec = obj(app.spec);
  return spec.sourceHydrator === undefined && Array.isArray(spec.sources) && spec.sources.length > 0;
}

/** A fingerprint of spec.source(s), as Argo CD's alreadyAttemptedSync compares it (GetSource for a hydrator app). */
export function specSourceOf(app: KubeObject): string | undefined {
  const spec = obj(app.spec);
  if (multipleSources(app)) return sourceFingerprint(spec.sources);
  const hydrator = obj(spec.sourceHydrator);
  if (spec.sourceHydrator !== undefined) {
    const dry = obj(hydrator.drySource);
    const sync = obj(hydrator.syncSource);
    return sourceFingerprint({ repoURL: dry.repoURL, path: sync.path, targetRevision: sync.targetBranch });
  }
  return sourceFingerprint(spec.source ?? {});
}

/**
 * status.operationState as the loop decides from it (Argo CD's autoSync reads it every time): syncResult's revision(s)
 * and source(s), the phase, the message, the times and operation.sync.autoHealAttemptsCount (Go's SelfHealAttemptsCount,
 * `json:"autoHealAttemptsCount"`: what Argo CD's controller and this loop write); absent when none is recorded.
 */
export function recordedOperationOf(app: KubeObject): LastOperation | undefined {
  const state = obj(app.status).operationState;
  if (!isPlainObject(state) || typeof state.phase !== 'string') return undefined;
  const result = isPlainObject(state.syncResult) ? state.syncResult : undefined;
  const many = multipleSources(app);
  const revisions = !result
    ? []
    : many
      ? (Array.isArray(result.revisions) ? result.revisions : []).map((r) => (typeof r === 'string' ? r : ''))
      : [typeof result.revision === 'string' ? result.revision : ''];
  const time = (v: JsonValue | undefined) => (typeof v === 'string' && Number.isFinite(Date.parse(v)) ? Date.parse(v) : undefined);
  const count = obj(obj(state.operation).sync).autoHealAttemptsCount;
  const source = result ? sourceFingerprint(many ? result.sources : (result.source ?? {})) : undefined;
  const finishedAt = time(state.finishedAt);
  return {
    revisions,
    ...(source !== undefined ? { source } : {}),
    hasResult: result !== undefined,
    phase: state.phase,
    message: typeof state.message === 'string' ? state.message : '',
    startedAt: time(state.startedAt) ?? 0,
    ...(finishedAt !== undefined ? { finishedAt } : {}),
    ...(typeof count === 'number' ? { selfHealAttempts: count } : {}),
  };
}

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
