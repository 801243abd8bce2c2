// `sync --watch`: wires the reconcile loop to the app state, the sync pieces, live watches, a webhook and the signals.
import { isDeletionApproved } from '../../app/application.js';
import { retryable, retryDelayMs } from './sync.js';
import { syncReportPhase } from '../session/record.js';
import { syncErrorsOf } from '../../record/app-status.js';
import type { RunContext } from '../../model/context.js';
import { ExitCode, InputError, RefusedError } from '../../model/errors.js';
import type { Application, RetryPolicy } from '../../app/types.js';
import { DEFAULT_RETRY_BACKOFF } from '../../app/application.js';
import { firstFailure, type Comparison } from '../../diff/comparison.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { ResourceType } from '../../model/resource-type.js';
import { displayName, keyString, type JsonValue, type KubeObject, type ResourceKey } from '../../model/object.js';
import { appChangeOf, recordedOperationOf, REFRESH_ANNOTATION, specSourceOf, type AppSeen } from '../../watch/app-change.js';
import { requestedOperationOf, type RequestedSync } from '../../app/requested-operation.js';
import type { PruneCandidate } from '../../prune/plan.js';
import { cacheDirFor } from '../../source/cache.js';
import { classifyRepoURL } from '../../source/repo-url.js';
import { flagTiming, reconnectDelay, type PollTiming } from '../../watch/backoff.js';
import { DEFAULT_RECONCILIATION, type ArgoSettings } from '../../settings/argocd-cm.js';
import { sourceFingerprint, type Decision, type LastOperation } from '../../watch/decide.js';
import type { LoopEvent } from '../../watch/events.js';
import { LiveWatcher, type LiveTarget } from '../../watch/live.js';
import { runLoop, systemClock, Wakeup, type ActDone, type ActResult, type LoopClock, type Snapshot } from '../../watch/loop.js';
import { isLoopback, parseWebhookAddr, startWebhook, type WebhookServer } from '../../watch/webhook.js';
import { compareAppState, loadAppState, type AppState, type AppStateArgs, type AppTarget } from '../session/app-state.js';
import { executeSync, finalizeThroughDelete, syncRevision, type SyncDeps, type SyncReport } from './execute.js';
import { stateRefusal, syncUser, windowVerdict } from '../session/rules.js';
import { writesAs } from '../../kube/impersonate.js';
import type { RecordOutcome } from '../session/record.js';
import type { GatewayPool } from '../session/session.js';
import { ClusterCache } from '../../kube/cluster-cache.js';
import type { RotatingSourceReads, SourceReads } from '../../source/shared-reads.js';

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
  /** The Application as an object in the control plane (recorded or not): a Terminating one is finished by the loop. */
  liveApp?: { namespace: string; name: string };
  /** sync --watch --all: hands out this loop's wake-up (the shared webhook wakes the loops of the repository pushed to); returns its removal. */
  onWake?: (wake: () => void) => () => void;
  /**
   * sync --watch --all: hands out this loop's listener for its Application's updates (the shared watch of the
   * Applications); returns its removal. Without it, a loop of an Application in the cluster watches that one itself.
   */
  onAppChange?: (listener: (app: KubeObject) => void) => () => void;
  /** sync --watch --all: each look (refresh) and each act of the loop runs through this, which bounds how many run at once. */
  turn?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** sync --watch --all: the connections every loop shares, each a watch-fed cache of its cluster (kube/cluster-cache.ts). */
  pool?: GatewayPool;
  /** sync --watch --all: the Git reads every loop's looks share for a while (source/shared-reads.ts). */
  sourceReads?: RotatingSourceReads;
}

/** What `sync --watch` reconciles and how (cli/inputs.ts builds it from sync's flags). */
export interface WatchRequest {
  /** Where the Application, its desired state and its rules come from. */
  source: AppStateArgs;
  /** How often the source is polled (at least a second), when --interval is given; else as argocd-cm's timeout.reconciliation says. */
  intervalMs?: number;
  /** The interval as it was asked for (`60s`), for the start line. */
  interval?: string;
  /** How long a sync with hooks or waves may wait for health and hooks in all. */
  timeoutMs: number;
  /** Prune even when automated.prune is off (and with a --desired that overrides the source). */
  prune: boolean;
  /** Take fields other managers own (the default, as Argo CD's automated sync); false: predicted conflicts stop a round before any write. */
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
  comparison: Comparison;
}

/** The prune candidates of the last scan (listed on polls only) and the scopes it could not list. */
interface Extras {
  byKey: Map<string, PruneCandidate>;
  scanGaps?: readonly string[];
}

/** The arguments that read the same commit again without re-resolving the branch or fetching. */
function pinnedArgs(base: AppStateArgs, last: AppState | undefined, env: Record<string, string | undefined>): AppStateArgs {
  if (last?.revision === undefined || base.desired !== undefined) return base;
  const pinned: AppStateArgs = { ...base, revision: last.revision };
  const url = last.app.source.repoURL ?? '';
  if (base.repoDir === undefined && url !== '' && classifyRepoURL(url, process.cwd()).kind === 'remote') pinned.repoDir = cacheDirFor(url, env);
  return pinned;
}

/** The loop's stop signal: SIGINT/SIGTERM (unless told not to) or `deps.signal`; `dispose` removes the handlers. */
function stopSignals(deps: WatchDeps, emit: (e: Omit<LoopEvent, 'time'>) => void): { stop: AbortController; dispose: () => void } {
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
  const onExternal = () => stop.abort();
  deps.signal?.addEventListener('abort', onExternal, { once: true });
  return {
    stop,
    dispose: () => {
      removeHandlers();
      deps.signal?.removeEventListener('abort', onExternal);
    },
  };
}

/** The push webhook, when asked for: each push wakes the loop, each request is an event. */
async function webhookFor(req: WatchRequest, wakeup: Wakeup, emit: (e: Omit<LoopEvent, 'time'>) => void): Promise<WebhookServer | undefined> {
  if (req.webhookAddr === undefined) return undefined;
  const { host } = parseWebhookAddr(req.webhookAddr);
  if (!isLoopback(host) && req.webhookSecret === undefined) {
    emit({ action: 'warning', message: `the webhook listens on ${host}, beyond this machine, with no secret: anyone who reaches it can trigger a refresh` });
  }
  return startWebhook({
    addr: req.webhookAddr,
    ...(req.webhookSecret ? { secret: req.webhookSecret } : {}),
    onPush: () => wakeup.wake('webhook'),
    onRequest: (r) =>
      emit({
        action: 'webhook',
        result: r.outcome === 'push' ? 'accepted' : r.outcome,
        message: r.reason,
        detail: {
          status: r.status,
          ...(r.event ? { event: r.event } : {}),
          ...(r.push?.ref ? { ref: r.push.ref } : {}),
          ...(r.remote ? { remote: r.remote } : {}),
        },
      }),
  });
}

/**
 * What one refresh found, for the decision: the revision (the commit, else the digest `sync` uses), what is out of
 * sync by the one comparison, the extras, the names for the log, and a refusal (the loop is Argo CD's automated sync:
 * a window blocks it unless it allows automated syncs).
 */
function snapshotOf(
  state: AppState,
  comparison: Comparison,
  extras: Extras,
  o: { prune: boolean; warnings: string[]; now: number; source?: string; recorded?: LastOperation; syncErrors?: string[] },
): Snapshot {
  const outOfSync: string[] = [];
  const names: Snapshot['names'] = new Map();
  const named = (k: ResourceKey) => ({ object: displayName(k), ...(k.namespace ? { namespace: k.namespace } : {}) });
  state.desired.forEach((d, i) => {
    const k = keyString(d.key);
    names.set(k, named(d.key));
    if (comparison.objects[i]!.status !== 'in-sync') outOfSync.push(k);
  });
  for (const [k, c] of extras.byKey) names.set(k, named(c.key));
  // A managedNamespaceMetadata changed since the last sync leaves the app OutOfSync with every object in sync. Argo CD's
  // autoSync then syncs only with prune on (without it, "need to prune extra resources only") and, at a revision already
  // synced, selfHeal on: the namespace is out of sync here under those same two conditions (decide's selfHeal rule).
  const ns = state.destinationNamespace;
  if (state.app.managedNamespaceMetadataChanged && o.prune && ns !== '') {
    const key: ResourceKey = { group: '', kind: 'Namespace', namespace: '', name: ns };
    const k = keyString(key);
    if (!outOfSync.includes(k)) outOfSync.push(k);
    names.set(k, named(key));
  }
  const refusal = stateRefusal(state, { manual: false, now: o.now });
  const until = refusal && state.rules ? windowVerdict(state.app, state.rules, { manual: false, now: o.now }).verdict.opensAt : undefined;
  return {
    revision: syncRevision(state),
    ...(state.sources ? { revisions: state.sources.map((s) => s.revision) } : {}),
    ...(o.source !== undefined ? { source: o.source } : {}),
    ...(o.recorded !== undefined ? { recorded: o.recorded } : {}),
    ...(o.syncErrors !== undefined ? { syncErrors: o.syncErrors } : {}),
    ...(state.revision ? { commit: state.revision } : {}),
    origin: state.origin,
    policy: { selfHeal: state.app.automated?.selfHeal === true, prune: o.prune, allowEmpty: state.app.automated?.allowEmpty === true },
    desiredCount: state.desired.length,
    outOfSync,
    extras: [...extras.byKey.keys()],
    names,
    warnings: o.warnings,
    ...(refusal ? { blocked: { reason: refusal, ...(until !== undefined ? { until } : {}) } } : {}),
  };
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
  const { withAppTarget } = await import('../session/session.js');
  return withAppTarget(
    ctx,
    'watch',
    req.source,
    (s) =>
      watchWith(req, ctx, onEvent, {
        ...deps,
        gateway: s.gateway,
        controlPlane: s.controlPlane,
        application: s.application,
        target: s.target,
        closeGateway: false,
        ...(s.appRef && req.record ? { appRef: s.appRef } : {}),
        ...(s.appRef ? { liveApp: s.appRef } : {}),
      }),
    deps.pool,
  );
}

async function watchWith(req: WatchRequest, ctx: RunContext, onEvent: (e: LoopEvent) => void, deps: WatchDeps): Promise<ExitCode> {
  const baseArgs = req.source;
  const clock = deps.clock ?? systemClock;
  const emit = (e: Omit<LoopEvent, 'time'>) => onEvent({ ...e, time: new Date(clock.now()) });

  const { stop, dispose } = stopSignals(deps, emit);
  const turn = deps.turn ?? (<T>(fn: () => Promise<T>) => fn());
  const gateway: KubeGateway | undefined = deps.gateway;
  let webhook: WebhookServer | undefined;
  let unregisterWake: (() => void) | undefined;
  let unregisterApp: (() => void) | undefined;
  let following: Promise<void> | undefined;
  let operations: Promise<void> = Promise.resolve();
  // The loop's steps and a requested operation of its Application run one at a time.
  const exclusive = serial();
  let watcher: LiveWatcher | undefined;
  let fatal: unknown;
  try {
    if (gateway === undefined) throw new Error('the watch loop needs a gateway');
    const gw = gateway;
    const wakeup = new Wakeup();
    unregisterWake = deps.onWake?.(() => wakeup.wake('webhook'));
    // The Application's own updates: a refresh asked by its annotation, a changed spec or a deletion begun is looked
    // at now, as Argo CD's controller does on an update of its Application informer.
    let appSeen: AppSeen | undefined;
    let refreshAsked: 'normal' | 'hard' | undefined;
    // A sync requested through its `operation` field (argocd app sync, the UI, kubectl patch): run once per request,
    // in turn with the loop's own steps (never beside them), then looked at again.
    let opServed: string | undefined;
    const serveOperation = async (op: RequestedSync, ref: { namespace: string; name: string }) => {
      emit({ action: 'app', result: 'operation', message: `a sync requested${op.username !== undefined ? ` by ${op.username}` : ''}: running it` });
      const { runRequestedSync } = await import('./requested.js');
      const done = await turn(() =>
        exclusive(() =>
          runRequestedSync(ctx, ref, op, {
            controlPlane: deps.controlPlane ?? gw,
            timeoutMs: req.timeoutMs,
            record: req.record,
            ...(baseArgs.argocdNamespace !== undefined ? { argocdNamespace: baseArgs.argocdNamespace } : {}),
            ...(deps.pool ? { pool: deps.pool } : {}),
            say: (line) => emit({ action: 'app', result: 'operation', message: line }),
          }),
        ),
      );
      emit({ action: 'app', result: done.ok ? 'operation-succeeded' : 'operation-failed', message: done.message });
      wakeup.wake('app');
    };
    const onApp = (o: KubeObject) => {
      const op = requestedOperationOf(o.operation as JsonValue | undefined);
      if (op === undefined) opServed = undefined;
      else if (op.key !== opServed && deps.liveApp) {
        opServed = op.key;
        const ref = deps.liveApp;
        if ('refused' in op) emit({ action: 'app', result: 'operation-refused', message: `${op.refused}; the request is left in place` });
        else operations = operations.then(() => serveOperation(op, ref)).catch(() => undefined);
      }
      const change = appChangeOf(appSeen, o);
      appSeen = change.seen;
      if (change.refresh !== undefined) refreshAsked = refreshAsked === 'hard' ? 'hard' : change.refresh;
      if (!change.wake) return;
      emit({ action: 'app', result: change.refresh !== undefined ? 'refresh-requested' : 'changed', message: `${change.why}: looking now` });
      wakeup.wake('app');
    };
    if (deps.onAppChange) unregisterApp = deps.onAppChange(onApp);
    else if (deps.liveApp) following = followOwnApplication(deps.controlPlane ?? gateway, deps.liveApp, stop.signal, onApp);
    webhook = await webhookFor(req, wakeup, emit);
    let appInstance = '';
    watcher = new LiveWatcher({
      gateway: gw,
      appInstance: () => appInstance,
      labelKey: () => (last?.state.tracking?.method === 'label' ? last.state.tracking.labelKey : undefined),
      onChange: () => wakeup.wake('live'),
      onConnection: (ev, target) =>
        ev.kind === 'gone'
          ? emit({ action: 'reconnect', result: 'relisting', message: `${target}: resourceVersion expired (410 Gone)` })
          : emit({
              action: 'reconnect',
              result: 'retrying',
              message: `${target}: ${(ev.error as Error)?.message ?? String(ev.error)}`,
              detail: { retryInMs: ev.retryInMs },
            }),
      reconnectDelay: (n) => reconnectDelay(n, Math.random()),
      sleep: clock.sleep,
      // Under sync --watch --all the cluster's shared cache already watches each type: its events wake this loop.
      ...(gw instanceof ClusterCache ? { cache: gw } : {}),
    });
    emit({
      action: 'start',
      message: `reconciling ${baseArgs.app ?? (baseArgs.appFile === '-' ? 'the Application on standard input' : baseArgs.appFile) ?? ''} ${pollingOf(req)}${webhook ? `; webhook on ${webhook.host}:${webhook.port}` : ''}`,
      detail: { ...(req.intervalMs !== undefined ? { intervalMs: req.intervalMs } : {}), ...(webhook ? { webhookPort: webhook.port } : {}) },
    });

    let last: Loaded | undefined;
    let extras: Extras = { byKey: new Map() };
    let succeeded = false;
    const warned = new Set<string>();
    const appDeps = {
      io: ctx.io,
      opts: ctx.opts,
      gateway: gw,
      ...(deps.controlPlane ? { controlPlane: deps.controlPlane } : {}),
      ...(deps.application ? { application: deps.application } : {}),
      ...(deps.target ? { target: deps.target } : {}),
    };

    /** `fn` with the app's deps, under sync --watch --all with the Git reads the loops share, leased while it runs. */
    const withGitReads = async <T>(fn: (d: typeof appDeps & { sourceReads?: SourceReads }) => Promise<T>): Promise<T> => {
      const lease = deps.sourceReads?.lease();
      try {
        return await fn(lease ? { ...appDeps, sourceReads: lease.reads } : appDeps);
      } finally {
        lease?.release();
      }
    };

    /** The Application as stored, when it lives in the cluster: its skip-reconcile annotation, its spec source(s), its recorded operation. */
    const readLiveApp = async (): Promise<KubeObject | undefined> => {
      if (!deps.liveApp) return undefined;
      const cp = deps.controlPlane ?? gw;
      const type = await cp.resolve('argoproj.io/v1alpha1', 'Application');
      return type ? cp.get(type, deps.liveApp.namespace, deps.liveApp.name) : undefined;
    };
    // The operation the loop decides from is the recorded one (status.operationState) when it records its own there.
    const decidesFromRecord = deps.appRef !== undefined && baseArgs.desired === undefined;

    const refresh = async ({ pollSource }: { pollSource: boolean }): Promise<Snapshot> => {
      let state: AppState;
      const started = clock.now();
      const raw = await readLiveApp();
      // A kind the cluster did not serve at the last look (its CRD in the app, or expected): discovery is read again,
      // else a long-running loop would never see it served (and its object never compared live).
      if (last?.state.desired.some((d) => d.pendingCrd)) gw.forgetDiscovery?.();
      // A refresh the annotation asked for is served by a poll (`hard`: the render cache bypassed), then the annotation removed.
      const serving = pollSource ? refreshAsked : undefined;
      if (serving !== undefined) refreshAsked = undefined;
      const args = pollSource ? (serving === 'hard' ? { ...baseArgs, hardRefresh: true } : baseArgs) : pinnedArgs(baseArgs, last?.state, ctx.io.env);
      try {
        state = await withGitReads((d) => loadAppState(args, d, { extras: pollSource || last === undefined }));
      } catch (e) {
        // Not served: the poll that retries this failed one serves it.
        if (serving !== undefined) refreshAsked = refreshAsked === 'hard' ? 'hard' : serving;
        if (!succeeded && (e instanceof InputError || e instanceof RefusedError)) {
          fatal = e; // a mistake in what we were asked to watch: say so at once instead of retrying forever
          stop.abort();
        }
        throw e;
      }
      succeeded = true;
      if (serving !== undefined && deps.liveApp) await servedRefresh(deps.controlPlane ?? gw, deps.liveApp, serving, ctx.opts.fieldManager, emit);
      // An Application someone deleted (kubectl delete: Terminating, held by Argo CD's finalizers) is finished by the
      // loop that owns it, as Argo CD's controller finishes it; nothing of it is synced again.
      if (state.app.deletingSince !== undefined && deps.liveApp) {
        const { finishAppDeletion } = await import('../delete/delete.js');
        const done = await finishAppDeletion(ctx, deps.liveApp, req.timeoutMs, baseArgs.argocdNamespace);
        emit({ action: 'app', result: done.ok ? 'deleted' : 'deleting', message: `the Application is being deleted: ${done.message}` });
        if (done.ok) stop.abort();
        throw new Error(`the Application is being deleted: ${done.ok ? 'done' : done.message}`);
      }
      if (ctx.opts.verbose)
        emit({
          action: 'refresh',
          result: pollSource ? 'poll' : 'live',
          detail: { ms: clock.now() - started, requests: state.requests, objects: state.desired.length },
        });
      appInstance = state.appInstance;
      // The one comparison (diff/comparison.ts): an object is out of sync when it is drifted or missing.
      const comparison = await compareAppState(state, ctx.opts.fieldManager, gw);
      const failed = firstFailure(comparison);
      if (failed) throw failed;
      // Extras (prune candidates) are listed on polls only: that takes a list per kind and namespace, too much for
      // every live change. Between polls the last list stands (with the gaps of its scan), minus what was pruned since.
      if (state.prune !== undefined)
        extras = {
          byKey: new Map(state.prune.candidates.filter((c) => !c.skip).map((c) => [keyString(c.key), c])),
          ...(state.scanGaps ? { scanGaps: state.scanGaps } : {}),
        };
      // argocd-cm's timeout.reconciliation, when it is what times the polls and is not a duration.
      const polls = req.intervalMs === undefined ? (state.rules?.settings.reconciliation.warnings ?? []) : [];
      const fresh = [...state.warnings, ...polls].filter((w) => !warned.has(w));
      for (const w of fresh) warned.add(w);
      last = { state, comparison };
      watcher?.update(liveTargets(state));
      // The automated loop prunes as automated.prune says; a --desired that overrides the source only with --prune.
      const recorded = decidesFromRecord && raw !== undefined ? recordedOperationOf(raw) : undefined;
      const app = state.app;
      return snapshotOf(state, comparison, extras, {
        prune: req.prune || (app.automated?.prune === true && baseArgs.desired === undefined),
        warnings: fresh,
        now: clock.now(),
        // Compared with the last operation's (a changed path or values at the same commit is a new sync, as in Argo CD).
        source:
          raw !== undefined
            ? specSourceOf(raw)
            : sourceFingerprint({ source: app.source, sourceOptions: app.sourceOptions, sources: app.sources, hydrator: app.hydrator }),
        ...(recorded !== undefined ? { recorded } : {}),
        // The SyncError conditions as stored, when the loop records the status: its decisions set and clear them.
        ...(deps.appRef !== undefined && raw !== undefined ? { syncErrors: syncErrorsOf(raw) } : {}),
      });
    };

    // The record (the Application's status): after every round that acted, and after a refresh whose verdict changed.
    let recorded = '';
    const record = async (sync?: { report: SyncReport; startedAtMs: number; selfHealAttemptsCount?: number }) => {
      const ref = deps.appRef;
      if (!ref || last === undefined) return;
      const { runStatus } = await import('../status/status.js');
      const { recordNotice, recordState, recordSync } = await import('../session/record.js');
      const pinned = pinnedArgs(baseArgs, last.state, ctx.io.env);
      // The status recorded is computed afresh (after a sync, the sync changed what the look read), its Git reads shared.
      const compare = () => withGitReads((d) => runStatus(pinned, d));
      const session = { controlPlane: deps.controlPlane ?? gw, appRef: ref };
      const clockNow = { now: () => clock.now() };
      let outcome: RecordOutcome | undefined;
      if (sync) {
        // The round's report recorded as `sync` records its own (operation.ts), initiated by the automated loop.
        outcome = await recordSync(
          session,
          {
            report: sync.report,
            startedAtMs: sync.startedAtMs,
            partial: false,
            record: true,
            initiatedBy: { automated: true },
            ...(sync.selfHealAttemptsCount ? { selfHealAttemptsCount: sync.selfHealAttemptsCount } : {}),
          },
          compare,
          clockNow,
        );
      } else {
        const after = await compare().catch(() => undefined);
        if (!after?.compared) return;
        outcome = await recordState(session.controlPlane, ref, { compared: after.compared, warnings: after.warnings }, clockNow);
      }
      const notice = recordNotice(outcome);
      if (notice !== undefined && !warned.has(notice)) {
        warned.add(notice);
        emit({ action: 'warning', message: notice });
      }
    };
    /** The decision's SyncError condition set (or cleared) in the record, as Argo CD's reconcile sets it. */
    const recordCondition = async (message: string | undefined): Promise<void> => {
      const ref = deps.appRef;
      if (!ref) return;
      const { recordNotice, recordSyncError } = await import('../session/record.js');
      const outcome = await recordSyncError(deps.controlPlane ?? gw, ref, message, { now: () => clock.now() }).catch(
        (e: unknown): RecordOutcome => ({ outcome: 'failed', message: `recording the SyncError condition: ${(e as Error).message}`, attempts: 1 }),
      );
      const notice = recordNotice(outcome);
      if (notice !== undefined && !warned.has(notice)) {
        warned.add(notice);
        emit({ action: 'warning', message: notice });
      }
    };

    // Each round runs the one executor (execute.ts) on the state its refresh loaded, as `sync` runs it.
    const syncDeps: SyncDeps = {
      ...appDeps,
      signal: stop.signal,
      // A child Application its prune deletes is finished as `delete` would finish it (app-of-apps).
      finalizeApp: finalizeThroughDelete(ctx, req.timeoutMs, baseArgs.argocdNamespace),
    };
    /** One attempt of a round: a retry reads the app again at the revision the first attempt synced, and compares again. */
    const attempt = async (d: Decision, retry: number): Promise<SyncReport | undefined> => {
      if (last === undefined) return undefined;
      if (retry > 0) {
        const pinned = pinnedArgs(baseArgs, last.state, ctx.io.env);
        const state = await withGitReads((a) => loadAppState(pinned, a, { extras: false }));
        const comparison = await compareAppState(state, ctx.opts.fieldManager, gw);
        const failed = firstFailure(comparison);
        if (failed) throw failed;
        last = { state, comparison };
      }
      // Argo CD's sync impersonation: the writes as the project's destination ServiceAccount (rules.ts syncUser).
      const user = syncUser(last.state.app, last.state.rules, last.state.target?.server);
      const report = await executeSync(
        last.state,
        last.comparison,
        selectionOf(d, last.state, extras),
        roundOptions(d, req, last.state),
        user !== undefined ? { ...syncDeps, gateway: writesAs(syncDeps.gateway, user) } : syncDeps,
      );
      for (const r of actResults(report, d)) if (r.action === 'prune' && (r.result === 'deleted' || r.result === 'gone')) extras.byKey.delete(r.key);
      return report;
    };
    /**
     * A round is one operation, as Argo CD's automated one: tried again while it fails, as its retry says (the
     * Application's syncPolicy.retry, else Argo CD's `Retry{Limit: 5}`), as `sync APP` retries (syncWithRetry); then
     * recorded once, with its retries. The waits between attempts hold no turn.
     */
    const act = async (d: Decision, attempted?: (results: ActResult[]) => void): Promise<ActDone> => {
      const startedAtMs = clock.now();
      // An attempt that throws (the API server went away mid-step) is a failed attempt too (Argo CD: phase Error, retried).
      let report: SyncReport | undefined;
      let error: unknown;
      const once = async (n: number) => {
        try {
          report = await turn(() => exclusive(() => attempt(d, n)));
          error = undefined;
        } catch (e) {
          error = e;
        }
      };
      await once(0);
      let retries = 0;
      for (;;) {
        if (error === undefined && report === undefined) return { results: [] };
        const policy = automatedRetry(last?.state.app);
        if ((error === undefined && !retryable(report!)) || stop.signal.aborted || (policy.limit >= 0 && retries >= policy.limit)) break;
        retries++;
        if (report !== undefined && error === undefined) attempted?.(actResults(report, d));
        const wait = retryDelayMs(policy, retries);
        const why =
          error !== undefined ? (error as Error).message : (report!.refused ?? report!.failures[0]?.message ?? report!.prune.waiting ?? 'the sync failed');
        emit({
          action: 'backoff',
          object: `revision ${last ? syncRevision(last.state).slice(0, 12) : ''}`,
          result: 'retrying',
          message: `${why}. Retrying attempt #${retries} at ${new Date(clock.now() + wait).toISOString()}.`,
          detail: { retryInMs: wait },
        });
        await clock.sleep(wait, stop.signal);
        if (stop.signal.aborted) break;
        await once(retries);
      }
      if (error !== undefined || report === undefined) throw error;
      const done: SyncReport = retries > 0 ? { ...(report as SyncReport), retries } : report;
      const results = actResults(done, d);
      if (results.length > 0) {
        // A self-heal carries Argo CD's SelfHealAttemptsCount, read back by the next decision (and after a restart).
        const selfHealAttemptsCount = d.reason === 'self-heal' ? d.selfHealAttempts : undefined;
        await turn(() => exclusive(() => record({ report: done, startedAtMs, ...(selfHealAttemptsCount ? { selfHealAttemptsCount } : {}) })));
        recorded = '';
      }
      return { results, phase: syncReportPhase(done), message: operationMessage(done) };
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
      {
        clock,
        random: Math.random,
        refresh: (o) => turn(() => exclusive(() => refreshAndRecord(o))),
        act: (d, _snap, attempted) => act(d, attempted),
        emit,
        recordSyncError: (message) => turn(() => exclusive(() => recordCondition(message))),
      },
      { poll: () => pollTiming(req, last?.state.rules?.settings), signal: stop.signal, wakeup },
    );
    if (fatal !== undefined) throw fatal;
    emit({ action: 'stop', result: 'stopped', detail: { steps: summary.steps, applied: summary.applied, pruned: summary.pruned, failed: summary.failed } });
    return ExitCode.Ok;
  } finally {
    dispose();
    unregisterWake?.();
    unregisterApp?.();
    stop.abort();
    await following;
    await operations;
    await watcher?.stop();
    await webhook?.close();
    if (deps.closeGateway !== false) gateway?.close();
  }
}

/** The retry of the loop's operations: the Application's syncPolicy.retry, else Argo CD's automated `Retry{Limit: 5}` with the default backoff. */
export function automatedRetry(app: Pick<Application, 'retry'> | undefined): RetryPolicy {
  return app?.retry ?? { limit: 5, ...DEFAULT_RETRY_BACKOFF };
}

/** The operation's message, as the record says it (Argo CD's operationState.message). */
function operationMessage(r: SyncReport): string {
  if (r.refused !== undefined) return r.refused;
  if (r.interrupted) return `Operation terminated: ${r.interrupted.message}`;
  const failed =
    r.failures[0]?.message ?? (r.conflicts.length > 0 ? `${r.conflicts.length} field(s) owned by other managers were not applied (conflicts)` : undefined);
  const base = failed ?? r.prune.waiting ?? 'successfully synced (all tasks run)';
  return r.retries ? `${base} (retried ${r.retries} times).` : base;
}

/** The start line's words for when the source is polled. */
export function pollingOf(req: Pick<WatchRequest, 'interval'>): string {
  return req.interval !== undefined ? `every ${req.interval}` : "every argocd-cm's timeout.reconciliation (unset: 120s, plus up to 60s)";
}

/** --interval's timing, else argocd-cm's timeout.reconciliation and its jitter (Argo CD's defaults before it is read). */
export function pollTiming(req: Pick<WatchRequest, 'intervalMs'>, settings: Pick<ArgoSettings, 'reconciliation'> | undefined): PollTiming {
  if (req.intervalMs !== undefined) return flagTiming(req.intervalMs);
  const r = settings?.reconciliation ?? DEFAULT_RECONCILIATION;
  return { intervalMs: r.timeoutMs, jitterMs: r.jitterMs };
}

/** A full sync (the first round, a new revision) applies every desired object; a heal only the drifted ones. */
function isFullSync(d: Decision): boolean {
  return d.reason === 'initial' || d.reason === 'new-revision';
}

/** What a round acts on: the objects the decision names (all of them for a full sync) and its prune candidates. */
function selectionOf(
  d: Decision,
  state: AppState,
  extras: Extras,
): { apply: Set<string>; prune: { candidates: PruneCandidate[]; scanGaps?: readonly string[] } } {
  const apply = new Set(isFullSync(d) ? state.desired.map((e) => keyString(e.key)) : d.apply);
  const wanted = new Set(d.prune);
  const candidates = [...extras.byKey.values()].filter((c) => wanted.has(keyString(c.key)));
  return { apply, prune: { candidates, ...(extras.scanGaps ? { scanGaps: extras.scanGaps } : {}) } };
}

/**
 * How a round runs: a full sync with the app's hooks and waves, a heal in one pass without hooks (as Argo CD's
 * self-heal, a sync of the out-of-sync resources); fields taken back unless --no-force-conflicts.
 */
function roundOptions(d: Decision, req: WatchRequest, state: AppState): Parameters<typeof executeSync>[3] {
  return {
    dryRun: false,
    prune:
      d.prune.length > 0
        ? { enabled: true, why: req.prune ? '--prune' : 'syncPolicy.automated.prune' }
        : { enabled: false, off: 'nothing to prune this round' },
    forceConflicts: req.forceConflicts,
    ...(req.forceConflicts
      ? { forceReason: state.app.automated?.selfHeal ? 'syncPolicy.automated.selfHeal' : 'server-side apply with force, as Argo CD' }
      : {}),
    timeoutMs: req.timeoutMs,
    skipHooks: !isFullSync(d),
    manual: false,
    // The loop re-reads the Application each round: an approval written while a prune waits lets the next round prune.
    pruneConfirmed: isDeletionApproved(state.app, Date.now()),
  };
}

/** A round's report as the loop's results: one per hook, applied object and prune candidate, and one per stop. */
function actResults(report: SyncReport, d: Decision): ActResult[] {
  const key = (r: { group: string; kind: string; namespace: string; name: string }) => keyString(r);
  if (report.refused) return [{ key: report.app, action: 'apply', result: 'refused', ok: false, message: report.refused }];
  const out: ActResult[] = [];
  for (const h of report.hooks)
    out.push({
      key: key(h),
      action: 'apply',
      result: `hook ${h.phase} ${h.outcome}`,
      ok: h.outcome === 'Succeeded',
      ...(h.message ? { message: h.message } : {}),
    });
  for (const s of report.steps) {
    if (s.outcome === 'skipped' && s.wave === null) continue; // the CreateNamespace namespace, already there
    const took = report.healed.filter((h) => key(h) === key(s)).map((h) => `${h.field} from ${h.manager}`);
    const message = s.outcome === 'applied' && took.length > 0 ? `took ${took.join(', ')}` : s.message;
    out.push({ key: key(s), action: 'apply', result: s.outcome, ok: s.outcome === 'applied' || s.outcome === 'skipped', ...(message ? { message } : {}) });
  }
  const pruned = new Set<string>();
  for (const p of report.prune.results) {
    pruned.add(key(p));
    out.push({
      key: key(p),
      action: 'prune',
      result: p.outcome === 'pruned' ? 'deleted' : p.outcome,
      ok: p.outcome === 'pruned' || p.outcome === 'gone' || p.outcome === 'skipped',
      ...(p.message ? { message: p.message } : {}),
    });
  }
  // Decided but not pruned (a failed apply, a denied delete elsewhere, an interruption): said, never left out.
  for (const k of d.prune)
    if (!pruned.has(k))
      out.push({ key: k, action: 'prune', result: 'blocked', ok: false, message: report.prune.blocked ?? report.interrupted?.message ?? 'not pruned' });
  for (const f of report.failures.filter((x) => x.phase === 'operation' || x.phase === 'preflight'))
    out.push({ key: key(f), action: 'apply', result: 'failed', ok: false, message: f.message });
  if (report.interrupted) out.push({ key: report.app, action: 'apply', result: 'interrupted', ok: false, message: report.interrupted.message });
  return out;
}

/**
 * Removes the refresh annotation once its refresh is served, as Argo CD's controller does: a JSON patch that first
 * tests the value, so a request made since (another value) is kept. An annotation removed by someone else meanwhile
 * is no error; any other failure is said, and the request stands (a refresh that cannot remove it is not repeated
 * for the same value).
 */
async function servedRefresh(
  gw: KubeGateway,
  ref: { namespace: string; name: string },
  value: string,
  fieldManager: string,
  emit: (e: Omit<LoopEvent, 'time'>) => void,
): Promise<void> {
  const path = `/metadata/annotations/${REFRESH_ANNOTATION.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  try {
    const type = await gw.resolve('argoproj.io/v1alpha1', 'Application');
    if (!type) return;
    await gw.patch(
      type,
      ref.namespace,
      ref.name,
      [
        { op: 'test', path, value },
        { op: 'remove', path },
      ],
      'json',
      { fieldManager },
    );
    emit({
      action: 'app',
      result: 'refreshed',
      message: `${REFRESH_ANNOTATION}=${value} served${value === 'hard' ? ' (the render cache bypassed)' : ''}; the annotation removed`,
    });
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status === 422 || status === 404) return;
    emit({ action: 'warning', message: `${REFRESH_ANNOTATION}=${value} served, but the annotation could not be removed: ${(err as Error).message}` });
  }
}

/** The loop of an Application in the cluster, alone (sync --watch APP): its own updates, through a watch of that one Application. */
async function followOwnApplication(
  gw: KubeGateway,
  ref: { namespace: string; name: string },
  signal: AbortSignal,
  onApp: (o: KubeObject) => void,
): Promise<void> {
  const { followApplications } = await import('./watch-all.js');
  const mine = (o: KubeObject) => o.metadata.name === ref.name;
  await followApplications(
    gw,
    ref.namespace,
    undefined,
    signal,
    {
      consider: (o) => {
        if (mine(o)) onApp(o);
      },
      forget: () => undefined,
      present: () => undefined,
    },
    `metadata.name=${ref.name}`,
  ).catch(() => undefined);
}

/** Runs the functions given to it one at a time, in the order given (a failure does not stop the next). */
function serial(): <T>(fn: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>) => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}
