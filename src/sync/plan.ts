// The sync plan (pure): guards, stamping, namespace defaulting, Argo CD's order, what to skip and whether to prune.
import type { Application } from '../app/types.js';
import type { ObjectDiff } from '../diff/types.js';
import type { ResourceType } from '../model/resource-type.js';
import type { ManifestSource } from '../manifest/parse.js';
import { keyString, type KubeObject, type ResourceKey } from '../model/object.js';
import type { PruneCandidate } from '../prune/plan.js';
import { asApplied, trackingIdOf, parseTrackingId } from '../tracking/tracking-id.js';
import { appOfMark, byLabel, DEFAULT_TRACKING, markOf, sameInstallation, type Tracking } from '../tracking/method.js';
import { syncOrder, waveOf } from './order.js';
import { objectSyncMode } from './options.js';
import { SYNC_OPTIONS } from '../model/keys.js';

/** The desired side as app-state resolved it. */
export interface PlanDesired {
  object: KubeObject;
  type: ResourceType;
  key: ResourceKey;
  source?: ManifestSource;
  pendingCrd?: boolean;
  /** Not served, and no CRD of this sync defines it (SkipDryRunOnMissingResource=true). */
  unserved?: boolean;
}

export interface SyncPlanInput {
  app: Application;
  appInstance: string;
  destinationNamespace: string;
  desired: readonly PlanDesired[];
  live: ReadonlyMap<string, KubeObject>;
  /** Per desired keyString: the core diff (for ApplyOutOfSyncOnly). */
  diffs: ReadonlyMap<string, ObjectDiff>;
  /** Namespaces that exist live (to know what this sync creates). */
  liveNamespaces: ReadonlySet<string>;
  /** The Namespace type from discovery (for CreateNamespace). */
  namespaceType: ResourceType;
  pruneCandidates: readonly PruneCandidate[];
  /**
   * `prune`: whether this sync prunes, as the caller decided it (a manual sync: --prune; the automated loop:
   * automated.prune); `pruneOff` says why not, when it does not.
   */
  flags: { prune: boolean; pruneWhy?: string; pruneOff?: string; forceConflicts: boolean; forceReason?: string };
  /** The cluster's tracking method (default: the tracking-id annotation). */
  tracking?: Tracking;
}

export type StepAction = 'create' | 'update' | 'skip';

export interface ApplyStep {
  key: ResourceKey;
  type: ResourceType;
  /** What is applied: stamped (unless a CRD or the CreateNamespace namespace), namespace defaulted. */
  object: KubeObject;
  wave: number;
  action: StepAction;
  /** Why the step is skipped, or why its dry-run is skipped. */
  reason?: string;
  /** The server dry-run cannot run before the sync creates what it needs (its namespace or CRD). */
  dryRunSkip?: string;
  live?: KubeObject;
  source?: ManifestSource;
  /** Its kind is defined by a CRD this sync creates: it can be applied only once the API server serves that CRD. */
  pendingCrd?: boolean;
  /** Its kind is not served and no CRD of this sync defines it (SkipDryRunOnMissingResource=true): applied if, when its wave comes, a CRD in the cluster defines it. */
  unserved?: boolean;
  /** True for the namespace CreateNamespace adds (never stamped, never pruned). */
  createdNamespace?: boolean;
  /** Replace=true: written whole (PUT, or POST when missing) instead of applied. */
  replace?: boolean;
  /** Force=true: with Replace, deleted and created again; without, re-created when the apply is refused (kubectl --force). */
  force?: boolean;
  /** Validate=false: the API server drops unknown fields instead of warning (fieldValidation=Ignore). */
  noValidate?: boolean;
  /** ServerSideApply=false: applied client-side (a three-way patch from the last-applied annotation), unless Replace=true. */
  clientSide?: boolean;
  /** ServerSideApply=true asked for (the app's option or the object's annotation), and not replaced: Argo CD applies it server-side. */
  serverSideApply?: boolean;
  /**
   * Live, marked as ours, and every declared field equal to live: an apply cannot conflict (SSA
   * conflicts need a differing value) and can only drop fields no longer declared, so the
   * whole-set dry-run skips it (half the requests of an unchanged sync).
   */
  inSync?: boolean;
}

export interface SyncPlan {
  /** Set when a safety rule refuses the whole sync: nothing is applied or deleted. */
  refused?: string;
  steps: ApplyStep[];
  /** Take the fields other managers own (server-side apply with force): the default; off with --no-force-conflicts. */
  force: boolean;
  forceReason?: string;
  prune: { enabled: boolean; why: string; last: boolean; candidates: PruneCandidate[] };
  warnings: string[];
}

/**
 * The namespace CreateNamespace applies (never marked). With managedNamespaceMetadata: its labels and its annotations,
 * and `argocd.argoproj.io/sync-options: ServerSideApply=true`, which Argo CD adds so that the namespace is applied
 * server-side (controller/sync_namespace.go appendSSAAnnotation) and so lands on the namespace too.
 */
export function createdNamespaceObject(name: string, managed: Application['managedNamespaceMetadata']): KubeObject {
  const metadata: KubeObject['metadata'] = { name };
  if (managed) {
    if (managed.labels && Object.keys(managed.labels).length > 0) metadata.labels = { ...managed.labels };
    metadata.annotations = { ...managed.annotations, [SYNC_OPTIONS]: 'ServerSideApply=true' };
  }
  return { apiVersion: 'v1', kind: 'Namespace', metadata };
}

/** Builds the plan; pure, never mutates its inputs. */
export function planSync(input: SyncPlanInput): SyncPlan {
  const { app } = input;
  const warnings: string[] = [];
  // The caller's choice, whatever selfHeal says: a sync takes fields back unless asked not to (--no-force-conflicts).
  const force = input.flags.forceConflicts;
  const forceReason = force ? (input.flags.forceReason ?? '--force-conflicts') : undefined;
  const pruneEnabled = input.flags.prune;
  const prune = {
    enabled: pruneEnabled,
    why: pruneEnabled ? (input.flags.pruneWhy ?? '--prune') : (input.flags.pruneOff ?? 'pruning is off (no --prune)'),
    last: app.syncOptions.pruneLast,
    candidates: [...input.pruneCandidates],
  };
  const base = { steps: [] as ApplyStep[], force, ...(forceReason ? { forceReason } : {}), prune, warnings };

  if (input.desired.length === 0 && app.automated?.allowEmpty !== true) {
    const n = input.pruneCandidates.length;
    return {
      ...base,
      refused: `the desired set of ${app.name} is empty and allowEmpty is not true: a sync would leave nothing declared${n > 0 ? ` and make ${n} live object(s) prune candidates` : ''}`,
    };
  }
  if (app.syncOptions.failOnSharedResource) {
    for (const d of input.desired) {
      const live = input.live.get(keyString(d.key));
      const tracking = input.tracking;
      // An object another installation marked is no app's (getAppInstanceValue): not shared.
      const other =
        !live || !sameInstallation(live, tracking ?? DEFAULT_TRACKING)
          ? undefined
          : tracking && byLabel(tracking)
            ? markOf(live, tracking)
            : trackingIdOf(live);
      const parsed =
        other === undefined
          ? undefined
          : tracking && byLabel(tracking)
            ? { ok: true as const, id: { app: appOfMark(other, tracking) } }
            : parseTrackingId(other);
      if (parsed?.ok && parsed.id.app !== '' && parsed.id.app !== input.appInstance) {
        return {
          ...base,
          // controller/sync.go: "Shared resource found: " and the SharedResourceWarning's message (QualifiedName and
          // the other's instance name with '_' read as '/').
          refused: `Shared resource found: ${d.key.kind}/${d.key.name} is part of applications ${input.app.namespace}/${input.app.name} and ${parsed.id.app.replaceAll('_', '/')} (FailOnSharedResource=true)`,
        };
      }
    }
  }

  const createdNs = new Set<string>();
  for (const d of input.desired) {
    if (d.key.kind === 'Namespace' && d.key.group === '' && !input.liveNamespaces.has(d.key.name)) createdNs.add(d.key.name);
  }
  const pendingKinds = new Set(input.desired.filter((d) => d.pendingCrd).map((d) => `${d.key.group}/${d.key.kind}`));

  const ordered = syncOrder(
    input.desired.map((d) => {
      const w = waveOf(d.object);
      if (w.error) warnings.push(`${d.key.kind}/${d.key.name}: ${w.error}; wave ${w.wave} used`);
      return { item: d, object: d.object, wave: w.wave };
    }),
  );
  const steps: ApplyStep[] = [];
  const destNs = input.destinationNamespace;
  const declaresDestNs = input.desired.some((d) => d.key.kind === 'Namespace' && d.key.group === '' && d.key.name === destNs);
  if (app.syncOptions.createNamespace && destNs && !declaresDestNs) {
    const exists = input.liveNamespaces.has(destNs);
    if (!exists) createdNs.add(destNs);
    // With managedNamespaceMetadata the namespace is applied at every sync, as Argo CD's syncNamespace asks for it
    // whether or not it exists; without, only when it does not exist.
    const managed = app.managedNamespaceMetadata;
    const skip = exists && !managed;
    steps.push({
      key: { group: '', kind: 'Namespace', namespace: '', name: destNs },
      type: input.namespaceType,
      object: createdNamespaceObject(destNs, managed),
      wave: Number.NEGATIVE_INFINITY,
      action: !exists ? 'create' : skip ? 'skip' : 'update',
      ...(skip ? { reason: 'CreateNamespace: the namespace exists' } : {}),
      createdNamespace: true,
    });
  }
  for (const { item: d, wave } of ordered) {
    const k = keyString(d.key);
    const live = input.live.get(k);
    const object = asApplied(d.object, input.appInstance, destNs, input.tracking);
    const step: ApplyStep = {
      key: d.key,
      type: d.type,
      object,
      wave,
      action: live ? 'update' : 'create',
      ...(live ? { live } : {}),
      ...(d.source ? { source: d.source } : {}),
    };
    const mode = objectSyncMode(d.object, app.syncOptions);
    for (const w of mode.warnings) warnings.push(`${d.key.kind}/${d.key.name}: ${w}`);
    if (mode.replace) step.replace = true;
    if (mode.force) step.force = true;
    if (!mode.validate) step.noValidate = true;
    if (mode.clientSideApply && !mode.replace) step.clientSide = true;
    if (mode.serverSideApply && !mode.replace) step.serverSideApply = true;
    if (d.type.namespaced && createdNs.has(d.key.namespace)) step.dryRunSkip = `namespace ${d.key.namespace} is created by this sync`;
    else if (d.unserved) {
      step.dryRunSkip = `SkipDryRunOnMissingResource: the cluster does not serve ${d.key.kind} in ${d.object.apiVersion} yet`;
      step.pendingCrd = true;
      step.unserved = true;
    } else if (pendingKinds.has(`${d.key.group}/${d.key.kind}`)) {
      step.dryRunSkip = `its CustomResourceDefinition is created by this sync`;
      step.pendingCrd = true;
    }
    if (live) {
      const diff = input.diffs.get(k);
      const marked = input.tracking ? markOf(live, input.tracking) === markOf(object, input.tracking) : trackingIdOf(live) === trackingIdOf(object);
      // No differing field at all, not even an ignored one (an ignored declared field would still be applied).
      if (diff?.status === 'in-sync' && diff.fields.length === 0 && marked) step.inSync = true;
      if (diff?.status === 'in-sync' && marked && app.syncOptions.applyOutOfSyncOnly) {
        step.action = 'skip';
        step.reason = 'ApplyOutOfSyncOnly: in sync';
      }
    }
    steps.push(step);
  }
  return { ...base, steps };
}
