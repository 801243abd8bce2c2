// `sync`: load and validate everything, plan in Argo CD's order, dry-run the whole set, apply by SSA, then prune safely; returns a report.
import { createHash } from 'node:crypto';
import { firstFailure } from '../diff/comparison.js';
import type { ObjectDiff } from '../diff/types.js';
import type { KubeGateway } from '../kube/gateway.js';
import { apiVersionOf, type ResourceType } from '../model/resource-type.js';
import { isPlainObject, keyString, type JsonValue, type PropagationPolicy, type ResourceKey } from '../model/object.js';
import { deleteCandidates } from './prune-delete.js';
import { partialScan } from './prune.js';
import { applySteps, dryRunSteps, type ApplyResult, type DryRunResult } from './apply.js';
import { renderPath, serverFieldText } from '../model/field-path.js';
import { keepLiveValues } from '../sync/ignored.js';
import { leftTo, type IgnoredFields } from '../diff/ignored-fields.js';
import { planSync, type ApplyStep, type PlanDesired, type SyncPlan } from '../sync/plan.js';
import { describeMissing, preflight, writesOf, type MissingPermission } from './preflight.js';
import type { HookPhase } from '../sync/hooks.js';
import { hookWave, isMultiStep, phaseGroups, syncFailGroups } from '../sync/phases.js';
import { customHealthRunner } from './custom-health.js';
import { hookObject, runPhases, type HookRun, type RunnableHook, type SyncEvent, type WaveRun } from './sync-phases.js';
import { compareAppState, loadAppState, typesDefinedBy, type AppState, type AppStateArgs, type AppStateDeps } from './app-state.js';
import type { Application, RetryPolicy } from '../app/types.js';
import { DEFAULT_RETRY_BACKOFF } from '../app/application.js';
import { InputError, UnrenderableError } from '../model/errors.js';
import { matchesResource, parseResourceFilter, parseSelector, selectorMatches, type ResourceFilter, type Selector } from '../sync/subset.js';
import { stateRefusal } from './rules.js';

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
  /** `applied`, `skipped`, `conflict`, `failed`; in a dry run `would-apply`, `would-skip`. */
  outcome: string;
  message?: string;
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
  dryRun: boolean;
  /** A safety rule refused the sync: nothing was applied or deleted. */
  refused?: string;
  force: boolean;
  forceReason?: string;
  steps: StepReport[];
  applied: number;
  /** Fields taken back from other managers (a forced apply over a conflict); in a dry run, those that would be. */
  healed: FieldOwnerRef[];
  /** Ignored fields left to their owner (e.g. spec.replicas after `kubectl scale`). */
  ignored: (FieldOwnerRef & { rule: string })[];
  /** Conflicting fields of objects not applied (no force). */
  conflicts: FieldOwnerRef[];
  /** `operation`: the sync stopped (a failed hook, a Degraded resource, the --timeout); the message says which. */
  failures: (ResourceKey & { phase: 'preflight' | 'dry-run' | 'apply' | 'prune' | 'operation'; message: string })[];
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
  prune: { enabled: boolean; why: string; last: boolean; blocked?: string; propagationPolicy: PropagationPolicy; results: PruneResultReport[] };
  warnings: string[];
}

export interface SyncRequest extends AppStateArgs {
  dryRun: boolean;
  prune: boolean;
  forceConflicts: boolean;
  /** `--resource [!]GROUP:KIND:[NAMESPACE/]NAME`: sync only these (a partial sync, which never prunes). */
  resources?: readonly string[];
  /** `-l`: sync only the desired objects whose labels match (a partial sync, which never prunes). */
  selector?: string;
  /** How long a sync with waves or hooks may wait for health and hooks in all (ms). */
  timeoutMs: number;
  /** Argo CD's apply strategy (what its rollback uses): the resources only, no hook is run. */
  skipHooks?: boolean;
}

function ref(k: ResourceKey): ResourceKey {
  return { group: k.group, kind: k.kind, namespace: k.namespace, name: k.name };
}

const NAMESPACE_TYPE: ResourceType = { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false, verbs: ['get', 'list', 'create', 'patch', 'delete'] };

/**
 * The Namespace type the cluster serves, and which of the app's namespaces (those it touches and the
 * Namespaces it declares) exist live: CreateNamespace and the plan need to know.
 */
export async function liveNamespaces(gw: KubeGateway, state: Pick<AppState, 'namespaces' | 'desired'>): Promise<{ type: ResourceType; live: Set<string> }> {
  const names = new Set([...state.namespaces, ...state.desired.filter((d) => d.key.kind === 'Namespace' && d.key.group === '').map((d) => d.key.name)]);
  const type = (await gw.resolve('v1', 'Namespace')) ?? NAMESPACE_TYPE;
  const live = new Set<string>();
  await Promise.all([...names].map(async (n) => void ((await gw.get(type, '', n)) && live.add(n))));
  return { type, live };
}

/** The exit code a report stands for: 4 refused, 3 any failure or unapplied conflict, else 0. */
export function syncExitCode(r: SyncReport): 0 | 3 | 4 {
  if (r.refused) return 4;
  if (r.dryRun) return r.failures.length > 0 ? 3 : 0;
  if (r.failures.length > 0 || r.conflicts.length > 0) return 3;
  return 0;
}

/** What a sync needs besides the request: the app-state deps, and where it tells its progress (both optional). */
export type SyncDeps = AppStateDeps & { progress?: (line: string) => void; onEvent?: (e: SyncEvent) => void };

/** Runs a sync (or plans it with dryRun) and reports per resource; throws only for input and loading errors. */
export async function syncApp(req: SyncRequest, deps: SyncDeps): Promise<SyncReport> {
  const gw = deps.gateway;
  const fieldManager = deps.opts.fieldManager;
  const filters = parseSubset(req);
  const partial = filters !== undefined;
  if (partial && req.prune) throw new InputError('--prune does not go with --resource or -l: a partial sync applies what it names and never prunes');
  let state: AppState;
  try {
    // A dry run lists the prune candidates whether or not this sync would prune them.
    state = await loadAppState(req, deps, { extras: req.prune || req.dryRun });
  } catch (err) {
    if (err instanceof UnrenderableError) return refusedReport(req, deps, err.message);
    throw err;
  }
  const { app } = state;
  if (filters) state.desired = selectSubset(state.desired, filters);

  // The one comparison (diff/comparison.ts): its verdicts drive ApplyOutOfSyncOnly, its ignored fields the IGNORED
  // lines and RespectIgnoreDifferences.
  const comparison = await compareAppState(state, fieldManager);
  const failed = firstFailure(comparison);
  if (failed) throw failed;
  const diffs = new Map<string, ObjectDiff>();
  const ignored = new Map<string, IgnoredFields>();
  const desired: PlanDesired[] = [];
  state.desired.forEach((d, i) => {
    const k = keyString(d.key);
    const compared = comparison.objects[i]!;
    let object = d.object;
    if (state.live.has(k)) {
      diffs.set(k, compared);
      state.warnings.push(...compared.ignoredLive.warnings.map((w) => `${d.key.kind}/${d.key.name}: ${w}`));
      ignored.set(k, compared.ignoredLive);
      if (app.syncOptions.respectIgnoreDifferences) object = keepLiveValues(d.object, compared.ignoredLive);
    }
    desired.push({ object, type: d.type, key: d.key, source: d.source, ...(d.pendingCrd ? { pendingCrd: true } : {}), ...(d.unserved ? { unserved: true } : {}) });
  });

  const namespaces = await liveNamespaces(gw, state);

  const plan = planSync({
    app,
    appInstance: state.appInstance,
    destinationNamespace: state.destinationNamespace,
    desired,
    live: state.live,
    diffs,
    liveNamespaces: namespaces.live,
    namespaceType: namespaces.type,
    pruneCandidates: state.prune?.candidates ?? [],
    flags: { prune: req.prune, pruneOff: pruneOff(app, partial), forceConflicts: req.forceConflicts },
    ...(state.tracking ? { tracking: state.tracking } : {}),
  });
  const propagationPolicy: PropagationPolicy = app.syncOptions.prunePropagationPolicy ?? 'foreground';
  const report: SyncReport = {
    schemaVersion: SYNC_SCHEMA_VERSION,
    app: app.name,
    ...(state.target ? { context: state.target.context, server: state.target.server } : {}),
    origin: state.origin,
    ...(state.revision ? { revision: state.revision } : {}),
    ...(state.sources ? { revisions: state.sources.map((s) => s.revision) } : {}),
    dryRun: req.dryRun,
    ...(app.retry ? { retryPolicy: app.retry } : {}),
    force: plan.force,
    ...(plan.forceReason ? { forceReason: plan.forceReason } : {}),
    ...noResults(),
    prune: { enabled: plan.prune.enabled, why: plan.prune.why, last: plan.prune.last, propagationPolicy, results: [] },
    warnings: [...state.warnings, ...plan.warnings],
  };
  const refused = stateRefusal(state, { manual: true, now: Date.now() }) ?? plan.refused;
  if (refused) {
    report.refused = refused;
    return report;
  }

  // Ignored fields left to their owners: fields the desired object does not declare (or keeps live).
  for (const step of plan.steps) {
    const ig = ignored.get(keyString(step.key));
    if (!ig) continue;
    for (const f of ig.live) {
      if (f.desired !== undefined && !app.syncOptions.respectIgnoreDifferences) continue;
      for (const manager of leftTo(f, fieldManager)) report.ignored.push({ ...ref(step.key), field: renderPath(f.path), manager, rule: `${f.rule.type} ${f.rule.value}` });
    }
  }

  // Permissions first (one access review per verb/resource/namespace). A missing patch/create refuses the
  // whole sync; a missing delete lets the applies go on and blocks the whole prune, reported per candidate.
  const writes = writesOf(plan.steps, plan.prune.enabled ? plan.prune.candidates : []);
  const access = await preflight(gw, writes, { dryRunDeletes: false });
  for (const m of access.missing.filter((x) => x.verb !== 'delete')) {
    report.failures.push({ group: m.group, kind: 'Permission', namespace: m.namespace ?? '', name: m.verb, phase: 'preflight', message: describeMissing(m) });
  }
  const deniedDeletes = access.missing.filter((x) => x.verb === 'delete');

  // The whole set, server-side dry-run; any failure stops everything.
  deps.progress?.(`dry-running ${plan.steps.filter((s) => s.action !== 'skip').length} objects`);
  const dry = await dryRunSteps(gw, plan.steps, { fieldManager, force: plan.force });
  for (const d of dry) if (d.error) report.failures.push({ ...ref(d.step.key), phase: 'dry-run', message: d.error });
  const conflictRefs = (d: { step: ApplyStep; conflicts: DryRunResult['conflicts'] }) => d.conflicts.map((c) => ({ ...ref(d.step.key), field: serverFieldText(c.field, d.step.live as unknown as JsonValue | undefined), manager: c.manager }));

  // The operation's order: hooks in their phases, the resources in the Sync phase, wave by wave.
  const hooks: RunnableHook[] = (req.skipHooks ? [] : state.hooks).map((h) => {
    const w = hookWave(h.object);
    if (w.error) report.warnings.push(`${h.key.kind}/${h.key.name || h.object.metadata.generateName || ''}: ${w.error}; wave 0 used`);
    return { object: h.object, type: h.type, key: h.key, phases: h.hook.phases, wave: w.wave, deletePolicies: h.hook.deletePolicies };
  });
  const groups = phaseGroups(dry.filter((d) => !d.step.createdNamespace), (d) => d.step.wave, hooks);
  const multiStep = isMultiStep(groups);

  if (req.dryRun || report.failures.length > 0) {
    if (req.dryRun) {
      const names = { revision: state.revision ?? contentDigest(state), startedAtMs: Date.now(), appInstance: state.appInstance, destinationNamespace: state.destinationNamespace };
      for (const g of [...groups, ...syncFailGroups(hooks)]) {
        for (const h of g.hooks) report.hooks.push({ ...ref({ ...h.key, name: hookObject(h, g.phase, names).metadata.name ?? '' }), phase: g.phase, wave: g.wave, outcome: 'would-run' });
        // The plan's phases and waves, as the sync would run them (SyncFail's only if it failed).
        if (multiStep) (report.waves ??= []).push({ phase: g.phase, wave: g.wave, resources: g.steps.length, hooks: g.hooks.length, outcome: 'would-run' });
      }
    }
    for (const d of dry) {
      report.steps.push({ ...ref(d.step.key), wave: Number.isFinite(d.step.wave) ? d.step.wave : null, action: d.step.action, outcome: d.error ? 'failed' : d.step.action === 'skip' ? 'would-skip' : 'would-apply', ...((d.error ?? d.skipped) ? { message: d.error ?? d.skipped } : {}) });
      if (plan.force) report.healed.push(...conflictRefs(d));
      else report.conflicts.push(...conflictRefs(d));
    }
    if (report.failures.length > 0) report.prune.blocked = 'the permission check or the server-side dry-run failed: nothing was applied or deleted';
    else if (plan.prune.enabled && state.scanGaps) blockPartialPrune(plan, report, state.scanGaps);
    else {
      for (const c of plan.prune.candidates) {
        const outcome = c.skip ? 'skipped' : plan.prune.enabled ? 'would-prune' : 'candidate';
        report.prune.results.push({ ...ref(c.key), outcome, ...(c.skip ? { message: c.skip } : {}) });
      }
    }
    return report;
  }

  // Apply: in one pass (a single wave, no hooks), else phase by phase and wave by wave, each waited for.
  const prune = () => runPrune(gw, plan, report, deniedDeletes, propagationPolicy, deps.progress, state.scanGaps);
  const beforeGroup = crdsServed(gw, state, Date.now() + req.timeoutMs);
  if (!multiStep) {
    const results: ApplyResult[] = await applySteps(gw, dry, {
      fieldManager,
      force: plan.force,
      progress: (done, total, what) => deps.progress?.(`applying [${done}/${total}] ${what}`),
      beforeGroup,
    });
    for (const r of results) {
      if (r.outcome === 'skipped') continue;
      deps.onEvent?.({ phase: 'Sync', wave: Number.isFinite(r.step.wave) ? r.step.wave : 0, key: r.step.key, hook: false, status: r.outcome === 'applied' ? 'Synced' : 'SyncFailed', ...(r.message ? { message: r.message } : {}) });
    }
    recordApplied(report, results, conflictRefs);
    await prune();
    return report;
  }
  const created = dry.filter((d) => d.step.createdNamespace);
  recordApplied(report, await applySteps(gw, created, { fieldManager, force: plan.force }), conflictRefs);
  if (report.failures.length > 0) return report;
  const started = Date.now();
  // The waves wait for health as status computes it: the app's own Lua checks first (argocd-cm, --lua-dir).
  const customHealth = customHealthRunner(state.rules);
  const run = await runPhases(gw, groups, syncFailGroups(hooks), {
    fieldManager,
    force: plan.force,
    appInstance: state.appInstance,
    destinationNamespace: state.destinationNamespace,
    ...(state.tracking ? { tracking: state.tracking } : {}),
    revision: state.revision ?? contentDigest(state),
    startedAtMs: started,
    deadlineMs: started + req.timeoutMs,
    waveDelayMs: waveDelayMs(deps.io.env),
    pollMs: 1000,
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    ...(deps.progress ? { progress: deps.progress } : {}),
    ...(deps.onEvent ? { onEvent: deps.onEvent } : {}),
    beforeGroup,
    ...(customHealth ? { customHealth } : {}),
  }, async () => {
    // Pruning ends the Sync phase (gitops-engine gives prunes the Sync phase's waves; PruneLast its last).
    if (report.failures.length > 0 || report.conflicts.length > 0) return undefined;
    await prune();
    return report.failures.some((f) => f.phase === 'prune') ? 'the prune failed' : undefined;
  });
  recordApplied(report, run.results, conflictRefs);
  report.hooks = run.hooks.map((h) => ({ ...ref(h.key), phase: h.phase, wave: h.wave, outcome: h.outcome, ...(h.message ? { message: h.message } : {}) }));
  report.waves = run.waves;
  if (run.failed) {
    report.failures.push({ group: '', kind: 'Sync', namespace: '', name: report.app, phase: 'operation', message: run.failed });
    if (!report.prune.blocked && report.prune.results.length === 0 && plan.prune.enabled) report.prune.blocked = 'the sync failed: nothing was pruned';
  }
  return report;
}

/**
 * Before a group whose kind a CRD of this sync defines: waits until the API server says that CRD is Established (its
 * resources are served only then; applying earlier answers 404), at most until `deadline`.
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
      const k = `${s.key.group}/${s.key.kind}`;
      if (s.unserved) {
        await servedByLiveCrd(gw, s, deadline);
        continue;
      }
      const crd = crds.get(k);
      if (!s.pendingCrd || !crd || ready.has(k)) continue;
      for (;;) {
        const live = await gw.get(crd.type, '', crd.name);
        const conditions = isPlainObject(live?.status) && Array.isArray(live.status.conditions) ? live.status.conditions : [];
        if (conditions.some((c) => isPlainObject(c) && c.type === 'Established' && c.status === 'True')) break;
        if (Date.now() >= deadline) throw new Error(`not applied: CustomResourceDefinition ${crd.name} was not Established in time`);
        await new Promise((r) => setTimeout(r, 250));
      }
      ready.add(k);
    }
  };
}

/**
 * A step whose kind nothing served or declared when the sync began (SkipDryRunOnMissingResource=true): when its wave
 * comes, a CustomResourceDefinition in the cluster that defines the kind gives its type (waited for until Established,
 * at most until `deadline`); without one the step fails, as Argo CD's apply would.
 */
async function servedByLiveCrd(gw: KubeGateway, step: ApplyStep, deadline: number): Promise<void> {
  const missing = `not applied: the cluster does not serve ${step.key.kind} in ${step.object.apiVersion} and no CustomResourceDefinition defines it (SkipDryRunOnMissingResource skipped its dry-run)`;
  const crdType = await gw.resolve('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
  if (!crdType) throw new Error(missing);
  for (;;) {
    const crds = (await gw.list(crdType)).items;
    const crd = crds.find((c) => typesDefinedBy(c).some((t) => t.group === step.key.group && t.kind === step.key.kind && apiVersionOf(t) === step.object.apiVersion));
    if (!crd) throw new Error(missing);
    const conditions = isPlainObject(crd.status) && Array.isArray(crd.status.conditions) ? crd.status.conditions : [];
    if (conditions.some((c) => isPlainObject(c) && c.type === 'Established' && c.status === 'True')) {
      const type = typesDefinedBy(crd).find((t) => apiVersionOf(t) === step.object.apiVersion) as ResourceType;
      step.type = type;
      if (!type.namespaced) delete step.object.metadata.namespace;
      step.unserved = false;
      return;
    }
    if (Date.now() >= deadline) throw new Error(`not applied: CustomResourceDefinition ${crd.metadata.name ?? ''} was not Established in time`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Adds apply results to the report (steps, counts, healed fields, conflicts, failures). */
function recordApplied(report: SyncReport, results: readonly ApplyResult[], conflictRefs: (d: { step: ApplyStep; conflicts: DryRunResult['conflicts'] }) => FieldOwnerRef[]): void {
  for (const r of results) {
    report.steps.push({ ...ref(r.step.key), wave: Number.isFinite(r.step.wave) ? r.step.wave : null, action: r.step.action, outcome: r.outcome, ...(r.message ? { message: r.message } : {}) });
    if (r.outcome === 'applied') {
      report.applied++;
      report.healed.push(...conflictRefs(r));
    } else if (r.outcome === 'conflict') report.conflicts.push(...conflictRefs(r));
    else if (r.outcome === 'failed') report.failures.push({ ...ref(r.step.key), phase: 'apply', message: r.message ?? 'failed' });
  }
}

/** Prune, only when enabled and every apply succeeded; every outcome recorded. */
async function runPrune(
  gw: KubeGateway,
  plan: SyncPlan,
  report: SyncReport,
  deniedDeletes: readonly MissingPermission[],
  propagationPolicy: PropagationPolicy,
  progress?: (line: string) => void,
  scanGaps?: readonly string[],
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
  if (deniedDeletes.length > 0) {
    report.prune.blocked = `forbidden: ${deniedDeletes.map(describeMissing).join('; ')}: nothing was pruned`;
    for (const c of plan.prune.candidates) {
      if (c.skip) continue;
      const m = deniedDeletes.find((d) => d.group === c.type.group && d.resource === c.type.resource && (d.namespace ?? '') === (c.type.namespaced ? c.key.namespace : ''));
      const message = m ? describeMissing(m) : 'not pruned: another delete in this prune is forbidden';
      report.prune.results.push({ ...ref(c.key), outcome: 'failed', message });
      report.failures.push({ ...ref(c.key), phase: 'prune', message });
    }
    return;
  }
  progress?.(`pruning ${plan.prune.candidates.length} objects`);
  const deleted = await deleteCandidates(gw, plan.prune.candidates, { propagationPolicy });
  for (const d of deleted) {
    const outcome = d.outcome === 'deleted' ? 'pruned' : d.outcome;
    report.prune.results.push({ ...ref(d.candidate.key), outcome, ...(d.message ? { message: d.message } : {}) });
    if (d.outcome === 'failed' || d.outcome === 'changed') report.failures.push({ ...ref(d.candidate.key), phase: 'prune', message: d.message ?? d.outcome });
  }
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
  report.failures.push({ group: '', kind: 'Sync', namespace: '', name: report.app, phase: 'prune', message: why });
}

/** A short digest of the desired set, standing in for a revision (generated hook names) when there is no commit. */
function contentDigest(state: AppState): string {
  const h = createHash('sha256');
  for (const d of [...state.desired, ...state.hooks]) h.update(JSON.stringify(d.object)).update('\n');
  return h.digest('hex').slice(0, 7);
}

/** Argo CD's pause between sync waves: 2 s, or ARGOCD_SYNC_WAVE_DELAY seconds. */
export function waveDelayMs(env: Record<string, string | undefined>): number {
  const raw = env.ARGOCD_SYNC_WAVE_DELAY;
  const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : 2000;
}

/** A report's per-object lists before anything ran. */
function noResults(): Pick<SyncReport, 'steps' | 'applied' | 'healed' | 'ignored' | 'conflicts' | 'failures' | 'hooks'> {
  return { steps: [], applied: 0, healed: [], ignored: [], conflicts: [], failures: [], hooks: [] };
}

/** Why a sync that does not prune does not. */
function pruneOff(app: Application, partial: boolean): string {
  if (partial) return 'a partial sync (--resource, -l) never prunes';
  if (app.automated?.prune) return 'a manual sync prunes only with --prune, as argocd app sync does; automated.prune is for the automated loop (sync --watch)';
  return 'pruning is off (no --prune)';
}

/** The report of a sync refused before anything was read from the cluster it would change. */
function refusedReport(req: SyncRequest, deps: AppStateDeps, refused: string): SyncReport {
  return {
    schemaVersion: SYNC_SCHEMA_VERSION,
    app: req.app ?? req.appFile ?? '',
    ...(deps.target ? { context: deps.target.context, server: deps.target.server } : {}),
    origin: '',
    dryRun: req.dryRun,
    refused,
    force: false,
    ...noResults(),
    prune: { enabled: false, why: 'refused', last: false, propagationPolicy: 'foreground', results: [] },
    warnings: [...(deps.target?.warnings ?? [])],
  };
}

interface Subset {
  resources: ResourceFilter[];
  selector?: Selector;
}

function parseSubset(req: SyncRequest): Subset | undefined {
  const resources = (req.resources ?? []).map(parseResourceFilter);
  const selector = req.selector !== undefined ? parseSelector(req.selector) : undefined;
  return resources.length > 0 || selector ? { resources, ...(selector ? { selector } : {}) } : undefined;
}

/** The desired objects a partial sync names; a --resource that names none of the app's objects is an input error. */
function selectSubset<T extends { key: ResourceKey; object: { metadata: { labels?: Record<string, string> } } }>(desired: readonly T[], s: Subset): T[] {
  const includes = s.resources.filter((f) => !f.exclude);
  for (const f of includes) {
    if (!desired.some((d) => matchesResource(f, d.key))) throw new InputError(`--resource ${f.text} names no object of the Application`);
  }
  return desired.filter(
    (d) =>
      (includes.length === 0 || includes.some((f) => matchesResource(f, d.key))) &&
      !s.resources.some((f) => f.exclude && matchesResource(f, d.key)) &&
      (!s.selector || selectorMatches(s.selector, d.object.metadata.labels ?? {})),
  );
}

/** The wait before retry attempt `n` (1-based), as Argo CD's NextRetryAt: duration × factor^(n-1), at most maxDuration. */
export function retryDelayMs(retry: RetryPolicy, n: number): number {
  return Math.min(retry.durationMs * retry.factor ** (n - 1), retry.maxDurationMs);
}

/**
 * A sync tried again after a failure (exit 3: a failed apply, hook or wave), as Argo CD retries a sync operation:
 * `retry` from --retry-limit, else the Application's syncPolicy.retry; refusals and input errors are never retried.
 * Each retry is said through `notify`; the last attempt's report is returned, with the number of attempts.
 */
export async function syncWithRetry(
  req: SyncRequest,
  deps: SyncDeps,
  opts: { retryLimit?: number; notify: (line: string) => void; sleep?: (ms: number) => Promise<void> },
): Promise<SyncReport> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let attempt = 0;
  for (;;) {
    const report = await syncApp(req, deps);
    if (req.dryRun || syncExitCode(report) !== 3) return attemptsOf(report, attempt);
    // The Application is read again by each attempt; its retry policy as last read decides.
    const policy = retryPolicyFor(report, opts.retryLimit);
    if (!policy || (policy.limit !== -1 && attempt >= policy.limit)) return attemptsOf(report, attempt);
    attempt++;
    const wait = retryDelayMs(policy, attempt);
    const why = report.failures[0]?.message ?? 'the sync failed';
    opts.notify(`${why}. Retrying attempt #${attempt} at ${new Date(Date.now() + wait).toISOString()}.`);
    await sleep(wait);
  }
}

function attemptsOf(report: SyncReport, retries: number): SyncReport {
  return retries > 0 ? { ...report, retries } : report;
}

function retryPolicyFor(report: SyncReport, retryLimit: number | undefined): RetryPolicy | undefined {
  const base = report.retryPolicy;
  if (retryLimit !== undefined) return { ...(base ?? { durationMs: DEFAULT_RETRY_BACKOFF.durationMs, factor: DEFAULT_RETRY_BACKOFF.factor, maxDurationMs: DEFAULT_RETRY_BACKOFF.maxDurationMs }), limit: retryLimit };
  return base;
}
