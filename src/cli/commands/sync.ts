// `kubectl gitops sync`: server-side apply the desired state in Argo CD's order, then prune safely.
import type { Argv } from 'yargs';
import { defineCommand, type ArgsOf } from '../command.js';
import type { CommandContext } from '../context.js';
import type { GlobalArgs } from '../options.js';
import { appSourceOptions, recordOption } from '../options.js';
import { cautiousStop, NO_FORCE, recording, retryLimitOf, syncAllInput, syncInput, watchAllInput, watchInput } from '../inputs.js';
import { ExitCode, InputError } from '../../model/errors.js';
import type { SyncEvent } from '../../workflows/sync/sync-phases.js';
import { booleanFlagForms, commandLineWithout } from '../argv.js';
import { emit, warn } from '../emit.js';

/** A one-line progress indicator on stderr, only on a TTY; cleared when done. `above` prints a line above it. */
export function progressLine(ctx: CommandContext): { update: (line: string) => void; clear: () => void; above: (text: string) => void } | undefined {
  if (!ctx.io.stderrIsTTY) return undefined;
  let shown = '';
  return {
    update: (line) => {
      ctx.io.err(`\r\x1b[K${line}`);
      shown = line;
    },
    clear: () => {
      if (shown) ctx.io.err('\r\x1b[K');
      shown = '';
    },
    above: (text) => ctx.io.err(shown ? `\r\x1b[K${text}\n${shown}` : `${text}\n`),
  };
}

/**
 * The live view of a sync on a terminal, as `argocd app sync` prints it: one row per change of state (time, phase,
 * wave, kind, namespace, name, status, message) on stderr as it happens, under a header; only on a TTY, so -o kv/json
 * on stdout and pipes are untouched. Rows go above the one-line progress indicator.
 */
export function progressTable(ctx: CommandContext, line: ReturnType<typeof progressLine>): ((e: SyncEvent) => void) | undefined {
  if (!ctx.io.stderrIsTTY) return undefined;
  const print = line?.above ?? ((text: string) => ctx.io.err(`${text}\n`));
  const cols = (c: readonly string[]) =>
    `${c[0]!.padEnd(10)}${c[1]!.padEnd(10)}${c[2]!.padEnd(6)}${c[3]!.padEnd(24)}${c[4]!.padEnd(18)}${c[5]!.padEnd(30)}${c[6]!.padEnd(13)}${c[7] ?? ''}`.trimEnd();
  let header = false;
  return (e) => {
    if (!header) print(ctx.paint.bold(cols(['TIME', 'PHASE', 'WAVE', 'KIND', 'NAMESPACE', 'NAME', 'STATUS', 'MESSAGE'])));
    header = true;
    const kind = e.key.group ? `${e.key.kind}.${e.key.group}` : e.key.kind;
    print(
      cols([
        new Date().toISOString().slice(11, 19),
        e.phase,
        String(e.wave),
        e.hook ? `${kind} (hook)` : kind,
        e.key.namespace || '-',
        e.key.name,
        e.status,
        e.message ?? '',
      ]),
    );
  };
}

/** The per-run overrides (argocd app sync's): for one sync of one Application. */
const RUN_OVERRIDES = ['sync-option', 'strategy', 'apply-out-of-sync-only', 'replace', 'server-side', 'force'];

/** sync's flags. --dry-run, --all and --watch have no default: yargs would count a default false as given in conflicts. */
function syncOptions(y: Argv<GlobalArgs>) {
  return recordOption(appSourceOptions(y))
    .positional('more', { type: 'string', array: true, describe: 'More Applications by name: each synced in turn, one summary, the highest exit code' })
    .option('dry-run', { type: 'boolean', describe: 'Print the whole plan (server-side dry-run, predicted conflicts and prunes) and change nothing' })
    .option('prune', {
      type: 'boolean',
      default: false,
      describe: 'Prune what the app no longer declares (a manual sync prunes only with it, as argocd app sync; --watch follows automated.prune)',
    })
    .option('confirm-prune', {
      type: 'boolean',
      describe:
        "Approve the deletions Prune=confirm holds (the Application's syncOption or an object's annotation), as Argo CD's deletion-approved annotation does; without it such a sync applies, prunes nothing and exits 3",
    })
    .option('resource', {
      type: 'string',
      array: true,
      nargs: 1,
      requiresArg: true,
      describe: 'Sync only this object, [!]GROUP:KIND:[NAMESPACE/]NAME (repeatable; never prunes)',
    })
    .option('selector', {
      alias: 'l',
      type: 'string',
      requiresArg: true,
      describe: 'Sync only the desired objects whose labels match (never prunes); with --all, the Applications whose labels match',
    })
    .option('force-conflicts', {
      type: 'boolean',
      default: true,
      describe:
        'Take back the fields other managers own (server-side apply with force, as Argo CD), each reported (HEALED=). --no-force-conflicts: when the dry-run predicts conflicts, write nothing, exit 3 and name the command that goes on',
    })
    .option('retry-limit', {
      type: 'number',
      requiresArg: true,
      describe: "Try a failed sync again up to this many times (default: the Application's syncPolicy.retry; 0: never)",
    })
    .option('timeout', {
      type: 'string',
      default: '5m',
      describe: 'How long a sync may wait in all: for health and hooks (waves or hooks), and for pruned objects to be gone',
    })
    .option('all', {
      type: 'boolean',
      describe:
        'Sync every Application in --app-namespace in turn (-A: every namespace; -l then selects Applications by label), one summary; with --watch, keep every automated one reconciled in one process',
    })
    .option('recursive', {
      type: 'boolean',
      describe:
        'App-of-apps: then sync each child Application this sync applied, in its wave order (and their children, to any depth), each wave waiting until its children are Synced and Healthy; a failed child stops the rest (exit 3), a cycle is refused (exit 4)',
    })
    .option('sync-option', {
      type: 'string',
      array: true,
      nargs: 1,
      requiresArg: true,
      describe:
        "A sync option for this run, NAME=VALUE (repeatable). As argocd app sync: the run's options replace the Application's syncOptions (repeat one to keep it)",
    })
    .option('strategy', {
      choices: ['hook', 'apply'] as const,
      describe: "hook (default): with hooks; apply: the resources only, no hook (Argo CD's apply strategy)",
    })
    .option('apply-out-of-sync-only', { type: 'boolean', describe: 'This run: ApplyOutOfSyncOnly=true (only the objects not in sync are applied)' })
    .option('replace', { type: 'boolean', describe: 'This run: Replace=true (each object replaced, or created, instead of applied)' })
    .option('server-side', {
      type: 'boolean',
      describe: 'This run: ServerSideApply=true (recorded as asked; this tool applies server-side unless ServerSideApply=false anyway)',
    })
    .option('force', {
      type: 'boolean',
      describe: "This run: force every object's write (Force=true: re-created when an apply is refused; with --replace, delete and create)",
    })
    .option('watch', { type: 'boolean', describe: 'Keep reconciling until stopped' })
    .option('interval', {
      type: 'string',
      describe: "With --watch: how often to poll the source (default: argocd-cm's timeout.reconciliation, else 120s; plus a jitter)",
    })
    .option('webhook-addr', { type: 'string', describe: 'With --watch: listen for push events on this address (loopback by default)' })
    .option('webhook-secret', { type: 'string', describe: 'With --watch: HMAC-SHA256 secret for push events (or $KGITOPS_WEBHOOK_SECRET)' })
    .conflicts('all', ['app', 'app-file', 'desired', 'revision', 'resource'])
    .implies('all-namespaces', 'all')
    .conflicts('watch', ['resource', 'dry-run'])
    .conflicts('recursive', ['all', 'watch', 'dry-run', 'resource', 'selector'])
    .conflicts('watch', RUN_OVERRIDES)
    .conflicts('all', RUN_OVERRIDES)
    .implies('webhook-secret', 'webhook-addr')
    .example('kubectl gitops sync shop --dry-run', 'Show the plan without changing anything')
    .example('kubectl gitops sync shop --prune', 'Apply, heal, and prune what is no longer declared')
    .example('kubectl gitops sync shop --resource apps:Deployment:orders', 'Sync one object')
    .example('kubectl gitops sync shop --no-force-conflicts', 'Stop before any write when another manager owns a field the sync would change')
    .example('kubectl gitops sync --all -l team=shop', 'Sync every Application labelled team=shop, one after another')
    .example('kubectl gitops sync --watch --all -A', 'Keep every automated Application of every namespace reconciled, one process')
    .example('kubectl gitops sync root --recursive', 'App-of-apps: the parent, then its child Applications wave by wave');
}

type SyncArgs = ArgsOf<typeof syncOptions>;

const ALL = '--all syncs every Application as it declares itself';
const WATCH = 'the loop reconciles the whole Application';

export const syncCommand = defineCommand({
  command: 'sync [app] [more..]',
  describe:
    'Apply the desired state by server-side apply, taking back fields others changed; prune only with --prune (--all: every Application in turn; --watch: keep reconciling as automated sync)',
  allNamespaces: true,
  builder: syncOptions,
  why: {
    ...Object.fromEntries(['app', 'app-file', 'desired', 'revision', 'resource'].map((k) => [`all ${k}`, ALL])),
    'all-namespaces all': "a sync of one Application acts on that one (its objects' namespace is -n/--namespace, the Application's is --app-namespace)",
    'watch resource': WATCH,
    'watch dry-run': 'a dry run changes nothing, so there is nothing to keep reconciling',
    'webhook-secret webhook-addr': 'the secret checks the push events the webhook receives',
    'recursive all': '--all syncs every Application as it declares itself, each on its own',
    'recursive watch': WATCH,
    'recursive dry-run': "a dry run creates no child Application, so the children's syncs cannot be planned from it (diff each child)",
    'recursive resource': 'a partial sync of the parent is not an app-of-apps sync',
    'recursive selector': 'a partial sync of the parent is not an app-of-apps sync',
    ...Object.fromEntries(
      RUN_OVERRIDES.map((k) => [`watch ${k}`, "the loop syncs as the Application declares itself, as Argo CD's automated sync (no per-run overrides)"]),
    ),
    ...Object.fromEntries(RUN_OVERRIDES.map((k) => [`all ${k}`, ALL])),
  },
  async run(args, ctx): Promise<ExitCode> {
    const { appNames, forEachApp } = await import('../several.js');
    const names = appNames(args.app, args.more);
    if (names.length > 1) {
      // As argocd app sync A B C: each synced as if named alone, one after the other.
      if (args.appFile !== undefined || args.all === true || args.watch === true)
        throw new InputError('several Applications are named: not with -f/--app-file, --all or --watch (one loop per Application: sync --watch --all)');
      return forEachApp(ctx, 'sync', names, (name, c): Promise<ExitCode> => syncCommand.run({ ...args, app: name, more: [] }, c));
    }
    // yargs has refused what does not go with --all or --watch, and -A without --all.
    if (args.watch === true) {
      if (ctx.opts.output === 'env') throw new InputError('sync --watch prints one event per line: -o table, json, yaml or kv (env is for a single report)');
      const { formatEvent } = await import('../../watch/events.js');
      const format = ctx.opts.output;
      const print = (e: Parameters<typeof formatEvent>[0]) => ctx.io.out(formatEvent(e, format));
      // One process for every automated Application: the controller without a controller.
      if (args.all === true) return (await import('../../workflows/sync/watch-all.js')).runWatchAll(watchAllInput(args, ctx.io.env), ctx, print);
      if (args.selector !== undefined) throw new InputError('-l with --watch selects Applications, with --all: one loop reconciles the whole Application');
      return (await import('../../workflows/sync/watch.js')).runWatch(watchInput(args, ctx.io.env), ctx, print);
    }
    if (args.all === true) return syncAllApps(args, ctx);
    const { runOperation, stoppedLine } = await import('../../workflows/sync/operation.js');
    const { renderSync } = await import('../../render/sync.js');
    const progress = progressLine(ctx);
    const onEvent = progressTable(ctx, progress);
    const request = syncInput(args);
    const retryLimit = retryLimitOf(args.retryLimit);
    try {
      const result = await runOperation(
        ctx,
        { kind: 'sync', request, ...(retryLimit !== undefined ? { retryLimit } : {}), record: recording(args) },
        {
          say: (line) => (progress ? progress.above(line) : ctx.io.err(`${line}\n`)),
          ...(progress ? { progress: progress.update } : {}),
          ...(onEvent ? { onEvent } : {}),
        },
      );
      progress?.clear();
      const { report, recorded } = result;
      let code = result.exitCode;
      if (args.recursive === true && report && code === ExitCode.Ok) {
        // App-of-apps: the child Applications this sync applied, synced wave by wave (recursive.ts).
        const { syncChildrenOf } = await import('../../workflows/sync/recursive.js');
        const { reasonText } = await import('../../render/status.js');
        const { realClock } = await import('../../workflows/status/status.js');
        const walk = await syncChildrenOf(ctx, { namespace: ctx.opts.appNamespace, name: report.app, report }, request, {
          record: recording(args),
          ...(retryLimit !== undefined ? { retryLimit } : {}),
          say: (line) => ctx.io.err(`${line}\n`),
          describe: reasonText,
          clock: realClock,
        });
        report.children = walk.children;
        if (walk.stopped !== undefined) report.childrenStopped = walk.stopped;
        code = walk.exitCode;
      }
      if (report && cautiousStop(report)) report.nextCommand = commandLineWithout(ctx.argv ?? [], NO_FORCE);
      else if (report?.prune.waiting !== undefined && !report.dryRun)
        report.nextCommand = `${commandLineWithout(ctx.argv ?? [], booleanFlagForms('confirm-prune'))} --confirm-prune`;
      if (recorded?.outcome === 'written' && ctx.opts.verbose)
        ctx.io.err(
          `sync: recorded in the Application's status (${recorded.attempts} write${recorded.attempts === 1 ? '' : 's'}: ${recorded.attempts - 1} resourceVersion conflict(s) read again)\n`,
        );
      return emit(ctx, {
        warnings: result.warnings,
        notes: result.stopped ? [stoppedLine('sync', result.stopped)] : [],
        ...(report ? { report: renderSync(report, ctx.opts.output, ctx.paint) } : {}),
        code,
      });
    } finally {
      progress?.clear();
    }
  },
});

/** `sync --all`: every Application (of --app-namespace, -A, -l) synced in turn, one summary; the highest exit code. */
async function syncAllApps(args: SyncArgs, ctx: CommandContext): Promise<ExitCode> {
  const { syncAll, syncAllExitCode } = await import('../../workflows/sync/sync-all.js');
  const { renderSyncAll } = await import('../../render/sync-all.js');
  const report = await syncAll(ctx, syncAllInput(args), (line) => warn(ctx, line));
  return emit(ctx, { report: renderSyncAll(report, ctx.opts.output, ctx.paint), code: syncAllExitCode(report) });
}
