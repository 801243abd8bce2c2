// `kubectl gitops list`: every Application's sync status and health at once, compared live.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { clusterOptions } from '../options.js';
import { ExitCode } from '../../model/errors.js';
import { CONTROL_PLANE_NAMESPACE } from '../../model/keys.js';

export const listCommand = defineCommand({
  command: 'list',
  describe: 'List the Applications in --app-namespace (-A: every namespace) with their sync status and health, each compared live',
  allNamespaces: true,
  builder: (y) =>
    clusterOptions(y)
      .option('selector', { alias: 'l', type: 'string', requiresArg: true, describe: 'Only the Applications whose labels match' })
      .option('argocd-namespace', {
        type: 'string',
        requiresArg: true,
        default: CONTROL_PLANE_NAMESPACE,
        describe:
          "Argo CD's control-plane namespace: its AppProjects and argocd-cm are read there, and its Applications' tracking marks carry the bare app name",
      })
      .option('stored', {
        type: 'boolean',
        describe: "What each Application's status records (as kubectl get applications shows it, with its age) instead of a live comparison: one LIST",
      })
      .example('kubectl gitops list', 'The Applications in argocd')
      .example('kubectl gitops list -A -l team=shop -o kv', 'Every namespace, by label, for scripts')
      .example('kubectl gitops list --stored', 'The recorded status, without comparing (the last sync or status wrote it)'),
  async run(args, ctx) {
    const { runList, runStoredList } = await import('../../workflows/list.js');
    const { renderList } = await import('../../render/list.js');
    const req = {
      allNamespaces: args.allNamespaces === true,
      ...(args.selector !== undefined ? { selector: args.selector } : {}),
      argocdNamespace: args.argocdNamespace,
    };
    const report = args.stored === true ? await runStoredList(ctx, req) : await runList(ctx, req);
    return emit(ctx, { report: renderList(report, ctx.opts.output, ctx.paint), code: ExitCode.Ok });
  },
});
