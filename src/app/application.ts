// Parses and validates an Argo CD Application (argoproj.io/v1alpha1) object or file into the Application model.
import { readFile } from 'node:fs/promises';
import type { JsonObject, JsonValue } from '../model/object.js';
import { isPlainObject, PROPAGATION_POLICIES, type PropagationPolicy } from '../model/object.js';
import { COMPARE_OPTIONS, DEFAULT_APP_NAMESPACE } from '../model/keys.js';
import { InputError } from '../model/errors.js';
import type { Io } from '../model/context.js';
import { parseYamlValues } from '../manifest/parse.js';
import { parsePointer } from '../model/field-path.js';
import { parseSourceOptions } from './source-options.js';
import type { Application, AppSource, AutomatedPolicy, IgnoreDifference, OperationProgress, RetryPolicy, SyncOptions } from './types.js';
import { parseDuration } from '../model/duration.js';

const DEFAULT_SYNC_OPTIONS: SyncOptions = {
  createNamespace: false,
  pruneLast: false,
  serverSideApply: false,
  applyOutOfSyncOnly: false,
  respectIgnoreDifferences: false,
  failOnSharedResource: false,
  prunePropagationPolicy: 'foreground',
  prune: true,
};

const BOOL_OPTIONS: Record<string, keyof Omit<SyncOptions, 'prunePropagationPolicy' | 'delete'>> = {
  Replace: 'replace',
  Validate: 'validate',
  SkipDryRunOnMissingResource: 'skipDryRunOnMissingResource',
  CreateNamespace: 'createNamespace',
  PruneLast: 'pruneLast',
  ServerSideApply: 'serverSideApply',
  ApplyOutOfSyncOnly: 'applyOutOfSyncOnly',
  RespectIgnoreDifferences: 'respectIgnoreDifferences',
  FailOnSharedResource: 'failOnSharedResource',
  Prune: 'prune',
  ClientSideApplyMigration: 'clientSideApplyMigration',
};

/** The options that are on unless the Application turns them off (Argo CD reads `!HasOption("X=false")`). */
const DEFAULT_TRUE = new Set(['validate', 'clientSideApplyMigration', 'prune']);

/** PrunePropagationPolicy's precedence in controller/sync.go: the first case of its switch that matches wins. */
const POLICY_RANK: Record<PropagationPolicy, number> = { background: 0, foreground: 1, orphan: 2 };

/** The keys of a source that choose or configure how it is rendered. */
const SOURCE_OPTION_KEYS = ['chart', 'helm', 'kustomize', 'plugin', 'directory', 'ref'] as const;

/** Parses `syncOptions` strings; unknown or unsupported options become warnings. */
export function parseSyncOptions(list: readonly string[], warn: (w: string) => void): SyncOptions {
  const out: SyncOptions = { ...DEFAULT_SYNC_OPTIONS };
  let seenPolicy = false;
  const flipped = new Set<string>();
  for (const item of list) {
    const eq = item.indexOf('=');
    const name = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? '' : item.slice(eq + 1);
    const boolKey = BOOL_OPTIONS[name];
    if (name === 'PrunePropagationPolicy') {
      // controller/sync.go's switch: background over foreground over orphan, whatever their order in the list.
      if ((PROPAGATION_POLICIES as readonly string[]).includes(value)) {
        if (!seenPolicy || POLICY_RANK[value as PropagationPolicy] < POLICY_RANK[out.prunePropagationPolicy])
          out.prunePropagationPolicy = value as PropagationPolicy;
        seenPolicy = true;
      } else warn(`syncOptions ${item}: PrunePropagationPolicy must be foreground, background or orphan; using ${out.prunePropagationPolicy}`);
    } else if (name === 'Delete') {
      // GetOptionValue: the first Delete= entry is the one read.
      if (value !== 'false' && value !== 'confirm' && value !== 'true')
        warn(`syncOptions ${item}: expected Delete=false, Delete=confirm or Delete=true; ignored`);
      else if (out.delete === undefined) out.delete = value;
    } else if (name === 'Prune' && value === 'confirm') {
      out.pruneConfirm = true;
    } else if (boolKey) {
      // HasOption semantics: an entry that turns the option away from its default wins wherever it is in the list
      // (Replace=true, Validate=false …); one that repeats the default only counts when nothing else said otherwise.
      const flips = value === (DEFAULT_TRUE.has(boolKey) ? 'false' : 'true');
      if ((value === 'true' || value === 'false') && (flips || !flipped.has(boolKey))) {
        out[boolKey] = value === 'true';
        if (flips) flipped.add(boolKey);
      } else if (value !== 'true' && value !== 'false') warn(`syncOptions ${item}: expected ${name}=true or ${name}=false; ignored`);
    } else {
      warn(`syncOptions ${item}: not supported by kubectl-gitops; ignored`);
    }
  }
  return out;
}

type Checker = { at: string; origin: string };

function fail(c: Checker, field: string, msg: string): never {
  throw new InputError(`${c.origin}: Application ${field}: ${msg}`);
}

function optString(c: Checker, obj: JsonObject, field: string, path: string): string | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail(c, `${path}.${field}`, `must be a string, got ${typeof v}`);
  return v;
}

function optBool(c: Checker, obj: JsonObject, field: string, path: string): boolean {
  const v = obj[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') fail(c, `${path}.${field}`, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

function optObject(c: Checker, obj: JsonObject, field: string, path: string): JsonObject | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) fail(c, `${path}.${field}`, 'must be a map');
  return v;
}

function stringList(c: Checker, obj: JsonObject, field: string, path: string): string[] {
  const v = obj[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail(c, `${path}.${field}`, 'must be a list of strings');
  return v as string[];
}

/** Checks of a jq expression that need jq itself (compilation); supplied by the caller so that parsing stays synchronous and pure. */
export type JqCompileCheck = (expr: string) => Promise<string | undefined>;

/**
 * The Application model from an object; InputError naming `origin` and the field on any
 * type error. `source` is `spec.source`, or the first of `spec.sources` (`sourcesCount` says how many there are:
 * whether the source can be rendered is decided by source/renderability.ts, not here).
 */
/** The fields of Argo CD's ApplicationSpec, SyncPolicy and SyncPolicyAutomated (v3). */
const SPEC_FIELDS = new Set([
  'source',
  'sources',
  'sourceHydrator',
  'destination',
  'project',
  'syncPolicy',
  'ignoreDifferences',
  'info',
  'revisionHistoryLimit',
]);
const SYNC_POLICY_FIELDS = new Set(['automated', 'syncOptions', 'retry', 'managedNamespaceMetadata']);
const AUTOMATED_FIELDS = new Set(['prune', 'selfHeal', 'allowEmpty', 'enabled']);

function unknownFields(obj: JsonObject, known: ReadonlySet<string>, at: string, warnings: string[]): void {
  for (const k of Object.keys(obj))
    if (!known.has(k)) warnings.push(`Application ${at}.${k}: unknown field, ignored (the API server would drop it; kubectl apply warns of it)`);
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function parseApplication(obj: unknown, origin: string): Application {
  const c: Checker = { at: '', origin };
  if (!isPlainObject(obj)) throw new InputError(`${origin}: an Application must be a map`);
  if (obj.kind !== 'Application' || typeof obj.apiVersion !== 'string' || !obj.apiVersion.startsWith('argoproj.io/')) {
    throw new InputError(
      `${origin}: not an Argo CD Application (apiVersion argoproj.io/v1alpha1, kind Application); got ${String(obj.apiVersion)} ${String(obj.kind)}`,
    );
  }
  const warnings: string[] = [];
  const meta = optObject(c, obj, 'metadata', '') ?? fail(c, 'metadata', 'is missing');
  const name = optString(c, meta, 'name', 'metadata');
  if (!name) fail(c, 'metadata.name', 'is missing');
  // What the API server would take (an Application is a custom resource: its name a DNS subdomain, its namespace a DNS
  // label). Anything else never names an Application in a cluster, and its name would go into every object's
  // tracking-id (a `:` in it makes the mark unreadable, and the real app's objects would lose their owner).
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name))
    fail(
      c,
      'metadata.name',
      `${JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name)} is not a valid name (lower-case letters, digits, '-' and '.', at most 253, starting and ending with a letter or digit)`,
    );
  const namespace = optString(c, meta, 'namespace', 'metadata') ?? DEFAULT_APP_NAMESPACE;
  if (namespace.length > 63 || !DNS_LABEL.test(namespace))
    fail(c, 'metadata.namespace', `${JSON.stringify(namespace)} is not a valid namespace (lower-case letters, digits and '-', at most 63)`);
  const spec = optObject(c, obj, 'spec', '') ?? fail(c, 'spec', 'is missing');

  // Argo CD's Source Hydrator (ApplicationSpec.GetSource): the app syncs the hydrated manifests, from the dry source's
  // repoURL at syncSource.targetBranch and syncSource.path; spec.source and spec.sources then do not count.
  const hydratorObj = optObject(c, spec, 'sourceHydrator', 'spec');
  const hydrator = hydratorObj ? hydratorOf(c, hydratorObj) : undefined;
  // As Argo CD (ApplicationSpec.HasMultipleSources): a non-empty spec.sources wins over spec.source.
  const sourcesList = hydrator ? undefined : spec.sources;
  if (sourcesList !== undefined && sourcesList !== null && !Array.isArray(sourcesList)) fail(c, 'spec.sources', 'must be a list');
  const multi = Array.isArray(sourcesList) && sourcesList.length > 0;
  const readSource = (obj: JsonObject, at: string): AppSource => {
    const out: AppSource = {};
    for (const k of ['repoURL', 'path', 'targetRevision', 'ref', 'name'] as const) {
      const v = optString(c, obj, k, at);
      if (v !== undefined) out[k] = v;
    }
    const options = parseSourceOptions(obj, at, origin);
    if (Object.keys(options).length > 0) out.options = options;
    const raw: Record<string, JsonValue> = {};
    for (const k of SOURCE_OPTION_KEYS) if (obj[k] !== undefined && obj[k] !== null) raw[k] = obj[k];
    if (Object.keys(raw).length > 0) out.sourceOptions = raw;
    return out;
  };
  let sourceObj: JsonObject | undefined;
  let sourcesCount = 0;
  let sources: AppSource[] | undefined;
  if (multi) {
    sources = (sourcesList as JsonValue[]).map((s, i) => {
      if (!isPlainObject(s)) fail(c, `spec.sources[${i}]`, 'must be a map');
      return readSource(s, `spec.sources[${i}]`);
    });
    sourceObj = sourcesList[0] as JsonObject;
    sourcesCount = sources.length;
  } else if (hydrator) {
    sourceObj = { repoURL: hydrator.drySource.repoURL, path: hydrator.syncSource.path, targetRevision: hydrator.syncSource.targetBranch };
  } else {
    sourceObj = optObject(c, spec, 'source', 'spec');
  }
  const source: Application['source'] = {};
  const sourceOptions: Record<string, JsonValue> = {};
  if (sourceObj) {
    const first = sources?.[0] ?? readSource(sourceObj, 'spec.source');
    if (first.repoURL !== undefined) source.repoURL = first.repoURL;
    if (first.path !== undefined) source.path = first.path;
    if (first.targetRevision !== undefined) source.targetRevision = first.targetRevision;
    for (const k of SOURCE_OPTION_KEYS) {
      const v = sourceObj[k];
      if (v !== undefined && v !== null) sourceOptions[k] = v;
    }
    if (first.options) source.options = first.options;
  }
  const destObj = optObject(c, spec, 'destination', 'spec') ?? {};
  const destination: Application['destination'] = {};
  for (const k of ['namespace', 'server', 'name'] as const) {
    const v = optString(c, destObj, k, 'spec.destination');
    if (v !== undefined) destination[k] = v;
  }

  const policy = optObject(c, spec, 'syncPolicy', 'spec') ?? {};
  const autoObj = policy.automated;
  let automated: AutomatedPolicy | undefined;
  if (autoObj !== undefined && autoObj !== null) {
    if (!isPlainObject(autoObj)) fail(c, 'spec.syncPolicy.automated', 'must be a map');
    automated = {
      prune: optBool(c, autoObj, 'prune', 'spec.syncPolicy.automated'),
      selfHeal: optBool(c, autoObj, 'selfHeal', 'spec.syncPolicy.automated'),
      allowEmpty: optBool(c, autoObj, 'allowEmpty', 'spec.syncPolicy.automated'),
    };
    if (autoObj.enabled === false) automated = undefined;
  }
  const syncOptions = parseSyncOptions(stringList(c, policy, 'syncOptions', 'spec.syncPolicy'), (w) => warnings.push(w));
  const retry = parseRetry(c, optObject(c, policy, 'retry', 'spec.syncPolicy'));
  // A misspelt field (syncPolicyy) would be dropped by the API server, which kubectl apply warns of: so does this tool.
  unknownFields(spec, SPEC_FIELDS, 'spec', warnings);
  unknownFields(policy, SYNC_POLICY_FIELDS, 'spec.syncPolicy', warnings);
  if (isPlainObject(autoObj)) unknownFields(autoObj, AUTOMATED_FIELDS, 'spec.syncPolicy.automated', warnings);
  const managedNamespaceMetadata = managedNamespaceMetadataOf(c, policy);

  const ignoreDifferences = parseIgnoreDifferences(c, spec.ignoreDifferences);

  const app: Application = {
    name: name!,
    namespace,
    source,
    sourcesCount,
    ...(sources ? { sources } : {}),
    sourceOptions,
    destination,
    syncOptions,
    ignoreDifferences,
    warnings,
    origin,
  };
  const project = optString(c, spec, 'project', 'spec');
  if (project) app.project = project;
  const approval = pruneApprovalOf(meta, obj.status);
  if (approval) app.pruneApproval = approval;
  if (typeof meta.deletionTimestamp === 'string' && meta.deletionTimestamp !== '') app.deletingSince = meta.deletionTimestamp;
  const operation = operationOf(obj.operation, obj.status);
  if (operation) app.operation = operation;
  const conditions = conditionsOf(obj.status);
  if (conditions) app.conditions = conditions;
  const recordedNamespaces = recordedNamespacesOf(obj.status);
  if (recordedNamespaces) app.recordedNamespaces = recordedNamespaces;
  const annotations = meta.annotations;
  const csaManager = isPlainObject(annotations) ? annotations['argocd.argoproj.io/client-side-apply-migration-manager'] : undefined;
  if (typeof csaManager === 'string' && csaManager !== '') app.csaMigrationManager = csaManager;
  if (hydrator) app.hydrator = hydrator;
  const compare = compareOptionsOf(isPlainObject(annotations) ? annotations[COMPARE_OPTIONS] : undefined);
  if (compare) app.compareOptions = compare;
  if (automated) app.automated = automated;
  if (retry) app.retry = retry;
  if (managedNamespaceMetadata) {
    app.managedNamespaceMetadata = managedNamespaceMetadata;
    const state = isPlainObject(obj.status) ? obj.status.operationState : undefined;
    const result = isPlainObject(state) ? state.syncResult : undefined;
    if (isPlainObject(result) && !sameNamespaceMetadata(managedNamespaceMetadata, result.managedNamespaceMetadata)) {
      app.managedNamespaceMetadataChanged = true;
      warnings.push(
        'spec.syncPolicy.managedNamespaceMetadata differs from the one the last sync applied (status.operationState.syncResult): the app is OutOfSync until it is synced, as in Argo CD',
      );
    }
  }
  return app;
}

/** Whether the recorded managedNamespaceMetadata is the Application's (an empty map and none alike, as stored with omitempty). */
function sameNamespaceMetadata(spec: NonNullable<Application['managedNamespaceMetadata']>, recorded: JsonValue | undefined): boolean {
  const r = isPlainObject(recorded) ? recorded : {};
  const same = (a: Record<string, string> | undefined, b: JsonValue | undefined): boolean => {
    const x = a ?? {};
    const y = isPlainObject(b) ? b : {};
    return Object.keys(x).length === Object.keys(y).length && Object.entries(x).every(([k, v]) => y[k] === v);
  };
  return same(spec.labels, r.labels) && same(spec.annotations, r.annotations);
}

/**
 * spec.syncPolicy.managedNamespaceMetadata as Argo CD's ManagedNamespaceMetadata types it: maps of strings `labels` and
 * `annotations` (anything else is refused as the API server would). Used by a sync with CreateNamespace=true only.
 */
function managedNamespaceMetadataOf(c: Checker, policy: JsonObject): Application['managedNamespaceMetadata'] {
  const path = 'spec.syncPolicy.managedNamespaceMetadata';
  const m = optObject(c, policy, 'managedNamespaceMetadata', 'spec.syncPolicy');
  if (!m) return undefined;
  const strings = (field: string): Record<string, string> | undefined => {
    const v = optObject(c, m, field, path);
    if (!v) return undefined;
    for (const [k, x] of Object.entries(v)) if (typeof x !== 'string') fail(c, `${path}.${field}.${k}`, `must be a string, got ${JSON.stringify(x)}`);
    return { ...(v as Record<string, string>) };
  };
  const labels = strings('labels');
  const annotations = strings('annotations');
  return { ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) };
}

/** The requested operation (top-level `operation`) and the recorded one (status.operationState); anything malformed is left out. */
function operationOf(requested: JsonValue | undefined, status: JsonValue | undefined): OperationProgress | undefined {
  const state = isPlainObject(status) ? status.operationState : undefined;
  const op = isPlainObject(state) ? state : undefined;
  if (!isPlainObject(requested) && !op) return undefined;
  const text = (k: string) => (op && typeof op[k] === 'string' && op[k] !== '' ? { [k]: op[k] as string } : {});
  const result = op && isPlainObject(op.syncResult) ? op.syncResult : undefined;
  const revisions = result && Array.isArray(result.revisions) ? result.revisions.filter((r): r is string => typeof r === 'string') : [];
  const revision = result && typeof result.revision === 'string' && result.revision !== '' ? result.revision : revisions.join(',');
  return {
    requested: isPlainObject(requested),
    ...text('phase'),
    ...text('message'),
    ...text('startedAt'),
    ...text('finishedAt'),
    ...(revision !== '' ? { revision } : {}),
  };
}

/** status.conditions as stored: each with a type and a message (anything else left out). */
function conditionsOf(status: JsonValue | undefined): Application['conditions'] {
  const list = isPlainObject(status) && Array.isArray(status.conditions) ? status.conditions : [];
  const out = list.flatMap((c) =>
    isPlainObject(c) && typeof c.type === 'string' ? [{ type: c.type, message: typeof c.message === 'string' ? c.message : '' }] : [],
  );
  return out.length > 0 ? out : undefined;
}

/** The namespaces of status.resources' entries, sorted and once each (anything malformed is left out). */
function recordedNamespacesOf(status: JsonValue | undefined): string[] | undefined {
  const list = isPlainObject(status) && Array.isArray(status.resources) ? status.resources : [];
  const out = new Set<string>();
  for (const r of list) if (isPlainObject(r) && typeof r.namespace === 'string' && r.namespace !== '') out.add(r.namespace);
  return out.size > 0 ? [...out].sort() : undefined;
}

/** spec.sourceHydrator: the dry source (hydrated by Argo CD's commit server, not here) and where its hydrated manifests are. */
function hydratorOf(c: Checker, h: JsonObject): NonNullable<Application['hydrator']> {
  const dry = optObject(c, h, 'drySource', 'spec.sourceHydrator') ?? fail(c, 'spec.sourceHydrator.drySource', 'is missing');
  const sync = optObject(c, h, 'syncSource', 'spec.sourceHydrator') ?? fail(c, 'spec.sourceHydrator.syncSource', 'is missing');
  const repoURL = optString(c, dry, 'repoURL', 'spec.sourceHydrator.drySource') ?? fail(c, 'spec.sourceHydrator.drySource.repoURL', 'is missing');
  const targetBranch =
    optString(c, sync, 'targetBranch', 'spec.sourceHydrator.syncSource') ?? fail(c, 'spec.sourceHydrator.syncSource.targetBranch', 'is missing');
  const hydrateTo = optObject(c, h, 'hydrateTo', 'spec.sourceHydrator');
  const to = hydrateTo ? optString(c, hydrateTo, 'targetBranch', 'spec.sourceHydrator.hydrateTo') : undefined;
  return {
    drySource: {
      repoURL,
      targetRevision: optString(c, dry, 'targetRevision', 'spec.sourceHydrator.drySource') ?? '',
      path: optString(c, dry, 'path', 'spec.sourceHydrator.drySource') ?? '',
    },
    syncSource: { targetBranch, path: optString(c, sync, 'path', 'spec.sourceHydrator.syncSource') ?? '' },
    ...(to !== undefined ? { hydrateTo: { targetBranch: to } } : {}),
  };
}

/**
 * The Application's own `argocd.argoproj.io/compare-options` annotation, as Argo CD's controller reads it
 * (controller/state.go): `ServerSideDiff=true|false` (over the controller's setting) and `IncludeMutationWebhook=true`.
 */
function compareOptionsOf(value: JsonValue | undefined): Application['compareOptions'] {
  if (typeof value !== 'string') return undefined;
  const opts = value.split(',').map((o) => o.trim());
  const out: NonNullable<Application['compareOptions']> = {};
  if (opts.includes('ServerSideDiff=true')) out.serverSideDiff = true;
  if (opts.includes('ServerSideDiff=false')) out.serverSideDiff = false;
  if (opts.includes('IncludeMutationWebhook=true')) out.includeMutationWebhook = true;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Argo CD's annotation that approves a prune waiting for confirmation (an RFC 3339 time). */
const DELETION_APPROVED = 'argocd.argoproj.io/deletion-approved';

/** gitops-engine's operation message while a prune waits for its confirmation (the start of it). */
export const WAITING_FOR_PRUNE_CONFIRMATION = 'Waiting for pruning confirmation of';

/** The approval annotation and the start of a stored operation waiting for it; anything malformed is left out. */
function pruneApprovalOf(meta: JsonObject, status: JsonValue | undefined): Application['pruneApproval'] {
  const annotations = meta.annotations;
  const approvedAt = isPlainObject(annotations) && typeof annotations[DELETION_APPROVED] === 'string' ? annotations[DELETION_APPROVED] : undefined;
  const op = isPlainObject(status) ? status.operationState : undefined;
  const waiting =
    isPlainObject(op) &&
    op.phase === 'Running' &&
    typeof op.message === 'string' &&
    // Argo CD's spelling, and this tool's before it took it (lower-case w), both read.
    op.message.toLowerCase().startsWith(WAITING_FOR_PRUNE_CONFIRMATION.toLowerCase()) &&
    typeof op.startedAt === 'string'
      ? op.startedAt
      : undefined;
  if (approvedAt === undefined && waiting === undefined) return undefined;
  return { ...(approvedAt !== undefined ? { approvedAt } : {}), ...(waiting !== undefined ? { waitingSince: waiting } : {}) };
}

/**
 * Argo CD's IsDeletionConfirmed: the approval's time parses (RFC 3339) and is not before `sinceMs`, the start of the
 * operation (for a sync that continues a stored operation waiting for confirmation, that operation's start).
 */
export function isDeletionApproved(app: Pick<Application, 'pruneApproval'>, nowMs: number): boolean {
  const at = app.pruneApproval?.approvedAt;
  if (at === undefined || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(at)) return false;
  const approvedMs = Date.parse(at);
  if (Number.isNaN(approvedMs)) return false;
  const stored = app.pruneApproval?.waitingSince !== undefined ? Date.parse(app.pruneApproval.waitingSince) : Number.NaN;
  // Kubernetes stores times in whole seconds (metav1.Time), and so does an approval written with `date -u +%FT%TZ`.
  const since = Math.floor((Number.isNaN(stored) ? nowMs : stored) / 1000) * 1000;
  return approvedMs >= since;
}

/** Argo CD's retry defaults (application_defaults.go): 5s, factor 2, at most 3m. */
export const DEFAULT_RETRY_BACKOFF = { durationMs: 5000, factor: 2, maxDurationMs: 180_000 } as const;

function parseRetry(c: Checker, r: JsonObject | undefined): RetryPolicy | undefined {
  if (!r) return undefined;
  const at = 'spec.syncPolicy.retry';
  const limit = r.limit ?? 0;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < -1)
    fail(c, `${at}.limit`, `must be a whole number (-1 for no limit), got ${JSON.stringify(limit)}`);
  const b = optObject(c, r, 'backoff', at) ?? {};
  const duration = (k: string, def: number): number => {
    const v = b[k];
    if (v === undefined || v === null) return def;
    if (typeof v === 'number') return v * 1000;
    if (typeof v !== 'string') fail(c, `${at}.backoff.${k}`, 'must be a duration such as 5s or 3m');
    try {
      return parseDuration(v, `${at}.backoff.${k}`);
    } catch (err) {
      fail(c, `${at}.backoff.${k}`, (err as Error).message);
    }
  };
  const factor = b.factor ?? DEFAULT_RETRY_BACKOFF.factor;
  if (typeof factor !== 'number' || factor < 1) fail(c, `${at}.backoff.factor`, `must be a number of at least 1, got ${JSON.stringify(factor)}`);
  const refresh = optBool(c, r, 'refresh', at);
  return {
    limit: limit as number,
    durationMs: duration('duration', DEFAULT_RETRY_BACKOFF.durationMs),
    factor,
    maxDurationMs: duration('maxDuration', DEFAULT_RETRY_BACKOFF.maxDurationMs),
    ...(refresh ? { refresh: true } : {}),
  };
}

function parseIgnoreDifferences(c: Checker, v: JsonValue | undefined): IgnoreDifference[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(c, 'spec.ignoreDifferences', 'must be a list');
  return v.map((r, i) => {
    const at = `spec.ignoreDifferences[${i}]`;
    if (!isPlainObject(r)) fail(c, at, 'must be a map');
    const rule: IgnoreDifference = {
      group: optString(c, r, 'group', at) ?? '',
      kind: optString(c, r, 'kind', at) ?? '',
      jsonPointers: stringList(c, r, 'jsonPointers', at),
      jqPathExpressions: stringList(c, r, 'jqPathExpressions', at),
      managedFieldsManagers: stringList(c, r, 'managedFieldsManagers', at),
    };
    const name = optString(c, r, 'name', at);
    const namespace = optString(c, r, 'namespace', at);
    if (name) rule.name = name;
    if (namespace) rule.namespace = namespace;
    if (!rule.kind) fail(c, `${at}.kind`, 'is required');
    rule.jsonPointers.forEach((p, j) => {
      try {
        parsePointer(p);
        if (p === '') throw new Error('an empty pointer would ignore the whole object');
      } catch (err) {
        fail(c, `${at}.jsonPointers[${j}]`, `${JSON.stringify(p)} is not a JSON pointer: it must start with /`);
        void err;
      }
    });
    rule.jqPathExpressions.forEach((e, j) => {
      if (e.trim() === '') fail(c, `${at}.jqPathExpressions[${j}]`, 'is empty');
    });
    return rule;
  });
}

/** jq's first line without its shell-quoting hint, which does not apply to a YAML file. */
function tidyJqError(err: string): string {
  return err.split('\n')[0]!.replace(' (Unix shell quoting issues?)', '').replace(/:\s*$/, '').trim();
}

/** Compiles every jq expression of the rules with real jq; InputError naming the rule on the first that does not compile. */
async function validateJqExpressions(app: Application, compile: JqCompileCheck): Promise<void> {
  for (const [i, r] of app.ignoreDifferences.entries()) {
    for (const [j, e] of r.jqPathExpressions.entries()) {
      const err = await compile(e);
      if (err)
        throw new InputError(
          `${app.origin}: Application spec.ignoreDifferences[${i}].jqPathExpressions[${j}] ${JSON.stringify(e)} does not compile: ${tidyJqError(err)}`,
        );
    }
  }
}

/** The error for an Application file that cannot be read. */
export function applicationFileError(path: string, err: unknown): InputError {
  return new InputError(`reading Application file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
}

/** How standard input is named in messages about an Application read from it (`-f -`). */
const STDIN_ORIGIN = '<stdin>';

/**
 * Reads an Application from a YAML or JSON file (the first non-empty document), validated; jq expressions are compiled.
 * `-` is standard input, as kubectl's `-f -` (through `io`, whose readStdin gives the same text to every call).
 */
export async function loadApplicationFile(path: string, opts: { compileJq?: JqCompileCheck; io?: Pick<Io, 'readStdin'> } = {}): Promise<Application> {
  let text: string;
  const origin = path === '-' ? STDIN_ORIGIN : path;
  if (path === '-') {
    if (!opts.io) throw new InputError('reading the Application from standard input (-f -): no standard input available');
    text = await opts.io.readStdin();
  } else {
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw applicationFileError(path, err);
    }
  }
  const [value, ...more] = parseYamlValues(text, origin);
  if (value === undefined) throw new InputError(`${origin}: no Application found (${path === '-' ? 'standard input is empty' : 'the file is empty'})`);
  // One Application per file: a second document would be ignored, and the command act on the first alone.
  if (more.length > 0)
    throw new InputError(
      `${origin}: holds ${more.length + 1} YAML documents; -f takes one Application (act on each with its own command, or apply them and use --all)`,
    );
  const app = parseApplication(value, origin);
  if (app.ignoreDifferences.some((r) => r.jqPathExpressions.length > 0)) {
    const compile =
      opts.compileJq ??
      (async (e: string) => {
        const { jqRunner } = await import('../jq/runner.js');
        return (await jqRunner()).compiles(e);
      });
    await validateJqExpressions(app, compile);
  }
  return app;
}
