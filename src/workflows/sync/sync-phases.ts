// Runs a multi-step sync through the gateway, as gitops-engine's sync operation does: phase by phase and wave by wave,
// hooks created fresh (their delete policies honoured), and each wave waited for until healthy before the next; the
// first failure stops it, and the SyncFail hooks run.
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
  /** Argo CD's pause between waves (2 s; ARGOCD_SYNC_WAVE_DELAY seconds). */
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

/** One (phase, wave) of a multi-step sync and how it ended: `done` (applied and healthy), `failed`, `not-run` (the sync stopped before it), or in a dry run `would-run`. */
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

/** Done, failed or still going, from a live object's health (no health check: done once it exists). */
function settled(h: HealthStatus | undefined): 'ok' | 'failed' | 'waiting' {
  if (h === undefined || h.status === 'Healthy' || h.status === 'Suspended') return 'ok';
  if (h.status === 'Degraded') return 'failed';
  return 'waiting';
}

/**
 * Runs the groups in order (the caller dry-ran the steps already). `beforePostSync` runs once the Sync phase is over
 * (the prune), and may stop the run by returning a failure.
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
    const failed = await guarded(() => runGroup(gw, g, opts, out));
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
    if (i < groups.length - 1 && opts.waveDelayMs > 0) await opts.sleep(opts.waveDelayMs);
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
  if (out.failed) {
    for (const g of syncFail) out.waves.push(wave(g, (await guarded(() => runGroup(gw, g, opts, out))) ? 'failed' : 'done'));
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

/** One (phase, wave): hooks created, resources applied, then every one waited for. Returns why it failed, if it did. */
async function runGroup(gw: KubeGateway, g: Group, opts: PhaseRunOptions, out: PhaseRunResult): Promise<string | undefined> {
  opts.progress?.(`${g.phase} wave ${g.wave}: ${g.steps.length} resources, ${g.hooks.length} hooks`);
  // Hooks: the previous run's object goes first (BeforeHookCreation, the default), then a fresh one is created.
  const created: { hook: RunnableHook; object: KubeObject }[] = [];
  for (const h of g.hooks) {
    const object = hookObject(h, g.phase, opts);
    const key = { ...h.key, name: object.metadata.name ?? '' };
    try {
      if (h.deletePolicies.includes('BeforeHookCreation')) await deleteAndWait(gw, h.type, key, opts);
      await gw.apply(h.type, object, { fieldManager: opts.fieldManager, force: true, dryRun: false });
      created.push({ hook: h, object });
      opts.onEvent?.({ phase: g.phase, wave: g.wave, key, hook: true, status: 'Running' });
    } catch (err) {
      out.hooks.push({ phase: g.phase, wave: g.wave, key, outcome: 'Failed', message: (err as Error).message, notCreated: true });
      return `${g.phase} hook ${key.kind}/${key.name} could not be created: ${(err as Error).message}`;
    }
  }
  const applied = await applySteps(gw, g.steps, {
    fieldManager: opts.fieldManager,
    force: opts.force,
    ...(opts.csaManagers ? { csaManagers: opts.csaManagers } : {}),
    ...(opts.beforeGroup ? { beforeGroup: opts.beforeGroup } : {}),
    ...(opts.retryNotFound ? { retryNotFound: opts.retryNotFound } : {}),
  });
  for (const r of applied) out.results.push(r);
  for (const r of applied) {
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
  }
  const bad = applied.find((r) => r.outcome === 'failed' || r.outcome === 'conflict');
  if (bad) return `${bad.step.key.kind}/${bad.step.key.name} was not applied: ${bad.message ?? bad.outcome}`;

  // Wait: hooks until they complete, resources until healthy.
  const waitFor = [
    ...created.map(({ hook, object }) => ({ type: hook.type, key: { ...hook.key, name: object.metadata.name ?? '' }, hook })),
    ...applied
      .filter((r) => r.outcome === 'applied' || r.outcome === 'skipped')
      .map((r) => ({ type: r.step.type, key: r.step.key, hook: undefined as RunnableHook | undefined })),
  ];
  let failure: string | undefined;
  let stopped = false;
  await Promise.all(
    waitFor.map(async (w) => {
      if (w.hook) {
        // The finalizer comes off once the hook's result is read, also when reading it failed or the time ran out.
        const state = await waitSettled(gw, w.type, w.key, opts).finally(() => removeHookFinalizer(gw, w.type, w.key, opts.fieldManager));
        const outcome = state.result === 'ok' ? 'Succeeded' : state.result === 'failed' ? 'Failed' : 'Running';
        if (state.interrupted) stopped = true;
        out.hooks.push({ phase: g.phase, wave: g.wave, key: w.key, outcome, ...(state.message ? { message: state.message } : {}) });
        opts.onEvent?.({ phase: g.phase, wave: g.wave, key: w.key, hook: true, status: outcome, ...(state.message ? { message: state.message } : {}) });
        const policy = outcome === 'Succeeded' ? 'HookSucceeded' : outcome === 'Failed' ? 'HookFailed' : undefined;
        if (policy && w.hook.deletePolicies.includes(policy))
          await gw.delete(w.type, w.key.namespace, w.key.name, { propagationPolicy: 'background' }).catch(() => undefined);
        if (outcome !== 'Succeeded' && !state.interrupted)
          failure ??= `${g.phase} hook ${w.key.kind}/${w.key.name} ${outcome === 'Failed' ? 'failed' : 'did not finish in time'}${state.message ? `: ${state.message}` : ''}`;
        return;
      }
      const state = await waitSettled(gw, w.type, w.key, opts);
      if (state.interrupted) {
        stopped = true;
        return;
      }
      if (state.health)
        opts.onEvent?.({ phase: g.phase, wave: g.wave, key: w.key, hook: false, status: state.health, ...(state.message ? { message: state.message } : {}) });
      if (state.result !== 'ok')
        failure ??= `${w.key.kind}/${w.key.name} ${state.result === 'failed' ? 'is Degraded' : 'did not become healthy in time'}${state.message ? `: ${state.message}` : ''} (wave ${g.wave} of ${g.phase})`;
    }),
  );
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
): Promise<{ result: 'ok' | 'failed' | 'waiting'; health?: string; message?: string; interrupted?: boolean }> {
  for (;;) {
    const live = await gw.get(type, key.namespace, key.name);
    if (live) await opts.customHealth?.([live]);
    const health = live ? resourceHealth(live) : { status: 'Missing' as const, message: 'not found' };
    const result = settled(health);
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
