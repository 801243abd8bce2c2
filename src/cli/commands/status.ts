// `kubectl gitops status`: sync status and health as two axes, with the reason.
import type { GitopsCommand } from '../command.js';
import { appSourceOptions } from '../options.js';
import { ExitCode } from '../exit-codes.js';
import { parseDuration } from '../duration.js';
import { appStateArgs } from '../../workflows/app-state.js';
import { isConverged, realClock, runStatus, waitForConverged } from '../../workflows/status.js';
import { reasonText, renderStatus } from '../../render/status.js';
import type { StatusReport } from '../../health/report.js';

const POLL_INTERVAL_MS = 2000;

function summary(r: StatusReport): string {
  const reason = reasonText(r);
  return `sync ${r.sync.status}, health ${r.health.status}${reason ? `: ${reason}` : ''}`;
}

export const statusCommand: GitopsCommand = {
  command: 'status [app]',
  describe: 'Show sync status and health per resource and for the app, with the most specific reason',
  builder: (y) =>
    appSourceOptions(y)
      .option('tree', { type: 'boolean', default: false, describe: 'Draw the live resource tree with health' })
      .option('wait', { type: 'boolean', default: false, describe: 'Wait until Synced and Healthy (exit 1 with the reason at the timeout)' })
      .option('timeout', { type: 'string', default: '5m', describe: 'With --wait: give up after this long' })
      .example('kubectl gitops status shop -o kv', 'SYNC=, HEALTH=, REASON=, PRUNE=, ALLOW_EMPTY= lines')
      .example('kubectl gitops status shop --wait --timeout 2m', 'Block until Synced and Healthy (for CI)'),
  async run(args, ctx) {
    const timeoutMs = parseDuration(typeof args.timeout === 'string' ? args.timeout : '5m', '--timeout');
    const { connectGateway } = await import('../../kube/connect.js');
    const gateway = await connectGateway(ctx.opts, ctx.io.env);
    try {
      const deps = { io: ctx.io, opts: ctx.opts, gateway };
      const produce = () => runStatus(appStateArgs(args), deps);
      const render = (r: StatusReport) => renderStatus(r, { output: ctx.opts.output, tree: args.tree === true, paint: ctx.paint });
      if (args.wait !== true) {
        const started = Date.now();
        const result = await produce();
        for (const w of result.warnings) ctx.io.err(`warning: ${w}\n`);
        if (ctx.opts.verbose) ctx.io.err(`status: ${result.requests} API requests in ${Date.now() - started} ms\n`);
        ctx.io.out(render(result.report));
        return ExitCode.Ok;
      }
      let last = '';
      const result = await waitForConverged(produce, {
        timeoutMs,
        intervalMs: POLL_INTERVAL_MS,
        clock: realClock,
        onPoll: (r) => {
          const line = summary(r.report);
          if (line !== last) ctx.io.err(`waiting: ${line}\n`);
          last = line;
        },
      });
      for (const w of result.warnings) ctx.io.err(`warning: ${w}\n`);
      if (ctx.opts.verbose) ctx.io.err(`status: ${result.polls} polls in ${result.waitedMs} ms\n`);
      ctx.io.out(render(result.report));
      if (isConverged(result.report)) return ExitCode.Ok;
      ctx.io.err(`error: timed out after ${typeof args.timeout === 'string' ? args.timeout : '5m'} waiting for Synced and Healthy: ${summary(result.report)}\n`);
      return ExitCode.Drift;
    } finally {
      gateway.close();
    }
  },
};
