// `delete`: ends an Application as Argo CD's controller finalizes one (controller/appcontroller.go
// finalizeApplicationDeletion, controller/hook.go): PreDelete hooks, then the app's objects wave by wave from the
// highest (each guarded by uid and resourceVersion, each wave gone before the next), then PostDelete hooks, the delete
// hooks' clean-up, and last the Application's finalizers, so it disappears. `orphan` deletes no object.
import { ClusterError, RefusedError } from '../../model/errors.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { RunContext } from '../../model/context.js';
import { KubeApiError } from '../../kube/errors.js';
import { keyString, type KubeObject, type PropagationPolicy, type ResourceKey } from '../../model/object.js';
import type { ResourceType } from '../../model/resource-type.js';
import { resourceHealth } from '../../health/resource.js';
import type { DeleteHookPhase } from '../../sync/hooks.js';
import { asApplied } from '../../tracking/tracking-id.js';
import { describeNotOwned } from '../../tracking/select.js';
import {
  cascadeOf,
  finalizersAfter,
  finalizersFor,
  isApplication,
  isFinalizedApplication,
  planDelete,
  type Cascade,
  type DeletePlan,
} from '../../prune/delete-plan.js';
import type { PruneCandidate } from '../../prune/plan.js';
import type { FinalizeApp } from '../sync/execute.js';
import { loadAppState, type AppState, type AppStateArgs, type AppStateDeps } from '../session/app-state.js';
import { projectViolations } from '../session/rules.js';
import { applicationType } from '../session/record.js';
import { describeMissing, preflight, writesOf } from '../sync/preflight.js';
import { deleteCandidates, NOT_REACHED, waitGone } from '../prune/prune-delete.js';
import { partialScan } from '../prune/prune.js';

export const DELETE_SCHEMA_VERSION = 1;

export interface DeleteEntryReport extends ResourceKey {
  uid?: string;
  wave?: number;
  /**
   * `would-delete` (dry run, or before an answer), `deleted` (and gone), `gone` (already), `changed` (recreated or changed
   * since it was listed: left), `failed`, `timeout` (deleted but still there at the time limit), `not-run` (the deletion
   * stopped before its wave), `kept` (with the reason), `waiting` (Delete=confirm, not approved).
   */
  outcome: 'would-delete' | 'deleted' | 'gone' | 'changed' | 'failed' | 'timeout' | 'not-run' | 'kept' | 'waiting';
  message?: string;
}

export interface DeleteHookReport extends ResourceKey {
  phase: DeleteHookPhase;
  /** `would-run` (dry run), `Succeeded`, `Failed`, `Running` (still at the time limit), `not-run`. */
  outcome: 'would-run' | 'Succeeded' | 'Failed' | 'Running' | 'not-run';
  /** What the clean-up did with it once the deletion was over: `removed` or `kept` (its delete policy). */
  cleanup?: 'removed' | 'kept';
  message?: string;
}

/** What `delete -o json` prints (schemaVersion 1). */
export interface DeleteReport {
  schemaVersion: typeof DELETE_SCHEMA_VERSION;
  app: string;
  /** Where the Application object lives (absent for a file). */
  appNamespace?: string;
  context?: string;
  server?: string;
  cascade: Cascade;
  propagationPolicy: PropagationPolicy;
  dryRun: boolean;
  namespaces: string[];
  /** Deletion order: highest wave first; kept and waiting objects after. */
  entries: DeleteEntryReport[];
  hooks: DeleteHookReport[];
  /**
   * The Application object: `deleted`, `terminating` (left with its finalizers: run delete again to finish),
   * `would-delete` (dry run), `kept` (nothing was done), `absent` (an Application file with no object in the cluster).
   */
  application: 'deleted' | 'terminating' | 'would-delete' | 'kept' | 'absent';
  /** `Succeeded`, `DryRun`, `Waiting` (Delete=confirm not approved: nothing done), `Failed`, `Declined` (the question was answered no). */
  phase: 'Succeeded' | 'DryRun' | 'Waiting' | 'Failed' | 'Declined';
  message?: string;
  /** The command that approves a waiting deletion. */
  nextCommand?: string;
  /** The deletion was asked to stop (a signal): where; the Application stays Terminating, and delete again finishes it. */
  interrupted?: string;
  notOwned: { group: string; kind: string; namespace: string; name: string; reason: string }[];
  /** --recursive: each child Application this deletion deletes, and what its own deletion deletes (to any depth). */
  children?: DeleteReport[];
  warnings: string[];
}

export interface DeleteRequest extends AppStateArgs {
  cascade?: Cascade;
  propagationPolicy?: PropagationPolicy;
  dryRun: boolean;
  /** Approves `Delete=confirm` objects (as Argo CD's deletion-approved annotation does). */
  confirmDelete: boolean;
  timeoutMs: number;
}

export interface DeleteDeps extends AppStateDeps {
  controlPlane?: KubeGateway;
  /** The Application object, when it is one in the control plane (absent for a file). */
  appRef?: { namespace: string; name: string };
  /** Finishes a child Application this deletion deleted (sync's FinalizeApp). */
  finalizeApp?: FinalizeApp;
  /** --recursive: the dry-run plan of a child Application's deletion (to any depth), listed beside this one's. */
  childPlan?: (ref: { namespace: string; name: string }) => Promise<DeleteReport>;
  /**
   * The command line that approves objects annotated Delete=confirm (the CLI's own, with --confirm-delete: every flag
   * that chose this app and cluster kept). Absent: one naming the app alone.
   */
  approveCommand?: string;
  /** Asked once the plan is known and before the first write; false stops with nothing changed. Absent: go on. */
  approve?: (plan: DeleteReport) => Promise<boolean>;
  progress?: (line: string) => void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  pollMs?: number;
  /**
   * Once aborted (a signal), the delete in flight is finished and nothing new starts: no hook phase, wave or delete; a
   * wait (for hooks, for deleted objects) ends. The report says where (`interrupted`).
   */
  signal?: AbortSignal;
}

const DELETION_APPROVED = 'argocd.argoproj.io/deletion-approved';

/** 3 when the deletion failed or waits for an approval; 4 when the question was answered no; else 0. */
export function deleteExitCode(r: DeleteReport): 0 | 3 | 4 {
  if (r.phase === 'Declined') return 4;
  return r.phase === 'Failed' || r.phase === 'Waiting' ? 3 : 0;
}

/** Whether the deletion-approved annotation approves a deletion that began at `since` (Argo CD's IsDeletionConfirmed). */
function approvedSince(app: KubeObject | undefined): boolean {
  const since = app?.metadata.deletionTimestamp;
  const value = app?.metadata.annotations?.[DELETION_APPROVED];
  if (typeof since !== 'string' || value === undefined) return false;
  const at = Date.parse(value);
  return Number.isFinite(at) && at >= Date.parse(since);
}

interface Hook {
  phase: DeleteHookPhase;
  key: ResourceKey;
  type: ResourceType;
  object: KubeObject;
  policies: readonly string[];
  policyDeclared: boolean;
  live?: KubeObject;
}

function hooksOf(state: AppState, plan: DeletePlan, phase: DeleteHookPhase): Hook[] {
  const live = new Map(plan.liveDeleteHooks.map((h) => [keyString(h.key), h.object]));
  return (state.deleteHooks ?? [])
    .filter((h) => h.hook.deletePhases.includes(phase))
    .map((h) => {
      const l = live.get(keyString(h.key));
      return {
        phase,
        key: h.key,
        type: h.type,
        object: h.object,
        policies: h.hook.deletePolicies,
        policyDeclared: h.hook.policyDeclared,
        ...(l ? { live: l } : {}),
      };
    });
}

export async function deleteApp(req: DeleteRequest, deps: DeleteDeps): Promise<DeleteReport> {
  const gw = deps.gateway;
  const cp = deps.controlPlane ?? gw;
  const now = deps.now ?? (() => Date.now());
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const pollMs = deps.pollMs ?? 1000;
  // The Application object only when it is one in the control plane (an Application file has none to read).
  const appType = deps.appRef ? await applicationType(cp) : undefined;
  const liveApp = deps.appRef && appType ? await cp.get(appType, deps.appRef.namespace, deps.appRef.name) : undefined;
  const terminating = typeof liveApp?.metadata.deletionTimestamp === 'string';
  const appFinalizers = (liveApp?.metadata.finalizers as string[] | undefined) ?? [];
  // An Application someone deleted already is finished the way its finalizers ask, unless --cascade says otherwise.
  const cascade: Cascade = req.cascade ?? (terminating ? cascadeOf(appFinalizers) : 'foreground');
  const propagationPolicy: PropagationPolicy = req.propagationPolicy ?? (cascade === 'background' ? 'background' : 'foreground');
  // The render names the delete hooks; the scan finds every object with the app's mark.
  const state = await loadAppState(req, deps, { extras: true, live: false });
  const plan = planDelete({
    live: state.scan ?? [],
    appInstance: state.appInstance,
    ...(state.tracking ? { tracking: state.tracking } : {}),
    ...(deps.appRef ? { application: deps.appRef } : {}),
    ...(state.app.syncOptions.delete ? { appDelete: state.app.syncOptions.delete } : {}),
    approved: req.confirmDelete || approvedSince(liveApp),
  });
  const report: DeleteReport = {
    schemaVersion: DELETE_SCHEMA_VERSION,
    app: state.app.name,
    ...(deps.appRef ? { appNamespace: deps.appRef.namespace } : {}),
    ...(state.target ? { context: state.target.context, server: state.target.server } : {}),
    cascade,
    propagationPolicy,
    dryRun: req.dryRun,
    namespaces: state.namespaces,
    entries: [],
    hooks: [],
    application: liveApp ? 'kept' : 'absent',
    phase: 'Succeeded',
    notOwned: plan.notOwned.map((n) => ({ ...n.key, reason: describeNotOwned(n.reason) })),
    warnings: state.warnings,
  };
  const base = (c: PruneCandidate) => ({ ...c.key, ...(c.object.metadata.uid ? { uid: c.object.metadata.uid } : {}), wave: c.wave });
  const deleting = cascade === 'orphan' ? [] : plan.waves;
  const waitingKeys = new Set(plan.needConfirmation.map(keyString));
  for (const w of deleting)
    for (const c of w.objects)
      report.entries.push({
        ...base(c),
        outcome: waitingKeys.has(keyString(c.key)) ? 'waiting' : 'would-delete',
        ...(waitingKeys.has(keyString(c.key)) ? { message: 'annotated Delete=confirm: deleted only once approved (--confirm-delete)' } : {}),
      });
  if (cascade === 'orphan')
    for (const w of plan.waves)
      for (const c of w.objects) report.entries.push({ ...base(c), outcome: 'kept', message: '--cascade orphan: left with its mark' });
  for (const k of plan.kept) report.entries.push({ ...k.key, ...(k.uid ? { uid: k.uid } : {}), outcome: 'kept', message: k.reason });
  const pre = hooksOf(state, plan, 'PreDelete');
  const post = hooksOf(state, plan, 'PostDelete');
  for (const h of [...pre, ...post]) report.hooks.push({ ...h.key, phase: h.phase, outcome: 'would-run' });
  if (deps.appRef && liveApp) report.application = 'would-delete';
  if (deps.childPlan) {
    const children = report.entries.filter((e) => isApplication(e) && (e.outcome === 'would-delete' || e.outcome === 'waiting'));
    if (children.length > 0) report.children = await Promise.all(children.map((c) => deps.childPlan!({ namespace: c.namespace, name: c.name })));
  }

  // Refusals first: each leaves everything as it was.
  if (state.scanGaps && cascade !== 'orphan')
    throw new ClusterError(
      `deleting ${state.app.name}: nothing was deleted: ${partialScan(state.scanGaps).replace('a prune never runs', 'a deletion never runs')}`,
    );
  if (state.rules) {
    const refused = projectViolations(state.app, state.rules, [], state.target?.server);
    if (refused.length > 0)
      throw new RefusedError(`deleting ${state.app.name}: nothing was deleted: project ${state.rules.project.name}: ${refused.join('; ')}`);
  }
  if (deleting.length > 0 && plan.needConfirmation.length > 0) {
    report.phase = 'Waiting';
    report.message = `${plan.needConfirmation.length} object(s) annotated Delete=confirm: nothing was deleted until the deletion is approved`;
    report.nextCommand = deps.approveCommand ?? `kubectl gitops delete ${deps.appRef ? state.app.name : `-f ${req.appFile ?? ''}`} --confirm-delete`;
    if (!req.dryRun && report.application === 'would-delete') report.application = 'kept';
    return report;
  }
  if (req.dryRun) {
    report.phase = 'DryRun';
    return report;
  }
  const toDelete = deleting.flatMap((w) => w.objects);
  const access = await preflight(gw, writesOf([], toDelete));
  if (access.deleteBlocked) throw new ClusterError(`deleting ${state.app.name}: nothing was deleted: ${access.missing.map(describeMissing).join('; ')}`);
  if (deps.approve && !(await deps.approve(report))) {
    report.phase = 'Declined';
    report.application = liveApp ? 'kept' : 'absent';
    for (const e of report.entries) if (e.outcome === 'would-delete') e.outcome = 'not-run';
    for (const h of report.hooks) h.outcome = 'not-run';
    return report;
  }

  // Asked to stop before the first write: nothing was changed.
  if (deps.signal?.aborted) {
    report.interrupted = 'before the first write: nothing was changed';
    report.phase = 'Failed';
    report.message = `interrupted: stopped ${report.interrupted}`;
    report.application = liveApp ? 'kept' : 'absent';
    for (const e of report.entries) if (e.outcome === 'would-delete') e.outcome = 'not-run';
    for (const h of report.hooks) h.outcome = 'not-run';
    return report;
  }
  // The Application first: with the finalizers of this deletion it stays Terminating until the end, so a deletion cut
  // short is finished by running delete again, as Argo CD's controller would finish it.
  const deadline = now() + req.timeoutMs;
  if (deps.appRef && liveApp && appType) {
    const ref = deps.appRef;
    if (!terminating) {
      await addFinalizers(
        cp,
        appType,
        ref,
        liveApp,
        (current) => finalizersFor(current, cascade, { pre: pre.length > 0, post: post.length > 0 }),
        deps.opts.fieldManager,
      );
      await cp.delete(appType, ref.namespace, ref.name, { ...(liveApp.metadata.uid ? { preconditions: { uid: liveApp.metadata.uid as string } } : {}) });
      deps.progress?.(`Application ${ref.namespace}/${ref.name} marked for deletion (cascade ${cascade})`);
    }
    report.application = 'terminating';
  }
  const fail = (message: string) => {
    report.phase = 'Failed';
    report.message = message;
    for (const e of report.entries) if (e.outcome === 'would-delete') e.outcome = 'not-run';
    for (const h of report.hooks) if (h.outcome === 'would-run') h.outcome = 'not-run';
    return report;
  };
  const signal = deps.signal;
  const stopped = () => signal?.aborted === true;
  const interrupt = (where: string) => {
    report.interrupted = where;
    const rest = report.application === 'terminating' ? '; the Application stays Terminating: run delete again to finish' : '';
    return fail(`interrupted: stopped ${where}${rest}`);
  };
  const opts = { gw, now, sleep, pollMs, deadline, state, report, progress: deps.progress, fieldManager: deps.opts.fieldManager, stopped };
  if (stopped()) return interrupt('before the PreDelete hooks');
  const preFailed = await runDeleteHooks(pre, opts);
  if (preFailed) return fail(`PreDelete ${preFailed}: no object was deleted`);
  if (stopped()) return interrupt(pre.length > 0 ? 'while the PreDelete hooks ran: no object was deleted' : 'before the first wave');

  for (const w of deleting) {
    if (stopped()) return interrupt(`before wave ${w.wave}`);
    const results = await deleteCandidates(gw, w.objects, { propagationPolicy, ...(signal ? { signal } : {}) });
    const deleted: PruneCandidate[] = [];
    for (const r of results) {
      const e = report.entries.find((x) => x.uid === r.candidate.object.metadata.uid && keyString(x) === keyString(r.candidate.key));
      if (!e) continue;
      e.outcome = r.outcome === 'skipped' ? (r.message === NOT_REACHED ? 'not-run' : 'kept') : r.outcome;
      if (r.message) e.message = r.message;
      if (r.outcome === 'deleted') deleted.push(r.candidate);
      // A child Application (app-of-apps) with Argo CD's deletion finalizers is finished here, as its controller would.
      if (r.outcome === 'deleted' && isFinalizedApplication(r.candidate) && e) {
        const { key } = r.candidate;
        const done = deps.finalizeApp
          ? await deps.finalizeApp({ namespace: key.namespace, name: key.name })
          : { ok: false, message: 'no deletion of its objects here' };
        if (done.ok) e.message = `its deletion finished as delete would: ${done.message}`;
        else {
          e.outcome = 'failed';
          e.message = `deleted, but left Terminating (${done.message}): finish it with kubectl gitops delete ${key.name} --app-namespace ${key.namespace}`;
        }
      }
    }
    deps.progress?.(`wave ${w.wave}: ${deleted.length} of ${w.objects.length} deleted, waiting for them to be gone`);
    // The API server gone while waiting: what was deleted stays reported as deleted, the rest not run.
    const gone = await waitGone(gw, deleted, { now, sleep, pollMs, deadline, ...(signal ? { signal } : {}) }).catch((err: unknown) => err as Error);
    if (gone instanceof Error) return fail(`wave ${w.wave}: could not see the deleted objects go (${gone.message}); later waves were not started`);
    if (stopped() && (gone.length > 0 || results.some((r) => r.message === NOT_REACHED))) {
      for (const c of gone) {
        const e = report.entries.find((x) => keyString(x) === keyString(c.key));
        if (e) e.message = 'deleted; still Terminating when the wait was stopped';
      }
      return interrupt(`during wave ${w.wave} (the delete in flight was finished, no other was started; what was deleted stays deleted)`);
    }
    const stuck = gone;
    for (const c of stuck) {
      const e = report.entries.find((x) => keyString(x) === keyString(c.key));
      if (e) {
        e.outcome = 'timeout';
        e.message = 'deleted, but still there at the time limit (its finalizers or dependents)';
      }
    }
    const bad = report.entries.filter((e) => e.wave === w.wave && (e.outcome === 'failed' || e.outcome === 'changed' || e.outcome === 'timeout'));
    if (bad.length > 0) return fail(`wave ${w.wave}: ${bad.length} object(s) not deleted; later waves were not started`);
  }

  if (stopped()) return interrupt('before the PostDelete hooks');
  const postFailed = await runDeleteHooks(post, opts);
  if (postFailed) return fail(`PostDelete ${postFailed}`);
  if (stopped()) return interrupt('while the PostDelete hooks ran');
  await cleanupDeleteHooks([...pre, ...post], opts);

  if (deps.appRef && liveApp && appType) {
    await removeFinalizers(cp, appType, deps.appRef, deps.opts.fieldManager);
    report.application = 'deleted';
  }
  return report;
}

interface RunOpts {
  gw: KubeGateway;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  pollMs: number;
  deadline: number;
  state: AppState;
  report: DeleteReport;
  progress: ((line: string) => void) | undefined;
  fieldManager: string;
  /** A stop was asked for: the hooks' wait ends (their outcome stays as last read). */
  stopped: () => boolean;
}

/** Creates the phase's hooks not live yet (marked as the app's), waits until none is Progressing; the failure, if any. */
async function runDeleteHooks(hooks: Hook[], o: RunOpts): Promise<string | undefined> {
  if (hooks.length === 0) return undefined;
  const entry = (h: Hook) => o.report.hooks.find((r) => r.phase === h.phase && keyString(r) === keyString(h.key));
  for (const h of hooks) {
    if (h.live) continue;
    const obj = asApplied(h.object, o.state.appInstance, o.state.destinationNamespace, o.state.tracking);
    try {
      h.live = await o.gw.create(h.type, obj, { fieldManager: o.fieldManager, dryRun: false });
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 409)) {
        const e = entry(h);
        if (e) {
          e.outcome = 'Failed';
          e.message = (err as Error).message;
        }
        return `hook ${h.key.kind}/${h.key.name} could not be created: ${(err as Error).message}`;
      }
    }
    o.progress?.(`${h.phase} hook ${h.key.kind}/${h.key.name} created`);
  }
  for (;;) {
    let running = 0;
    const failed: string[] = [];
    for (const h of hooks) {
      const live = await o.gw.get(h.type, h.key.namespace, h.key.name);
      const e = entry(h);
      const health = live ? resourceHealth(live) : undefined;
      if (!live) {
        if (e) e.outcome = 'Succeeded';
        continue;
      }
      h.live = live;
      if (health?.status === 'Degraded') {
        failed.push(`${h.key.kind}/${h.key.name}${health.message ? `: ${health.message}` : ''}`);
        if (e) {
          e.outcome = 'Failed';
          if (health.message) e.message = health.message;
        }
      } else if (health === undefined || health.status === 'Healthy' || health.status === 'Suspended') {
        if (e) e.outcome = 'Succeeded';
      } else {
        running++;
        if (e) e.outcome = 'Running';
      }
    }
    if (failed.length > 0) return `hook(s) failed: ${failed.join('; ')}`;
    if (running === 0 || o.stopped()) return undefined;
    if (o.now() >= o.deadline) return `hook(s) still running at the time limit`;
    await o.sleep(o.pollMs);
  }
}

/**
 * Argo CD's clean-up of delete hooks once their phase is done (controller/hook.go cleanupHooks): a hook with no delete
 * policy is removed; `HookSucceeded` removes it when every hook of the phase succeeded; `BeforeHookCreation` alone keeps it.
 */
async function cleanupDeleteHooks(hooks: Hook[], o: RunOpts): Promise<void> {
  for (const h of hooks) {
    const e = o.report.hooks.find((r) => r.phase === h.phase && keyString(r) === keyString(h.key));
    const remove = !h.policyDeclared || h.policies.includes('HookSucceeded');
    if (!remove) {
      if (e) e.cleanup = 'kept';
      continue;
    }
    try {
      await o.gw.delete(h.type, h.key.namespace, h.key.name, { propagationPolicy: 'background' });
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 404)) throw err;
    }
    if (e) e.cleanup = 'removed';
  }
}

/**
 * Puts this deletion's finalizers on the Application as it was read (its resourceVersion a precondition, so that no
 * finalizer another writer just added is dropped). A conflict caused by a write that left its spec alone (a controller
 * writing its status: Argo CD's, right after its own sync) is read again and tried again, a few times; a changed spec
 * (another generation) or another object of that name (another uid) is not: what this deletion planned may be stale.
 */
async function addFinalizers(
  cp: KubeGateway,
  type: ResourceType,
  ref: { namespace: string; name: string },
  read: KubeObject,
  finalizersOf: (current: string[]) => string[],
  fieldManager: string,
): Promise<void> {
  let app = read;
  for (let attempt = 1; ; attempt++) {
    const finalizers = finalizersOf((app.metadata.finalizers as string[] | undefined) ?? []);
    try {
      await cp.patch(type, ref.namespace, ref.name, { metadata: { finalizers, resourceVersion: app.metadata.resourceVersion } }, 'merge', { fieldManager });
      return;
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 409) || attempt >= 5) throw err;
      const again = await cp.get(type, ref.namespace, ref.name);
      if (!again || again.metadata.uid !== read.metadata.uid || again.metadata.generation !== read.metadata.generation) throw err;
      app = again;
    }
  }
}

/** Removes this deletion's finalizers (Argo CD's resources, pre-delete and post-delete ones): the Application goes. */
async function removeFinalizers(cp: KubeGateway, type: ResourceType, ref: { namespace: string; name: string }, fieldManager: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const app = await cp.get(type, ref.namespace, ref.name);
    if (!app) return;
    const finalizers = finalizersAfter((app.metadata.finalizers as string[] | undefined) ?? []);
    try {
      await cp.patch(type, ref.namespace, ref.name, { metadata: { finalizers, resourceVersion: app.metadata.resourceVersion } }, 'merge', { fieldManager });
      return;
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 404) return;
      if (!(err instanceof KubeApiError && err.status === 409) || attempt >= 5) throw err;
    }
  }
}

/**
 * Finishes the deletion of an Application another app's prune deleted (app-of-apps): `delete` of it by name in its own
 * namespace, as its finalizers ask, through a session of its own (its destination may be another cluster).
 */
export async function finishAppDeletion(
  ctx: RunContext,
  ref: { namespace: string; name: string },
  timeoutMs: number,
  /** The Argo CD control-plane namespace the command was given (--argocd-namespace): the child's tracking marks name it. */
  argocdNamespace: string | undefined,
): Promise<{ ok: boolean; message: string }> {
  const { childAppContext, withAppTarget } = await import('../session/session.js');
  const child = childAppContext(ctx, ref.namespace);
  try {
    const args = { app: ref.name, ...(argocdNamespace !== undefined ? { argocdNamespace } : {}) };
    const r = await withAppTarget(child, 'delete', args, (session) =>
      deleteApp(
        { ...args, dryRun: false, confirmDelete: false, timeoutMs },
        // Its own child Applications are finished in turn (app-of-apps to any depth).
        { io: ctx.io, opts: child.opts, ...session, finalizeApp: (r) => finishAppDeletion(ctx, r, timeoutMs, argocdNamespace) },
      ),
    );
    const deleted = r.entries.filter((e) => e.outcome === 'deleted').length;
    return r.phase === 'Succeeded'
      ? { ok: true, message: `${deleted} object(s) deleted (cascade ${r.cascade}), the Application ${r.application}` }
      : { ok: false, message: r.message ?? r.phase };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/**
 * `delete --recursive`: the dry-run plan of each child Application's deletion, read through a session of its own, and
 * its children's in turn (to any depth; an app met twice is not read again).
 */
export function childPlanner(
  ctx: RunContext,
  timeoutMs: number,
  seen: Set<string>,
  argocdNamespace?: string,
): (ref: { namespace: string; name: string }) => Promise<DeleteReport> {
  return async (ref) => {
    const id = `${ref.namespace}/${ref.name}`;
    const stub = (message: string): DeleteReport => ({
      schemaVersion: DELETE_SCHEMA_VERSION,
      app: ref.name,
      appNamespace: ref.namespace,
      cascade: 'foreground',
      propagationPolicy: 'foreground',
      dryRun: true,
      namespaces: [],
      entries: [],
      hooks: [],
      application: 'absent',
      phase: 'Failed',
      message,
      notOwned: [],
      warnings: [],
    });
    if (seen.has(id)) return stub(`${id} was listed already (an app-of-apps cycle)`);
    seen.add(id);
    const { childAppContext, withAppTarget } = await import('../session/session.js');
    const child = childAppContext(ctx, ref.namespace);
    try {
      const args = { app: ref.name, ...(argocdNamespace !== undefined ? { argocdNamespace } : {}) };
      return await withAppTarget(child, 'delete', args, (session) =>
        deleteApp(
          { ...args, dryRun: true, confirmDelete: false, timeoutMs },
          { io: ctx.io, opts: child.opts, ...session, childPlan: childPlanner(ctx, timeoutMs, seen, argocdNamespace) },
        ),
      );
    } catch (err) {
      return stub(`its deletion could not be planned: ${(err as Error).message}`);
    }
  };
}
