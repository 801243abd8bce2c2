// `kubectl gitops windows`: the sync windows of the Application's AppProject, and whether a sync may run now.
import { emit } from '../emit.js';
import { defineCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { ExitCode } from '../../model/errors.js';
import { windowsInput } from '../inputs.js';

export const windowsCommand = defineCommand({
  command: 'windows [app]',
  describe: "List the sync windows of the Application's AppProject: active now, until when, next start, and whether a sync may run",
  builder: (y) =>
    appSourceOptions(y)
      .option('all', { type: 'boolean', default: false, describe: 'Also list the windows that do not apply to this application' })
      .example('kubectl gitops windows shop', 'The windows that apply to shop, and when a sync may run')
      .example('kubectl gitops windows -f app.yaml --project-file project.yaml -o kv', 'From files, for scripts'),
  async run(args, ctx) {
    const { runWindows } = await import('../../workflows/windows.js');
    const { renderWindows } = await import('../../render/windows.js');
    const { checkLocalSources, withAppTarget } = await import('../../workflows/session/session.js');
    const a = windowsInput(args);
    const print = (report: Awaited<ReturnType<typeof runWindows>>) =>
      emit(ctx, { warnings: report.warnings, report: renderWindows(report, ctx.opts.output, ctx.paint), code: ExitCode.Ok });
    // With the Application and its project both from files, the cluster has nothing to add.
    if (a.appFile && a.projectFile) {
      await checkLocalSources({ appFile: a.appFile });
      return print(await runWindows(a, { io: ctx.io, opts: ctx.opts }));
    }
    return withAppTarget(ctx, 'windows', a, async (session) =>
      print(await runWindows(a, { io: ctx.io, opts: ctx.opts, gateway: session.controlPlane, application: session.application, target: session.target })),
    );
  },
});
