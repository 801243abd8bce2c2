// `kubectl gitops delete`: end an Application as Argo CD does (delete hooks, its objects wave by wave, its finalizers).
import { emitStoppable } from '../emit.js';
import type { Stopper } from '../../workflows/session/stopper.js';
import { defineCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { InputError } from '../../model/errors.js';
import { PROPAGATION_POLICIES } from '../../model/object.js';
import { parseDuration } from '../../model/duration.js';
import { appStateInput } from '../inputs.js';
import { booleanFlagForms, commandLineWithout } from '../argv.js';
import { CASCADES } from '../../prune/delete-plan.js';
import { progressLine } from './sync.js';

export const deleteCommand = defineCommand({
  command: 'delete [app]',
  describe: 'Delete an Application as Argo CD does: PreDelete hooks, its objects (highest wave first), PostDelete hooks, then the Application',
  builder: (y) =>
    appSourceOptions(y)
      .option('cascade', {
        choices: CASCADES,
        describe:
          "foreground (default, as argocd app delete) or background: delete every object with the app's mark; orphan: only the Application (its objects keep their mark). A Terminating Application: as its finalizers say",
      })
      .option('propagation-policy', {
        choices: PROPAGATION_POLICIES,
        describe: 'Deletion propagation for the objects (default: foreground; background with --cascade background)',
      })
      // No defaults for --dry-run and --yes: yargs would count a default false as given for their conflict.
      .option('dry-run', { type: 'boolean', describe: 'List what would be deleted and kept, and the hooks that would run; change nothing' })
      .option('yes', { alias: 'y', type: 'boolean', describe: 'Do not ask (needed when standard input is not a terminal)' })
      .option('confirm-delete', {
        type: 'boolean',
        default: false,
        describe:
          "Approve the objects annotated Delete=confirm (as Argo CD's deletion-approved annotation); without it such a deletion deletes nothing and exits 3",
      })
      .option('timeout', { type: 'string', default: '5m', describe: 'How long the hooks and the waves may take in all' })
      .option('recursive', {
        type: 'boolean',
        describe: 'App-of-apps: also list what deleting each child Application deletes, to any depth (as its own finalizers will)',
      })
      .conflicts({ 'dry-run': ['yes'] })
      .example('kubectl gitops delete shop --dry-run', 'List what deleting shop would delete, keep and run')
      .example('kubectl gitops delete shop --yes -o kv', 'Delete it without asking; one line per object')
      .example('kubectl gitops delete shop --cascade orphan --yes', 'Remove the Application only; its objects stay'),
  why: { 'dry-run yes': 'a dry run asks nothing' },
  async run(args, ctx) {
    const timeoutMs = parseDuration(args.timeout, '--timeout');
    const dryRun = args.dryRun === true;
    // Nothing is deleted unasked: on a terminal the plan is shown and a question asked; elsewhere --yes says it.
    const ask = !dryRun && args.yes !== true;
    if (ask && (ctx.io.stdinIsTTY !== true || ctx.io.ask === undefined))
      throw new InputError('delete changes the cluster: give --yes (standard input is not a terminal to ask on), or --dry-run to list what it would delete');
    const { withAppTarget } = await import('../../workflows/session/session.js');
    const { childPlanner, deleteApp, deleteExitCode } = await import('../../workflows/delete/delete.js');
    const { finalizeThroughDelete } = await import('../../workflows/sync/execute.js');
    const { renderDelete } = await import('../../render/delete.js');
    const req = {
      ...appStateInput(args),
      ...(args.cascade ? { cascade: args.cascade } : {}),
      ...(args.propagationPolicy ? { propagationPolicy: args.propagationPolicy } : {}),
      dryRun,
      confirmDelete: args.confirmDelete === true,
      timeoutMs,
    };
    const { stopper } = await import('../../workflows/session/stopper.js');
    // Deleting: SIGINT/SIGTERM are heard once the deletion is approved (a Ctrl-C at the question ends the command, 130,
    // nothing changed; Ctrl-D answers no): the first finishes the delete in flight and starts nothing new, a second forces.
    const abort = new AbortController();
    let stop: Stopper | undefined;
    let forced: (signal: NodeJS.Signals) => void = () => undefined;
    const forcedStop = new Promise<NodeJS.Signals>((resolve) => (forced = resolve));
    const arm = () => {
      stop = stopper({ say: (l) => ctx.io.err(`${l}\n`) }, 'delete');
      stop.signal.addEventListener('abort', () => abort.abort(), { once: true });
      void stop.forced.then(forced);
    };
    if (!dryRun && !ask) arm();
    try {
      return await withAppTarget(ctx, 'delete', req, async (session) => {
        // What is going on: a line that updates itself on a terminal, lines with -v, nothing in a pipe.
        const line = progressLine(ctx);
        const progress = line ? line.update : ctx.opts.verbose ? (text: string) => ctx.io.err(`${text}\n`) : undefined;
        const running = deleteApp(req, {
          io: ctx.io,
          opts: ctx.opts,
          ...session,
          ...(progress ? { progress } : {}),
          // The approval keeps every flag given (--app-namespace, --context, -f …): it must name this app on this cluster.
          approveCommand: `${commandLineWithout(ctx.argv ?? [], [...booleanFlagForms('confirm-delete'), ...booleanFlagForms('dry-run')])} --confirm-delete`,
          // A child Application deleted with Argo CD's finalizers is finished as delete would finish it (app-of-apps).
          finalizeApp: finalizeThroughDelete(ctx, timeoutMs, req.argocdNamespace),
          ...(args.recursive === true
            ? {
                childPlan: childPlanner(
                  ctx,
                  timeoutMs,
                  new Set(session.appRef ? [`${session.appRef.namespace}/${session.appRef.name}`] : []),
                  req.argocdNamespace,
                ),
              }
            : {}),
          ...(ask
            ? {
                approve: async (plan) => {
                  ctx.io.err(renderDelete(plan, 'table', ctx.paint));
                  const answer = await ctx.io.ask!(`Delete Application ${plan.app} and the objects listed? [y/N] `);
                  const yes = /^y(es)?$/i.test(answer.trim());
                  if (yes) arm();
                  return yes;
                },
              }
            : {}),
          signal: abort.signal,
        }).finally(() => line?.clear());
        return emitStoppable(
          ctx,
          'delete',
          running,
          { forced: forcedStop, received: () => stop?.received() },
          {
            render: (r) => renderDelete(r, ctx.opts.output, ctx.paint),
            code: deleteExitCode,
            afterForced: 'a delete may have been in flight (run delete again to finish)',
          },
        );
      });
    } finally {
      stop?.dispose();
    }
  },
});
