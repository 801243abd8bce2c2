// Runs a multi-step sync through the gateway, as gitops-engine's sync operation does: phase by phase and wave by wave,
// hooks and resources of a wave created together in kind order, hooks created fresh (their delete policies honoured
// once the operation is over), and each wave but a last one without hooks waited for until healthy before the next;
// the first failure stops it, and the SyncFail hooks run.
import type { Tracking } from '../../tracking/method.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { ResourceType } from '../../model/resource-type.js';
import { KubeApiError } from '../../kube/errors.js';
import { resourceHealth } from '../../health/resource.js';
import type { HealthStatus } from '../../health/types.js';
import type { KubeObject, ResourceKey } from '../../model/object.js';
import { applySteps, type ApplyResult, type DryRunResult } from './apply.js';
import type { ApplyStep } from '../../sync/plan.js';
import { generatedHookName, HOOK_FINALIZER, needsGeneratedName, type HookPhase } from '../../sync/hooks.js';
import type { PhaseGroup } from '../../sync/phases.js';
import { asApplied } from '../../tracking/tracking-id.js';

/** A hook as the run needs it: what to create, where, and its policies. */
export interface RunnableHook {
  object: KubeObject;
  type: ResourceType;
  key: ResourceKey;
  phases: readonly HookPhase[];
  wave: number;
  deletePolicies: readonly string[];
}

export interface HookRun {
  phase: HookPhase;
  wave: number;
  key: ResourceKey;
  /** `Succeeded`, `Failed`, `Running` (stopped by the time limit); in a dry run `would-run`. */
  outcome: 'Succeeded' | 'Failed' | 'Running' | 'would-run';
  message?: string;
  /** Failed because it could not be created (it never ran). */
  notCreated?: true;
}

/** One change of state during a sync, as `argocd app sync` shows it in its table (a live view on a terminal). */
export interface SyncEvent {
  phase: HookPhase;
  wave: number;
  key: ResourceKey;
  hook: boolean;
  /** `Running` (a hook created), `Synced` / `SyncFailed` (applied or not), a health (`Healthy`, `Progressing`, `Degraded`, …), or a hook's `Succeeded` / `Failed`. */
  status: string;
  message?: string;
}

export interface PhaseRunOptions {
  fieldManager: string;
  force: boolean;
  /** The client-side apply migration managers (apply.ts; the owners of last-applied-configuration always migrate). */
  csaManagers?: readonly string[];
  appInstance: string;
  destinationNamespace: string;
  /** The cluster's tracking method (argocd-cm); default: the tracking-id annotation. */
  tracking?: Tracking;
  /** The revision hooks' generated names carry (the commit, or a digest of the desired set). */
  revision: string;
  startedAtMs: number;
  /** When the whole operation must be over (epoch ms). */
  deadlineMs: number;
  /** Argo CD's pause after a wave is applied, before its health is read (2 s; ARGOCD_SYNC_WAVE_DELAY seconds); not after the last. */
  waveDelayMs: number;
  pollMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  progress?: (line: string) => void;
  /** Told each change of state, in order (the terminal's live table). */
  onEvent?: (e: SyncEvent) => void;
  /** Awaited before each group of resources is applied (the CRD of their kind served). */
  beforeGroup?: (steps: readonly ApplyStep[]) => Promise<void>;
  /** Asked after an apply failed: true to send it again (applySteps' retryNotFound). */
  retryNotFound?: (step: ApplyStep, err: unknown) => Promise<boolean>;
  /** Once aborted, no new (phase, wave) and no prune starts; the one in progress is finished. */
  signal?: AbortSignal;
  /** Runs the app's own (Lua) health checks on a live object before its health is read (workflows/status/custom-health.ts). */
  customHealth?: (objects: readonly KubeObject[]) => Promise<unknown>;
}

/** One (phase, wave) of a multi-step sync and how it ended: `done` (applied, and healthy where it was waited for), `failed`, `not-run` (the sync stopped before it), or in a dry run `would-run`. */
export interface WaveRun {
  phase: HookPhase;
  wave: number;
  resources: number;
  hooks: number;
  /** `interrupted`: the signal came while its resources or hooks were waited for (they were applied). */
  outcome: 'done' | 'failed' | 'not-run' | 'would-run' | 'interrupted';
}

export interface PhaseRunResult {
  results: ApplyResult[];
  hooks: HookRun[];
  /** Every (phase, wave) in order, SyncFail's included when they ran. */
  waves: WaveRun[];
  /** Why the sync stopped, when it did (the first failed apply, hook, or Degraded resource, or the time limit). */
  failed?: string;
  /** Where the run stopped when the signal aborted it (`Prune`: before the prune). */
  interrupted?: { phase: string; wave: number | null; waiting?: boolean };
}

type Group = PhaseGroup<DryRunResult, RunnableHook>;

/**
 * The object a hook creates this run: named (generateName), stamped with the app's mark, and holding Argo CD's hook
 * finalizer so that nothing (a Job's TTL, a garbage collection) removes it before its result is read.
 */
export function hookObject(
  h: RunnableHook,
  phase: HookPhase,
  o: Pick<PhaseRunOptions, 'revision' | 'startedAtMs' | 'appInstance' | 'destinationNamespace' | 'tracking'>,
): KubeObject {
  const metadata = { ...h.object.metadata };
  if (needsGeneratedName(h.object)) {
    metadata.name = generatedHookName(metadata.generateName as string, o.revision, phase, o.startedAtMs);
    delete metadata.generateName;
  }
  const finalizers = Array.isArray(metadata.finalizers) ? (metadata.finalizers as string[]) : [];
  if (!finalizers.includes(HOOK_FINALIZER)) metadata.finalizers = [...finalizers, HOOK_FINALIZER];
  return asApplied({ ...h.object, metadata }, o.appInstance, o.destinationNamespace, o.tracking);
}

/**
 * Done, failed or still going, from a live object's health (no health check: done once it exists), as gitops-engine's
 * sync_context.go reads a running task: a resource is done when Healthy and failed when Degraded, and anything else
 * (Suspended, Progressing, Missing, Unknown) is waited for; a hook (getOperationPhase) fails on Unknown too. Suspended is
 * waited for, not done: a paused Deployment in a wave before the last holds the sync until the time limit, as it holds
 * Argo CD's operation (which is why v3.2's bundled CronJob check calls a suspended CronJob Healthy, argo-cd#24428).
 */
function settled(h: HealthStatus | undefined, hook: boolean): 'ok' | 'failed' | 'waiting' {
  if (h === undefined || h.status === 'Healthy') return 'ok';
  if (h.status === 'Degraded' || (hook && h.status === 'Unknown')) return 'failed';
  return 'waiting';
}

/** A hook this run created, and how it ended (its delete policy is applied once the operation is over). */
interface CreatedHook {
  hook: RunnableHook;
  key: ResourceKey;
  outcome: HookRun['outcome'];
}

/**
 * Runs the groups in order (the caller dry-ran the steps already). `beforePostSync` runs once the Sync phase is over
 * (the prune), and may stop the run by returning a failure.
 *
 * As gitops-engine's sync_context.go Sync(): a (phase, wave) before the last is waited for (hooks until they complete,
 * resources until Healthy, a Degraded one fails the sync); the last one, when it has no hook, is not: the operation
 * succeeds once it is applied ("successfully synced (all tasks run)"), even if its objects degrade afterwards. In a
 * sync of one (phase, wave) with hooks (no SyncFail hook) only the hooks are waited for (tasks.multiStep()).
 * HookSucceeded hooks are deleted when the whole operation succeeded, HookFailed ones when it failed (after the SyncFail
 * hooks), never one still running (hooksPendingDeletionSuccessful / hooksPendingDeletionFailed).
 */
export async function runPhases(
  gw: KubeGateway,
  groups: readonly Group[],
  syncFail: readonly Group[],
  opts: PhaseRunOptions,
  beforePostSync?: () => Promise<string | undefined>,
): Promise<PhaseRunResult> {
  const out: PhaseRunResult = { results: [], hooks: [], waves: [] };
  const wave = (g: Group, outcome: WaveRun['outcome']): WaveRun => ({
    phase: g.phase,
    wave: g.wave,
    resources: g.steps.length,
    hooks: g.hooks.length,
    outcome,
  });
  // gitops-engine's tasks.multiStep(): the tasks (SyncFail's among them) span more than one (phase, wave).
  const multiStep = groups.length > 1 || (groups.length > 0 && syncFail.length > 0);
  const created: CreatedHook[] = [];
  let pruned = false;
  let stoppedAt = groups.length;
  for (const [i, g] of groups.entries()) {
    if (g.phase === 'PostSync' && !pruned) {
      pruned = true;
      if (opts.signal?.aborted) {
        out.interrupted = { phase: 'Prune', wave: null };
        stoppedAt = i;
        break;
      }
      const f = await beforePostSync?.();
      if (f) {
        out.failed = f;
        stoppedAt = i;
        break;
      }
    }
    if (opts.signal?.aborted) {
      out.interrupted = { phase: g.phase, wave: g.wave };
      stoppedAt = i;
      break;
    }
    const failed = await guarded(() => runGroup(gw, g, opts, out, { final: i === groups.length - 1, multiStep, created }));
    out.waves.push(wave(g, failed ? 'failed' : out.interrupted ? 'interrupted' : 'done'));
    if (out.interrupted && !failed) {
      stoppedAt = i + 1;
      break;
    }
    if (failed) {
      out.failed = failed;
      stoppedAt = i + 1;
      break;
    }
  }
  if (!out.failed && !pruned && !out.interrupted) {
    if (opts.signal?.aborted) out.interrupted = { phase: 'Prune', wave: null };
    else out.failed = await beforePostSync?.();
  }
  // What a stopped sync never reached is reported as such, not left out.
  for (const g of groups.slice(stoppedAt)) {
    out.waves.push(wave(g, 'not-run'));
    for (const d of g.steps)
      out.results.push({
        step: d.step,
        outcome: 'skipped',
        conflicts: [],
        message: `not applied: the sync ${out.interrupted ? 'was interrupted' : 'stopped'} before this wave`,
      });
  }
  if (out.failed && syncFail.length > 0) {
    // gitops-engine's setOperationFailed runs every pending SyncFail task at once (one runTasks, kind after kind across
    // their waves) and waits until all of them completed: their waves order the creation, they are not waited for one
    // by one. Each wave is reported with the outcome of the whole.
    const all: Group = {
      phase: 'SyncFail',
      wave: syncFail[0]!.wave,
      steps: syncFail.flatMap((g) => g.steps),
      hooks: syncFail.flatMap((g) => g.hooks),
      tasks: syncFail.flatMap((g) => g.tasks),
    };
    const outcome = (await guarded(() => runGroup(gw, all, opts, out, { final: true, multiStep: true, created }))) ? 'failed' : 'done';
    for (const g of syncFail) out.waves.push(wave(g, outcome));
  }
  // The delete policies, once the operation is over: HookSucceeded when it succeeded, HookFailed when it failed.
  const policy = out.failed ? 'HookFailed' : out.interrupted ? undefined : 'HookSucceeded';
  if (policy) {
    const done = created.filter((c) => (c.outcome === 'Succeeded' || c.outcome === 'Failed') && c.hook.deletePolicies.includes(policy));
    await Promise.all(done.map((c) => gw.delete(c.hook.type, c.key.namespace, c.key.name, { propagationPolicy: 'background' }).catch(() => undefined)));
  }
  return out;
}

/** A group's failure as its message: an error from the cluster (it went away, it refused) ends the sync, reported. */
async function guarded(run: () => Promise<string | undefined>): Promise<string | undefined> {
  try {
    return await run();
  } catch (err) {
    return (err as Error).message;
  }
}

/** The kind a task creates (consecutive tasks of one kind are created together, as gitops-engine's runTasks). */
function kindOf(t: Group['tasks'][number]): string {
  return t.hook ? t.hook.key.kind : t.step.step.key.kind;
}

/**
 * One (phase, wave): the previous run's hooks deleted (BeforeHookCreation), then hooks and resources created in their
 * order, kind by kind (one kind in parallel); then, unless it is the last (phase, wave) and has no hook, Argo CD's pause
 * between waves and the wait (hooks until complete; resources until Healthy, only in a multi-step sync).
 * Returns why it failed, if it did.
 */
async function runGroup(
  gw: KubeGateway,
  g: Group,
  opts: PhaseRunOptions,
  out: PhaseRunResult,
  at: { final: boolean; multiStep: boolean; created: CreatedHook[] },
): Promise<string | undefined> {
  opts.progress?.(`${g.phase} wave ${g.wave}: ${g.steps.length} resources, ${g.hooks.length} hooks`);
  const named = g.hooks.map((hook) => {
    const object = hookObject(hook, g.phase, opts);
    return { hook, object, key: { ...hook.key, name: object.metadata.name ?? '' } };
  });
  // The previous run's hooks go first, all of them before anything of the wave is created (BeforeHookCreation, the default).
  for (const n of named) {
    if (!n.hook.deletePolicies.includes('BeforeHookCreation')) continue;
    try {
      await deleteAndWait(gw, n.hook.type, n.key, opts);
    } catch (err) {
      out.hooks.push({ phase: g.phase, wave: n.hook.wave, key: n.key, outcome: 'Failed', message: (err as Error).message, notCreated: true });
      const why = `${g.phase} hook ${n.key.kind}/${n.key.name} could not be created: ${(err as Error).message}`;
      // Nothing of the wave was created (gitops-engine stops the wave when a delete fails): its resources said so.
      for (const d of g.steps) out.results.push({ step: d.step, outcome: 'skipped', conflicts: [], message: `not applied: ${why}` });
      return why;
    }
  }
  // Then every task, kind after kind; a failure does not stop the others of the wave (gitops-engine applies them all).
  const createdHere: typeof named = [];
  const applied: ApplyResult[] = [];
  let failure: string | undefined;
  for (let i = 0; i < g.tasks.length; ) {
    let j = i + 1;
    while (j < g.tasks.length && kindOf(g.tasks[j]!) === kindOf(g.tasks[i]!)) j++;
    const run = g.tasks.slice(i, j);
    i = j;
    const steps = run.flatMap((t) => (t.step ? [t.step] : []));
    const hooksOfRun = named.filter((n) => run.some((t) => t.hook === n.hook));
    const [results] = await Promise.all([
      steps.length === 0
        ? Promise.resolve([] as ApplyResult[])
        : applySteps(gw, steps, {
            fieldManager: opts.fieldManager,
            force: opts.force,
            ...(opts.csaManagers ? { csaManagers: opts.csaManagers } : {}),
            ...(opts.beforeGroup ? { beforeGroup: opts.beforeGroup } : {}),
            ...(opts.retryNotFound ? { retryNotFound: opts.retryNotFound } : {}),
          }),
      ...hooksOfRun.map(async (n) => {
        try {
          await gw.apply(n.hook.type, n.object, { fieldManager: opts.fieldManager, force: true, dryRun: false });
          createdHere.push(n);
          at.created.push({ hook: n.hook, key: n.key, outcome: 'Running' });
          opts.onEvent?.({ phase: g.phase, wave: n.hook.wave, key: n.key, hook: true, status: 'Running' });
        } catch (err) {
          out.hooks.push({ phase: g.phase, wave: n.hook.wave, key: n.key, outcome: 'Failed', message: (err as Error).message, notCreated: true });
          failure ??= `${g.phase} hook ${n.key.kind}/${n.key.name} could not be created: ${(err as Error).message}`;
        }
      }),
    ]);
    for (const r of results) {
      applied.push(r);
      out.results.push(r);
      if (r.outcome === 'applied' || r.outcome === 'failed' || r.outcome === 'conflict') {
        opts.onEvent?.({
          phase: g.phase,
          wave: g.wave,
          key: r.step.key,
          hook: false,
          status: r.outcome === 'applied' ? 'Synced' : 'SyncFailed',
          ...(r.message ? { message: r.message } : {}),
        });
      }
      if (r.outcome === 'failed' || r.outcome === 'conflict') failure ??= `${r.step.key.kind}/${r.step.key.name} was not applied: ${r.message ?? r.outcome}`;
    }
  }
  // The last (phase, wave) without a hook: the operation is over once it is applied (Argo CD reads no health).
  if (!failure && at.final && named.length === 0) return undefined;
  // Argo CD's pause between waves comes before a wave's health is first read (controller/sync.go delayBetweenSyncWaves).
  if (!failure && !at.final && opts.waveDelayMs > 0) await opts.sleep(opts.waveDelayMs);

  // Wait: hooks until they complete; resources until healthy, in a multi-step sync whose apply went through.
  const waitResources = at.multiStep && !failure;
  const waitFor = [
    ...createdHere.map((n) => ({ type: n.hook.type, key: n.key, hook: n.hook })),
    ...(waitResources
      ? applied
          .filter((r) => r.outcome === 'applied' || r.outcome === 'skipped')
          .map((r) => ({ type: r.step.type, key: r.step.key, hook: undefined as RunnableHook | undefined }))
      : []),
  ];
  let stopped = false;
  let waitFailure: string | undefined;
  await Promise.all(
    waitFor.map(async (w) => {
      if (w.hook) {
        // The finalizer comes off once the hook's result is read, also when reading it failed or the time ran out.
        const state = await waitSettled(gw, w.type, w.key, opts, true).finally(() => removeHookFinalizer(gw, w.type, w.key, opts.fieldManager));
        const outcome = state.result === 'ok' ? 'Succeeded' : state.result === 'failed' ? 'Failed' : 'Running';
        if (state.interrupted) stopped = true;
        out.hooks.push({ phase: g.phase, wave: w.hook.wave, key: w.key, outcome, ...(state.message ? { message: state.message } : {}) });
        const mine = at.created.find((c) => c.hook === w.hook && c.key.name === w.key.name && c.key.namespace === w.key.namespace);
        if (mine) mine.outcome = outcome;
        opts.onEvent?.({ phase: g.phase, wave: w.hook.wave, key: w.key, hook: true, status: outcome, ...(state.message ? { message: state.message } : {}) });
        if (outcome !== 'Succeeded' && !state.interrupted)
          waitFailure ??= `${g.phase} hook ${w.key.kind}/${w.key.name} ${outcome === 'Failed' ? 'failed' : 'did not finish in time'}${state.message ? `: ${state.message}` : ''}`;
        return;
      }
      const state = await waitSettled(gw, w.type, w.key, opts, false);
      if (state.interrupted) {
        stopped = true;
        return;
      }
      if (state.health)
        opts.onEvent?.({ phase: g.phase, wave: g.wave, key: w.key, hook: false, status: state.health, ...(state.message ? { message: state.message } : {}) });
      if (state.result !== 'ok')
        waitFailure ??= `${w.key.kind}/${w.key.name} ${state.result === 'failed' ? 'is Degraded' : `did not become healthy in time${state.health && state.health !== 'Progressing' ? ` (${state.health})` : ''}`}${state.message ? `: ${state.message}` : ''} (wave ${g.wave} of ${g.phase})`;
    }),
  );
  failure ??= waitFailure;
  // Asked to stop while waiting: what was applied stays, nothing after this wave starts.
  if (stopped && !failure) out.interrupted = { phase: g.phase, wave: g.wave, waiting: true };
  return failure;
}

/** Polls one object until its health settles or the deadline passes. */
async function waitSettled(
  gw: KubeGateway,
  type: ResourceType,
  key: ResourceKey,
  opts: PhaseRunOptions,
  hook: boolean,
): Promise<{ result: 'ok' | 'failed' | 'waiting'; health?: string; message?: string; interrupted?: boolean }> {
  for (;;) {
    const live = await gw.get(type, key.namespace, key.name);
    if (live) await opts.customHealth?.([live]);
    const health = live ? resourceHealth(live) : { status: 'Missing' as const, message: 'not found' };
    const result = settled(health, hook);
    const seen = { ...(health ? { health: health.status } : {}), ...(health?.message ? { message: health.message } : {}) };
    if (result !== 'waiting' || opts.now() >= opts.deadlineMs) return { result, ...seen };
    // A stop asked for (SIGINT/SIGTERM) ends the wait: the object stays as applied.
    if (opts.signal?.aborted) return { result, ...seen, interrupted: true };
    await opts.sleep(Math.min(opts.pollMs, Math.max(0, opts.deadlineMs - opts.now())));
  }
}

/**
 * Takes Argo CD's hook finalizer off a live hook (a JSON patch that first tests the entry, so another writer's change
 * to the list is never overwritten; re-read and tried again when the list moved). Gone already is fine.
 */
async function removeHookFinalizer(gw: KubeGateway, type: ResourceType, key: ResourceKey, fieldManager: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const live = await gw.get(type, key.namespace, key.name);
    const at = Array.isArray(live?.metadata.finalizers) ? (live.metadata.finalizers as unknown[]).indexOf(HOOK_FINALIZER) : -1;
    if (!live || at < 0) return;
    const path = `/metadata/finalizers/${at}`;
    try {
      await gw.patch(
        type,
        key.namespace,
        key.name,
        [
          { op: 'test', path, value: HOOK_FINALIZER },
          { op: 'remove', path },
        ],
        'json',
        { fieldManager },
      );
      return;
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return;
      if (!(err instanceof KubeApiError && (err.status === 422 || err.status === 409)) || attempt >= 4) throw err;
    }
  }
}

/** Deletes an object (the previous run's hook, its finalizer taken off first) and waits until it is gone; absent already is fine. */
async function deleteAndWait(gw: KubeGateway, type: ResourceType, key: ResourceKey, opts: PhaseRunOptions): Promise<void> {
  await removeHookFinalizer(gw, type, key, opts.fieldManager);
  try {
    await gw.delete(type, key.namespace, key.name, { propagationPolicy: 'background' });
  } catch (err) {
    if (err instanceof KubeApiError && err.status === 404) return;
    throw err;
  }
  while ((await gw.get(type, key.namespace, key.name)) !== undefined) {
    if (opts.now() >= opts.deadlineMs) throw new Error(`the previous ${key.kind}/${key.name} is still being deleted`);
    await opts.sleep(opts.pollMs);
  }
}
