// A sync requested through the Application's top-level `operation` field, as `argocd app sync`, Argo CD's UI and
// `kubectl patch app APP --type merge -p '{"operation": {"sync": {...}}}'` request one, read as this tool's sync
// request: the controller (sync --watch, here) runs it, records it and clears the field, as Argo CD's controller does
// (processRequestedAppOperation). What this tool cannot run as asked is a refusal, said and left in place for a
// controller that can, never guessed at.
import { InputError } from '../model/errors.js';
import { isPlainObject, type JsonValue } from '../model/object.js';
import { runSyncOptions, type RunSyncOptions } from './run-options.js';

export interface RequestedSync {
  /** The request as it was written (its JSON): one request is run once, however many updates carry it. */
  key: string;
  revision?: string;
  prune: boolean;
  dryRun: boolean;
  /** A selective sync: `[!]GROUP:KIND:[NAMESPACE/]NAME`, as `sync --resource` takes them. */
  resources: string[];
  runOptions?: RunSyncOptions;
  /** operation.retry.limit. */
  retryLimit?: number;
  /** operation.initiatedBy.username (the operation is recorded as initiated by that user). */
  username?: string;
}

export type RequestedOperation = RequestedSync | { key: string; refused: string };

const text = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The request in `operation` (undefined: none). */
export function requestedOperationOf(operation: JsonValue | undefined): RequestedOperation | undefined {
  if (operation === undefined || operation === null) return undefined;
  const key = JSON.stringify(operation);
  if (!isPlainObject(operation) || !isPlainObject(operation.sync)) return { key, refused: 'the requested operation is not a sync (operation.sync is missing)' };
  const sync = operation.sync;
  for (const unsupported of ['revisions', 'sources', 'manifests'] as const)
    if (sync[unsupported] !== undefined)
      return { key, refused: `operation.sync.${unsupported} is not run by this tool (sync a multi-source app with sync APP --revisions)` };
  const resources: string[] = [];
  for (const r of Array.isArray(sync.resources) ? sync.resources : []) {
    if (!isPlainObject(r) || text(r.kind) === undefined || text(r.name) === undefined)
      return { key, refused: `operation.sync.resources: ${JSON.stringify(r)} needs a kind and a name` };
    const ns = text(r.namespace);
    resources.push(`${r.exclude === true ? '!' : ''}${text(r.group) ?? ''}:${text(r.kind)}:${ns !== undefined ? `${ns}/` : ''}${text(r.name)}`);
  }
  if (resources.length > 0 && sync.prune === true)
    return { key, refused: 'operation.sync.prune with operation.sync.resources is not run by this tool (a selective sync here never prunes)' };
  const strategy = isPlainObject(sync.syncStrategy) ? sync.syncStrategy : undefined;
  const apply = strategy && isPlainObject(strategy.apply) ? strategy.apply : undefined;
  const hook = strategy && isPlainObject(strategy.hook) ? strategy.hook : undefined;
  const options = Array.isArray(sync.syncOptions) ? sync.syncOptions.filter((o): o is string => typeof o === 'string') : [];
  let runOptions: RunSyncOptions | undefined;
  if (options.length > 0 || apply || hook) {
    try {
      runOptions = runSyncOptions({
        syncOption: options,
        ...(apply ? { strategy: 'apply' } : hook ? { strategy: 'hook' } : {}),
        force: (apply ?? hook)?.force === true,
      });
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      return { key, refused: `operation.sync.syncOptions: ${err.message.replace(/^--sync-option /, '')}` };
    }
  }
  const retry = isPlainObject(operation.retry) ? operation.retry.limit : undefined;
  const initiatedBy = isPlainObject(operation.initiatedBy) ? text(operation.initiatedBy.username) : undefined;
  const revision = text(sync.revision);
  return {
    key,
    ...(revision !== undefined ? { revision } : {}),
    prune: sync.prune === true,
    dryRun: sync.dryRun === true,
    resources,
    ...(runOptions ? { runOptions } : {}),
    ...(typeof retry === 'number' && Number.isInteger(retry) ? { retryLimit: retry } : {}),
    ...(initiatedBy !== undefined ? { username: initiatedBy } : {}),
  };
}
