// `rollback`: syncs the Application's source as a history entry recorded it, at that entry's revision, as Argo CD's
// rollback does; refused while automated sync is on (its next round would undo it).
import { parseApplication } from '../../app/application.js';
import type { Application } from '../../app/types.js';
import { InputError, RefusedError } from '../../model/errors.js';
import { isPlainObject, type JsonObject, type KubeObject } from '../../model/object.js';
import { historyOf, type HistoryEntry } from '../../record/app-status.js';
import type { AppStateDeps } from '../session/app-state.js';
import { readApplicationObject } from './history.js';
import type { SyncReport } from '../sync/execute.js';
import { syncWithRetry, type SyncRequest } from '../sync/sync.js';

export interface RollbackTarget {
  entry: HistoryEntry;
  /** The Application with spec.source (or spec.sources) replaced by the entry's, each at the entry's revision. */
  app: Application;
  /** The source(s) the entry recorded (what the new history entry records again). */
  synced: { source: JsonObject } | { sources: JsonObject[] };
}

/** A recorded source to deploy at `revision` (its targetRevision pinned: a commit, or a chart's version). */
function pinned(source: JsonObject, revision: string | undefined): JsonObject {
  return { ...structuredClone(source), ...(revision ? { targetRevision: revision } : {}) };
}

/**
 * Chooses the entry (`id`, else the one before the newest) and builds the Application that deploys it; refusals first.
 * As Argo CD's rollback (server/application/application.go Rollback), an entry of a multi-source Application deploys
 * every recorded source at its own recorded revision.
 */
export function rollbackTarget(raw: KubeObject, id: number | undefined): RollbackTarget {
  const where = `Application ${raw.metadata.namespace ?? ''}/${raw.metadata.name ?? ''}`;
  const current = parseApplication(raw, where);
  if (current.automated) {
    throw new RefusedError(
      `rollback cannot be initiated when auto-sync is enabled: ${where} has spec.syncPolicy.automated, and its next automated sync would undo the rollback; nothing was changed`,
    );
  }
  const entries = historyOf(raw);
  let entry: HistoryEntry | undefined;
  if (id !== undefined) {
    entry = entries.find((e) => e.id === id);
    if (!entry) throw new InputError(`${where} has no history entry with ID ${id} (IDs: ${entries.map((e) => e.id).join(', ') || 'none'})`);
  } else {
    if (entries.length < 2)
      throw new InputError(`${where} should have at least two successful deployments to roll back without an ID (it has ${entries.length})`);
    entry = entries[entries.length - 2]!;
  }
  const spec = { ...(raw.spec as JsonObject) };
  let synced: RollbackTarget['synced'];
  // A multi-source entry written by Argo CD carries an empty `source` too (`{repoURL: ""}`): only a repoURL makes one.
  if (isPlainObject(entry.source) && typeof entry.source.repoURL === 'string' && entry.source.repoURL !== '') {
    synced = { source: structuredClone(entry.source) };
    delete spec.sources;
    spec.source = pinned(entry.source, entry.revision);
  } else if (Array.isArray(entry.sources) && entry.sources.length > 0) {
    const sources = entry.sources.filter(isPlainObject) as JsonObject[];
    const revisions = Array.isArray(entry.revisions) ? entry.revisions : [];
    if (revisions.length > 0 && revisions.length !== sources.length) {
      throw new InputError(
        `${where}: history entry ${entry.id} records ${sources.length} sources and ${revisions.length} revisions; cannot tell which revision is whose`,
      );
    }
    synced = { sources: structuredClone(sources) };
    delete spec.source;
    spec.sources = sources.map((s, i) => pinned(s, revisions[i]));
  } else {
    // Argo CD's words: entries without a source predate v0.12 and cannot be rolled back to.
    throw new InputError(
      `${where}: history entry ${entry.id} records no source: cannot rollback to a revision deployed without one; sync to the revision instead`,
    );
  }
  const app = parseApplication({ ...raw, spec }, `${where} (rollback to history ID ${entry.id})`);
  return { entry, app, synced };
}

/** Reads the Application as stored and chooses the entry (refusals first: nothing is recorded for them, as in Argo CD). */
export async function rollbackTargetOf(
  deps: Pick<AppStateDeps, 'controlPlane' | 'gateway'>,
  ref: { namespace: string; name: string },
  id: number | undefined,
): Promise<RollbackTarget> {
  const raw = await readApplicationObject(deps.controlPlane ?? deps.gateway, ref.namespace, ref.name);
  return rollbackTarget(raw, id);
}

/** Syncs a chosen rollback target (or plans it with dryRun). */
export function syncRollback(
  req: SyncRequest,
  target: RollbackTarget,
  deps: AppStateDeps & { progress?: (line: string) => void },
  opts: { notify: (line: string) => void },
): Promise<SyncReport> {
  // Argo CD's Rollback asks for a sync with the apply strategy (SyncStrategyApply), recorded in the operation.
  return syncWithRetry(req, { ...deps, application: async () => target.app }, { notify: opts.notify }).then((report) => ({
    ...report,
    syncStrategy: report.syncStrategy ?? { apply: {} },
  }));
}
