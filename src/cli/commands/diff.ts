// `kubectl gitops diff`: desired against live, per field, with owners and verdicts.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { ExitCode, InputError } from '../../model/errors.js';
import { runFileDiff } from '../../workflows/diff/file-diff.js';
import { capabilityInput, liveDiffInput } from '../inputs.js';
import { renderDiff } from '../../render/diff.js';

/** yargs parses a lone `-` (stdin) as an empty string: read it back as `-`. */
export function stdinDash(v: string): string {
  return v === '' ? '-' : v;
}

export const diffCommand = defineCommand({
  command: 'diff [app] [more..]',
  describe: 'Show drift between the desired manifests and the live objects, with who owns each field',
  builder: (y) =>
    appSourceOptions(y)
      .positional('more', { type: 'string', array: true, describe: 'More Applications by name: each compared, one summary, the highest exit code' })
      .option('live', { type: 'string', requiresArg: true, describe: 'File mode: read live objects from this file, directory or - instead of the cluster' })
      // No default: yargs would count a default false as given, and --live refuses --server-side.
      .option('server-side', { type: 'boolean', describe: 'Compare with a server-side apply dry-run and preview field-manager conflicts' })
      .option('recursive', {
        type: 'boolean',
        describe: 'App-of-apps: also compare each child Application the app declares (to any depth); exit 1 when any of them is not Synced',
      })
      .implies('live', 'desired')
      .conflicts('live', ['app', 'server-side', 'project-file', 'lua-dir', 'recursive'])
      .example('kubectl gitops diff shop', 'Diff the Application "shop" (in --app-namespace) against the cluster')
      .example('kubectl gitops diff --desired ./k8s --live ./live.yaml -f app.yaml', 'File mode, no cluster')
      .example('kubectl gitops diff --desired ./overlays/prod --render --live ./live.yaml', 'File mode, the folder rendered like a source (Kustomize here)'),
  why: {
    'live desired': 'file mode compares the manifests in FILE|DIR with the live objects of --live',
    'live app': 'file mode reads the Application from -f/--app-file, not from the cluster',
    'live server-side': '--server-side needs a cluster',
    'live project-file': 'file mode only compares: --project-file and --lua-dir apply to the cluster commands (sync, prune, status, windows)',
    'live lua-dir': 'file mode only compares: --project-file and --lua-dir apply to the cluster commands (sync, prune, status, windows)',
    'live recursive': 'file mode compares files: the child Applications are read from the cluster',
  },
  async run(args, ctx): Promise<ExitCode> {
    const { appNames, forEachApp } = await import('../several.js');
    const names = appNames(args.app, args.more);
    if (names.length > 1) {
      if (args.appFile !== undefined || args.live !== undefined) throw new InputError('several Applications are named: -f/--app-file and --live compare one');
      return forEachApp(ctx, 'diff', names, (name, c): Promise<ExitCode> => diffCommand.run({ ...args, app: name, more: [] }, c));
    }
    if (args.live === undefined) {
      const { diffAgainstCluster, liveDiffExitCode } = await import('../../workflows/diff/live-diff.js');
      const { renderLiveDiff } = await import('../../render/live-diff.js');
      const report = await diffAgainstCluster(liveDiffInput(args), ctx);
      if (args.recursive === true && report.sync !== 'Unknown') {
        const { childAppsOfObjects, statusChildren } = await import('../../workflows/status/children.js');
        const { reasonText } = await import('../../render/status.js');
        report.children = await statusChildren(ctx, { namespace: ctx.opts.appNamespace, name: report.app }, childAppsOfObjects(report.objects), reasonText, {
          argocdNamespace: args.argocdNamespace,
        });
      }
      return emit(ctx, {
        warnings: report.warnings,
        report: renderLiveDiff(report, ctx.opts.output, ctx.paint, ctx.opts.fieldManager),
        code: liveDiffExitCode(report),
      });
    }
    // yargs has refused --live without --desired, and with APP, --server-side, --project-file or --lua-dir.
    if (args.desired === undefined) throw new InputError('file mode (--live) needs --desired FILE|DIR');
    const { report, app } = await runFileDiff({
      desired: stdinDash(args.desired),
      live: stdinDash(args.live),
      appFile: args.appFile,
      namespace: ctx.opts.namespace,
      fieldManager: ctx.opts.fieldManager,
      io: ctx.io,
      ...(args.render === true
        ? {
            render: {
              env: ctx.io.env,
              ...(args.kustomize !== undefined ? { kustomize: args.kustomize } : {}),
              ...(args.kustomizeBuildOptions !== undefined ? { kustomizeBuildOptions: args.kustomizeBuildOptions } : {}),
              ...(args.helm !== undefined ? { helm: args.helm } : {}),
              ...capabilityInput(args),
            },
          }
        : {}),
      ...(args.argocdCm !== undefined ? { argocdCm: args.argocdCm } : {}),
    });
    return emit(ctx, {
      warnings: [...(app?.warnings ?? []), ...report.warnings],
      report: renderDiff(report, ctx.opts.output, ctx.paint),
      code: report.sync === 'Synced' ? ExitCode.Ok : ExitCode.Drift,
    });
  },
});
