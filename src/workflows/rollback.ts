// `rollback`: syncs the Application's source as a history entry recorded it, at that entry's revision, as Argo CD's
// rollback does; refused while automated sync is on (its next round would undo it).
import { parseApplication } from '../app/application.js';
import type { Application } from '../app/types.js';
import { InputError, RefusedError } from '../model/errors.js';
import type { JsonObject, KubeObject } from '../model/object.js';
import { historyOf, type HistoryEntry } from '../record/app-status.js';
import type { AppStateDeps } from './app-state.js';
import { readApplicationObject } from './history.js';
import { syncWithRetry, type SyncReport, type SyncRequest } from './sync.js';

export interface RollbackTarget {
  entry: HistoryEntry;
  /** The Application with spec.source replaced by the entry's, at the entry's revision. */
  app: Application;
  /** The source the entry recorded (what the new history entry records again). */
  source: JsonObject;
}

/** Chooses the entry (`id`, else the one before the newest) and builds the Application that deploys it; refusals first. */
export function rollbackTarget(raw: KubeObject, id: number | undefined): RollbackTarget {
  const where = `Application ${raw.metadata.namespace ?? ''}/${raw.metadata.name ?? ''}`;
  const current = parseApplication(raw, where);
  if (current.automated) {
    throw new RefusedError(`rollback cannot be initiated when auto-sync is enabled: ${where} has spec.syncPolicy.automated, and its next automated sync would undo the rollback; nothing was changed`);
  }
  const entries = historyOf(raw);
  let entry: HistoryEntry | undefined;
  if (id !== undefined) {
    entry = entries.find((e) => e.id === id);
    if (!entry) throw new InputError(`${where} has no history entry with ID ${id} (IDs: ${entries.map((e) => e.id).join(', ') || 'none'})`);
  } else {
    if (entries.length < 2) throw new InputError(`${where} should have at least two successful deployments to roll back without an ID (it has ${entries.length})`);
    entry = entries[entries.length - 2]!;
  }
  if (!entry.source) throw new InputError(`${where}: history entry ${entry.id} records ${entry.sources ? 'several sources' : 'no source'}; rollback takes one source`);
  const source = structuredClone(entry.source);
  const pinned: JsonObject = { ...source, ...(entry.revision ? { targetRevision: entry.revision } : {}) };
  const spec = { ...(raw.spec as JsonObject) };
  delete spec.sources;
  spec.source = pinned;
  const app = parseApplication({ ...raw, spec }, `${where} (rollback to history ID ${entry.id})`);
  return { entry, app, source };
}

/** Reads the Application as stored, chooses the entry and syncs it (or plans it with dryRun). */
export async function runRollback(
  req: SyncRequest & { id?: number },
  deps: AppStateDeps & { progress?: (line: string) => void },
  ref: { namespace: string; name: string },
  opts: { notify: (line: string) => void },
): Promise<{ report: SyncReport; target: RollbackTarget }> {
  const raw = await readApplicationObject(deps.controlPlane ?? deps.gateway, ref.namespace, ref.name);
  const target = rollbackTarget(raw, req.id);
  const report = await syncWithRetry(req, { ...deps, application: async () => target.app }, { notify: opts.notify });
  return { report, target };
}
