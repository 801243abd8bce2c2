// `kubectl gitops diff`: desired against live, per field, with owners and verdicts.
import type { GitopsCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { ExitCode, InputError } from '../exit-codes.js';
import { runFileDiff } from '../../workflows/file-diff.js';
import { capabilityArgs } from '../../source/render/helm.js';
import { renderDiff } from '../../render/diff.js';

/** yargs parses a lone `-` (stdin) as an empty string: read it back as `-`. */
export function stdinDash(v: string): string {
  return v === '' ? '-' : v;
}

export const diffCommand: GitopsCommand = {
  command: 'diff [app]',
  describe: 'Show drift between the desired manifests and the live objects, with who owns each field',
  builder: (y) =>
    appSourceOptions(y)
      .option('live', { type: 'string', describe: 'File mode: read live objects from this file or directory instead of the cluster' })
      .option('server-side', { type: 'boolean', default: false, describe: 'Compare with a server-side apply dry-run and preview field-manager conflicts' })
      .example('kubectl gitops diff shop', 'Diff the Application "shop" (in --app-namespace) against the cluster')
      .example('kubectl gitops diff --desired ./k8s --live ./live.yaml -f app.yaml', 'File mode, no cluster')
      .example('kubectl gitops diff --desired ./overlays/prod --render --live ./live.yaml', 'File mode, the folder rendered like a source (Kustomize here)'),
  async run(args, ctx) {
    if (typeof args.live !== 'string') {
      const { diffAgainstCluster, liveDiffExitCode } = await import('../../workflows/live-diff.js');
      const { renderLiveDiff } = await import('../../render/live-diff.js');
      const report = await diffAgainstCluster(args, ctx);
      for (const w of report.warnings) ctx.io.err(`warning: ${w}\n`);
      ctx.io.out(renderLiveDiff(report, ctx.opts.output, ctx.paint, ctx.opts.fieldManager));
      return liveDiffExitCode(report);
    }
    if (typeof args.desired !== 'string') throw new InputError('file mode (--live) needs --desired FILE|DIR');
    if (args.app !== undefined && args.app !== '') throw new InputError('file mode (--live) reads the Application from -f/--app-file, not from the cluster: drop the APP argument');
    if (args.serverSide === true) throw new InputError('--server-side needs a cluster: it cannot be combined with --live');
    if (typeof args.projectFile === 'string' || typeof args.luaDir === 'string') throw new InputError('file mode (--live) only compares: --project-file and --lua-dir apply to the cluster commands (sync, prune, status, windows)');
    const { report, app } = await runFileDiff({
      desired: stdinDash(args.desired),
      live: stdinDash(args.live),
      appFile: typeof args.appFile === 'string' ? args.appFile : undefined,
      namespace: ctx.opts.namespace,
      fieldManager: ctx.opts.fieldManager,
      io: ctx.io,
      ...(args.render === true ? { render: { env: ctx.io.env, ...(typeof args.kustomize === 'string' ? { kustomize: args.kustomize } : {}), ...(typeof args.kustomizeBuildOptions === 'string' ? { kustomizeBuildOptions: args.kustomizeBuildOptions } : {}), ...(typeof args.helm === 'string' ? { helm: args.helm } : {}), ...capabilityArgs(args) } } : {}),
      ...(typeof args.argocdCm === 'string' ? { argocdCm: args.argocdCm } : {}),
    });
    for (const w of app?.warnings ?? []) ctx.io.err(`warning: ${w}\n`);
    for (const w of report.warnings) ctx.io.err(`warning: ${w}\n`);
    ctx.io.out(renderDiff(report, ctx.opts.output, ctx.paint));
    return report.sync === 'Synced' ? ExitCode.Ok : ExitCode.Drift;
  },
};
