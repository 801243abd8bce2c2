// The one sync executor (sync, rollback, sync --all, sync --watch): plan -> permission preflight -> server-side dry-run of
// the whole set -> apply (one pass, or phases and waves with hooks) -> prune -> a SyncReport.
import type { ChildSync } from './recursive.js';
import { createHash } from 'node:crypto';
import { firstFailure, type Comparison } from '../../diff/comparison.js';
import type { ObjectDiff } from '../../diff/types.js';
import type { KubeGateway } from '../../kube/gateway.js';
import { apiVersionOf, type ResourceType } from '../../model/resource-type.js';
import { KubeApiError } from '../../kube/errors.js';
import { isPlainObject, keyString, type JsonValue, type KubeObject, type PropagationPolicy, type ResourceKey } from '../../model/object.js';
import { renderPath, serverFieldText } from '../../model/field-path.js';
import { isPruneLast, type PruneCandidate } from '../../prune/plan.js';
import { keepLiveValues } from '../../sync/ignored.js';
import { DEFAULT_CSA_MIGRATION_MANAGER } from '../../ownership/csa-upgrade.js';
import { leftTo, type IgnoredFields } from '../../diff/ignored-fields.js';
import { planSync, type ApplyStep, type PlanDesired, type SyncPlan } from '../../sync/plan.js';
import { needsGeneratedName, type HookPhase } from '../../sync/hooks.js';
import { hookWave, isMultiStep, phaseGroups, syncFailGroups } from '../../sync/phases.js';
import type { RetryPolicy } from '../../app/types.js';
import { WAITING_FOR_PRUNE_CONFIRMATION } from '../../app/application.js';
import { applySteps, dryRunSteps, type ApplyResult, type DryRunResult } from './apply.js';
import { deleteCandidates, NOT_REACHED, stillThereAtTheLimit, waitGone } from '../prune/prune-delete.js';
import type { RunContext } from '../../model/context.js';
import { isFinalizedApplication } from '../../prune/delete-plan.js';
import { partialScan } from '../prune/prune.js';
import { describeMissing, preflight, writesOf, type MissingPermission } from './preflight.js';
import { customHealthRunner } from '../status/custom-health.js';
import { hookObject, runPhases, type HookRun, type PhaseRunOptions, type RunnableHook, type SyncEvent, type WaveRun } from './sync-phases.js';
import { typesDefinedBy, type AppState, type AppStateDeps } from '../session/app-state.js';
import { invalidTasks, stateRefusal } from '../session/rules.js';

export const SYNC_SCHEMA_VERSION = 1;

export interface FieldOwnerRef extends ResourceKey {
  /** The field as the diff prints it (`spec.template.spec.containers[name=orders].image`). */
  field: string;
  manager: string;
}

export interface StepReport extends ResourceKey {
  /** null for the namespace CreateNamespace adds (it goes before every wave). */
  wave: number | null;
  action: ApplyStep['action'];
  /**
   * `applied`, `skipped`, `conflict`, `failed`; `not-applied` when the sync stopped before its first write; in a dry
   * run `would-apply`, `would-skip`.
   */
  outcome: string;
  message?: string;
  /**
   * ServerSideApply=true is asked for it (the app's option or its own annotation): Argo CD's sync would apply it
   * server-side and say `serverside-applied` (this tool applies server-side either way, unless ServerSideApply=false).
   */
  serverSideApply?: true;
}

export interface PruneResultReport extends ResourceKey {
  /** `candidate`: a dry run's prune candidate that this sync would not prune (pruning is off: see prune.why). */
  outcome: 'pruned' | 'would-prune' | 'candidate' | 'skipped' | 'gone' | 'changed' | 'failed';
  message?: string;
}

export interface HookReport extends ResourceKey {
  phase: HookPhase;
  wave: number;
  outcome: HookRun['outcome'];
  message?: string;
  /** The hook could not be created (Argo CD's SyncFailed); absent for a hook that was created, whatever its run did. */
  notCreated?: true;
}

/** What `sync -o json` prints (schemaVersion 1). */
export interface SyncReport {
  schemaVersion: typeof SYNC_SCHEMA_VERSION;
  app: string;
  /** The kubeconfig context the destination resolved to, and its server. */
  context?: string;
  server?: string;
  origin: string;
  revision?: string;
  /** Each source's revision, in spec.sources order (a multi-source Application). */
  revisions?: string[];
  /** The run's sync options (sync --sync-option, --replace, --server-side, --apply-out-of-sync-only), which replaced the Application's. */
  syncOptions?: string[];
  /** The run's strategy (--strategy, --force), as Argo CD records it: `{hook: {force}}` or `{apply: {force}}`. */
  syncStrategy?: { hook?: { force?: true }; apply?: { force?: true } };
  dryRun: boolean;
  /**
   * The phase the operation ended in, as it is recorded in the Application's operationState (set by the run that
   * records it, never for a dry run): Succeeded, Failed, Running (a prune waiting for its confirmation) or Error (refused).
   */
  phase?: 'Succeeded' | 'Failed' | 'Running' | 'Error';
  /** The user the writes were sent as: Argo CD's sync impersonation of the project's destination ServiceAccount. */
  serviceAccount?: string;
  /** A safety rule refused the sync: nothing was applied or deleted. */
  refused?: string;
  /**
   * The refusal was the project's and about single objects only (a kind or a namespace it does not permit): each one in
   * Argo CD's words. Argo CD's sync fails these in its task validation: the operation Failed ("one or more
   * synchronization tasks are not valid"), each task SyncFailed; recorded so.
   */
  invalidTasks?: { key: ResourceKey; version: string; message: string }[];
  force: boolean;
  forceReason?: string;
  steps: StepReport[];
  applied: number;
  /** Fields taken back from other managers (a forced apply over a conflict); in a dry run, those that would be. */
  healed: FieldOwnerRef[];
  /** Ignored fields left to their owner (e.g. spec.replicas after `kubectl scale`). */
  ignored: (FieldOwnerRef & { rule: string })[];
  /** Conflicting fields that stopped the sync (--no-force-conflicts); in a dry run, those an unforced sync would stop on. */
  conflicts: FieldOwnerRef[];
  /** `operation`: the sync stopped (a failed hook, a Degraded resource, the --timeout); the message says which. */
  failures: (ResourceKey & { phase: 'preflight' | 'dry-run' | 'apply' | 'prune' | 'operation'; message: string })[];
  /**
   * Set when the sync stopped on something known before its first write (the permission preflight, the server-side
   * dry-run, conflicts predicted with --no-force-conflicts): nothing at all was applied or deleted; says why.
   */
  stoppedBeforeWriting?: string;
  /** The command line that goes on where this one stopped (set by the command: with --no-force-conflicts, the same without it). */
  nextCommand?: string;
  /** The sync was asked to stop (SyncDeps.signal): where it stopped; the step in progress was finished, nothing after it started. */
  interrupted?: { phase: string; wave: number | null; message: string };
  /** The resource hooks run (or, in a dry run, to run), in order, with their result. */
  hooks: HookReport[];
  /** A multi-step sync's (phase, wave) steps in order and how each ended (absent: one pass, no hooks or waves). */
  waves?: WaveRun[];
  /** How many times the sync was tried again after a failure (absent: not retried). */
  retries?: number;
  /** The Application's syncPolicy.retry, as the sync read it (absent: none). */
  retryPolicy?: RetryPolicy;
  /**
   * `last`: the app-level `PruneLast=true` option as read. The prune runs after every apply of every wave either way;
   * the option changes nothing here (objects annotated PruneLast=true are deleted after the other candidates).
   */
  prune: {
    enabled: boolean;
    why: string;
    last: boolean;
    blocked?: string;
    /**
     * The prune waits for its confirmation (Prune=confirm, not approved): gitops-engine's operation message, `Waiting for
     * pruning confirmation of <apiVersion>/<kind>/<name>[ and N more resources]`. Nothing was pruned; the sync is not finished (exit 3).
     */
    waiting?: string;
    propagationPolicy: PropagationPolicy;
    results: PruneResultReport[];
  };
  warnings: string[];
  /** `--recursive`: each child Application this sync applied, synced in its wave, and how it ended (recursive.ts). */
  children?: ChildSync[];
  /** `--recursive`: why the walk over the children stopped early. */
  childrenStopped?: string;
}

/**
 * What a sync needs besides the request: the app-state deps, where it tells its progress, and `signal`: once aborted,
 * the step in progress is finished and no new wave, phase or prune starts (the report says where: `interrupted`).
 */
export type SyncDeps = AppStateDeps & {
  progress?: (line: string) => void;
  onEvent?: (e: SyncEvent) => void;
  signal?: AbortSignal;
  /**
   * Finishes the deletion of a child Application this prune deleted (app-of-apps) when it carries Argo CD's deletion
   * finalizers: its objects, its delete hooks, then the finalizers, as `delete` would (workflows/delete/delete.ts).
   */
  finalizeApp?: FinalizeApp;
};

/** Finishes a Terminating Application's deletion: ok, or why it is left Terminating. */
export type FinalizeApp = (ref: { namespace: string; name: string }) => Promise<{ ok: boolean; message: string }>;

/** The FinalizeApp of every sync path: `delete` of the child by name in its own session (loaded when first needed). */
export function finalizeThroughDelete(ctx: RunContext, timeoutMs: number, argocdNamespace: string | undefined): FinalizeApp {
  return async (ref) => (await import('../delete/delete.js')).finishAppDeletion(ctx, ref, timeoutMs, argocdNamespace);
}

/** What of the app one execution acts on. */
export interface SyncSelection {
  /** The keys (keyString) of the desired objects to apply; absent: every one (a full sync). */
  apply?: ReadonlySet<string>;
  /** The prune candidates it may delete and the gaps of the scan that found them; absent: the state's prune plan. */
  prune?: { candidates: readonly PruneCandidate[]; scanGaps?: readonly string[] };
}

/** How one execution runs. */
export interface ExecuteOptions {
  dryRun: boolean;
  /** Whether this sync prunes; `why` (on) or `off` (why not) in the plan's words. */
  prune: { enabled: boolean; why?: string; off?: string };
  /** Take the fields other managers own (server-side apply with force); off: predicted conflicts stop the sync before any write. */
  forceConflicts: boolean;
  forceReason?: string;
  /** How long waves and hooks may wait for health in all (ms). */
  timeoutMs: number;
  /** Run no hook (Argo CD's apply strategy, a heal of the watch loop). */
  skipHooks: boolean;
  /** A manual sync (`sync`, `rollback`), else the automated loop: sync windows tell them apart. */
  manual: boolean;
  /** Prune=confirm is approved for this run (--confirm-prune, or the Application's deletion-approved annotation). */
  pruneConfirmed?: boolean;
}

function ref(k: ResourceKey): ResourceKey {
  return { group: k.group, kind: k.kind, namespace: k.namespace, name: k.name };
}

const NAMESPACE_TYPE: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  namespaced: false,
  verbs: ['get', 'list', 'create', 'patch', 'delete'],
};

/**
 * The Namespace type the cluster serves, and which of the app's namespaces (those it touches and the
 * Namespaces it declares) exist live: CreateNamespace and the plan need to know.
 */
async function liveNamespaces(gw: KubeGateway, state: Pick<AppState, 'namespaces' | 'desired'>): Promise<{ type: ResourceType; live: Set<string> }> {
  const names = new Set([...state.namespaces, ...state.desired.filter((d) => d.key.kind === 'Namespace' && d.key.group === '').map((d) => d.key.name)]);
  const type = (await gw.resolve('v1', 'Namespace')) ?? NAMESPACE_TYPE;
  const live = new Set<string>();
  await Promise.all([...names].map(async (n) => void ((await gw.get(type, '', n)) && live.add(n))));
  return { type, live };
}

/**
 * The revision a sync stands for: the commit, else (no commit: --desired) a short digest of the desired objects and
 * hooks. Generated hook names carry it, and the watch loop tells revisions apart by it.
 */
export function syncRevision(state: Pick<AppState, 'revision' | 'desired' | 'hooks'>): string {
  if (state.revision) return state.revision;
  const h = createHash('sha256');
  for (const d of [...state.desired, ...state.hooks]) h.update(JSON.stringify(d.object)).update('\n');
  return h.digest('hex').slice(0, 7);
}

/** Argo CD's pause between sync waves: 2 s, or ARGOCD_SYNC_WAVE_DELAY seconds. */
function waveDelayMs(env: Record<string, string | undefined>): number {
  const raw = env.ARGOCD_SYNC_WAVE_DELAY;
  const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : 2000;
}

/** A report's per-object lists before anything ran. */
export function noResults(): Pick<SyncReport, 'steps' | 'applied' | 'healed' | 'ignored' | 'conflicts' | 'failures' | 'hooks'> {
  return { steps: [], applied: 0, healed: [], ignored: [], conflicts: [], failures: [], hooks: [] };
}

type ConflictRefs = (d: { step: ApplyStep; conflicts: DryRunResult['conflicts'] }) => FieldOwnerRef[];

const conflictRefs: ConflictRefs = (d) =>
  d.conflicts.map((c) => ({ ...ref(d.step.key), field: serverFieldText(c.field, d.step.live as unknown as JsonValue | undefined), manager: c.manager }));

/**
 * Runs (or, with dryRun, plans) a sync of an already-loaded state and its comparison, limited to `sel`. A failure known
 * before the first write (the permission preflight, the dry-run, conflicts predicted without force) writes nothing.
 * Throws only when the comparison failed.
 */
export async function executeSync(state: AppState, comparison: Comparison, sel: SyncSelection, o: ExecuteOptions, deps: SyncDeps): Promise<SyncReport> {
  const failed = firstFailure(comparison);
  if (failed) throw failed;
  const gw = deps.gateway;
  const fieldManager = deps.opts.fieldManager;
  const { plan, ignored, scanGaps } = await planOf(state, comparison, sel, o, gw);
  const report = startReport(state, plan, o);
  const now = Date.now();
  const ruled = stateRefusal(state, { manual: o.manual, now });
  const refused = ruled ?? plan.refused;
  if (refused) {
    report.refused = refused;
    const tasks = ruled ? invalidTasks(state, { manual: o.manual, now }) : undefined;
    if (tasks) report.invalidTasks = tasks;
    return report;
  }
  reportIgnored(report, plan, ignored, state.app.syncOptions.respectIgnoreDifferences, fieldManager);
  const deniedDeletes = await checkPermissions(gw, plan, report);

  // The whole set, server-side dry-run: a failure (or, without force, a conflict) stops everything before any write.
  deps.progress?.(`dry-running ${plan.steps.filter((s) => s.action !== 'skip').length} objects`);
  const dry = await dryRunSteps(gw, plan.steps, { fieldManager, force: plan.force });
  for (const d of dry) if (d.error) report.failures.push({ ...ref(d.step.key), phase: 'dry-run', message: d.error });
  const hooks = runnableHooks(state, o.skipHooks, report);
  // Hook names and the steps carry it; a one-pass sync needs none (without a commit it is a digest of every object).
  let rev: string | undefined;
  const revision = () => (rev ??= syncRevision(state));
  // The operation's start: generated hook names carry it (and are sorted by the names they get).
  const started = Date.now();
  const names = () => ({ revision: revision(), startedAtMs: started, appInstance: state.appInstance, destinationNamespace: state.destinationNamespace });
  const asCreated = (h: RunnableHook, phase: HookPhase): KubeObject =>
    needsGeneratedName(h.object) ? hookObject(h, phase, names()) : { ...h.object, metadata: { ...h.object.metadata, namespace: h.key.namespace } };
  // The operation's order: hooks in their phases, the resources in the Sync phase, wave by wave; within a wave hooks
  // and resources together by kind and name (gitops-engine's syncTasks.Sort).
  const groups = phaseGroups(
    dry.filter((d) => !d.step.createdNamespace),
    { step: (d) => ({ wave: d.step.wave, object: d.step.object }), hookObject: asCreated },
    hooks,
  );
  const failGroups = syncFailGroups(hooks, asCreated);
  // A SyncFail hook makes it multi-step too: it runs if the apply fails.
  const multiStep = isMultiStep(groups, failGroups);

  if (o.dryRun) {
    reportPlanned(
      report,
      plan,
      dry,
      {
        groups,
        failGroups,
        multiStep,
        names: names(),
        ...(o.pruneConfirmed ? { pruneConfirmed: true } : {}),
      },
      scanGaps,
    );
    return report;
  }
  const stop = stopBeforeWriting(report, plan, dry);
  if (stop) {
    reportNotWritten(report, dry, stop, plan.prune.enabled);
    return report;
  }

  const deadline = Date.now() + o.timeoutMs;
  const beforeGroup = crdsServed(gw, state, deadline);
  const retryNotFound = notFoundRetry(gw, deadline);
  const prune = async () => {
    if (interruptedNow(report, deps.signal, 'Prune', null)) return;
    await runPrune(gw, plan, report, deniedDeletes, deadline, deps.progress, scanGaps, o.pruneConfirmed === true, deps.finalizeApp, deps.signal);
  };
  if (!multiStep) {
    if (interruptedNow(report, deps.signal, 'Sync', 0)) {
      reportNotWritten(report, dry, 'interrupted before the first write', plan.prune.enabled);
      return report;
    }
    const results: ApplyResult[] = await applySteps(gw, dry, {
      fieldManager,
      force: plan.force,
      csaManagers: csaMigrationManagers(state),
      progress: (done, total, what) => deps.progress?.(`applying [${done}/${total}] ${what}`),
      beforeGroup,
      retryNotFound,
    });
    for (const r of results) {
      if (r.outcome === 'skipped') continue;
      deps.onEvent?.({
        phase: 'Sync',
        wave: Number.isFinite(r.step.wave) ? r.step.wave : 0,
        key: r.step.key,
        hook: false,
        status: r.outcome === 'applied' ? 'Synced' : 'SyncFailed',
        ...(r.message ? { message: r.message } : {}),
      });
    }
    recordApplied(report, results);
    await prune();
    return report;
  }
  recordApplied(
    report,
    await applySteps(
      gw,
      dry.filter((d) => d.step.createdNamespace),
      { fieldManager, force: plan.force },
    ),
  );
  if (report.failures.length > 0) return report;
  const run = await runPhases(
    gw,
    groups,
    failGroups,
    phaseOptions(state, deps, { force: plan.force, revision: revision(), started, deadline, beforeGroup, retryNotFound }),
    async () => {
      // Pruning ends the Sync phase (gitops-engine gives prunes the Sync phase's waves; PruneLast its last).
      if (report.failures.length > 0 || report.conflicts.length > 0) return undefined;
      await prune();
      return report.failures.some((f) => f.phase === 'prune') ? 'the prune failed' : undefined;
    },
  );
  recordApplied(report, run.results);
  report.hooks = run.hooks.map((h) => ({
    ...ref(h.key),
    phase: h.phase,
    wave: h.wave,
    outcome: h.outcome,
    ...(h.message ? { message: h.message } : {}),
    ...(h.notCreated ? { notCreated: true as const } : {}),
  }));
  report.waves = run.waves;
  if (run.interrupted && !report.interrupted) report.interrupted = interruption(run.interrupted.phase, run.interrupted.wave, run.interrupted.waiting === true);
  if (run.failed) {
    appFailure(report, 'operation', run.failed);
    if (!report.prune.blocked && report.prune.results.length === 0 && plan.prune.enabled) report.prune.blocked = 'the sync failed: nothing was pruned';
  }
  return report;
}

/**
 * The plan of the whole app (its refusals are the app's), then narrowed to the selection; the ignored fields per key.
 * `plan` reads it too, for what a sync at its head revision would do.
 */
export async function planOf(
  state: AppState,
  comparison: Comparison,
  sel: SyncSelection,
  o: ExecuteOptions,
  gw: KubeGateway,
): Promise<{ plan: SyncPlan; ignored: Map<string, IgnoredFields>; scanGaps: readonly string[] | undefined }> {
  const diffs = new Map<string, ObjectDiff>();
  const ignored = new Map<string, IgnoredFields>();
  const desired: PlanDesired[] = [];
  state.desired.forEach((d, i) => {
    const k = keyString(d.key);
    const compared = comparison.objects[i]!;
    let object = d.object;
    if (state.live.has(k)) {
      diffs.set(k, compared);
      if (!sel.apply || sel.apply.has(k)) state.warnings.push(...compared.ignoredLive.warnings.map((w) => `${d.key.kind}/${d.key.name}: ${w}`));
      ignored.set(k, compared.ignoredLive);
      // RespectIgnoreDifferences: the ignored fields keep their live values.
      if (state.app.syncOptions.respectIgnoreDifferences) object = keepLiveValues(d.object, compared.ignoredLive);
    }
    desired.push({
      object,
      type: d.type,
      key: d.key,
      source: d.source,
      ...(d.pendingCrd ? { pendingCrd: true } : {}),
      ...(d.unserved ? { unserved: true } : {}),
    });
  });
  const namespaces = await liveNamespaces(gw, state);
  const pruneSet = sel.prune ?? { candidates: state.prune?.candidates ?? [], ...(state.scanGaps ? { scanGaps: state.scanGaps } : {}) };
  const plan = planSync({
    app: state.app,
    appInstance: state.appInstance,
    destinationNamespace: state.destinationNamespace,
    desired,
    live: state.live,
    diffs,
    liveNamespaces: namespaces.live,
    namespaceType: namespaces.type,
    pruneCandidates: pruneSet.candidates,
    flags: {
      prune: o.prune.enabled,
      ...(o.prune.why ? { pruneWhy: o.prune.why } : {}),
      ...(o.prune.off ? { pruneOff: o.prune.off } : {}),
      forceConflicts: o.forceConflicts,
      ...(o.forceReason ? { forceReason: o.forceReason } : {}),
    },
    ...(state.tracking ? { tracking: state.tracking } : {}),
  });
  const wanted = sel.apply;
  if (wanted) plan.steps = plan.steps.filter((s) => s.createdNamespace || wanted.has(keyString(s.key)));
  return { plan, ignored, scanGaps: pruneSet.scanGaps && pruneSet.scanGaps.length > 0 ? pruneSet.scanGaps : undefined };
}

function startReport(state: AppState, plan: SyncPlan, o: ExecuteOptions): SyncReport {
  const propagationPolicy: PropagationPolicy = state.app.syncOptions.prunePropagationPolicy ?? 'foreground';
  return {
    schemaVersion: SYNC_SCHEMA_VERSION,
    app: state.app.name,
    ...(state.target ? { context: state.target.context, server: state.target.server } : {}),
    origin: state.origin,
    ...(state.revision ? { revision: state.revision } : {}),
    ...(state.sources ? { revisions: state.sources.map((s) => s.revision) } : {}),
    dryRun: o.dryRun,
    ...(state.app.retry ? { retryPolicy: state.app.retry } : {}),
    force: plan.force,
    ...(plan.forceReason ? { forceReason: plan.forceReason } : {}),
    ...noResults(),
    prune: { enabled: plan.prune.enabled, why: plan.prune.why, last: plan.prune.last, propagationPolicy, results: [] },
    warnings: [...state.warnings, ...plan.warnings],
  };
}

/** Ignored fields left to their owners: fields the desired object does not declare (or keeps live). */
function reportIgnored(report: SyncReport, plan: SyncPlan, ignored: ReadonlyMap<string, IgnoredFields>, respect: boolean, fieldManager: string): void {
  for (const step of plan.steps) {
    const ig = ignored.get(keyString(step.key));
    if (!ig) continue;
    for (const f of ig.live) {
      if (f.desired !== undefined && !respect) continue;
      for (const manager of leftTo(f, fieldManager))
        report.ignored.push({ ...ref(step.key), field: renderPath(f.path), manager, rule: `${f.rule.type} ${f.rule.value}` });
    }
  }
}

/**
 * Permissions first (one access review per verb/resource/namespace). A missing patch/create stops the whole sync
 * before any write; a missing delete lets the applies go on and blocks the whole prune (returned, reported per candidate).
 */
async function checkPermissions(gw: KubeGateway, plan: SyncPlan, report: SyncReport): Promise<MissingPermission[]> {
  const writes = writesOf(plan.steps, plan.prune.enabled ? plan.prune.candidates : []);
  const access = await preflight(gw, writes);
  for (const m of access.missing.filter((x) => x.verb !== 'delete')) {
    report.failures.push({ group: m.group, kind: 'Permission', namespace: m.namespace ?? '', name: m.verb, phase: 'preflight', message: describeMissing(m) });
  }
  return access.missing.filter((x) => x.verb === 'delete');
}

/** The hooks a run creates (none with skipHooks), each with its wave (a malformed one is wave 0, with a warning). */
function runnableHooks(state: AppState, skipHooks: boolean, report: SyncReport): RunnableHook[] {
  return (skipHooks ? [] : state.hooks).map((h) => {
    const w = hookWave(h.object);
    if (w.error) report.warnings.push(`${h.key.kind}/${h.key.name || h.object.metadata.generateName || ''}: ${w.error}; wave ${w.wave} used`);
    return { object: h.object, type: h.type, key: h.key, phases: h.hook.phases, wave: w.wave, deletePolicies: h.hook.deletePolicies };
  });
}

/** A dry run's report: every step as it would go, the hooks and waves it would run, the conflicts or heals, the prune. */
function reportPlanned(
  report: SyncReport,
  plan: SyncPlan,
  dry: readonly DryRunResult[],
  o: {
    groups: ReturnType<typeof phaseGroups<DryRunResult, RunnableHook>>;
    failGroups: ReturnType<typeof phaseGroups<DryRunResult, RunnableHook>>;
    multiStep: boolean;
    names: Parameters<typeof hookObject>[2];
    pruneConfirmed?: boolean;
  },
  scanGaps: readonly string[] | undefined,
): void {
  for (const g of [...o.groups, ...o.failGroups]) {
    for (const h of g.hooks)
      report.hooks.push({
        ...ref({ ...h.key, name: hookObject(h, g.phase, o.names).metadata.name ?? '' }),
        phase: g.phase,
        wave: g.wave,
        outcome: 'would-run',
      });
    // The plan's phases and waves, as the sync would run them (SyncFail's only if it failed).
    if (o.multiStep) (report.waves ??= []).push({ phase: g.phase, wave: g.wave, resources: g.steps.length, hooks: g.hooks.length, outcome: 'would-run' });
  }
  for (const d of dry) {
    report.steps.push({
      ...stepRef(d.step),
      outcome: d.error ? 'failed' : d.step.action === 'skip' ? 'would-skip' : 'would-apply',
      ...((d.error ?? d.skipped) ? { message: d.error ?? d.skipped } : {}),
    });
    if (plan.force) report.healed.push(...conflictRefs(d));
    else report.conflicts.push(...conflictRefs(d));
  }
  if (report.failures.length > 0) report.prune.blocked = 'the permission check or the server-side dry-run failed: nothing was applied or deleted';
  else if (plan.prune.enabled && scanGaps) blockPartialPrune(plan, report, scanGaps);
  else {
    const waiting = plan.prune.enabled && !o.pruneConfirmed ? waitingForConfirmation(plan.prune.candidates) : undefined;
    if (waiting) report.prune.waiting = waiting;
    for (const c of plan.prune.candidates) {
      const outcome = c.skip ? 'skipped' : plan.prune.enabled ? 'would-prune' : 'candidate';
      const message = c.skip ?? (waiting ? (c.confirm ? 'needs confirmation (Prune=confirm)' : `held: ${waiting}`) : undefined);
      report.prune.results.push({ ...ref(c.key), outcome, ...(message ? { message } : {}) });
    }
  }
}

/** Why the sync must stop before its first write, if it must: a failed preflight or dry-run, or predicted conflicts without force. */
function stopBeforeWriting(report: SyncReport, plan: SyncPlan, dry: readonly DryRunResult[]): string | undefined {
  if (!plan.force) for (const d of dry) report.conflicts.push(...conflictRefs(d));
  const preflightFailed = report.failures.some((f) => f.phase === 'preflight');
  if (preflightFailed) return `the permission check failed (${report.failures.find((f) => f.phase === 'preflight')!.message})`;
  if (report.failures.length > 0) return 'the server-side dry-run failed';
  if (report.conflicts.length > 0) {
    const managers = [...new Set(report.conflicts.map((c) => c.manager))].join(', ');
    return `the server-side dry-run found ${report.conflicts.length} field(s) owned by ${managers}, and fields are not taken back (--no-force-conflicts)`;
  }
  return undefined;
}

/** A sync that stopped before its first write: every step not applied (with why), nothing pruned. */
function reportNotWritten(report: SyncReport, dry: readonly DryRunResult[], why: string, pruning: boolean): void {
  report.stoppedBeforeWriting = why;
  for (const d of dry) {
    const own =
      d.error ??
      (d.conflicts.length > 0 && !report.force
        ? `other field managers own fields it would change (${[...new Set(d.conflicts.map((c) => c.manager))].join(', ')})`
        : undefined);
    const outcome = d.error ? 'failed' : d.step.action === 'skip' ? 'skipped' : own ? 'conflict' : 'not-applied';
    report.steps.push({ ...stepRef(d.step), outcome, message: d.step.action === 'skip' ? (d.skipped ?? 'skipped') : `not applied: ${own ?? why}` });
  }
  if (pruning) report.prune.blocked = `${why}: nothing was applied or deleted`;
}

function stepRef(step: ApplyStep): Omit<StepReport, 'outcome' | 'message'> {
  return {
    ...ref(step.key),
    wave: Number.isFinite(step.wave) ? step.wave : null,
    action: step.action,
    ...(step.serverSideApply ? { serverSideApply: true as const } : {}),
  };
}

function interruption(phase: string, wave: number | null, waiting = false): NonNullable<SyncReport['interrupted']> {
  if (waiting)
    return {
      phase,
      wave,
      message: `interrupted: stopped while ${phase} wave ${wave ?? 0} waited for health (its objects are applied; nothing after it was started)`,
    };
  return { phase, wave, message: `interrupted: stopped before ${phase === 'Prune' ? 'the prune' : `${phase} wave ${wave ?? 0}`}, after the step in progress` };
}

/** Whether the signal asks to stop; if so the report says where. */
function interruptedNow(report: SyncReport, signal: AbortSignal | undefined, phase: string, wave: number | null): boolean {
  if (!signal?.aborted) return false;
  report.interrupted ??= interruption(phase, wave);
  return true;
}

/** Argo CD's ClientSideApplyMigration: its manager (the Application's annotation, else kubectl's), none when the app turns it off. */
function csaMigrationManagers(state: AppState): string[] {
  if (state.app.syncOptions.clientSideApplyMigration === false) return [];
  return [state.app.csaMigrationManager ?? DEFAULT_CSA_MIGRATION_MANAGER];
}

function phaseOptions(
  state: AppState,
  deps: SyncDeps,
  o: {
    force: boolean;
    revision: string;
    started: number;
    deadline: number;
    beforeGroup: PhaseRunOptions['beforeGroup'];
    retryNotFound: PhaseRunOptions['retryNotFound'];
  },
): PhaseRunOptions {
  // The waves wait for health as status computes it: the app's own Lua checks first (argocd-cm, --lua-dir).
  const customHealth = customHealthRunner(state.rules);
  return {
    fieldManager: deps.opts.fieldManager,
    force: o.force,
    csaManagers: csaMigrationManagers(state),
    appInstance: state.appInstance,
    destinationNamespace: state.destinationNamespace,
    ...(state.tracking ? { tracking: state.tracking } : {}),
    revision: o.revision,
    startedAtMs: o.started,
    deadlineMs: o.deadline,
    waveDelayMs: waveDelayMs(deps.io.env),
    pollMs: 1000,
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    ...(deps.progress ? { progress: deps.progress } : {}),
    ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    ...(o.beforeGroup ? { beforeGroup: o.beforeGroup } : {}),
    ...(o.retryNotFound ? { retryNotFound: o.retryNotFound } : {}),
    ...(customHealth ? { customHealth } : {}),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function established(crd: KubeObject | undefined): boolean {
  const conditions = isPlainObject(crd?.status) && Array.isArray(crd.status.conditions) ? crd.status.conditions : [];
  return conditions.some((c) => isPlainObject(c) && c.type === 'Established' && c.status === 'True');
}

/**
 * Waits until discovery serves `kind` in group/version (read again each time, past the gateway's cache): a CRD of a
 * group the server never served is Established before the group's handler is installed, and an apply in between
 * answers 404. At most until `deadline`.
 */
async function discoveryServes(gw: KubeGateway, type: Pick<ResourceType, 'group' | 'version' | 'kind'>, deadline: number): Promise<void> {
  if (!gw.servedTypes) return;
  for (;;) {
    const types = await gw.servedTypes(type.group, type.version);
    if (types?.some((t) => t.kind === type.kind)) return;
    if (Date.now() >= deadline) throw new Error(`not applied: the API server did not serve ${type.kind} in ${type.group}/${type.version} in time`);
    await sleep(250);
  }
}

/**
 * Before a group whose kind a CRD of this sync defines: waits until the API server says that CRD is Established and
 * discovery serves its group-version (applying earlier answers 404), at most until `deadline`.
 */
function crdsServed(gw: KubeGateway, state: AppState, deadline: number): (steps: readonly ApplyStep[]) => Promise<void> {
  const crds = new Map<string, { name: string; type: ResourceType }>();
  for (const d of state.desired) {
    if (d.key.kind !== 'CustomResourceDefinition' || d.key.group !== 'apiextensions.k8s.io') continue;
    const spec = isPlainObject(d.object.spec) ? d.object.spec : {};
    const names = isPlainObject(spec.names) ? spec.names : {};
    crds.set(`${String(spec.group ?? '')}/${String(names.kind ?? '')}`, { name: d.key.name, type: d.type });
  }
  const ready = new Set<string>();
  return async (steps) => {
    for (const s of steps) {
      if (s.unserved) {
        await servedByLiveCrd(gw, s, deadline);
        continue;
      }
      const k = `${s.key.group}/${s.key.kind}/${s.type.version}`;
      const crd = crds.get(`${s.key.group}/${s.key.kind}`);
      if (!s.pendingCrd || !crd || ready.has(k)) continue;
      while (!established(await gw.get(crd.type, '', crd.name))) {
        if (Date.now() >= deadline) throw new Error(`not applied: CustomResourceDefinition ${crd.name} was not Established in time`);
        await sleep(250);
      }
      await discoveryServes(gw, s.type, deadline);
      ready.add(k);
    }
  };
}

/**
 * A step whose kind nothing served or declared when the sync began (SkipDryRunOnMissingResource=true): when its wave
 * comes, a CustomResourceDefinition in the cluster that defines the kind gives its type (waited for until Established
 * and served, at most until `deadline`); without one the step fails, as Argo CD's apply would.
 */
async function servedByLiveCrd(gw: KubeGateway, step: ApplyStep, deadline: number): Promise<void> {
  const missing = `not applied: the cluster does not serve ${step.key.kind} in ${step.object.apiVersion} and no CustomResourceDefinition defines it (SkipDryRunOnMissingResource skipped its dry-run)`;
  const crdType = await gw.resolve('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
  if (!crdType) throw new Error(missing);
  for (;;) {
    const crds = (await gw.list(crdType)).items;
    const crd = crds.find((c) =>
      typesDefinedBy(c).some((t) => t.group === step.key.group && t.kind === step.key.kind && apiVersionOf(t) === step.object.apiVersion),
    );
    if (!crd) throw new Error(missing);
    if (established(crd)) {
      const type = typesDefinedBy(crd).find((t) => apiVersionOf(t) === step.object.apiVersion) as ResourceType;
      await discoveryServes(gw, type, deadline);
      step.type = type;
      if (!type.namespaced) delete step.object.metadata.namespace;
      step.unserved = false;
      return;
    }
    if (Date.now() >= deadline) throw new Error(`not applied: CustomResourceDefinition ${crd.metadata.name ?? ''} was not Established in time`);
    await sleep(250);
  }
}

/**
 * An apply of a kind a CRD defines that answered 404 (the group's handler not installed yet, though discovery said
 * served): tried again after a short wait, as Argo CD's sync retries it, at most until `deadline`.
 */
function notFoundRetry(gw: KubeGateway, deadline: number): (step: ApplyStep, err: unknown) => Promise<boolean> {
  return async (step, err) => {
    if (!step.pendingCrd || !(err instanceof KubeApiError) || err.status !== 404 || Date.now() >= deadline) return false;
    await discoveryServes(gw, step.type, deadline).catch(() => undefined);
    await sleep(500);
    return true;
  };
}

/** Adds apply results to the report (steps, counts, healed fields, conflicts, failures). */
function recordApplied(report: SyncReport, results: readonly ApplyResult[]): void {
  for (const r of results) {
    report.steps.push({ ...stepRef(r.step), outcome: r.outcome, ...(r.message ? { message: r.message } : {}) });
    if (r.outcome === 'applied') {
      report.applied++;
      report.healed.push(...conflictRefs(r));
    } else if (r.outcome === 'conflict') report.conflicts.push(...conflictRefs(r));
    else if (r.outcome === 'failed') report.failures.push({ ...ref(r.step.key), phase: 'apply', message: r.message ?? 'failed' });
  }
}

/** Prune, only when enabled, every apply succeeded and the scan was whole; every outcome recorded. */
async function runPrune(
  gw: KubeGateway,
  plan: SyncPlan,
  report: SyncReport,
  deniedDeletes: readonly MissingPermission[],
  deadline: number,
  progress?: (line: string) => void,
  scanGaps?: readonly string[],
  pruneConfirmed = false,
  finalizeApp?: FinalizeApp,
  signal?: AbortSignal,
): Promise<void> {
  if (!plan.prune.enabled) return;
  if (report.failures.length > 0 || report.conflicts.length > 0) {
    report.prune.blocked = 'not every object was applied: nothing was pruned';
    return;
  }
  if (scanGaps) {
    blockPartialPrune(plan, report, scanGaps);
    return;
  }
  const waiting = pruneConfirmed ? undefined : waitingForConfirmation(plan.prune.candidates);
  if (waiting) {
    // As gitops-engine: while one prune needs a confirmation, no prune task runs (the applies already did).
    report.prune.waiting = waiting;
    report.prune.blocked = `${waiting}: nothing was pruned`;
    for (const c of plan.prune.candidates) {
      const message = c.skip ?? (c.confirm ? 'waiting for pruning confirmation (Prune=confirm)' : `not pruned: ${waiting}`);
      report.prune.results.push({ ...ref(c.key), outcome: 'skipped', message });
    }
    return;
  }
  if (deniedDeletes.length > 0) {
    report.prune.blocked = `forbidden: ${deniedDeletes.map(describeMissing).join('; ')}: nothing was pruned`;
    for (const c of plan.prune.candidates) {
      if (c.skip) continue;
      const m = deniedDeletes.find(
        (d) => d.group === c.type.group && d.resource === c.type.resource && (d.namespace ?? '') === (c.type.namespaced ? c.key.namespace : ''),
      );
      const message = m ? describeMissing(m) : 'not pruned: another delete in this prune is forbidden';
      report.prune.results.push({ ...ref(c.key), outcome: 'failed', message });
      report.failures.push({ ...ref(c.key), phase: 'prune', message });
    }
    return;
  }
  progress?.(`pruning ${plan.prune.candidates.length} objects`);
  // Wave by wave, as gitops-engine prunes (one wave a pass): a wave's deletions are gone before the next wave's start, and
  // a failed deletion (or one still there at the time limit) ends the prune, the later waves left and said so.
  const waves = pruneWaves(plan.prune.candidates);
  for (const [i, wave] of waves.entries()) {
    const failuresBefore = report.failures.length;
    // A stop asked for finishes the delete in flight and starts no other (those not reached are skipped, said so).
    const deleted = await deleteCandidates(gw, wave, { propagationPolicy: report.prune.propagationPolicy, ...(signal ? { signal } : {}) });
    const stoppedDeleting = signal?.aborted === true;
    if (stoppedDeleting)
      report.interrupted ??= {
        phase: 'Prune',
        wave: null,
        message: 'interrupted: stopped during the prune (the delete in flight was finished, no other was started)',
      };
    for (const d of deleted) {
      let outcome: PruneResultReport['outcome'] = d.outcome === 'deleted' ? 'pruned' : d.outcome;
      let message = d.message;
      // A child Application with Argo CD's deletion finalizers would wait Terminating for a controller: finish it here.
      if (d.outcome === 'deleted' && isFinalizedApplication(d.candidate)) {
        const { key } = d.candidate;
        const done = finalizeApp ? await finalizeApp({ namespace: key.namespace, name: key.name }) : { ok: false, message: 'no deletion of its objects here' };
        if (done.ok) message = `its deletion finished as delete would: ${done.message}`;
        else {
          outcome = 'failed';
          message = `deleted, but left Terminating (${done.message}): finish it with kubectl gitops delete ${key.name} --app-namespace ${key.namespace}`;
        }
      }
      report.prune.results.push({ ...ref(d.candidate.key), outcome, ...(message ? { message } : {}) });
      if (outcome === 'failed' || outcome === 'changed') report.failures.push({ ...ref(d.candidate.key), phase: 'prune', message: message ?? outcome });
    }
    const rest = waves.slice(i + 1).flat();
    if (stoppedDeleting) {
      for (const c of rest) report.prune.results.push({ ...ref(c.key), outcome: 'skipped', message: c.skip ?? NOT_REACHED });
      return;
    }
    const where = `wave ${wave[0]!.wave}${isPruneLast(wave[0]!) ? ' (PruneLast)' : ''}`;
    if (report.failures.length === failuresBefore)
      await waitPruned(
        gw,
        deleted.filter((d) => d.outcome === 'deleted').map((d) => d.candidate),
        report,
        deadline,
        progress,
        signal,
      );
    if (report.failures.length === failuresBefore && !report.interrupted) continue;
    const why = report.interrupted
      ? NOT_REACHED
      : `not pruned: the prune of ${where} failed or is not gone yet, and a later wave is pruned only after it (as gitops-engine)`;
    for (const c of rest) report.prune.results.push({ ...ref(c.key), outcome: 'skipped', message: c.skip ?? why });
    return;
  }
}

/** The prune plan's candidates (already in deletion order) cut into its waves: by wave, the PruneLast ones apart. */
function pruneWaves(candidates: readonly PruneCandidate[]): PruneCandidate[][] {
  const out: PruneCandidate[][] = [];
  for (const c of candidates) {
    const last = out[out.length - 1];
    const head = last?.[0];
    if (head && head.wave === c.wave && isPruneLast(head) === isPruneLast(c)) last.push(c);
    else out.push([c]);
  }
  return out;
}

/**
 * As gitops-engine (`prunedTasksPendingDelete`): the sync is not over, and no PostSync hook starts, while a pruned object
 * is still there (Terminating: a foreground delete waits for the garbage collector to delete its dependents, a
 * finalizer for its controller). One still there at the sync's time limit fails the sync (exit 3), said per object.
 */
async function waitPruned(
  gw: KubeGateway,
  pruned: readonly PruneCandidate[],
  report: SyncReport,
  deadline: number,
  progress?: (line: string) => void,
  signal?: AbortSignal,
): Promise<void> {
  if (pruned.length === 0) return;
  progress?.(`waiting for ${pruned.length} pruned objects to be gone`);
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const left = await waitGone(gw, pruned, { now: () => Date.now(), sleep, pollMs: 250, deadline, ...(signal ? { signal } : {}) }).catch(
    (err: unknown) => err as Error,
  );
  if (left instanceof Error) {
    appFailure(report, 'prune', `could not see the pruned objects go: ${left.message}`);
    return;
  }
  // Stopped while waiting (a signal), before the time limit: what is left stays deleted; the sync says where it stopped.
  if (left.length > 0 && signal?.aborted === true && Date.now() < deadline) {
    report.interrupted ??= {
      phase: 'Prune',
      wave: null,
      message: 'interrupted: stopped while the prune waited for the pruned objects to be gone (they stay deleted)',
    };
    for (const c of left) {
      const r = report.prune.results.find((x) => keyString(x) === keyString(c.key));
      if (r) r.message = 'pruned; still Terminating when the wait was stopped';
    }
    return;
  }
  for (const c of left) {
    const message = stillThereAtTheLimit(c);
    const r = report.prune.results.find((x) => keyString(x) === keyString(c.key));
    if (r) r.message = message;
    report.failures.push({ ...ref(c.key), phase: 'prune', message });
  }
}

/**
 * gitops-engine's message for prune tasks held for a confirmation (`Waiting for pruning confirmation of
 * <apiVersion>/<kind>/<name>[ and N more resources]`), or undefined when none needs one.
 */
function waitingForConfirmation(candidates: readonly PruneCandidate[]): string | undefined {
  const held = candidates.filter((c) => !c.skip && c.confirm);
  if (held.length === 0) return undefined;
  const { type, key } = held[0]!;
  const more = held.length > 1 ? ` and ${held.length - 1} more resources` : '';
  return `${WAITING_FOR_PRUNE_CONFIRMATION} ${type.group ? `${type.group}/` : ''}${type.version}/${key.kind}/${key.name}${more}`;
}

/**
 * A prune after a scan that could not list every kind: nothing is pruned (a candidate of the unlisted kinds would be
 * missed, and the reverse order with it); every candidate seen is reported not pruned, and the sync fails (exit 3).
 */
function blockPartialPrune(plan: SyncPlan, report: SyncReport, scanGaps: readonly string[]): void {
  const why = partialScan(scanGaps);
  report.prune.blocked = `${why}: nothing was pruned`;
  for (const c of plan.prune.candidates) {
    report.prune.results.push({ ...ref(c.key), outcome: c.skip ? 'skipped' : 'failed', message: c.skip ?? 'not pruned: the prune scan is partial' });
  }
  appFailure(report, 'prune', why);
}

/** A failure of the sync as a whole (not of one object): reported on the app, as `Sync/<app>`. */
function appFailure(report: SyncReport, phase: 'prune' | 'operation', message: string): void {
  report.failures.push({ group: '', kind: 'Sync', namespace: '', name: report.app, phase, message });
}
