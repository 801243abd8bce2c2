// The status report as data (schemaVersion 1): sync status and health as two axes, per resource and for the app.
import { collationKey, compareText, keyString, type KubeObject, type ResourceKey } from '../model/object.js';
import { COMPARE_OPTIONS } from '../model/keys.js';
import type { Application, SourceRevision } from '../app/types.js';
import type { HealthStatus, HealthStatusCode } from './types.js';
import { hasBuiltInHealthCheck, resourceHealth } from './resource.js';
import { aggregateHealth, type HealthInput } from './aggregate.js';
import { buildTree, indexByOwner, type TreeNode } from './tree.js';
import { findCause, mostSpecific, ownCause, type Cause } from './reason.js';
import type { ProjectStatus } from '../settings/window-report.js';

export const STATUS_SCHEMA_VERSION = 1;

export type SyncStatusCode = 'Synced' | 'OutOfSync' | 'Unknown';

/** How one resource compares: from the diff (`in-sync`, `drifted`, `missing`), a prune candidate (`extra`), or not comparable. */
export type Comparison = 'in-sync' | 'drifted' | 'missing' | 'extra' | 'unknown';

/** Why a resource is OutOfSync (or Unknown; `not-permitted`: a kind the AppProject refuses). */
export type SyncReason = 'drifted' | 'missing' | 'requires-pruning' | 'not-compared' | 'not-permitted';

/** One resource of the app as the workflow found it. */
export interface ResourceInput {
  key: ResourceKey;
  comparison: Comparison;
  live?: KubeObject;
  /** For `drifted`: how many fields differ. For `unknown`: why it could not be compared. */
  driftedFields?: number;
  error?: string;
  /**
   * Why the AppProject's resource lists refuse this resource's kind (IsGroupKindPermitted): its sync status is Unknown,
   * and it still makes the app OutOfSync (Argo CD compares it as not live, then marks it Unknown).
   */
  notPermitted?: string;
}

export interface StatusInput {
  app: Application;
  /** The revision the desired manifests were read at (a resolved commit), when known. */
  revision?: string;
  /** Where the desired manifests were actually read from (`--desired` path, or `repo@sha:path`). */
  manifests?: string;
  /** The namespace the command acts on (`-n`, else the Application's destination.namespace). */
  destinationNamespace?: string;
  /** How the source was rendered (Directory, Kustomize), when read from Git. */
  sourceType?: string;
  /** Each entry of spec.sources and the revision it was read at (multi-source Applications). */
  sources?: SourceRevision[];
  resources: ResourceInput[];
  /** The kubeconfig context the destination resolved to, and its server. */
  target?: { context: string; server: string };
  /** Set when the source cannot be rendered as Argo CD would: nothing was compared, sync and health are Unknown. */
  unrenderable?: string;
  /** Live objects that may be owned by the app's resources (ReplicaSets, Pods, Jobs…), for the trees. */
  children: KubeObject[];
  /** The app's hooks still in the cluster, with the phases they run in. */
  hooks?: { key: ResourceKey; phases: readonly string[]; live: KubeObject }[];
  /**
   * The keys argocd-cm's resource.customizations names (`group/Kind`, `Kind` for the core group), whatever they set: a
   * missing resource of such a kind counts in the app's health as Missing (controller/health.go's hasOverride).
   */
  resourceOverrides?: ReadonlySet<string>;
}

export interface ResourceStatus extends ResourceKey {
  status: SyncStatusCode;
  syncReason?: SyncReason;
  driftedFields?: number;
  error?: string;
  /** Why the AppProject refuses this resource's kind (syncReason `not-permitted`). */
  notPermitted?: string;
  requiresPruning: boolean;
  /** Absent for kinds without health; `Missing` when the resource is not live. */
  health?: HealthStatus;
  /** Whether it counts towards the app's sync status (an extra with IgnoreExtraneous does not). */
  countsForSync: boolean;
}

/** A node of a live tree: the object, its health, its own most specific cause, its children. */
export interface TreeReport extends ResourceKey {
  health?: HealthStatus;
  cause?: Cause;
  children: TreeReport[];
}

/** `status --recursive`: a child Application of the app (app-of-apps), compared afresh as `status CHILD` compares it. */
export interface ChildStatus {
  namespace: string;
  name: string;
  /** Unknown when it could not be compared (see error). */
  sync: string;
  health: string;
  /** The REASON line `status CHILD` prints (empty when Healthy). */
  reason?: string;
  /** Why it could not be compared (not found, its destination refused, its own ancestor). */
  error?: string;
  children?: ChildStatus[];
  /** `status --tree --recursive`: the child's own resources and live trees, drawn under its node in the parent's tree. */
  resources?: ResourceStatus[];
  trees?: TreeReport[];
}

export interface StatusReport {
  schemaVersion: typeof STATUS_SCHEMA_VERSION;
  app: { name: string; namespace: string; origin: string };
  source: { repoURL?: string; path?: string; targetRevision?: string; revision?: string; manifests?: string; type?: string };
  /**
   * A Source Hydrator app (spec.sourceHydrator): its dry source, the hydrated branch and path it syncs from, and the dry
   * commit the synced manifests were hydrated from (`hydrator.metadata`'s drySha), when the branch names one.
   */
  hydrator?: {
    drySource: { repoURL: string; targetRevision: string; path: string };
    syncSource: { targetBranch: string; path: string };
    drySha?: string;
  };
  /** Each entry of spec.sources and the revision it was read at (absent for a single source). */
  sources?: SourceRevision[];
  /**
   * As the Application declares it, plus the kubeconfig context it resolved to (`context`, `contextServer`); `namespace`
   * is the one the command acted on (-n over the Application's), `declaredNamespace` the Application's when -n differs.
   */
  destination: { server?: string; name?: string; namespace?: string; declaredNamespace?: string; context?: string; contextServer?: string };
  syncPolicy: { automated: boolean; prune: boolean; selfHeal: boolean; allowEmpty: boolean };
  /** `reason`: why the status is Unknown when nothing could be compared (a source that cannot be rendered). */
  sync: { status: SyncStatusCode; outOfSync: number; requiresPruning: number; reason?: string };
  health: {
    status: HealthStatusCode;
    /** The resources whose health is the app's (the worst ones). */
    worst: ResourceKey[];
    /** The most specific cause found under the worst resources' live trees. */
    cause?: Cause;
  };
  resources: ResourceStatus[];
  /** One live tree per live resource, in resource order. */
  trees: TreeReport[];
  /** The app's AppProject: violations, the sync windows that apply, and whether a sync may run now. */
  project?: ProjectStatus;
  /**
   * The app's hooks still in the cluster — the last runs' objects no delete policy removed (HookSucceeded ones are
   * gone) — with their result. Never part of the sync status or the health.
   */
  hooks?: HookStatus[];
  /** `status --recursive`: the child Applications among the app's resources, each compared afresh, to any depth. */
  children?: ChildStatus[];
  /** The last operation the Application records (a sync's, by this tool or by Argo CD), as `argocd app get` shows it. */
  operation?: { phase?: string; message?: string; revision?: string; startedAt?: string; finishedAt?: string; requested?: true };
  /** The Application's conditions as they were stored before this look (ComparisonError, SharedResourceWarning, SyncError …). */
  conditions?: { type: string; message: string }[];
  /**
   * With the AppProject's `orphanedResources`: the objects of the destination namespace no app tracks (with the objects
   * under them, as Argo CD counts them); `warn`: the project asks for the OrphanedResourceWarning condition.
   */
  orphaned?: { warn: boolean; resources: ResourceKey[] };
}

export interface HookStatus extends ResourceKey {
  phases: string[];
  /** From the hook's health: a finished Job or Pod, a failed one, or one still running. */
  result: 'Succeeded' | 'Failed' | 'Running';
  message?: string;
}

/** A hook's result from its health: Healthy (or no health check) is Succeeded, Degraded Failed, anything else Running. */
export function hookResult(live: KubeObject): Pick<HookStatus, 'result' | 'message'> {
  const h = resourceHealth(live);
  const message = h?.message ? { message: h.message } : {};
  if (!h || h.status === 'Healthy' || h.status === 'Suspended') return { result: 'Succeeded', ...message };
  if (h.status === 'Degraded') return { result: 'Failed', ...message };
  return { result: 'Running', ...message };
}

function syncOf(c: Comparison): { status: SyncStatusCode; syncReason?: SyncReason } {
  switch (c) {
    case 'in-sync':
      return { status: 'Synced' };
    case 'drifted':
      return { status: 'OutOfSync', syncReason: 'drifted' };
    case 'missing':
      return { status: 'OutOfSync', syncReason: 'missing' };
    case 'extra':
      return { status: 'OutOfSync', syncReason: 'requires-pruning' };
    case 'unknown':
      return { status: 'Unknown', syncReason: 'not-compared' };
  }
}

function ignoresExtraneous(live: KubeObject | undefined): boolean {
  const opts = live?.metadata.annotations?.[COMPARE_OPTIONS] ?? '';
  return opts.split(',').some((o) => o.trim() === 'IgnoreExtraneous');
}

function ignoresHealth(live: KubeObject | undefined): boolean {
  return live?.metadata.annotations?.['argocd.argoproj.io/ignore-healthcheck'] === 'true';
}

const isApplication = (key: ResourceKey) => key.group === 'argoproj.io' && key.kind === 'Application';

/**
 * isSelfReferencedApp: the app's own Application object among its resources. Argo CD also compares UIDs; the live
 * object of that name and namespace is the app's own, so name and namespace decide here.
 */
function isSelfReference(app: Application, key: ResourceKey): boolean {
  return isApplication(key) && key.name === app.name && key.namespace === app.namespace;
}

/** What the app's health reads of one resource (controller/health.go setApplicationHealth). */
function healthInput(r: ResourceInput, health: HealthStatus | undefined, app: Application, overrides: ReadonlySet<string>): HealthInput {
  const { group, kind } = r.key;
  const missingCounts = hasBuiltInHealthCheck(group, kind) || overrides.has(group === '' ? kind : `${group}/${kind}`);
  return {
    live: r.live !== undefined,
    ignored: ignoresHealth(r.live),
    ...(health && r.live ? { health } : {}),
    ...(missingCounts ? { missingCounts } : {}),
    ...(isApplication(r.key) ? { application: true } : {}),
    ...(r.live && isSelfReference(app, r.key) ? { selfReference: true } : {}),
  };
}

function treeReport(node: TreeNode): TreeReport {
  const out: TreeReport = { ...node.key, children: node.children.map(treeReport) };
  if (node.health) out.health = node.health;
  const cause = ownCause(node);
  if (cause) out.cause = cause;
  return out;
}

/** Sorted by their keys' strings (compareText's order), each string and its collation key made once (not once per comparison). */
function sortedByKey<T extends Pick<ResourceInput, 'key'>>(items: readonly T[]): T[] {
  const keyed = items.map((item) => {
    const k = keyString(item.key);
    return { item, k, c: collationKey(k) };
  });
  if (keyed.every((x) => x.c !== undefined)) keyed.sort((a, b) => (a.c! < b.c! ? -1 : a.c! > b.c! ? 1 : 0));
  else keyed.sort((a, b) => compareText(a.k, b.k));
  return keyed.map((x) => x.item);
}

/**
 * Sync status and health per resource and for the app, as Argo CD derives them (gitops-engine's health/health.go,
 * Argo CD's controller/health.go and CompareAppState in controller/state.go), plus the live trees and the most specific
 * cause of the app's health.
 * Pure: reads its input and never changes it.
 */
/** The destination as acted on: `-n` replaces the namespace, and the Application's own is kept beside it when it differs. */
function actedOn(d: StatusReport['destination'], namespace: string | undefined): StatusReport['destination'] {
  if (namespace === undefined || namespace === '' || namespace === d.namespace) return { ...d };
  return { ...d, namespace, ...(d.namespace ? { declaredNamespace: d.namespace } : {}) };
}

export function buildStatusReport(input: StatusInput): StatusReport {
  const inputs = sortedByKey(input.resources);
  const resources: ResourceStatus[] = inputs.map((r) => {
    const out: ResourceStatus = { ...r.key, ...syncOf(r.comparison), requiresPruning: r.comparison === 'extra', countsForSync: true };
    if (r.comparison === 'extra' && ignoresExtraneous(r.live)) out.countsForSync = false;
    if (r.driftedFields !== undefined) out.driftedFields = r.driftedFields;
    if (r.error !== undefined) out.error = r.error;
    // Argo CD's CompareAppState: after the sync status is set, a kind the project refuses is Unknown.
    if (r.notPermitted !== undefined) Object.assign(out, { status: 'Unknown', syncReason: 'not-permitted', notPermitted: r.notPermitted });
    const health = r.live ? resourceHealth(r.live) : { status: 'Missing' as const, message: '' };
    if (health) out.health = health;
    return out;
  });

  const counted = resources.filter((r) => r.countsForSync);
  // A refused kind's Unknown is the resource's only: the app's status counts it as compared (OutOfSync, as Argo CD's).
  const outOfSync = counted.filter((r) => r.status === 'OutOfSync' || r.syncReason === 'not-permitted');
  const syncStatus: SyncStatusCode =
    input.unrenderable !== undefined || counted.some((r) => r.status === 'Unknown' && r.syncReason !== 'not-permitted')
      ? 'Unknown'
      : outOfSync.length > 0 || input.app.managedNamespaceMetadataChanged
        ? 'OutOfSync'
        : 'Synced';

  // One owner index for every tree: re-indexing the children per resource made this O(resources × children).
  const byOwner = indexByOwner(input.children);
  const treesByIndex = inputs.map((r) => (r.live ? buildTree(r.live, byOwner) : undefined));
  const overrides = input.resourceOverrides ?? new Set<string>();
  const agg = aggregateHealth(inputs.map((r, i) => healthInput(r, resources[i]?.health, input.app, overrides)));
  const causes = agg.worst.flatMap((i): Cause[] => {
    const tree = treesByIndex[i];
    // A missing resource that counts (the app is Missing) is its own cause.
    if (!tree) return [{ object: inputs[i]!.key, source: 'Health', reason: '', message: 'missing from the cluster' }];
    // A resource whose health check gives no message (a LoadBalancer Service waiting for its address) is named with its
    // health, so that the app's reason says which resource holds it there.
    const c = findCause(tree);
    const health = resources[i]?.health;
    return [c ?? { object: tree.key, source: 'Health', reason: health?.status ?? '', message: health?.status ?? 'Unknown' }];
  });
  const cause = mostSpecific(causes);
  const app = input.app;
  const report: StatusReport = {
    schemaVersion: STATUS_SCHEMA_VERSION,
    app: { name: app.name, namespace: app.namespace, origin: app.origin },
    source: {
      ...(app.source.repoURL !== undefined ? { repoURL: app.source.repoURL } : {}),
      ...(app.source.path !== undefined ? { path: app.source.path } : {}),
      ...(app.source.targetRevision !== undefined ? { targetRevision: app.source.targetRevision } : {}),
      ...(input.revision ? { revision: input.revision } : {}),
      ...(input.manifests ? { manifests: input.manifests } : {}),
      ...(input.sourceType ? { type: input.sourceType } : {}),
    },
    ...(input.sources ? { sources: input.sources } : {}),
    destination: {
      ...actedOn(app.destination, input.destinationNamespace),
      ...(input.target ? { context: input.target.context, contextServer: input.target.server } : {}),
    },
    syncPolicy: {
      automated: app.automated !== undefined,
      prune: app.automated?.prune ?? false,
      selfHeal: app.automated?.selfHeal ?? false,
      allowEmpty: app.automated?.allowEmpty ?? false,
    },
    sync: {
      status: syncStatus,
      outOfSync: outOfSync.length,
      requiresPruning: resources.filter((r) => r.requiresPruning).length,
    },
    // A source that does not render: the health of the live objects with the app's mark (as Argo CD's beside its
    // ComparisonError), Unknown when there are none.
    health: { status: input.unrenderable !== undefined && inputs.length === 0 ? 'Unknown' : agg.status, worst: agg.worst.map((i) => inputs[i]!.key) },
    resources,
    trees: treesByIndex.flatMap((t) => (t ? [treeReport(t)] : [])),
  };
  if (cause) report.health.cause = cause;
  if (input.unrenderable !== undefined) report.sync.reason = input.unrenderable;
  const op = app.operation;
  if (op && (op.phase !== undefined || op.requested)) {
    report.operation = {
      ...(op.phase !== undefined ? { phase: op.phase } : {}),
      ...(op.message !== undefined ? { message: op.message } : {}),
      ...(op.revision !== undefined ? { revision: op.revision } : {}),
      ...(op.startedAt !== undefined ? { startedAt: op.startedAt } : {}),
      ...(op.finishedAt !== undefined ? { finishedAt: op.finishedAt } : {}),
      ...(op.requested ? { requested: true as const } : {}),
    };
  }
  if (app.conditions && app.conditions.length > 0) report.conditions = app.conditions.map((c) => ({ ...c }));
  if (input.hooks && input.hooks.length > 0) report.hooks = sortedByKey(input.hooks).map((h) => ({ ...h.key, phases: [...h.phases], ...hookResult(h.live) }));
  return report;
}
