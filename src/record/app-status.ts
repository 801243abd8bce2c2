// The Application's status as Argo CD's controller keeps it (v1alpha1 ApplicationStatus), built from our reports; pure.
import type { StatusReport } from '../health/report.js';
import { isPlainObject, type JsonObject, type JsonValue, type KubeObject } from '../model/object.js';

/** The field manager our status writes are made under (never the apply manager: the record is not part of the app). */
export const RECORD_FIELD_MANAGER = 'kubectl-gitops';

/** Argo CD's controller writes under its binary's name (client-go's default field manager). */
const ARGO_CONTROLLER_MANAGER = 'argocd-application-controller';

/**
 * How recent a write of Argo CD's controller must be for the Application to count as managed by one: it refreshes
 * every app at least every timeout.reconciliation (180 s by default, plus up to 60 s of jitter), writing reconciledAt.
 */
const CONTROLLER_RECENT_MS = 10 * 60_000;

/** Argo CD's default spec.revisionHistoryLimit. */
const DEFAULT_HISTORY_LIMIT = 10;

/** Who started a sync, as Argo CD's OperationInitiator. */
export type Initiator = { username: string } | { automated: true };

/** What the comparison after a command gives the record. */
export interface ComparedState {
  report: StatusReport;
  /** The served version of each resource, by `group/kind/namespace/name`. */
  versions: Readonly<Record<string, string>>;
  /** The container images of the live objects (summary.images). */
  images: readonly string[];
  /** The sync wave of each desired object whose wave is not 0 (status.resources' syncWave), by `group/kind/namespace/name`. */
  waves?: Readonly<Record<string, number>>;
  /** Each live resource's container images (a sync result's `images`), by `group/kind/namespace/name`. */
  resourceImages?: Readonly<Record<string, readonly string[]>>;
}

/**
 * A time as Kubernetes writes a metav1.Time (RFC 3339 to the second, UTC), as Argo CD's controller's are: a sub-second
 * part would be the only field of the record that tells who wrote it.
 */
export function kubeTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

/** A finished sync operation, for operationState and the history. */
export interface SyncOperation {
  initiatedBy: Initiator;
  startedAt: string;
  finishedAt: string;
  revision?: string;
  /** Each source's revision, in spec.sources order (a multi-source Application). */
  revisions?: string[];
  prune: boolean;
  dryRun: false;
  /**
   * `Succeeded`; `Failed` with the message (a task failed, a shared resource refused); `Error` when the operation could
   * not run at all (the source did not render, the destination was unreachable, a rule refused it), as Argo CD's
   * controller sets OperationError; `Running` while its prune waits for a confirmation (Prune=confirm), as Argo CD's
   * operation stays Running until the deletion is approved (no finishedAt, no SyncError, no history).
   */
  phase: 'Succeeded' | 'Failed' | 'Error' | 'Running';
  message: string;
  resources: SyncResultResource[];
  /** Retries made (Argo CD's retryCount). */
  retryCount?: number;
  /** A partial sync (--resource, -l): Argo CD's selective sync writes no history. */
  partial: boolean;
  /** The run's own sync options (they replaced the Application's), as operation.sync.syncOptions. */
  syncOptions?: string[];
  /** The run's strategy, as operation.sync.syncStrategy. */
  syncStrategy?: { hook?: { force?: true }; apply?: { force?: true } };
  /**
   * A self-heal of the automated loop: how many self-heals in a row this one is (Argo CD's SyncOperation
   * SelfHealAttemptsCount, stored as operation.sync.autoHealAttemptsCount; 0 or absent: not a self-heal).
   */
  selfHealAttemptsCount?: number;
}

export interface SyncResultResource {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  /** Synced, SyncFailed, Pruned, PruneSkipped; absent for a hook created (Argo CD sets it only when the creation failed). */
  status?: string;
  message: string;
  syncPhase: string;
  /** The task's state, for every task as gitops-engine keeps it: Running, Succeeded, Failed. */
  hookPhase?: string;
  hookType?: string;
  /** The applied object's container images (a workload's). */
  images?: string[];
}

export function resourceId(r: { group: string; kind: string; namespace: string; name: string }): string {
  return `${r.group}/${r.kind}/${r.namespace}/${r.name}`;
}

/** The write of Argo CD's controller that makes it the Application's keeper (within `recentMs` of `nowMs`), if any. */
export function controllerWrite(app: KubeObject, nowMs: number, recentMs = CONTROLLER_RECENT_MS): { manager: string; time: string } | undefined {
  for (const m of app.metadata.managedFields ?? []) {
    if (!m.manager?.startsWith(ARGO_CONTROLLER_MANAGER) || m.time === undefined) continue;
    const t = Date.parse(m.time);
    if (Number.isFinite(t) && nowMs - t <= recentMs) return { manager: m.manager, time: m.time };
  }
  return undefined;
}

function obj(v: unknown): JsonObject {
  return isPlainObject(v) ? (v as JsonObject) : {};
}

/** `spec.source` or `spec.sources`, as the Application declares them (Argo CD's comparedTo and history keep them so). */
function sourcesOf(app: KubeObject): { source?: JsonObject; sources?: JsonObject[] } {
  const spec = obj(app.spec);
  if (isPlainObject(spec.source)) return { source: structuredClone(spec.source as JsonObject) };
  if (Array.isArray(spec.sources)) return { sources: structuredClone(spec.sources.filter(isPlainObject) as JsonObject[]) };
  return {};
}

/** spec.revisionHistoryLimit, or Argo CD's default of 10. */
export function historyLimit(app: KubeObject): number {
  const v = obj(app.spec).revisionHistoryLimit;
  return typeof v === 'number' && Number.isInteger(v) ? v : DEFAULT_HISTORY_LIMIT;
}

/** One entry of status.history, as Argo CD's RevisionHistory. */
export interface HistoryEntry {
  id: number;
  revision?: string;
  revisions?: string[];
  deployedAt: string;
  deployStartedAt?: string;
  source?: JsonObject;
  sources?: JsonObject[];
  initiatedBy?: JsonObject;
}

/** status.history as stored (entries that are not maps, or have no numeric id, are left out). */
export function historyOf(app: KubeObject): HistoryEntry[] {
  const h = obj(app.status).history;
  if (!Array.isArray(h)) return [];
  return h.filter((e): e is JsonObject => isPlainObject(e) && typeof (e as JsonObject).id === 'number').map((e) => e as unknown as HistoryEntry);
}

/**
 * Appends an entry with the next id (the last one's + 1, from 0 when the history is empty) and keeps the newest
 * `limit`, as Argo CD's persistRevisionHistory and RevisionHistories.Trunc: a limit of 0 or less keeps none (so the
 * ids start again from 0).
 */
export function appendHistory(history: readonly HistoryEntry[], entry: Omit<HistoryEntry, 'id'>, limit: number): HistoryEntry[] {
  const last = history[history.length - 1];
  const next = [...history, { id: last ? last.id + 1 : 0, ...entry }];
  return limit <= 0 ? [] : next.slice(-limit);
}

function healthOf(h: { status: string; message: string } | undefined): JsonObject | undefined {
  if (!h) return undefined;
  return { status: h.status, ...(h.message ? { message: h.message } : {}) };
}

/** A condition, keeping the previous lastTransitionTime when the same type and message were there already. */
function condition(type: string, message: string, now: string, previous: readonly JsonValue[]): JsonObject {
  const same = previous.find((c) => isPlainObject(c) && c.type === type && c.message === message) as JsonObject | undefined;
  return { type, message, lastTransitionTime: typeof same?.lastTransitionTime === 'string' ? same.lastTransitionTime : now };
}

/**
 * The comparison's part of the status: sync (status, comparedTo, revision), health, resources, summary, sourceType,
 * reconciledAt and conditions. `previous` is the status as stored (health's lastTransitionTime is kept while the
 * status stays the same). The Application object gives comparedTo's source and destination.
 */
export function comparedStatus(app: KubeObject, c: ComparedState, now: string, warnings: readonly string[] = []): JsonObject {
  const previous = obj(app.status);
  const spec = obj(app.spec);
  const r = c.report;
  const comparedTo: JsonObject = { ...sourcesOf(app), destination: structuredClone(obj(spec.destination)) };
  if (Array.isArray(spec.ignoreDifferences) && spec.ignoreDifferences.length > 0) comparedTo.ignoreDifferences = structuredClone(spec.ignoreDifferences);
  const revision = r.source.revision;
  const sync: JsonObject = { status: r.sync.status, comparedTo };
  if (comparedTo.sources) {
    const revisions = r.sources?.map((x) => x.revision) ?? (revision ? [revision] : []);
    if (revisions.length > 0) sync.revisions = revisions;
  } else if (revision) sync.revision = revision;
  const prevHealth = obj(previous.health);
  const health: JsonObject = { status: r.health.status };
  health.lastTransitionTime = prevHealth.status === r.health.status && typeof prevHealth.lastTransitionTime === 'string' ? prevHealth.lastTransitionTime : now;
  // Argo CD's ResourceStatus: group and syncWave are `omitempty` (a core kind has no group; wave 0 is left out).
  const entry = (res: { group: string; kind: string; namespace: string; name: string }): JsonObject => ({
    ...(res.group ? { group: res.group } : {}),
    version: c.versions[resourceId(res)] ?? '',
    kind: res.kind,
    ...(res.namespace ? { namespace: res.namespace } : {}),
    name: res.name,
  });
  const resources: JsonObject[] = r.resources.map((res) => {
    const out = entry(res);
    // Argo CD leaves the sync status out for an extra that does not count (IgnoreExtraneous).
    if (res.countsForSync) out.status = res.status;
    const h = healthOf(res.health);
    if (h) out.health = h;
    if (res.requiresPruning) out.requiresPruning = true;
    const wave = c.waves?.[resourceId(res)];
    if (wave) out.syncWave = wave;
    return out;
  });
  // The hooks still live are Argo CD's resources too: `hook: true`, no sync status, and, live with the app's mark and
  // no desired object (hooks are split off the desired set), `requiresPruning: true`, as its comparison sets it.
  for (const hook of r.hooks ?? []) resources.push({ ...entry(hook), hook: true, requiresPruning: true });
  const prevConditions = Array.isArray(previous.conditions) ? previous.conditions : [];
  const conditions: JsonObject[] = [];
  if (r.sync.reason !== undefined) conditions.push(condition('ComparisonError', r.sync.reason, now, prevConditions));
  for (const res of r.resources)
    if (res.error !== undefined) conditions.push(condition('ComparisonError', `${res.kind}/${res.name}: ${res.error}`, now, prevConditions));
  // Argo CD's condition for an AppProject with orphanedResources.warn: true (getResourceTree).
  if (r.orphaned?.warn && r.orphaned.resources.length > 0)
    conditions.push(condition('OrphanedResourceWarning', `Application has ${r.orphaned.resources.length} orphaned resources`, now, prevConditions));
  for (const w of warnings) {
    if (w.includes('(SharedResourceWarning)'))
      conditions.push(condition('SharedResourceWarning', w.replace(/ \(SharedResourceWarning\)$/, ''), now, prevConditions));
  }
  const out: JsonObject = {
    sync,
    health,
    resources,
    summary: c.images.length > 0 ? { images: [...c.images].sort() } : {},
    reconciledAt: now,
  };
  if (r.source.type) out.sourceType = r.source.type;
  if (conditions.length > 0) out.conditions = conditions;
  return out;
}

/** `revision` for one source, `revisions` (one per source) for spec.sources, as Argo CD keeps them; empty when unknown. */
function revisionFields(op: Pick<SyncOperation, 'revision' | 'revisions'>, used: { sources?: JsonObject[] }): { revision?: string; revisions?: string[] } {
  if (used.sources !== undefined) {
    const revisions = op.revisions ?? (op.revision ? [op.revision] : undefined);
    return revisions && revisions.length > 0 ? { revisions: [...revisions] } : {};
  }
  return op.revision ? { revision: op.revision } : {};
}

/** status.operationState for a finished sync, as Argo CD's OperationState; `used` is the source(s) it synced. */
function operationState(
  op: SyncOperation,
  used: { source?: JsonObject; sources?: JsonObject[] },
  appSyncOptions: readonly string[],
  managedNamespaceMetadata: JsonObject | undefined,
): JsonObject {
  const revision = revisionFields(op, used);
  // The run's own options, else the Application's: Argo CD's API server (a manual sync) and its controller (an automated
  // one) copy spec.syncPolicy.syncOptions into the operation.
  const syncOptions = op.syncOptions ?? (appSyncOptions.length > 0 ? appSyncOptions : undefined);
  // Every sync names what it syncs: the API server's Sync and Rollback and the controller's autoSync set the source
  // (one source) or the sources.
  const sourceFields: JsonObject = used.sources !== undefined ? { sources: used.sources } : used.source ? { source: used.source } : {};
  return {
    operation: {
      sync: {
        ...revision,
        ...structuredClone(sourceFields),
        // SyncOperation's prune is `omitempty`.
        ...(op.prune ? { prune: true } : {}),
        ...(syncOptions ? { syncOptions: [...syncOptions] } : {}),
        ...(op.syncStrategy ? { syncStrategy: JSON.parse(JSON.stringify(op.syncStrategy)) as JsonObject } : {}),
        // Go's SelfHealAttemptsCount is `json:"autoHealAttemptsCount,omitempty"`: what autoSync reads back for its back-off.
        ...(op.selfHealAttemptsCount ? { autoHealAttemptsCount: op.selfHealAttemptsCount } : {}),
      },
      initiatedBy: { ...op.initiatedBy } as JsonObject,
      retry: {},
    },
    phase: op.phase,
    message: op.message,
    syncResult: {
      // Argo CD leaves resources out of an operation that never reached its tasks.
      ...(op.resources.length > 0 || op.phase !== 'Error' ? { resources: op.resources.map((r) => ({ ...r }) as unknown as JsonObject) } : {}),
      ...revision,
      ...(used.sources !== undefined ? { sources: used.sources } : used.source ? { source: used.source } : {}),
      // As Argo CD's controller records it (controller/sync.go): what HasChangedManagedNamespaceMetadata compares with.
      ...(managedNamespaceMetadata !== undefined ? { managedNamespaceMetadata } : {}),
    },
    startedAt: op.startedAt,
    ...(op.phase === 'Running' ? {} : { finishedAt: op.finishedAt }),
    ...(op.retryCount ? { retryCount: op.retryCount } : {}),
  };
}

/**
 * The status after a command: the stored one with the comparison's fields replaced and, for a sync, its operationState
 * and (when it succeeded and was not partial) one more history entry, capped at revisionHistoryLimit. `syncedSource`
 * is what the sync used when it is not spec.source(s) (a rollback syncs a recorded source).
 */
export function nextStatus(
  app: KubeObject,
  input: {
    compared?: ComparedState;
    warnings?: readonly string[];
    sync?: SyncOperation;
    syncedSource?: { source?: JsonObject; sources?: JsonObject[] };
    now: string;
  },
): JsonObject {
  const out: JsonObject = { ...structuredClone(obj(app.status)) };
  const previous = Array.isArray(out.conditions) ? out.conditions : [];
  // SyncError belongs to the last operation, not to the comparison: it stays until the next sync says otherwise.
  let syncError = previous.filter((c) => isPlainObject(c) && c.type === 'SyncError') as JsonObject[];
  if (input.compared) {
    const compared = comparedStatus(app, input.compared, input.now, input.warnings);
    if (!('conditions' in compared)) delete out.conditions;
    Object.assign(out, compared);
  }
  const op = input.sync;
  if (op) syncError = op.phase === 'Succeeded' || op.phase === 'Running' ? [] : [condition('SyncError', op.message, input.now, previous)];
  const kept = (Array.isArray(out.conditions) ? out.conditions : []).filter((c) => !(isPlainObject(c) && c.type === 'SyncError'));
  if (kept.length + syncError.length > 0) out.conditions = [...kept, ...syncError];
  else delete out.conditions;
  if (op) {
    const used = input.syncedSource ?? sourcesOf(app);
    const policy = obj(obj(app.spec).syncPolicy);
    const declared = policy.syncOptions;
    const managed = isPlainObject(policy.managedNamespaceMetadata) ? (structuredClone(policy.managedNamespaceMetadata) as JsonObject) : undefined;
    out.operationState = operationState(op, used, Array.isArray(declared) ? declared.filter((o): o is string => typeof o === 'string') : [], managed);
    if (op.phase === 'Succeeded' && !op.partial) {
      const many = used.sources !== undefined;
      const entry: Omit<HistoryEntry, 'id'> = {
        ...revisionFields(op, used),
        deployedAt: op.finishedAt,
        deployStartedAt: op.startedAt,
        ...(many ? { sources: used.sources as JsonObject[] } : used.source ? { source: used.source } : {}),
        initiatedBy: { ...op.initiatedBy } as JsonObject,
      };
      out.history = appendHistory(historyOf(app), entry, historyLimit(app)) as unknown as JsonValue;
    }
  }
  return out;
}

/** The messages of the SyncError conditions in status.conditions, as stored. */
export function syncErrorsOf(app: KubeObject): string[] {
  const conditions = obj(app.status).conditions;
  if (!Array.isArray(conditions)) return [];
  return conditions.filter((c): c is JsonObject => isPlainObject(c) && c.type === 'SyncError').map((c) => (typeof c.message === 'string' ? c.message : ''));
}

/**
 * The status with Argo CD's autoSync verdict on status.conditions, as its reconcile sets it (SetConditions with
 * SyncError evaluated): every SyncError replaced by the one given (its lastTransitionTime kept when the same message
 * was there), or removed when none is given; the other conditions kept. Undefined when that changes nothing (Argo CD's
 * setAppCondition: the same type and message already there), so nothing is written.
 */
export function withSyncError(app: KubeObject, message: string | undefined, now: string): JsonObject | undefined {
  const current = syncErrorsOf(app);
  if (message === undefined ? current.length === 0 : current.length === 1 && current[0] === message) return undefined;
  const out: JsonObject = { ...structuredClone(obj(app.status)) };
  const previous = Array.isArray(out.conditions) ? out.conditions : [];
  const kept = previous.filter((c) => !(isPlainObject(c) && c.type === 'SyncError'));
  const conditions = message === undefined ? kept : [...kept, condition('SyncError', message, now, previous)];
  if (conditions.length > 0) out.conditions = conditions;
  else delete out.conditions;
  return out;
}

/** The images of containers in a live object (pods, pod templates, CronJob job templates). */
export function imagesOf(o: KubeObject): string[] {
  const out: string[] = [];
  const fromPodSpec = (ps: JsonValue | undefined) => {
    const p = obj(ps);
    for (const k of ['initContainers', 'containers', 'ephemeralContainers']) {
      const list = p[k];
      if (!Array.isArray(list)) continue;
      for (const c of list) if (isPlainObject(c) && typeof c.image === 'string') out.push(c.image);
    }
  };
  const spec = obj(o.spec);
  if (o.kind === 'Pod') fromPodSpec(spec);
  fromPodSpec(obj(spec.template).spec);
  fromPodSpec(obj(obj(obj(spec.jobTemplate).spec).template).spec);
  return out;
}

/**
 * The phase Argo CD records for a sync that ran (operationState.phase): Running while its prune waits for a
 * confirmation, Failed when an apply, a hook, a prune or a conflict failed or it was stopped, else Succeeded.
 */
export function operationPhase(r: {
  failures: readonly unknown[];
  conflicts: readonly unknown[];
  interrupted?: unknown;
  prune: { waiting?: string };
}): 'Running' | 'Failed' | 'Succeeded' {
  const failed = r.failures.length > 0 || r.conflicts.length > 0 || r.interrupted !== undefined;
  if (failed) return 'Failed';
  return r.prune.waiting !== undefined ? 'Running' : 'Succeeded';
}
