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

/** The object's sync mode: its annotation over the Application's syncOptions. */
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
  const flag = (k: string, dflt: boolean) => {
    const v = opts.get(k);
    return v === 'true' ? true : v === 'false' ? false : dflt;
  };
  // gitops-engine ORs them (sync_context.go: sc.replace || the annotation's Replace=true): an annotation cannot switch off
  // the Application's (or the run's) Replace=true.
  const replace = app.replace === true || opts.get('Replace') === 'true';
  // gitops-engine: the operation's force or the object's Force=true.
  const force = app.force === true || flag('Force', false);
  return {
    replace,
    force,
    validate: flag('Validate', app.validate !== false),
    skipDryRunOnMissingResource: flag('SkipDryRunOnMissingResource', app.skipDryRunOnMissingResource === true),
    clientSideApply: opts.get('ServerSideApply') === 'false',
    // gitops-engine: the object's annotation, else the app's ServerSideApply=true.
    serverSideApply: flag('ServerSideApply', app.serverSideApply === true),
    warnings,
  };
}
