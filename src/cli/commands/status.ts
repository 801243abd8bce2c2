// `kubectl gitops status`: sync status and health as two axes, with the reason.
import { emit, warn } from '../emit.js';
import { defineCommand } from '../command.js';
import { OUTPUT_FORMATS, appSourceOptions, recordOption } from '../options.js';
import { appStateInput, recording } from '../inputs.js';
import { ExitCode, InputError, RefusedError } from '../../model/errors.js';
import { parseDuration } from '../../model/duration.js';
import type { StatusReport } from '../../health/report.js';
import type { StatusResult } from '../../workflows/status/status.js';

const POLL_INTERVAL_MS = 2000;

function summary(r: StatusReport, reason: string): string {
  return `sync ${r.sync.status}, health ${r.health.status}${reason ? `: ${reason}` : ''}`;
}

export const statusCommand = defineCommand({
  command: 'status [app]',
  describe: 'Show sync status and health per resource and for the app, with the most specific reason (-A: every Application, as list)',
  allNamespaces: true,
  outputs: [...OUTPUT_FORMATS, 'dot', 'svg'],
  builder: (y) =>
    recordOption(appSourceOptions(y))
      // --tree and --wait have no default: yargs would count a default false as given, and -A/-l refuse them.
      .option('tree', { type: 'boolean', describe: 'Draw the live resource tree with health' })
      .option('wait', { type: 'boolean', describe: 'Wait until Synced and Healthy (exit 1 with the reason at the timeout)' })
      .option('recursive', {
        type: 'boolean',
        describe: 'App-of-apps: also compare each child Application the app declares (to any depth), one row each',
      })
      .option('timeout', { type: 'string', default: '5m', describe: 'With --wait: give up after this long' })
      .option('selector', {
        alias: 'l',
        type: 'string',
        requiresArg: true,
        describe: 'Every Application in --app-namespace (-A: every namespace) whose labels match, one row each, as list',
      })
      .conflicts({
        'all-namespaces': ['app', 'app-file', 'wait', 'tree', 'recursive'],
        selector: ['app', 'app-file', 'wait', 'tree', 'recursive'],
        recursive: ['wait'],
      })
      .example('kubectl gitops status shop -o kv', 'SYNC=, HEALTH=, REASON=, PRUNE=, ALLOW_EMPTY= lines')
      .example('kubectl gitops status shop --wait --timeout 2m', 'Block until Synced and Healthy (for CI)')
      .example('kubectl gitops status -A -l team=shop -o kv', 'Every labelled Application of every namespace, one line each')
      .example('kubectl gitops status shop --tree -o svg > shop.svg', 'The live map as an SVG picture (-o dot: Graphviz text)'),
  why: {
    ...Object.fromEntries(
      ['all-namespaces', 'selector'].flatMap((flag) =>
        ['app', 'app-file', 'wait', 'tree', 'recursive'].map((other) => [`${flag} ${other}`, 'it lists Applications, one row each, as list does']),
      ),
    ),
    'recursive wait': 'the wait is for the app itself; sync --recursive waits for each wave of children',
  },
  async run(args, ctx) {
    const selector = args.selector;
    if (args.allNamespaces === true || selector !== undefined) {
      // Every Application (of every namespace with -A, by label with -l), one row each: the list command's report.
      // yargs has refused APP, -f, --wait and --tree with them; -o is checked here (a value, not a flag).
      const flags = args.allNamespaces === true ? (selector !== undefined ? '-A and -l' : '-A/--all-namespaces') : '-l/--selector';
      if (ctx.opts.output === 'dot' || ctx.opts.output === 'svg')
        throw new InputError(`${flags} lists Applications: -o ${ctx.opts.output} draws one app's live map`);
      const { runList } = await import('../../workflows/list.js');
      const { renderList } = await import('../../render/list.js');
      ctx.io.out(
        renderList(
          await runList(ctx, { allNamespaces: args.allNamespaces === true, ...(selector !== undefined ? { selector } : {}) }),
          ctx.opts.output,
          ctx.paint,
        ),
      );
      return ExitCode.Ok;
    }
    const timeoutMs = parseDuration(args.timeout, '--timeout');
    const { withAppTarget } = await import('../../workflows/session/session.js');
    const { isConverged, realClock, runStatus, waitForConverged } = await import('../../workflows/status/status.js');
    const { reasonText, renderStatus } = await import('../../render/status.js');
    const { renderStatusGraph } = await import('../../render/status-graph.js');
    const { recordNotice, recordStatus } = await import('../../workflows/session/record.js');
    return withAppTarget(ctx, 'status', appStateInput(args), async (session) => {
      const deps = { io: ctx.io, opts: ctx.opts, ...session };
      const produce = () => runStatus(appStateInput(args), deps);
      const render = (r: StatusReport) =>
        renderStatusGraph(r, ctx.opts.output) ?? renderStatus(r, { output: ctx.opts.output, tree: args.tree === true, paint: ctx.paint });
      const record = async (r: StatusResult) => {
        const recorded = await recordStatus(session, { ...(r.compared ? { compared: r.compared } : {}), warnings: r.warnings, record: recording(args) });
        const notice = recordNotice(recorded);
        if (notice !== undefined) warn(ctx, notice);
        else if (recorded && ctx.opts.verbose)
          ctx.io.err(
            `status: recorded in the Application's status (${recorded.attempts} write${recorded.attempts === 1 ? '' : 's'}: ${recorded.attempts - 1} resourceVersion conflict(s) read again)\n`,
          );
      };
      if (args.wait !== true) {
        const result = await produce();
        await record(result);
        if (args.recursive === true) {
          const { childAppsOf, statusChildren } = await import('../../workflows/status/children.js');
          const { name, namespace } = result.report.app;
          result.report.children = await statusChildren(ctx, { namespace, name }, childAppsOf(result.report), reasonText);
        }
        return emit(ctx, { warnings: result.warnings, report: render(result.report), code: ExitCode.Ok });
      }
      let last = '';
      const result = await waitForConverged(
        async () => {
          const r = await produce();
          // A source that cannot be rendered never converges: say so at once instead of at the timeout.
          if (r.report.sync.reason !== undefined) throw new RefusedError(`status --wait: ${r.report.sync.reason}`);
          return r;
        },
        {
          timeoutMs,
          intervalMs: POLL_INTERVAL_MS,
          clock: realClock,
          onPoll: (r) => {
            const line = summary(r.report, reasonText(r.report));
            if (line !== last) ctx.io.err(`waiting: ${line}\n`);
            last = line;
          },
          onError: (err) => {
            const line = `cluster error, retrying: ${err.message}`;
            if (line !== last) ctx.io.err(`waiting: ${line}\n`);
            last = line;
          },
        },
      );
      await record(result);
      if (ctx.opts.verbose) ctx.io.err(`status: ${result.polls} polls in ${result.waitedMs} ms\n`);
      const converged = isConverged(result.report);
      emit(ctx, { warnings: result.warnings, report: render(result.report), code: converged ? ExitCode.Ok : ExitCode.Drift });
      if (converged) return ExitCode.Ok;
      ctx.io.err(`error: timed out after ${args.timeout} waiting for Synced and Healthy: ${summary(result.report, reasonText(result.report))}\n`);
      return ExitCode.Drift;
    });
  },
});
