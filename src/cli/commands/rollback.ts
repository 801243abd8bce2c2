// `kubectl gitops rollback`: deploy what a history entry deployed, as argocd app rollback.
import { defineCommand } from '../command.js';
import { clusterOptions, recordOption } from '../options.js';
import { InputError, type ExitCode } from '../../model/errors.js';
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
        describe: 'Take back the fields other managers own, as Argo CD (HEALED=). --no-force-conflicts: when the dry-run predicts conflicts, write nothing, exit 3 and name the command that goes on',
      })
      .option('timeout', { type: 'string', default: '5m', describe: 'How long a sync with waves or hooks may wait for health and hooks in all' })
      .option('argocd-namespace', { type: 'string', requiresArg: true, default: CONTROL_PLANE_NAMESPACE, describe: "Argo CD's control-plane namespace: its AppProjects and argocd-cm are read there" })
      .option('repo-dir', { type: 'string', requiresArg: true, describe: 'A local clone to read a remote repoURL from' })
      .example('kubectl gitops rollback shop', 'Return to the deployment before the newest')
      .example('kubectl gitops rollback shop 3 --dry-run', 'Show what returning to history ID 3 would do'),
  async run(args, ctx) {
    const name = args.app !== undefined && args.app !== '' ? args.app : undefined;
    if (!name) throw new InputError('name an Application (APP): rollback reads its history from the cluster');
    const id = args.id;
    if (id !== undefined && (!Number.isInteger(id) || id < 0)) throw new InputError(`a history ID is a whole number, got ${String(args.id)}`);
    const timeoutMs = parseDuration(args.timeout, '--timeout');
    const { withAppTarget } = await import('../../workflows/session/session.js');
    const { rollbackTargetOf, syncRollback } = await import('../../workflows/history/rollback.js');
    const { syncExitCode } = await import('../../workflows/sync/sync.js');
    const { runStatus } = await import('../../workflows/status/status.js');
    const { recordingErrors, recordNotice, recordSessionError, recordSync } = await import('../../workflows/session/record.js');
    const { renderSync } = await import('../../render/sync.js');
    const base = appStateInput(args);
    const dryRun = args.dryRun === true;
    const warn = (line: string) => ctx.io.err(`warning: ${line}\n`);
    const failure = { startedAtMs: Date.now(), record: args.record !== false, dryRun, prune: args.prune === true };
    let inSession = false;
    return withAppTarget(ctx, 'rollback', base, async (session) => {
      inSession = true;
      const deps = { io: ctx.io, opts: ctx.opts, ...session };
      const started = Date.now();
      // Argo CD's rollback syncs with the apply strategy: the resources only, no hooks.
      const req = { ...base, dryRun, prune: args.prune === true, forceConflicts: args.forceConflicts !== false, timeoutMs, skipHooks: true };
      // Refusals (auto-sync on, no such entry) come before an operation exists: nothing is recorded for them, as in Argo CD.
      const target = await rollbackTargetOf(deps, session.appRef ?? { namespace: ctx.opts.appNamespace, name }, id);
      const report = await recordingErrors(session, { ...failure, startedAtMs: started, syncedSource: target.synced }, () => syncRollback(req, target, deps, { notify: (line) => ctx.io.err(`retry: ${line}\n`) }), warn);
      if (cautiousStop(report)) report.nextCommand = commandLineWithout(ctx.argv ?? [], NO_FORCE);
      const revision = target.entry.revision ?? target.entry.revisions?.join(',') ?? '-';
      ctx.io.err(`${rollbackClosing(report, syncExitCode(report), `Application ${ctx.opts.appNamespace}/${name} to history ID ${target.entry.id} (revision ${revision})`)}\n`);
      // The comparison recorded afterwards is against the Application's own source, as Argo CD's next refresh is.
      const recorded = await recordSync(session, { report, startedAtMs: started, partial: false, record: args.record !== false, syncedSource: target.synced }, async () => runStatus(base, deps));
      for (const w of report.warnings) warn(w);
      const notice = recordNotice(recorded);
      if (notice !== undefined) warn(notice);
      ctx.io.out(renderSync(report, ctx.opts.output, ctx.paint));
      return syncExitCode(report) as ExitCode;
    }).catch(async (err: unknown) => {
      if (!inSession) await recordSessionError(ctx, name, err, failure, warn);
      throw err;
    });
  },
});
