// `prune`: list this app's live objects that are no longer declared; with confirm, delete each under preconditions.
import { deleteCandidates } from './prune-delete.js';
import { ClusterError, RefusedError } from '../../model/errors.js';
import { stateRefusal } from '../session/rules.js';
import { describeMissing, preflight, writesOf } from '../sync/preflight.js';
import { describeNotOwned } from '../../tracking/select.js';
import { loadAppState, type AppStateArgs, type AppStateDeps } from '../session/app-state.js';
import type { PropagationPolicy, ResourceKey } from '../../model/object.js';

export const PRUNE_SCHEMA_VERSION = 1;

export interface PruneEntryReport extends ResourceKey {
  uid?: string;
  resourceVersion?: string;
  /** `candidate` (listed), `skipped` (with reason), then with confirm: `deleted`, `gone`, `changed`, `failed`. */
  outcome: 'candidate' | 'skipped' | 'deleted' | 'gone' | 'changed' | 'failed';
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
  warnings: string[];
}

export interface PruneRequest extends AppStateArgs {
  confirm: boolean;
  propagationPolicy?: PropagationPolicy;
}

const CONFIRM_SKIP =
  'Prune=confirm: pruned only by a sync whose deletion is approved (sync --prune --confirm-prune, or the argocd.argoproj.io/deletion-approved annotation)';

/** 3 when a confirmed deletion failed or found its object changed, else 0. */
export function pruneExitCode(r: PruneReport): 0 | 3 {
  return r.entries.some((e) => e.outcome === 'failed' || e.outcome === 'changed') ? 3 : 0;
}

export async function pruneApp(req: PruneRequest, deps: AppStateDeps): Promise<PruneReport> {
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
  if (!req.confirm) {
    for (const c of plan.candidates) report.entries.push({ ...base(c), outcome: c.skip ? 'skipped' : 'candidate', ...(c.skip ? { message: c.skip } : {}) });
    return report;
  }
  // A prune is part of a sync for Argo CD: what the project or a sync window forbids, nothing is deleted.
  const refused = stateRefusal(state, { manual: true, now: Date.now() });
  if (refused) throw new RefusedError(`pruning ${state.app.name}: nothing was deleted: ${refused}`);
  if (state.scanGaps) throw new ClusterError(`pruning ${state.app.name}: nothing was deleted: ${partialScan(state.scanGaps)}`);
  // Every delete permission is checked before the first delete, so a refusal never leaves a half-done prune.
  const access = await preflight(deps.gateway, writesOf([], plan.candidates), { dryRunDeletes: false });
  if (access.deleteBlocked) {
    throw new ClusterError(`pruning ${state.app.name}: nothing was deleted: ${access.missing.map(describeMissing).join('; ')}`);
  }
  for (const d of await deleteCandidates(deps.gateway, plan.candidates, { propagationPolicy })) {
    report.entries.push({ ...base(d.candidate), outcome: d.outcome, ...(d.message ? { message: d.message } : {}) });
  }
  return report;
}

/** Why nothing is deleted after a scan that could not list every kind (prune --confirm, sync --prune). */
export function partialScan(gaps: readonly string[]): string {
  return `the prune scan is partial: cannot list ${gaps.join(', ')}, so this app's objects there are unknown, and a prune never runs on a partial scan`;
}
