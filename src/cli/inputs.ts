// The workflows' inputs, built from the typed arguments of a command: the one place a flag becomes a field. Workflows
// take these narrow inputs (AppStateArgs, LiveDiffRequest, WatchRequest, ...) and know no flag names and no argv.
import { sourceRevisionPins } from '../app/source-revisions.js';
import { runSyncOptions, type RunSyncFlags } from '../app/run-options.js';
import type { WatchAllRequest } from '../workflows/sync/watch-all.js';
import { parseDuration } from '../model/duration.js';
import { InputError } from '../model/errors.js';
import type { PropagationPolicy } from '../model/object.js';
import type { AppStateArgs } from '../workflows/session/app-state.js';
import type { LiveDiffRequest } from '../workflows/diff/live-diff.js';
import type { PruneRequest } from '../workflows/prune/prune.js';
import type { SyncAllRequest } from '../workflows/sync/sync-all.js';
import type { SyncReport } from '../workflows/sync/execute.js';
import type { SyncRequest } from '../workflows/sync/sync.js';
import type { WatchRequest } from '../workflows/sync/watch.js';

/**
 * The source and rules flags as appSourceOptions declares them (yargs' inferred types); commands that declare only
 * some of them (rollback) pass what they have.
 */
export interface SourceFlags {
  app?: string;
  appFile?: string;
  desired?: string;
  revision?: string;
  repoDir?: string;
  render?: boolean;
  hardRefresh?: boolean;
  kustomize?: string;
  kustomizeBuildOptions?: string;
  helm?: string;
  kubeVersion?: string;
  apiVersions?: readonly (string | number)[];
  argocdNamespace?: string;
  projectFile?: string;
  argocdCm?: string;
  argocdCmdParamsCm?: string;
  luaDir?: string;
  revisions?: readonly string[];
  sourcePositions?: readonly (string | number)[];
  sourceNames?: readonly string[];
}

/** A flag's text, or absent when not given or given empty (`--revision=` is no revision). */
function given(v: string | undefined): string | undefined {
  return v !== undefined && v !== '' ? v : undefined;
}

/** --kube-version and --api-versions as Helm's capabilities (absent when not given; lists may be comma-separated). */
export function capabilityInput(flags: Pick<SourceFlags, 'kubeVersion' | 'apiVersions'>): { kubeVersion?: string; apiVersions?: string[] } {
  const v = given(flags.kubeVersion);
  const a = flags.apiVersions;
  return {
    ...(v !== undefined ? { kubeVersion: v } : {}),
    ...(a !== undefined && a.length > 0
      ? {
          apiVersions: a
            .map(String)
            .flatMap((x) => x.split(','))
            .filter((x) => x !== ''),
        }
      : {}),
  };
}

/** Where the Application, its desired state and its rules come from: the input of every command that loads the app state. */
export function appStateInput(flags: SourceFlags): AppStateArgs {
  if (flags.appFile === '-' && flags.desired === '-') throw new InputError('-f/--app-file and --desired cannot both read standard input (-)');
  return {
    app: given(flags.app),
    appFile: given(flags.appFile),
    desired: given(flags.desired),
    revision: given(flags.revision),
    repoDir: given(flags.repoDir),
    argocdNamespace: given(flags.argocdNamespace),
    projectFile: given(flags.projectFile),
    argocdCm: given(flags.argocdCm),
    argocdCmdParamsCm: given(flags.argocdCmdParamsCm),
    luaDir: given(flags.luaDir),
    kustomize: given(flags.kustomize),
    kustomizeBuildOptions: given(flags.kustomizeBuildOptions),
    helm: given(flags.helm),
    ...capabilityInput(flags),
    ...(flags.hardRefresh === true ? { hardRefresh: true } : {}),
    ...(flags.render === true ? { render: true } : {}),
    ...sourcePinsOf(flags),
  };
}

/** --revisions with --source-positions/--source-names, checked for their shape (the sources are matched once the app is read). */
function sourcePinsOf(flags: SourceFlags): { sourcePins?: NonNullable<ReturnType<typeof sourceRevisionPins>> } {
  const pins = sourceRevisionPins({
    ...(flags.revisions ? { revisions: flags.revisions } : {}),
    ...(flags.sourcePositions ? { sourcePositions: flags.sourcePositions } : {}),
    ...(flags.sourceNames ? { sourceNames: flags.sourceNames } : {}),
  });
  return pins ? { sourcePins: pins } : {};
}

/**
 * Whether a command records its result in the Application: not with --no-record, and not with --desired (the
 * comparison is then against local files, not the Application's source, and would mislead whoever reads the status).
 */
export function recording(flags: { record?: boolean; desired?: string }): boolean {
  return flags.record !== false && flags.desired === undefined;
}

/** `diff APP` (cluster mode): the source flags and --server-side. */
export function liveDiffInput(flags: SourceFlags & { serverSide?: boolean }): LiveDiffRequest {
  return { ...appStateInput(flags), serverSide: flags.serverSide === true };
}

/** sync's flags that one sync reads (besides --retry-limit, which its retries take). */
export interface SyncFlags extends SourceFlags, RunSyncFlags {
  dryRun?: boolean;
  prune?: boolean;
  forceConflicts?: boolean;
  resource?: readonly string[];
  selector?: string;
  timeout: string;
  confirmPrune?: boolean;
}

/** `sync APP`: the sources, the options, and a partial sync's --resource and -l. */
export function syncInput(flags: SyncFlags): SyncRequest {
  return {
    ...appStateInput(flags),
    dryRun: flags.dryRun === true,
    prune: flags.prune === true,
    forceConflicts: flags.forceConflicts !== false,
    ...(flags.confirmPrune === true ? { confirmPrune: true } : {}),
    resources: flags.resource ?? [],
    timeoutMs: parseDuration(flags.timeout, '--timeout'),
    ...(flags.selector !== undefined ? { selector: flags.selector } : {}),
    ...(hasRunOverrides(flags) ? { runOptions: runSyncOptions(flags) } : {}),
  };
}

/** Whether any of argocd app sync's per-run overrides was given. */
function hasRunOverrides(f: RunSyncFlags): boolean {
  return (
    (f.syncOption ?? []).length > 0 ||
    f.replace === true ||
    f.serverSide === true ||
    f.applyOutOfSyncOnly === true ||
    f.strategy !== undefined ||
    f.force === true
  );
}

/** The flag of the cautious mode, dropped from the command line that goes on (sync, rollback). */
export const NO_FORCE: readonly string[] = ['--no-force-conflicts', '--force-conflicts=false'];

/** A sync that stopped before any write because fields were not to be taken (--no-force-conflicts). */
export function cautiousStop(r: SyncReport): boolean {
  return !r.dryRun && !r.force && r.conflicts.length > 0 && r.stoppedBeforeWriting !== undefined;
}

/** --retry-limit: a whole number of -1 (no limit) or more, else an input error (exit 2, before anything is read). */
export function retryLimitOf(flag: number | undefined): number | undefined {
  if (flag === undefined) return undefined;
  if (!Number.isInteger(flag) || flag < -1) throw new InputError(`--retry-limit must be a whole number (-1 for no limit), got ${String(flag)}`);
  return flag;
}

/** `sync --all`: which Applications (-A, -l selects them by label) and the options each sync gets. */
export function syncAllInput(flags: Omit<SyncFlags, 'resource'> & { allNamespaces?: boolean; retryLimit?: number; record?: boolean }): SyncAllRequest {
  const retryLimit = retryLimitOf(flags.retryLimit);
  return {
    allNamespaces: flags.allNamespaces === true,
    ...(flags.selector !== undefined ? { appSelector: flags.selector } : {}),
    dryRun: flags.dryRun === true,
    prune: flags.prune === true,
    forceConflicts: flags.forceConflicts !== false,
    timeoutMs: parseDuration(flags.timeout, '--timeout'),
    record: flags.record !== false,
    ...(retryLimit !== undefined ? { retryLimit } : {}),
    ...(flags.argocdNamespace !== undefined ? { argocdNamespace: flags.argocdNamespace } : {}),
  };
}

/** `prune APP`: the sources, --confirm, and --propagation-policy when given (else the app's, else foreground). */
export function pruneInput(flags: SourceFlags & { confirm?: boolean; propagationPolicy?: PropagationPolicy; wait?: boolean; timeout?: string }): PruneRequest {
  const confirm = flags.confirm === true;
  // The time limit is read (and a bad one refused) whether or not this run waits.
  const timeoutMs = flags.timeout !== undefined ? parseDuration(flags.timeout, '--timeout') : undefined;
  const waits = confirm && flags.wait !== false && timeoutMs !== undefined;
  return {
    ...appStateInput(flags),
    confirm,
    ...(flags.propagationPolicy ? { propagationPolicy: flags.propagationPolicy } : {}),
    ...(waits ? { waitMs: timeoutMs } : {}),
  };
}

/** `windows APP`: the sources, and --all (the windows that do not apply to this app too). */
export function windowsInput(flags: SourceFlags & { all?: boolean }): AppStateArgs & { all: boolean } {
  return { ...appStateInput(flags), all: flags.all === true };
}

/** sync's flags that `--watch` reads (yargs has refused --dry-run, --resource and -l with it, and a secret without an address). */
export interface WatchFlags extends SourceFlags {
  interval?: string;
  timeout: string;
  prune?: boolean;
  forceConflicts?: boolean;
  webhookAddr?: string;
  webhookSecret?: string;
  record?: boolean;
}

/**
 * `sync --watch`'s input, validated: an --interval of at least 1s, a --timeout that parses, the webhook secret from
 * the flag or else $KGITOPS_WEBHOOK_SECRET (only with a webhook), and whether each round is recorded.
 */
export function watchInput(flags: WatchFlags, env: Record<string, string | undefined>): WatchRequest {
  const interval = given(flags.interval);
  const intervalMs = interval !== undefined ? parseDuration(interval, '--interval') : undefined;
  if (intervalMs !== undefined && intervalMs < 1000) throw new InputError(`--interval must be at least 1s (got ${interval})`);
  const timeoutMs = parseDuration(flags.timeout, '--timeout');
  const webhookAddr = given(flags.webhookAddr);
  const secret = given(flags.webhookSecret);
  // yargs refuses a secret without --webhook-addr; an empty address (`--webhook-addr=`) is none either.
  if (secret !== undefined && webhookAddr === undefined) throw new InputError('--webhook-secret needs --webhook-addr');
  const webhookSecret = webhookAddr === undefined ? undefined : (secret ?? given(env.KGITOPS_WEBHOOK_SECRET));
  return {
    source: appStateInput(flags),
    ...(interval !== undefined && intervalMs !== undefined ? { interval, intervalMs } : {}),
    timeoutMs,
    prune: flags.prune === true,
    forceConflicts: flags.forceConflicts !== false,
    record: recording(flags),
    ...(webhookAddr !== undefined ? { webhookAddr } : {}),
    ...(webhookSecret !== undefined ? { webhookSecret } : {}),
  };
}

/** `sync --watch --all`: the loop's settings of watchInput for every automated Application (-A, -l selects them). */
export function watchAllInput(flags: WatchFlags & { allNamespaces?: boolean; selector?: string }, env: Record<string, string | undefined>): WatchAllRequest {
  const { source: _each, ...loop } = watchInput(flags, env);
  const argocdNamespace = given(flags.argocdNamespace);
  return {
    ...loop,
    allNamespaces: flags.allNamespaces === true,
    ...(flags.selector !== undefined ? { appSelector: flags.selector } : {}),
    ...(argocdNamespace !== undefined ? { argocdNamespace } : {}),
  };
}
