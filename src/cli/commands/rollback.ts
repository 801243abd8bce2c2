// `kubectl gitops rollback`: deploy what a history entry deployed, as argocd app rollback.
import { defineCommand } from '../command.js';
import { clusterOptions, recordOption } from '../options.js';
import { InputError } from '../../model/errors.js';
import { emit } from '../emit.js';
import { parseDuration } from '../../model/duration.js';
import { appStateInput } from '../inputs.js';
import { CONTROL_PLANE_NAMESPACE } from '../../model/keys.js';
import type { SyncReport } from '../../workflows/sync/execute.js';
import { commandLineWithout } from '../argv.js';
import { cautiousStop, NO_FORCE } from '../inputs.js';

/** rollback's closing line (stderr): what happened, never more than did. */
function rollbackClosing(r: SyncReport, code: number, what: string): string {
  if (r.dryRun) return `would roll back ${what}`;
  if (code === 0) return `rolled back ${what}`;
  if (r.refused) return `rollback of ${what} refused: nothing was changed (${r.refused})`;
  if (r.stoppedBeforeWriting !== undefined) return `rollback of ${what} failed: nothing was changed (${r.stoppedBeforeWriting})`;
  return `rollback of ${what} is incomplete: ${r.applied} object(s) applied, ${r.failures.length} failure(s)${r.interrupted ? `, ${r.interrupted.message}` : ''}`;
}

export const rollbackCommand = defineCommand({
  command: 'rollback [app] [id]',
  describe: 'Sync the source and revision a history entry recorded (default: the one before the newest), as argocd app rollback',
  builder: (y) =>
    recordOption(
      clusterOptions(
        y
          .positional('app', { type: 'string', describe: 'Name of the Argo CD Application (in --app-namespace)' })
          .positional('id', { type: 'number', describe: 'The history ID to return to (see kubectl gitops history)' }),
      ),
    )
      .option('dry-run', { type: 'boolean', default: false, describe: 'Print the plan of the rollback and change nothing' })
      .option('prune', { type: 'boolean', default: false, describe: 'Prune what the entry does not declare' })
      .option('force-conflicts', {
        type: 'boolean',
        default: true,
        describe:
          'Take back the fields other managers own, as Argo CD (HEALED=). --no-force-conflicts: when the dry-run predicts conflicts, write nothing, exit 3 and name the command that goes on',
      })
      .option('timeout', {
        type: 'string',
        default: '5m',
        describe: 'How long a sync may wait in all: for health and hooks (waves or hooks), and for pruned objects to be gone',
      })
      .option('argocd-namespace', {
        type: 'string',
        requiresArg: true,
        default: CONTROL_PLANE_NAMESPACE,
        describe: "Argo CD's control-plane namespace: its AppProjects and argocd-cm are read there",
      })
      .option('repo-dir', { type: 'string', requiresArg: true, describe: 'A local clone to read a remote repoURL from' })
      .example('kubectl gitops rollback shop', 'Return to the deployment before the newest')
      .example('kubectl gitops rollback shop 3 --dry-run', 'Show what returning to history ID 3 would do'),
  async run(args, ctx) {
    const name = args.app !== undefined && args.app !== '' ? args.app : undefined;
    if (!name) throw new InputError('name an Application (APP): rollback reads its history from the cluster');
    const id = args.id;
    if (id !== undefined && (!Number.isInteger(id) || id < 0)) throw new InputError(`a history ID is a whole number, got ${String(args.id)}`);
    const timeoutMs = parseDuration(args.timeout, '--timeout');
    const { runOperation, stoppedLine } = await import('../../workflows/sync/operation.js');
    const { renderSync } = await import('../../render/sync.js');
    const { syncExitCode } = await import('../../workflows/sync/sync.js');
    const request = {
      ...appStateInput(args),
      dryRun: args.dryRun === true,
      prune: args.prune === true,
      forceConflicts: args.forceConflicts !== false,
      timeoutMs,
    };
    const result = await runOperation(
      ctx,
      { kind: 'rollback', request, name, ...(id !== undefined ? { id } : {}), record: args.record !== false },
      { say: (line) => ctx.io.err(`${line}\n`) },
    );
    const { report, rollback } = result;
    if (report && cautiousStop(report)) report.nextCommand = commandLineWithout(ctx.argv ?? [], NO_FORCE);
    const what = `Application ${ctx.opts.appNamespace}/${name} to history ID ${rollback?.id ?? id ?? '-'} (revision ${rollback?.revision ?? '-'})`;
    const notes = [
      report ? rollbackClosing(report, syncExitCode(report), what) : `rollback of ${what} did not finish`,
      ...(result.stopped ? [stoppedLine('rollback', result.stopped)] : []),
    ];
    return emit(ctx, {
      notes,
      warnings: result.warnings,
      ...(report ? { report: renderSync(report, ctx.opts.output, ctx.paint) } : {}),
      code: result.exitCode,
    });
  },
});
