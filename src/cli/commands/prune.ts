// `kubectl gitops prune`: list (or delete, with --confirm) live objects this app owns but no longer declares.
import { emitStoppable } from '../emit.js';
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
      .option('wait', {
        type: 'boolean',
        default: true,
        describe: 'With --confirm: wait until the deleted objects are gone, as kubectl delete does (--wait=false: return once deleted)',
      })
      .option('timeout', { type: 'string', default: '5m', describe: 'With --confirm: how long to wait for the deleted objects to be gone' })
      .example('kubectl gitops prune shop', 'List prune candidates')
      .example('kubectl gitops prune shop --confirm', 'Delete them, each guarded by uid and resourceVersion, and wait until they are gone'),
  async run(args, ctx) {
    const { withAppTarget } = await import('../../workflows/session/session.js');
    const { pruneApp, pruneExitCode } = await import('../../workflows/prune/prune.js');
    const { stopper } = await import('../../workflows/session/stopper.js');
    const { renderPrune } = await import('../../render/prune.js');
    const req = pruneInput(args);
    // Deleting: the first SIGINT/SIGTERM finishes the delete in flight (or ends the wait) and reports; a second forces.
    const stop = req.confirm ? stopper({ say: (line) => ctx.io.err(`${line}\n`) }, 'prune') : undefined;
    try {
      return await withAppTarget(ctx, 'prune', req, async (session) => {
        const running = pruneApp(req, { io: ctx.io, opts: ctx.opts, ...session, ...(stop ? { signal: stop.signal } : {}) });
        return emitStoppable(ctx, 'prune', running, stop, {
          render: (r) => renderPrune(r, ctx.opts.output, ctx.paint),
          code: pruneExitCode,
          afterForced: 'a delete may have been in flight (run prune again to see what is left)',
        });
      });
    } finally {
      stop?.dispose();
    }
  },
});
