// `kubectl gitops status`: sync status and health as two axes, with the reason.
import { emit, warn } from '../emit.js';
import { defineCommand } from '../command.js';
import { OUTPUT_FORMATS, appSourceOptions, recordOption } from '../options.js';
import { appStateInput, recording } from '../inputs.js';
import { ExitCode, InputError, RefusedError } from '../../model/errors.js';
import { parseDuration } from '../../model/duration.js';
import type { StatusReport } from '../../health/report.js';
import type { StatusResult } from '../../workflows/status/status.js';
import type { WaitVerdict } from '../../workflows/status/wait.js';

const POLL_INTERVAL_MS = 2000;

/** The flags that make status wait (or shape the wait): none goes with -A, -l or --recursive. */
const WAIT_FLAGS = ['wait', 'sync', 'health', 'operation', 'suspended', 'degraded', 'resource'];

function summary(r: StatusReport, reason: string): string {
  return `sync ${r.sync.status}, health ${r.health.status}${reason ? `: ${reason}` : ''}`;
}

export const statusCommand = defineCommand({
  command: 'status [app] [more..]',
  describe: 'Show sync status and health per resource and for the app, with the most specific reason (-A: every Application, as list)',
  allNamespaces: true,
  outputs: [...OUTPUT_FORMATS, 'dot', 'svg'],
  builder: (y) =>
    recordOption(appSourceOptions(y))
      .positional('more', { type: 'string', array: true, describe: 'More Applications by name: each reported, one summary, the highest exit code' })
      // --tree and --wait have no default: yargs would count a default false as given, and -A/-l refuse them.
      .option('tree', { type: 'boolean', describe: 'Draw the live resource tree with health' })
      .option('wait', {
        type: 'boolean',
        describe: 'Wait until Synced, Healthy and no operation running, as argocd app wait (exit 1 with what is not met at the timeout)',
      })
      .option('sync', { type: 'boolean', describe: 'Wait for Synced (implies --wait; with other modes, all of them)' })
      .option('health', { type: 'boolean', describe: 'Wait for Healthy (implies --wait; with --suspended: Healthy or Suspended)' })
      .option('operation', {
        type: 'boolean',
        describe: "Wait until the Application's operation is no longer requested or running (implies --wait)",
      })
      .option('suspended', { type: 'boolean', describe: 'Wait for Suspended (implies --wait; with --health: Healthy or Suspended)' })
      .option('degraded', {
        type: 'boolean',
        describe: 'Fail fast: exit 3 with the reason as soon as the app (or a --resource) is Degraded (implies --wait)',
      })
      .option('resource', {
        type: 'string',
        array: true,
        nargs: 1,
        requiresArg: true,
        describe: 'With --wait or a mode: wait on this resource only, [!]GROUP:KIND:[NAMESPACE/]NAME (repeatable; the core group is empty)',
      })
      .option('recursive', {
        type: 'boolean',
        describe: 'App-of-apps: also compare each child Application the app declares (to any depth), one row each',
      })
      .option('timeout', { type: 'string', default: '5m', describe: 'With --wait (or a mode): give up after this long' })
      .option('selector', {
        alias: 'l',
        type: 'string',
        requiresArg: true,
        describe: 'Every Application in --app-namespace (-A: every namespace) whose labels match, one row each, as list',
      })
      .conflicts({
        'all-namespaces': ['app', 'app-file', 'tree', 'recursive', ...WAIT_FLAGS],
        selector: ['app', 'app-file', 'tree', 'recursive', ...WAIT_FLAGS],
        recursive: WAIT_FLAGS,
      })
      .example('kubectl gitops status shop -o kv', 'SYNC=, HEALTH=, REASON=, PRUNE=, ALLOW_EMPTY= lines')
      .example('kubectl gitops status shop --wait --timeout 2m', 'Block until Synced, Healthy and no operation running (for CI)')
      .example('kubectl gitops status shop --health --degraded', 'Wait for Healthy; exit 3 at once if it turns Degraded')
      .example('kubectl gitops status shop --wait --resource apps:Deployment:web', 'Wait on one resource only')
      .example('kubectl gitops status -A -l team=shop -o kv', 'Every labelled Application of every namespace, one line each')
      .example('kubectl gitops status shop --tree -o svg > shop.svg', 'The live map as an SVG picture (-o dot: Graphviz text)'),
  why: {
    ...Object.fromEntries(
      ['all-namespaces', 'selector'].flatMap((flag) =>
        ['app', 'app-file', 'tree', 'recursive', ...WAIT_FLAGS].map((other) => [`${flag} ${other}`, 'it lists Applications, one row each, as list does']),
      ),
    ),
    ...Object.fromEntries(WAIT_FLAGS.map((flag) => [`recursive ${flag}`, 'the wait is for the app itself; sync --recursive waits for each wave of children'])),
  },
  async run(args, ctx): Promise<ExitCode> {
    const { appNames, forEachApp } = await import('../several.js');
    const names = appNames(args.app, args.more);
    if (names.length > 1) {
      if (args.appFile !== undefined) throw new InputError('several Applications are named: -f/--app-file reads one Application file');
      if (args.allNamespaces === true || args.selector !== undefined) throw new InputError('name Applications, or list them with -A/-l, not both');
      if (ctx.opts.output === 'dot' || ctx.opts.output === 'svg') throw new InputError(`-o ${ctx.opts.output} draws one app's live map: name one Application`);
      return forEachApp(ctx, 'status', names, (name, c): Promise<ExitCode> => statusCommand.run({ ...args, app: name, more: [] }, c));
    }
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
          await runList(ctx, {
            allNamespaces: args.allNamespaces === true,
            ...(selector !== undefined ? { selector } : {}),
            argocdNamespace: args.argocdNamespace,
          }),
          ctx.opts.output,
          ctx.paint,
        ),
      );
      return ExitCode.Ok;
    }
    const timeoutMs = parseDuration(args.timeout, '--timeout');
    const { waitSpec, waitVerdict, waitConditions, describeUnmet, resourceName } = await import('../../workflows/status/wait.js');
    const modes = args.sync === true || args.health === true || args.operation === true || args.suspended === true || args.degraded === true;
    const waiting = args.wait === true || modes;
    const resources = args.resource ?? [];
    if (!waiting && resources.length > 0)
      throw new InputError('--resource narrows the wait: give it with --wait or a mode (--sync, --health, --operation, --suspended, --degraded)');
    // Parsed before anything is read: a malformed --resource is exit 2 at once.
    const spec = waitSpec({
      sync: args.sync === true,
      health: args.health === true,
      operation: args.operation === true,
      suspended: args.suspended === true,
      degraded: args.degraded === true,
      resource: resources,
    });
    const { withAppTarget } = await import('../../workflows/session/session.js');
    const { realClock, runStatus, waitForConverged } = await import('../../workflows/status/status.js');
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
      if (!waiting) {
        const result = await produce();
        await record(result);
        if (args.recursive === true) {
          const { childAppsOf, statusChildren } = await import('../../workflows/status/children.js');
          const { name, namespace } = result.report.app;
          result.report.children = await statusChildren(ctx, { namespace, name }, childAppsOf(result.report), reasonText, {
            tree: args.tree === true,
            argocdNamespace: args.argocdNamespace,
          });
        }
        // A source that does not render is printed (the live objects, their health, the reason) and then exit 2 (4 when
        // this tool refuses to render it, as diff), as argocd app get shows its ComparisonError.
        return emit(ctx, {
          warnings: result.warnings,
          report: render(result.report),
          code: result.comparisonError === 'input' ? ExitCode.Input : result.comparisonError === 'refused' ? ExitCode.Refused : ExitCode.Ok,
        });
      }
      // What is not met yet, in words: the app's sync and health as before (with its reason), then the rest.
      const notMet = (r: StatusResult, verdict: WaitVerdict): string => {
        const unmet = verdict.outcome === 'waiting' ? verdict.unmet : [];
        const rest = unmet.filter((u) => u.resource !== undefined || u.condition === 'operation').map((u) => describeUnmet(u));
        const app = spec.resources.length > 0 ? [] : [summary(r.report, reasonText(r.report))];
        return [...app, ...rest].join('; ');
      };
      let last = '';
      const result = await waitForConverged(
        async () => {
          const r = await produce();
          // A source that cannot be rendered never converges: say so at once instead of at the timeout.
          if (r.report.sync.reason !== undefined)
            throw r.comparisonError === 'input'
              ? new InputError(`status --wait: ${r.report.sync.reason}`)
              : new RefusedError(`status --wait: ${r.report.sync.reason}`);
          return r;
        },
        {
          timeoutMs,
          intervalMs: POLL_INTERVAL_MS,
          clock: realClock,
          decide: (r) => waitVerdict(r, spec),
          onPoll: (r, verdict) => {
            const line = notMet(r, verdict);
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
      const { verdict } = result;
      if (verdict.outcome === 'unmatched') throw new InputError(`--resource ${verdict.filters.join(', --resource ')} names no resource of the Application`);
      await record(result);
      if (ctx.opts.verbose) ctx.io.err(`status: ${result.polls} polls in ${result.waitedMs} ms\n`);
      const code = verdict.outcome === 'met' ? ExitCode.Ok : verdict.outcome === 'degraded' ? ExitCode.Cluster : ExitCode.Drift;
      emit(ctx, { warnings: result.warnings, report: render(result.report), code });
      if (verdict.outcome === 'met') return ExitCode.Ok;
      if (verdict.outcome === 'degraded') {
        const what = verdict.resource
          ? `${resourceName(verdict.resource)} is Degraded${verdict.message ? `: ${verdict.message}` : ''}`
          : `the app is Degraded${reasonText(result.report) ? `: ${reasonText(result.report)}` : ''}`;
        ctx.io.err(`error: status --degraded: ${what}\n`);
        return ExitCode.Cluster;
      }
      const unmet = verdict.outcome === 'waiting' ? verdict.unmet : [];
      const reason = reasonText(result.report);
      ctx.io.err(`error: timed out after ${args.timeout} waiting for ${waitConditions(spec)}: ${unmet.map((u) => describeUnmet(u, reason)).join('; ')}\n`);
      return ExitCode.Drift;
    });
  },
});
