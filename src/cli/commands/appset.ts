// `kubectl gitops appset generate FILE|NAME`: the Applications an ApplicationSet makes, as Argo CD's ApplicationSet
// controller makes them (nothing is written); `appset sync NAME|FILE [--dry-run]` writes them as the controller does.
import { existsSync } from 'node:fs';
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { clusterOptions } from '../options.js';
import { ExitCode, InputError } from '../../model/errors.js';
import { UsageError } from '../argv.js';
import { parseDuration } from '../../model/duration.js';
import { CONTROL_PLANE_NAMESPACE } from '../../model/keys.js';

export const appsetCommand = defineCommand({
  command: 'appset <action> [source]',
  describe:
    "ApplicationSets: `appset generate FILE|NAME` prints the Applications one makes, `appset sync NAME|FILE` writes them, as Argo CD's ApplicationSet controller does",
  outputs: ['table', 'yaml', 'json', 'kv'],
  builder: (y) =>
    clusterOptions(
      y
        .positional('action', {
          type: 'string',
          choices: ['generate', 'sync'] as const,
          describe: 'generate: print the Applications the ApplicationSet makes; sync: create, update and delete them in the cluster',
        })
        .positional('source', { type: 'string', describe: 'A file holding the ApplicationSet (- for stdin), or its name in --app-namespace' }),
    )
      .option('app-file', {
        alias: 'f',
        type: 'string',
        requiresArg: true,
        describe: 'Read the ApplicationSet from this file (- for stdin); -f is --app-file for every command',
      })
      .option('repo-dir', { type: 'string', requiresArg: true, describe: "A local clone to read the git generators' repository from" })
      .option('argocd-namespace', {
        type: 'string',
        requiresArg: true,
        default: CONTROL_PLANE_NAMESPACE,
        describe: "Argo CD's control-plane namespace: the clusters generator reads its cluster Secrets there",
      })
      .option('timeout', {
        type: 'string',
        default: '5m',
        describe: "appset sync: how long finishing a deleted Application's deletion (its objects, delete hooks, finalizers) may take",
      })
      .option('recursive', {
        type: 'boolean',
        describe:
          'appset sync: then sync each generated Application, as sync --all does (a RollingSync strategy: step by step, each batch Healthy before the next; not with --dry-run)',
      })
      .option('prune', { type: 'boolean', describe: 'appset sync --recursive: let those syncs prune' })
      .conflicts({ recursive: 'dry-run' })
      .option('dry-run', { type: 'boolean', describe: 'appset sync: say what would be created, updated and deleted; write nothing' })
      .example('kubectl gitops appset generate appset.yaml', 'The Applications as one YAML stream')
      .example('kubectl gitops appset sync shop-apps --dry-run', 'What the controller would create, update and delete')
      .example('kubectl gitops appset generate shop-apps -o kv', 'By name from the cluster, one APPLICATION=ns/name line each'),
  async run(args, ctx) {
    const source = args.source !== undefined && args.source !== '' ? args.source : undefined;
    if (args.appFile !== undefined && source !== undefined) throw new InputError('give the ApplicationSet once: -f FILE or FILE|NAME, not both');
    const file = args.appFile ?? (source !== undefined && (source === '-' || existsSync(source) || /[/\\]|\.(ya?ml|json)$/i.test(source)) ? source : undefined);
    const name = file === undefined ? source : undefined;
    if (file === undefined && name === undefined)
      throw new InputError(`appset ${args.action}: give a FILE (-f FILE) or the NAME of an ApplicationSet in --app-namespace`);
    if (args.action === 'sync') {
      const { runAppSetSync } = await import('../../workflows/appset/sync.js');
      const { renderAppSetSync } = await import('../../render/appset.js');
      const report = await runAppSetSync(ctx, {
        ...(file !== undefined ? { file } : {}),
        ...(name !== undefined ? { name } : {}),
        ...(args.argocdNamespace !== undefined ? { argocdNamespace: args.argocdNamespace } : {}),
        ...(args.repoDir !== undefined ? { repoDir: args.repoDir } : {}),
        dryRun: args.dryRun === true,
        timeoutMs: parseDuration(args.timeout, '--timeout'),
        ...(args.recursive === true
          ? {
              recursive: {
                prune: args.prune === true,
                forceConflicts: true,
                timeoutMs: parseDuration(args.timeout, '--timeout'),
                record: true,
                ...(args.argocdNamespace !== undefined ? { argocdNamespace: args.argocdNamespace } : {}),
                describe: (await import('../../render/status.js')).reasonText,
              },
            }
          : {}),
      });
      const invalid = report.invalid.map((i) => `${i.name} left out, as Argo CD's controller leaves it out: ${i.error}`);
      const failed = report.results.some((x) => x.error !== undefined);
      const { syncAllExitCode } = await import('../../workflows/sync/sync-all.js');
      const synced = report.rolling ? report.rolling.exitCode : report.synced ? syncAllExitCode(report.synced) : ExitCode.Ok;
      return emit(ctx, {
        warnings: [...report.warnings, ...invalid],
        report: renderAppSetSync(report, ctx.opts.output, ctx.paint),
        code: failed ? ExitCode.Cluster : synced,
      });
    }
    // generate prints objects: YAML unless told otherwise, never a table.
    const asked = (args as { output?: unknown }).output;
    if (asked === 'table') throw new UsageError('appset generate prints yaml, json or kv, not a table');
    if (asked === undefined) ctx = { ...ctx, opts: { ...ctx.opts, output: 'yaml' } };
    const { runAppSetGenerate } = await import('../../workflows/appset/generate.js');
    const { appsetWarnings, renderAppSetGenerate } = await import('../../render/appset.js');
    const report = await runAppSetGenerate(ctx, {
      ...(file !== undefined ? { file } : {}),
      ...(name !== undefined ? { name } : {}),
      ...(args.argocdNamespace !== undefined ? { argocdNamespace: args.argocdNamespace } : {}),
      ...(args.repoDir !== undefined ? { repoDir: args.repoDir } : {}),
    });
    return emit(ctx, { warnings: appsetWarnings(report), report: renderAppSetGenerate(report, ctx.opts.output), code: ExitCode.Ok });
  },
});
