// `kubectl gitops history`: what was deployed when, from the Application's status.history.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { clusterOptions } from '../options.js';
import { ExitCode, InputError } from '../../model/errors.js';

export const historyCommand = defineCommand({
  command: 'history [app]',
  describe: "List the Application's deployments (status.history): ID, DATE, REVISION, SOURCE, as argocd app history",
  builder: (y) =>
    clusterOptions(y.positional('app', { type: 'string', describe: 'Name of the Argo CD Application (in --app-namespace)' }))
      .example('kubectl gitops history shop', 'What each sync deployed, oldest first')
      .example('kubectl gitops history shop -o json', 'The entries as Argo CD stores them'),
  async run(args, ctx) {
    const name = args.app !== undefined && args.app !== '' ? args.app : undefined;
    if (!name) throw new InputError('name an Application (APP): its history is kept in its status in the cluster');
    const { withControlPlane } = await import('../../workflows/session/session.js');
    const { runHistory } = await import('../../workflows/history/history.js');
    const { renderHistory } = await import('../../render/history.js');
    return withControlPlane(ctx, 'history', async (gw) => {
      return emit(ctx, {
        report: renderHistory(await runHistory(gw, { namespace: ctx.opts.appNamespace, name }), ctx.opts.output, ctx.paint),
        code: ExitCode.Ok,
      });
    });
  },
});
