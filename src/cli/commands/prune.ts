// `kubectl gitops prune`: list (or delete, with --confirm) live objects this app owns but no longer declares.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { PROPAGATION_POLICIES } from '../../model/object.js';
import { pruneInput } from '../inputs.js';

export const pruneCommand = defineCommand({
  command: 'prune [app]',
  describe: "List the live objects that carry this app's mark but are no longer declared; delete them with --confirm",
  builder: (y) =>
    appSourceOptions(y)
      .option('confirm', { type: 'boolean', default: false, describe: 'Delete the candidates (default: list only)' })
      .option('propagation-policy', {
        choices: PROPAGATION_POLICIES,
        describe: "Deletion propagation (default: the app's PrunePropagationPolicy, else foreground)",
      })
      .example('kubectl gitops prune shop', 'List prune candidates')
      .example('kubectl gitops prune shop --confirm', 'Delete them, each guarded by uid and resourceVersion'),
  async run(args, ctx) {
    const { withAppTarget } = await import('../../workflows/session/session.js');
    const { pruneApp, pruneExitCode } = await import('../../workflows/prune/prune.js');
    const { renderPrune } = await import('../../render/prune.js');
    const req = pruneInput(args);
    return withAppTarget(ctx, 'prune', req, async (session) => {
      const report = await pruneApp(req, { io: ctx.io, opts: ctx.opts, ...session });
      return emit(ctx, { warnings: report.warnings, report: renderPrune(report, ctx.opts.output, ctx.paint), code: pruneExitCode(report) });
    });
  },
});
