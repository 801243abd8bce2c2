// Per-resource `argocd.argoproj.io/sync-options` annotations (`Prune=false,ServerSideApply=true`), and what they
// change for one object's apply, with the Application's own syncOptions as the default (the annotation wins).
import type { SyncOptions } from '../app/types.js';
import { SYNC_OPTIONS } from '../model/keys.js';
import type { KubeObject } from '../model/object.js';

/** The object's sync options as a map (`Prune` -> `false`); keys as written. */
export function resourceSyncOptions(obj: KubeObject): Map<string, string> {
  const out = new Map<string, string>();
  const raw = obj.metadata.annotations?.[SYNC_OPTIONS];
  if (!raw) return out;
  for (const part of raw.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    // The first entry of a key is the one read, as gitops-engine's GetAnnotationOptionValue reads Prune= and Delete=.
    const key = part.slice(0, eq).trim();
    if (!out.has(key)) out.set(key, part.slice(eq + 1).trim());
  }
  return out;
}

/**
 * Whether the annotation holds the entry `option` (`Replace=true`), anywhere in it: gitops-engine's HasAnnotationOption,
 * by which Replace, Force, Validate=false, ServerSideApply, SkipDryRunOnMissingResource and PruneLast are read (Prune=
 * and Delete= are read from their first entry, resourceSyncOptions).
 */
export function hasSyncOption(obj: KubeObject | undefined, option: string): boolean {
  const raw = obj?.metadata.annotations?.[SYNC_OPTIONS];
  return raw !== undefined && raw.split(',').some((part) => part.trim() === option);
}

/** Every option gitops-engine and Argo CD read from a resource's annotation (gitops-engine pkg/sync, controller/state.go). */
const KNOWN: Readonly<Record<string, readonly string[]>> = {
  Prune: ['false', 'confirm', 'true'],
  Delete: ['false', 'confirm', 'true'],
  Validate: ['false', 'true'],
  Replace: ['true', 'false'],
  Force: ['true', 'false'],
  ServerSideApply: ['true', 'false'],
  PruneLast: ['true', 'false'],
  SkipDryRunOnMissingResource: ['true', 'false'],
};

/**
 * Options Argo CD reads only from the Application's spec.syncPolicy.syncOptions, never from a resource's annotation
 * (its controller asks `syncOp.SyncOptions.HasOption(...)` for them): written on a resource they do nothing there, and
 * this tool says so instead of honouring what Argo CD would not.
 */
const APPLICATION_ONLY = new Set([
  'RespectIgnoreDifferences',
  'ApplyOutOfSyncOnly',
  'CreateNamespace',
  'FailOnSharedResource',
  'PrunePropagationPolicy',
  'ClientSideApplyMigration',
]);

/** How one object is written by a sync. */
export interface ObjectSyncMode {
  /** `Replace=true`: PUT the whole object (POST when it is missing), as `kubectl replace`/`create`. */
  replace: boolean;
  /** `Force=true`: with Replace, delete the live object and create it again (`kubectl replace --force`); without, re-create it when the apply is refused (`kubectl apply --force`). */
  force: boolean;
  /** `Validate=false`: the API server ignores unknown and duplicate fields (fieldValidation=Ignore). */
  validate: boolean;
  /** `SkipDryRunOnMissingResource=true`: no dry-run when the object's kind is not served yet. */
  skipDryRunOnMissingResource: boolean;
  /** `ServerSideApply=false`: applied client-side, as `kubectl apply` (a three-way patch from the last-applied annotation). */
  clientSideApply: boolean;
  /** `ServerSideApply=true` on the object, or the app's: Argo CD would apply it server-side (and say `serverside-applied`). */
  serverSideApply: boolean;
  /** What the annotation says that is not followed, or not an option at all, one line each. */
  warnings: string[];
}

/**
 * The object's sync mode, as gitops-engine's sync_context.go reads it: Replace and Force from the desired object's
 * annotation or the Application's (applyObject reads t.targetObj only: a Replace=true put on the live object by hand
 * does nothing); Validate unless the Application or the annotation turns it off;
 * SkipDryRunOnMissingResource from either; ServerSideApply=false on the object wins, else the Application's or the
 * object's ServerSideApply=true. Each option is found anywhere in the annotation (HasAnnotationOption).
 */
export function objectSyncMode(
  obj: KubeObject,
  app: Partial<Pick<SyncOptions, 'replace' | 'validate' | 'skipDryRunOnMissingResource' | 'force' | 'serverSideApply'>>,
): ObjectSyncMode {
  const opts = resourceSyncOptions(obj);
  const warnings: string[] = [];
  for (const [k, v] of opts) {
    const allowed = KNOWN[k];
    if (APPLICATION_ONLY.has(k))
      warnings.push(`${SYNC_OPTIONS} ${k}=${v}: Argo CD reads ${k} only from the Application's spec.syncPolicy.syncOptions, not from a resource; ignored`);
    else if (!allowed) warnings.push(`${SYNC_OPTIONS} ${k}=${v} is not a sync option Argo CD knows; ignored`);
    else if (!allowed.includes(v)) warnings.push(`${SYNC_OPTIONS} ${k}=${v}: expected ${allowed.join(' or ')}; ignored`);
  }
  const has = (option: string) => hasSyncOption(obj, option);
  // gitops-engine ORs them (sync_context.go applyObject: sc.replace || the target's Replace=true): an annotation cannot
  // switch off the Application's (or the run's) Replace=true, nor Force.
  const replace = app.replace === true || has('Replace=true');
  const force = app.force === true || has('Force=true');
  const clientSideApply = has('ServerSideApply=false');
  return {
    replace,
    force,
    // sc.validate && !HasAnnotationOption(Validate=false): an annotation cannot switch on what the Application turned off.
    validate: app.validate !== false && !has('Validate=false'),
    skipDryRunOnMissingResource: app.skipDryRunOnMissingResource === true || has('SkipDryRunOnMissingResource=true'),
    clientSideApply,
    serverSideApply: !clientSideApply && (app.serverSideApply === true || has('ServerSideApply=true')),
    warnings,
  };
}
