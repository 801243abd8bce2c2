// `sync --watch`: wires the reconcile loop to the app state, the sync pieces, live watches, a webhook and the signals.
import { createHash } from 'node:crypto';
import type { RunContext } from '../model/context.js';
import { ExitCode, InputError, RefusedError } from '../model/errors.js';
import type { Application } from '../app/types.js';
import { firstFailure, type ObjectComparison } from '../diff/comparison.js';
import type { KubeGateway } from '../kube/gateway.js';
import type { ResourceType } from '../model/resource-type.js';
import { displayName, keyString, type JsonValue, type KubeObject, type PropagationPolicy } from '../model/object.js';
import { deleteCandidates } from './prune-delete.js';
import type { PruneCandidate } from '../prune/plan.js';
import { cacheDirFor } from '../source/cache.js';
import { classifyRepoURL } from '../source/repo-url.js';
import { applySteps, dryRunSteps } from './apply.js';
import { serverFieldText } from '../model/field-path.js';
import { keepLiveValues } from '../sync/ignored.js';
import { planSync, type PlanDesired } from '../sync/plan.js';
import { waveOf } from '../sync/order.js';
import { reconnectDelay } from '../watch/backoff.js';
import type { Decision } from '../watch/decide.js';
import type { LoopEvent } from '../watch/events.js';
import { LiveWatcher, type LiveTarget } from '../watch/live.js';
import { runLoop, systemClock, Wakeup, type ActResult, type LoopClock, type Snapshot } from '../watch/loop.js';
import { isLoopback, parseWebhookAddr, startWebhook, type WebhookServer } from '../watch/webhook.js';
import { compareAppState, loadAppState, type AppState, type AppStateArgs, type AppStateDeps, type AppTarget } from './app-state.js';
import { liveNamespaces } from './sync.js';
import { stateRefusal, windowVerdict } from './rules.js';
import type { SyncOperation } from '../record/app-status.js';

/** Test seams: a gateway, a stop signal and a clock instead of the real ones. */
export interface WatchDeps {
  gateway?: KubeGateway;
  /** Reads the Application again, its destination checked (session.ts). */
  application?: () => Promise<Application>;
  target?: AppTarget;
  /** Where Argo CD runs (AppProjects, argocd-cm), when not the destination's cluster. */
  controlPlane?: KubeGateway;
  /** Close the gateway when the loop ends (default true; the session closes its own). */
  closeGateway?: boolean;
  signal?: AbortSignal;
  clock?: LoopClock;
  /** Install SIGINT/SIGTERM handlers (default true). */
  handleSignals?: boolean;
  /** The Application in `controlPlane`, when read from the cluster: each round's result is recorded in its status. */
  appRef?: { namespace: string; name: string };
}

/** What `sync --watch` reconciles and how (cli/inputs.ts builds it from sync's flags). */
export interface WatchRequest {
  /** Where the Application, its desired state and its rules come from. */
  source: AppStateArgs;
  /** How often the source is polled (at least a second). */
  intervalMs: number;
  /** The interval as it was asked for (`60s`), for the start line. */
  interval: string;
  /** How long a sync with hooks or waves may wait for health and hooks in all. */
  timeoutMs: number;
  /** Prune even when automated.prune is off (and with a --desired that overrides the source). */
  prune: boolean;
  /** Take fields other managers own. */
  forceConflicts: boolean;
  /** Listen for push events there; with the secret that signs them, if any. */
  webhookAddr?: string;
  webhookSecret?: string;
  /** Record each round's result in the Application's status (when it was read from the cluster). */
  record: boolean;
}

/** What one refresh loaded, kept for the step's act. */
interface Loaded {
  state: AppState;
  diffs: Map<string, ObjectComparison>;
  /** Prune candidates by key, from the last poll. */
  extras: ReadonlyMap<string, PruneCandidate>;
}

function contentRevision(state: AppState): string {
  const h = createHash('sha256');
  for (const d of state.desired) h.update(JSON.stringify(d.object)).update('\n');
  return `content:${h.digest('hex').slice(0, 16)}`;
}

/** The arguments that read the same commit again without re-resolving the branch or fetching. */
function pinnedArgs(base: AppStateArgs, last: AppState | undefined, env: Record<string, string | undefined>): AppStateArgs {
  if (last?.revision === undefined || base.desired !== undefined) return base;
  const pinned: AppStateArgs = { ...base, revision: last.revision };
  const url = last.app.source.repoURL ?? '';
  if (base.repoDir === undefined && url !== '' && classifyRepoURL(url, process.cwd()).kind === 'remote') pinned.repoDir = cacheDirFor(url, env);
  return pinned;
}

function liveTargets(state: AppState): LiveTarget[] {
  const byTarget = new Map<string, { type: ResourceType; namespace?: string; names: Set<string> }>();
  for (const d of state.desired) {
    if (d.pendingCrd || !d.type.verbs.includes('watch')) continue;
    const ns = d.type.namespaced ? d.key.namespace : undefined;
    const id = `${d.type.group}/${d.type.resource}@${ns ?? ''}`;
    const t = byTarget.get(id) ?? { type: d.type, ...(ns ? { namespace: ns } : {}), names: new Set<string>() };
    t.names.add(d.key.name);
    byTarget.set(id, t);
  }
  return [...byTarget.values()];
}

/**
 * Runs the loop until SIGINT/SIGTERM (or `deps.signal`); returns 0 after a clean stop. Every action and observation
 * goes to `onEvent` as it happens, stamped with the clock's time (cli/ prints each as one line). It acts on the
 * Application's destination (session.ts), read again every round: a destination that moves is refused, never followed.
 */
export async function runWatch(req: WatchRequest, ctx: RunContext, onEvent: (e: LoopEvent) => void, deps: WatchDeps = {}): Promise<ExitCode> {
  if (deps.gateway) return watchWith(req, ctx, onEvent, deps);
  const { withAppTarget } = await import('./session.js');
  return withAppTarget(ctx, 'watch', req.source, (s) =>
    watchWith(req, ctx, onEvent, { ...deps, gateway: s.gateway, controlPlane: s.controlPlane, application: s.application, target: s.target, closeGateway: false, ...(s.appRef && req.record ? { appRef: s.appRef } : {}) }),
  );
}

async function watchWith(req: WatchRequest, ctx: RunContext, onEvent: (e: LoopEvent) => void, deps: WatchDeps): Promise<ExitCode> {
  const baseArgs = req.source;
  const clock = deps.clock ?? systemClock;
  const emit = (e: Omit<LoopEvent, 'time'>) => onEvent({ ...e, time: new Date(clock.now()) });

  const stop = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    emit({ action: 'stop', result: 'stopping', message: `${sig}: stopping after the step in progress (again to force)` });
    removeHandlers();
    stop.abort();
  };
  const removeHandlers = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  if (deps.handleSignals !== false) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  const external = deps.signal;
  const onExternal = () => stop.abort();
  external?.addEventListener('abort', onExternal, { once: true });

  const gateway: KubeGateway | undefined = deps.gateway;
  let webhook: WebhookServer | undefined;
  let watcher: LiveWatcher | undefined;
  let fatal: unknown;
  try {
    if (gateway === undefined) throw new Error('the watch loop needs a gateway');
    const gw = gateway;
    const wakeup = new Wakeup();
    if (req.webhookAddr !== undefined) {
      const { host } = parseWebhookAddr(req.webhookAddr);
      if (!isLoopback(host) && req.webhookSecret === undefined) {
        emit({ action: 'warning', message: `the webhook listens on ${host}, beyond this machine, with no secret: anyone who reaches it can trigger a refresh` });
      }
      webhook = await startWebhook({
        addr: req.webhookAddr,
        ...(req.webhookSecret ? { secret: req.webhookSecret } : {}),
        onPush: () => wakeup.wake('webhook'),
        onRequest: (r) =>
          emit({
            action: 'webhook',
            result: r.outcome === 'push' ? 'accepted' : r.outcome,
            message: r.reason,
            detail: { status: r.status, ...(r.event ? { event: r.event } : {}), ...(r.push?.ref ? { ref: r.push.ref } : {}), ...(r.remote ? { remote: r.remote } : {}) },
          }),
      });
    }
    let appInstance = '';
    watcher = new LiveWatcher({
      gateway: gw,
      appInstance: () => appInstance,
      labelKey: () => (last?.state.tracking?.method === 'label' ? last.state.tracking.labelKey : undefined),
      onChange: () => wakeup.wake('live'),
      onConnection: (ev, target) =>
        ev.kind === 'gone'
          ? emit({ action: 'reconnect', result: 'relisting', message: `${target}: resourceVersion expired (410 Gone)` })
          : emit({ action: 'reconnect', result: 'retrying', message: `${target}: ${(ev.error as Error)?.message ?? String(ev.error)}`, detail: { retryInMs: ev.retryInMs } }),
      reconnectDelay: (n) => reconnectDelay(n, Math.random()),
      sleep: clock.sleep,
    });
    emit({
      action: 'start',
      message: `reconciling ${baseArgs.app ?? baseArgs.appFile ?? ''} every ${req.interval}${webhook ? `; webhook on ${webhook.host}:${webhook.port}` : ''}`,
      detail: { intervalMs: req.intervalMs, ...(webhook ? { webhookPort: webhook.port } : {}) },
    });

    let last: Loaded | undefined;
    let extrasByKey = new Map<string, PruneCandidate>();
    let succeeded = false;
    const warned = new Set<string>();
    const appDeps = { io: ctx.io, opts: ctx.opts, gateway: gw, ...(deps.controlPlane ? { controlPlane: deps.controlPlane } : {}), ...(deps.application ? { application: deps.application } : {}), ...(deps.target ? { target: deps.target } : {}) };

    const refresh = async ({ pollSource }: { pollSource: boolean }): Promise<Snapshot> => {
      let state: AppState;
      const started = clock.now();
      try {
        state = await loadAppState(pollSource ? baseArgs : pinnedArgs(baseArgs, last?.state, ctx.io.env), appDeps, { extras: pollSource || last === undefined });
      } catch (e) {
        if (!succeeded && (e instanceof InputError || e instanceof RefusedError)) {
          fatal = e; // a mistake in what we were asked to watch: say so at once instead of retrying forever
          stop.abort();
        }
        throw e;
      }
      succeeded = true;
      if (ctx.opts.verbose) emit({ action: 'refresh', result: pollSource ? 'poll' : 'live', detail: { ms: clock.now() - started, requests: state.requests, objects: state.desired.length } });
      appInstance = state.appInstance;
      // The one comparison (diff/comparison.ts): an object is out of sync when it is drifted or missing.
      const comparison = await compareAppState(state, ctx.opts.fieldManager);
      const failed = firstFailure(comparison);
      if (failed) throw failed;
      const diffs = new Map<string, ObjectComparison>();
      const outOfSync: string[] = [];
      const names: Snapshot['names'] = new Map();
      state.desired.forEach((d, i) => {
        const k = keyString(d.key);
        names.set(k, { object: displayName(d.key), ...(d.key.namespace ? { namespace: d.key.namespace } : {}) });
        const diff = comparison.objects[i]!;
        diffs.set(k, diff);
        if (diff.status !== 'in-sync') outOfSync.push(k);
      });
      // Extras (prune candidates) are listed on polls only: that takes a list per kind and namespace, too much for
      // every live change. Between polls the last list stands, minus what was pruned since.
      if (state.prune !== undefined) extrasByKey = new Map(state.prune.candidates.filter((c) => !c.skip).map((c) => [keyString(c.key), c]));
      for (const [k, c] of extrasByKey) names.set(k, { object: displayName(c.key), ...(c.key.namespace ? { namespace: c.key.namespace } : {}) });
      const extras = [...extrasByKey.keys()];
      const fresh = state.warnings.filter((w) => !warned.has(w));
      for (const w of fresh) warned.add(w);
      last = { state, diffs, extras: extrasByKey };
      watcher?.update(liveTargets(state));
      // The loop is Argo CD's automated sync: a window blocks it unless it allows automated syncs.
      const now = clock.now();
      const refusal = stateRefusal(state, { manual: false, now });
      const until = refusal && state.rules ? windowVerdict(state.app, state.rules, { manual: false, now }).verdict.opensAt : undefined;
      return {
        revision: state.revision ?? contentRevision(state),
        ...(state.revision ? { commit: state.revision } : {}),
        origin: state.origin,
        // The automated loop prunes as automated.prune says; a --desired that overrides the source only with --prune.
        policy: { selfHeal: state.app.automated?.selfHeal === true, prune: req.prune || (state.app.automated?.prune === true && baseArgs.desired === undefined) },
        desiredCount: state.desired.length,
        outOfSync,
        extras,
        names,
        warnings: fresh,
        ...(refusal ? { blocked: { reason: refusal, ...(until !== undefined ? { until } : {}) } } : {}),
      };
    };

    // The record (the Application's status): after every round that acted, and after a refresh whose verdict changed.
    let recorded = '';
    const record = async (sync?: { results: readonly ActResult[]; startedAtMs: number }) => {
      const ref = deps.appRef;
      if (!ref || last === undefined) return;
      const { runStatus } = await import('./status.js');
      const { recordNotice, recordState } = await import('./record.js');
      const after = await runStatus(pinnedArgs(baseArgs, last.state, ctx.io.env), appDeps).catch(() => undefined);
      const op = sync ? loopOperation(sync.results, { revision: last.state.revision, ...(last.state.sources ? { revisions: last.state.sources.map((x) => x.revision) } : {}), startedAtMs: sync.startedAtMs, finishedAtMs: clock.now(), versions: after?.compared?.versions ?? {}, prune: req.prune || last.state.app.automated?.prune === true }) : undefined;
      if (!op && !after?.compared) return;
      const outcome = await recordState(deps.controlPlane ?? gw, ref, { ...(after?.compared ? { compared: after.compared } : {}), warnings: after?.warnings ?? [], ...(op ? { sync: op } : {}) }, { now: () => clock.now() });
      const notice = recordNotice(outcome);
      if (notice !== undefined && !warned.has(notice)) {
        warned.add(notice);
        emit({ action: 'warning', message: notice });
      }
    };

    const act = async (d: Decision): Promise<ActResult[]> => {
      if (last === undefined) return [];
      const startedAtMs = clock.now();
      // A whole sync of an app with hooks or several waves runs as `sync` runs it: phase by phase, wave by wave.
      const results =
        (d.reason === 'initial' || d.reason === 'new-revision') && isMultiStepState(last.state)
          ? await phasedSync(d, { args: baseArgs, timeoutMs: req.timeoutMs, forceConflicts: req.forceConflicts, deps: appDeps })
          : await actOn(last, d, { gateway: gw, fieldManager: ctx.opts.fieldManager, forceConflicts: req.forceConflicts });
      for (const r of results) if (r.action === 'prune' && (r.result === 'deleted' || r.result === 'gone')) extrasByKey.delete(r.key);
      if (results.length > 0) {
        await record({ results, startedAtMs });
        recorded = '';
      }
      return results;
    };
    const refreshAndRecord = async (o: { pollSource: boolean }): Promise<Snapshot> => {
      const snap = await refresh(o);
      const verdict = JSON.stringify([snap.revision, [...snap.outOfSync].sort(), [...snap.extras].sort()]);
      if (deps.appRef && verdict !== recorded) {
        recorded = verdict;
        await record();
      }
      return snap;
    };

    const summary = await runLoop(
      { clock, random: Math.random, refresh: (o) => refreshAndRecord(o), act, emit },
      { intervalMs: req.intervalMs, signal: stop.signal, wakeup },
    );
    if (fatal !== undefined) throw fatal;
    emit({ action: 'stop', result: 'stopped', detail: { steps: summary.steps, applied: summary.applied, pruned: summary.pruned, failed: summary.failed } });
    return ExitCode.Ok;
  } finally {
    removeHandlers();
    external?.removeEventListener('abort', onExternal);
    await watcher?.stop();
    await webhook?.close();
    if (deps.closeGateway !== false) gateway?.close();
  }
}

/** Whether a whole sync of this state needs the phases: hooks, or resources in more than one wave. */
function isMultiStepState(state: AppState): boolean {
  return state.hooks.length > 0 || new Set(state.desired.map((d) => waveOf(d.object).wave)).size > 1;
}

/** A whole sync through `sync`'s own workflow (hooks, waves gated on health, SyncFail), as the loop's results. */
async function phasedSync(d: Decision, o: { args: AppStateArgs; timeoutMs: number; forceConflicts: boolean; deps: AppStateDeps }): Promise<ActResult[]> {
  const { syncApp } = await import('./sync.js');
  const report = await syncApp({ ...o.args, dryRun: false, prune: d.prune.length > 0, forceConflicts: o.forceConflicts, timeoutMs: o.timeoutMs }, o.deps);
  const key = (r: { group: string; kind: string; namespace: string; name: string }) => keyString(r);
  const out: ActResult[] = [];
  if (report.refused) return [{ key: report.app, action: 'apply', result: 'refused', ok: false, message: report.refused }];
  for (const h of report.hooks) out.push({ key: key(h), action: 'apply', result: `hook ${h.phase} ${h.outcome}`, ok: h.outcome === 'Succeeded', ...(h.message ? { message: h.message } : {}) });
  for (const s of report.steps) out.push({ key: key(s), action: 'apply', result: s.outcome, ok: s.outcome === 'applied' || s.outcome === 'skipped', ...(s.message ? { message: s.message } : {}) });
  for (const p of report.prune.results) out.push({ key: key(p), action: 'prune', result: p.outcome === 'pruned' ? 'deleted' : p.outcome, ok: p.outcome === 'pruned' || p.outcome === 'gone' || p.outcome === 'skipped', ...(p.message ? { message: p.message } : {}) });
  for (const f of report.failures.filter((x) => x.phase === 'operation')) out.push({ key: key(f), action: 'apply', result: 'failed', ok: false, message: f.message });
  return out;
}

/**
 * Carries out one decision with the sync pieces: a new revision applies every desired object (as `sync`
 * does), a heal only the drifted ones; the whole set is dry-run first and nothing is applied if any fails;
 * prune runs only after every apply succeeded, guarded by uid and resourceVersion.
 */
async function actOn(loaded: Loaded, d: Decision, opts: { gateway: KubeGateway; fieldManager: string; forceConflicts: boolean }): Promise<ActResult[]> {
  const { state, diffs } = loaded;
  const { app } = state;
  const gw = opts.gateway;
  const full = d.reason === 'initial' || d.reason === 'new-revision';
  const wanted = new Set(full ? state.desired.map((e) => keyString(e.key)) : d.apply);
  const results: ActResult[] = [];

  if (wanted.size > 0) {
    const desired: PlanDesired[] = [];
    for (const e of state.desired) {
      const k = keyString(e.key);
      if (!wanted.has(k)) continue;
      let object: KubeObject = e.object;
      const live = state.live.get(k);
      const ignored = diffs.get(k)?.ignoredLive;
      if (live && ignored && app.syncOptions.respectIgnoreDifferences) object = keepLiveValues(e.object, ignored);
      desired.push({ object, type: e.type, key: e.key, source: e.source, ...(e.pendingCrd ? { pendingCrd: true } : {}) });
    }
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
      pruneCandidates: [],
      flags: { prune: false, forceConflicts: opts.forceConflicts },
      ...(state.tracking ? { tracking: state.tracking } : {}),
    });
    if (plan.refused) return [...wanted].map((key) => ({ key, action: 'apply' as const, result: 'refused', ok: false, message: plan.refused }));
    const dry = await dryRunSteps(gw, plan.steps, { fieldManager: opts.fieldManager, force: plan.force });
    if (dry.some((x) => x.error)) {
      for (const x of dry) {
        results.push({ key: keyString(x.step.key), action: 'apply', result: x.error ? 'failed' : 'not-applied', ok: false, message: x.error ?? 'the server-side dry-run of another object failed: nothing was applied' });
      }
      return results;
    }
    const applied = await applySteps(gw, dry, { fieldManager: opts.fieldManager, force: plan.force });
    for (const r of applied) {
      const took = r.outcome === 'applied' && r.conflicts.length > 0 ? `took ${r.conflicts.map((c) => `${serverFieldText(c.field, r.step.live as unknown as JsonValue | undefined)} from ${c.manager}`).join(', ')}` : undefined;
      const message = r.outcome === 'conflict' ? `${r.message ?? 'conflict'}: ${r.conflicts.map((c) => `${serverFieldText(c.field, r.step.live as unknown as JsonValue | undefined)} (${c.manager})`).join(', ')}` : (took ?? r.message);
      results.push({ key: keyString(r.step.key), action: 'apply', result: r.outcome, ok: r.outcome === 'applied' || r.outcome === 'skipped', ...(message ? { message } : {}) });
    }
  }

  if (d.prune.length > 0) {
    const wantedPrune = new Set(d.prune);
    const candidates = [...loaded.extras.values()].filter((c) => wantedPrune.has(keyString(c.key)));
    if (results.some((r) => !r.ok)) {
      for (const c of candidates) results.push({ key: keyString(c.key), action: 'prune', result: 'blocked', ok: false, message: 'not every object was applied: nothing was pruned' });
      return results;
    }
    const propagationPolicy: PropagationPolicy = app.syncOptions.prunePropagationPolicy ?? 'foreground';
    for (const r of await deleteCandidates(gw, candidates, { propagationPolicy })) {
      const ok = r.outcome === 'deleted' || r.outcome === 'gone' || r.outcome === 'skipped';
      results.push({ key: keyString(r.candidate.key), action: 'prune', result: r.outcome, ok, ...(r.message ? { message: r.message } : {}) });
    }
  }
  return results;
}

/** One round's actions as the sync operation Argo CD's automated sync would record (initiated by `automated`). */
function loopOperation(results: readonly ActResult[], o: { revision: string | undefined; revisions?: string[]; startedAtMs: number; finishedAtMs: number; versions: Readonly<Record<string, string>>; prune: boolean }): SyncOperation {
  const resources = results.map((r) => {
    const [group = '', kind = '', namespace = '', name = ''] = r.key.split('/');
    const status = r.action === 'prune' ? (r.result === 'deleted' || r.result === 'gone' ? 'Pruned' : r.result === 'skipped' ? 'PruneSkipped' : 'SyncFailed') : r.ok ? 'Synced' : 'SyncFailed';
    return { group, version: o.versions[r.key] ?? '', kind, namespace, name, status, message: r.message ?? r.result, syncPhase: 'Sync' };
  });
  const failed = results.find((r) => !r.ok);
  return {
    initiatedBy: { automated: true },
    startedAt: new Date(o.startedAtMs).toISOString(),
    finishedAt: new Date(o.finishedAtMs).toISOString(),
    ...(o.revision ? { revision: o.revision } : {}),
    ...(o.revisions ? { revisions: o.revisions } : {}),
    prune: o.prune,
    dryRun: false,
    phase: failed ? 'Failed' : 'Succeeded',
    message: failed ? `${failed.key}: ${failed.message ?? failed.result}` : 'successfully synced (all tasks run)',
    resources,
    partial: false,
  };
}
