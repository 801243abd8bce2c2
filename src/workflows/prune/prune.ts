// `prune`: list this app's live objects that are no longer declared; with confirm, delete each under preconditions.
import { deleteCandidates, stillThereAtTheLimit, waitGone, type DeleteResult } from './prune-delete.js';
import type { PruneCandidate } from '../../prune/plan.js';
import { ClusterError, RefusedError } from '../../model/errors.js';
import { isRbacDenial, KubeApiError } from '../../kube/errors.js';
import { stateRefusal } from '../session/rules.js';
import { describeMissing, preflight, writesOf } from '../sync/preflight.js';
import { describeNotOwned } from '../../tracking/select.js';
import { loadAppState, type AppState, type AppStateArgs, type AppStateDeps } from '../session/app-state.js';
import { keyOf, keyString, type PropagationPolicy, type ResourceKey } from '../../model/object.js';
import { asApplied } from '../../tracking/tracking-id.js';
import type { KubeGateway } from '../../kube/gateway.js';

export const PRUNE_SCHEMA_VERSION = 1;

export interface PruneEntryReport extends ResourceKey {
  uid?: string;
  resourceVersion?: string;
  /**
   * `candidate` (listed), `skipped` (with reason), then with confirm: `deleted` (and gone, unless --wait=false),
   * `terminating` (deleted, still there at --timeout: a finalizer or its dependents hold it), `gone`, `changed`, `failed`.
   */
  outcome: 'candidate' | 'skipped' | 'deleted' | 'terminating' | 'gone' | 'changed' | 'failed';
  message?: string;
}

/** What `prune -o json` prints (schemaVersion 1). */
export interface PruneReport {
  schemaVersion: typeof PRUNE_SCHEMA_VERSION;
  app: string;
  /** The kubeconfig context the destination resolved to, and its server. */
  context?: string;
  server?: string;
  confirm: boolean;
  propagationPolicy: PropagationPolicy;
  namespaces: string[];
  entries: PruneEntryReport[];
  /** Objects carrying a tracking-id that are not candidates, and why (another app, copied mark, owned, malformed). */
  notOwned: { group: string; kind: string; namespace: string; name: string; reason: string }[];
  /** The wait for the deleted objects to be gone could not read them (the deletions stand; whether they are gone is unknown). */
  waitError?: string;
  /** The prune was asked to stop (a signal): where; the delete in flight was finished, no new one started. */
  interrupted?: string;
  warnings: string[];
}

/** What a prune needs besides the request: the app-state deps and `signal`, which stops it between deletes and ends its wait. */
export type PruneDeps = AppStateDeps & { signal?: AbortSignal };

export interface PruneRequest extends AppStateArgs {
  confirm: boolean;
  propagationPolicy?: PropagationPolicy;
  /**
   * With confirm: wait until the deleted objects are gone, at most this long (ms), as `kubectl delete` waits and a sync
   * waits for what it pruned; absent: do not wait (--wait=false).
   */
  waitMs?: number;
}

/** How often the wait for deleted objects reads them again. */
const GONE_POLL_MS = 250;

const CONFIRM_SKIP =
  'Prune=confirm: pruned only by a sync whose deletion is approved (sync --prune --confirm-prune, or the argocd.argoproj.io/deletion-approved annotation)';

/** 3 when a confirmed deletion failed, found its object changed or left it still there at the time limit, else 0. */
export function pruneExitCode(r: PruneReport): 0 | 3 {
  if (r.waitError !== undefined) return 3;
  return r.entries.some((e) => e.outcome === 'failed' || e.outcome === 'changed' || e.outcome === 'terminating') ? 3 : 0;
}

export async function pruneApp(req: PruneRequest, deps: PruneDeps): Promise<PruneReport> {
  // Prune needs the desired keys, not their live twins: reading those could list a whole large namespace.
  const state = await loadAppState(req, deps, { extras: true, live: false });
  const planned = state.prune ?? { candidates: [], notOwned: [] };
  // Prune=confirm is approved for a sync (sync --prune --confirm-prune, or the deletion-approved annotation), never here.
  const plan = { ...planned, candidates: planned.candidates.map((c) => (c.confirm ? { ...c, skip: CONFIRM_SKIP } : c)) };
  const propagationPolicy = req.propagationPolicy ?? state.app.syncOptions.prunePropagationPolicy ?? 'foreground';
  const report: PruneReport = {
    schemaVersion: PRUNE_SCHEMA_VERSION,
    app: state.app.name,
    ...(state.target ? { context: state.target.context, server: state.target.server } : {}),
    confirm: req.confirm,
    propagationPolicy,
    namespaces: state.namespaces,
    entries: [],
    notOwned: plan.notOwned.map((n) => ({ ...n.key, reason: describeNotOwned(n.reason) })),
    warnings: state.warnings,
  };
  const base = (c: (typeof plan.candidates)[number]) => ({
    ...c.key,
    ...(c.object.metadata.uid ? { uid: c.object.metadata.uid } : {}),
    ...(c.object.metadata.resourceVersion ? { resourceVersion: c.object.metadata.resourceVersion } : {}),
  });
  // An empty render deletes nothing (as sync --prune refuses it): an app that declares nothing, through a wrong path, an
  // empty pipe or a filter that matches nothing, would otherwise lose every object it has.
  const empty = state.desired.length === 0 && state.app.automated?.allowEmpty !== true ? emptyRender(state.app.name, plan.candidates.length) : undefined;
  if (!req.confirm) {
    if (empty) report.warnings.push(`${empty}: prune --confirm refuses it`);
    for (const c of plan.candidates) report.entries.push({ ...base(c), outcome: c.skip ? 'skipped' : 'candidate', ...(c.skip ? { message: c.skip } : {}) });
    return report;
  }
  // A prune is part of a sync for Argo CD: what the project or a sync window forbids, nothing is deleted.
  if (empty) throw new RefusedError(`pruning ${state.app.name}: nothing was deleted: ${empty}`);
  const refused = stateRefusal(state, { manual: true, now: Date.now() });
  if (refused) throw new RefusedError(`pruning ${state.app.name}: nothing was deleted: ${refused}`);
  if (state.scanGaps) throw new ClusterError(`pruning ${state.app.name}: nothing was deleted: ${partialScan(state.scanGaps)}`);
  // Every delete permission is checked before the first delete, so a refusal never leaves a half-done prune.
  const access = await preflight(deps.gateway, writesOf([], plan.candidates));
  if (access.deleteBlocked) {
    throw new ClusterError(`pruning ${state.app.name}: nothing was deleted: ${access.missing.map(describeMissing).join('; ')}`);
  }
  // A sync stops at its dry-run before it prunes; a prune alone checks what would take the candidates' place.
  if (plan.candidates.some((c) => !c.skip)) {
    let refusedNew = await newObjectsRefused(state, deps.gateway, deps.opts.fieldManager);
    // A user who may delete but not patch cannot have the check made: said, as kubectl's warnings are, and not a refusal.
    const unchecked = refusedNew.filter((r) => r.forbidden);
    if (unchecked.length > 0)
      report.warnings.push(
        `the server-side dry-run of ${unchecked.length} declared object(s) not yet in the cluster was forbidden (${unchecked.map((r) => `${r.key.kind}/${r.key.name}`).join(', ')}): whether a sync could create them was not checked`,
      );
    refusedNew = refusedNew.filter((r) => !r.forbidden);
    if (refusedNew.length > 0) throw new ClusterError(`pruning ${state.app.name}: nothing was deleted: ${dryRunRefusal(refusedNew)}`);
  }
  const signal = deps.signal;
  const deleted = await deleteCandidates(deps.gateway, plan.candidates, { propagationPolicy, ...(signal ? { signal } : {}) });
  // Read again after each await: the signal may come at any time.
  const aborted = () => signal?.aborted === true;
  const stoppedDeleting = aborted();
  if (stoppedDeleting) report.interrupted = 'during the deletions: the one in flight was finished, no other was started';
  // A wait that cannot read (the API server went away) leaves the report whole: what was deleted is said either way.
  const held =
    req.waitMs === undefined || stoppedDeleting
      ? new Map<PruneCandidate, string>()
      : await stillThere(deps, deleted, req.waitMs).catch((err: unknown) => {
          report.waitError = `the deleted objects could not be read again to see them go: ${(err as Error).message}`;
          report.warnings.push(report.waitError);
          return new Map<PruneCandidate, string>();
        });
  // Stopped while waiting: what is still there was deleted, and whether it will go is not known yet.
  const waitStopped = !stoppedDeleting && aborted() && held.size > 0;
  if (waitStopped) report.interrupted = 'while waiting for the deleted objects to be gone: they stay deleted';
  for (const d of deleted) {
    const why = held.get(d.candidate);
    if (why !== undefined && waitStopped) report.entries.push({ ...base(d.candidate), outcome: 'deleted', message: STILL_TERMINATING });
    else if (why !== undefined) report.entries.push({ ...base(d.candidate), outcome: 'terminating', message: why });
    else report.entries.push({ ...base(d.candidate), outcome: d.outcome, ...(d.message ? { message: d.message } : {}) });
  }
  return report;
}

/** Why an empty desired set prunes nothing (sync's planner says the same of a sync). */
function emptyRender(app: string, candidates: number): string {
  return `the desired set of ${app} is empty and allowEmpty is not true${candidates > 0 ? `: all ${candidates} live object(s) of the app would be deleted` : ''}`;
}

/** A deleted object still there when the wait was stopped. */
const STILL_TERMINATING = 'deleted; still Terminating when the wait was stopped';

/**
 * Waits until the deleted objects are gone (a foreground delete leaves its object Terminating until the garbage collector
 * has deleted the dependents; a finalizer holds it until its controller lets go), at most `waitMs`; returns why each one
 * still there at the time limit is (the same words as a sync's prune).
 */
async function stillThere(deps: PruneDeps, deleted: readonly DeleteResult[], waitMs: number): Promise<Map<PruneCandidate, string>> {
  const out = new Map<PruneCandidate, string>();
  const gone = deleted.filter((d) => d.outcome === 'deleted').map((d) => d.candidate);
  if (gone.length === 0) return out;
  const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
  const deadline = Date.now() + waitMs;
  const left = await waitGone(deps.gateway, gone, {
    now: () => Date.now(),
    sleep,
    pollMs: GONE_POLL_MS,
    deadline,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  for (const c of left) out.set(c, stillThereAtTheLimit(c));
  return out;
}

/**
 * The declared objects the cluster does not hold with a tracking mark (new ones, or ones renamed or moved: what replaces
 * a prune candidate) that the API server refuses in a server-side dry-run of the apply a sync would send. A `sync
 * --prune` dry-runs its whole set and prunes nothing when one fails; without this, `prune --confirm` would delete the old
 * object of a rename whose new name (or namespace) the server refuses, and the sync after it could not create the new
 * one. Objects whose namespace or type the sync itself would create first (a declared Namespace, CreateNamespace, a
 * CustomResourceDefinition in the set) are not dry-run, as a sync skips their dry-run too.
 */
async function newObjectsRefused(
  state: Pick<AppState, 'app' | 'desired' | 'scan' | 'appInstance' | 'destinationNamespace' | 'tracking'>,
  gw: KubeGateway,
  fieldManager: string,
): Promise<{ key: ResourceKey; message: string; forbidden?: true }[]> {
  const marked = new Set((state.scan ?? []).map((e) => keyString(keyOf(e.object))));
  const created = new Set(state.desired.filter((d) => d.key.group === '' && d.key.kind === 'Namespace').map((d) => d.key.name));
  if (state.app.syncOptions.createNamespace && state.destinationNamespace) created.add(state.destinationNamespace);
  const fresh = state.desired.filter(
    (d) => !marked.has(keyString(d.key)) && !d.pendingCrd && !d.unserved && !(d.type.namespaced && created.has(d.key.namespace)),
  );
  const results = await Promise.all(
    fresh.map(async (d) => {
      try {
        await gw.apply(d.type, asApplied(d.object, state.appInstance, state.destinationNamespace, state.tracking), {
          fieldManager,
          force: true,
          dryRun: true,
        });
        return undefined;
      } catch (err) {
        if (!(err instanceof KubeApiError)) throw err;
        return { key: d.key, message: err.message, ...(isRbacDenial(err) ? { forbidden: true as const } : {}) };
      }
    }),
  );
  return results.filter((r) => r !== undefined);
}

function dryRunRefusal(refused: readonly { key: ResourceKey; message: string }[]): string {
  const first = refused.slice(0, 3).map((r) => `${r.key.kind}/${r.key.name}${r.key.namespace ? ` in ${r.key.namespace}` : ''}: ${r.message}`);
  const more = refused.length > 3 ? `; and ${refused.length - 3} more` : '';
  return `the server-side dry-run refused ${refused.length} declared object(s) not yet in the cluster (${first.join('; ')}${more}); a sync would stop there before pruning, so nothing is pruned before they can be applied`;
}

/** Why nothing is deleted after a scan that could not list every kind (prune --confirm, sync --prune). */
export function partialScan(gaps: readonly string[]): string {
  return `the prune scan is partial: cannot list ${gaps.join(', ')}, so this app's objects there are unknown, and a prune never runs on a partial scan`;
}
