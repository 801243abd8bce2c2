// Per-run sync overrides, as `argocd app sync` takes them (cmd/argocd/commands/app.go, server/application Sync):
// `--replace`, `--server-side`, `--apply-out-of-sync-only` (and here `--sync-option K=V`) make the operation's sync
// options, which then REPLACE the Application's spec.syncPolicy.syncOptions for this run, as Argo CD's API server does
// (`if syncReq.SyncOptions != nil { syncOptions = syncReq.SyncOptions.Items }`); `--strategy apply` runs no hook;
// `--force` forces every object's apply (SyncStrategy.Apply/Hook.Force). Pure.
import { InputError } from '../model/errors.js';
import { parseSyncOptions } from './application.js';
import type { Application } from './types.js';

export interface RunSyncOptions {
  /** The operation's sync options, in the order given; absent when none was given (the Application's own apply). */
  items?: string[];
  strategy: 'hook' | 'apply';
  force: boolean;
  /** Whether --strategy or --force was given (recorded as the operation's syncStrategy only then). */
  strategyGiven: boolean;
}

export interface RunSyncFlags {
  syncOption?: readonly string[];
  replace?: boolean;
  serverSide?: boolean;
  applyOutOfSyncOnly?: boolean;
  strategy?: string;
  force?: boolean;
}

/** The options Argo CD's Application syncOptions take (a name this tool does not know is an input error here). */
const KNOWN = new Set([
  'Replace',
  'Validate',
  'SkipDryRunOnMissingResource',
  'CreateNamespace',
  'PruneLast',
  'ServerSideApply',
  'ApplyOutOfSyncOnly',
  'RespectIgnoreDifferences',
  'FailOnSharedResource',
  'Prune',
  'ClientSideApplyMigration',
  'PrunePropagationPolicy',
]);

/** The flags as one run's options; InputError (exit 2, nothing read) for a malformed or unknown option, or a bad strategy. */
export function runSyncOptions(f: RunSyncFlags): RunSyncOptions {
  const items: string[] = [];
  for (const raw of f.syncOption ?? []) {
    const item = raw.trim();
    const eq = item.indexOf('=');
    if (eq <= 0 || eq === item.length - 1) throw new InputError(`--sync-option ${raw}: expected NAME=VALUE (e.g. Replace=true)`);
    const name = item.slice(0, eq);
    if (!KNOWN.has(name)) throw new InputError(`--sync-option ${raw}: ${name} is not a sync option Argo CD knows (${[...KNOWN].join(', ')})`);
    const problems: string[] = [];
    parseSyncOptions([item], (w) => problems.push(w));
    if (problems.length > 0) throw new InputError(`--sync-option ${problems[0]!.replace(/^syncOptions /, '').replace(/; (ignored|using \w+)$/, '')}`);
    items.push(item);
  }
  // argocd app sync's own flags, in its order (syncOptionsFactory).
  if (f.replace === true) items.push('Replace=true');
  if (f.serverSide === true) items.push('ServerSideApply=true');
  if (f.applyOutOfSyncOnly === true) items.push('ApplyOutOfSyncOnly=true');
  const strategy = f.strategy ?? 'hook';
  if (strategy !== 'hook' && strategy !== 'apply') throw new InputError(`--strategy ${strategy}: one of apply, hook`);
  return {
    ...(items.length > 0 ? { items } : {}),
    strategy,
    force: f.force === true,
    strategyGiven: f.strategy !== undefined || f.force === true,
  };
}

/** The Application as this run syncs it: the run's options instead of its own when any was given; --force on every object. */
export function withRunOptions(app: Application, run: RunSyncOptions): Application {
  const warnings: string[] = [];
  const base = run.items ? parseSyncOptions(run.items, (w) => warnings.push(w)) : app.syncOptions;
  return { ...app, syncOptions: { ...base, ...(run.force ? { force: true } : {}) }, warnings: [...app.warnings, ...warnings] };
}

/** The operation's syncStrategy as Argo CD records it (`{hook: {force}}` or `{apply: {force}}`), when one was asked for. */
export function syncStrategyOf(run: RunSyncOptions): { hook?: { force?: true }; apply?: { force?: true } } | undefined {
  if (!run.strategyGiven) return undefined;
  const inner = run.force ? { force: true as const } : {};
  return run.strategy === 'apply' ? { apply: inner } : { hook: inner };
}
