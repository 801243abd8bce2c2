// `kubectl gitops dashboard`: a read-only web page on loopback with the app list and each app's live map, kept live.
import { defineCommand } from '../command.js';
import { clusterOptions } from '../options.js';
import { ExitCode, InputError } from '../../model/errors.js';
import { parseDuration } from '../../model/duration.js';

export const dashboardCommand = defineCommand({
  // The APP names are read from `_`: a variadic positional would keep only the last name, since repeated
  // arguments are not made arrays (the last flag wins, as in kubectl); unknown flags are still refused.
  command: 'dashboard',
  describe: "Serve a read-only web dashboard on loopback: the Applications with sync and health, each app's live map and who owns each drifted field, live",
  allNamespaces: true,
  outputs: ['table'],
  builder: (y) =>
    clusterOptions(y)
      .usage('kubectl gitops dashboard [APP...] [flags]\n\nOnly the Applications named (in --app-namespace), else all of them (-A: in every namespace).')
      .strict(false)
      .strictOptions(true)
      .option('port', { type: 'number', default: 0, describe: 'Port to listen on (0: a free one)' })
      .option('address', {
        type: 'string',
        default: '127.0.0.1',
        requiresArg: true,
        describe: 'Address to listen on; anything but loopback is reachable from other machines (a warning is printed)',
      })
      .option('open', { type: 'boolean', default: false, describe: 'Open the page in the default browser (xdg-open / open)' })
      .option('interval', {
        type: 'string',
        default: '1m',
        requiresArg: true,
        describe: 'Compare every app again this often (new commits in its source); changes in the cluster show at once',
      })
      .example('kubectl gitops dashboard', 'Every Application in argocd, on a free loopback port')
      .example('kubectl gitops dashboard shop --port 8080 --open', 'One app, a fixed port, opened in the browser'),
  async run(args, ctx) {
    const port = args.port;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InputError(`--port must be a whole number from 0 to 65535, not ${String(args.port)}`);
    const address = args.address;
    const intervalMs = parseDuration(args.interval, '--interval');
    if (intervalMs < 5_000) throw new InputError('--interval must be at least 5s');
    const apps = args._.slice(1)
      .map(String)
      .filter((a) => a !== '');
    if (apps.length > 0 && args.allNamespaces === true) throw new InputError('-A/--all-namespaces shows every Application: it does not go with named apps');
    const { randomBytes } = await import('node:crypto');
    const { isLoopbackAddress } = await import('../../dashboard/guard.js');
    const { startDashboardServer } = await import('../../dashboard/server.js');
    const { viewSource } = await import('../../dashboard/source.js');
    const { DashboardWorkflow } = await import('../../workflows/dashboard.js');
    // Handlers first: a stop asked for as soon as the URL is out (or during start-up) must find them in place.
    const stopped = new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    const workflow = new DashboardWorkflow(ctx, { apps, allNamespaces: args.allNamespaces === true, intervalMs }, (line) => ctx.io.err(line));
    // Ctrl-C while the Applications are still being listed stops at once.
    let stopping = false;
    void stopped.then(() => (stopping = true));
    await Promise.race([workflow.start(), stopped]);
    if (stopping) {
      await workflow.close();
      return ExitCode.Ok;
    }
    const token = randomBytes(24).toString('hex');
    let server;
    try {
      server = await startDashboardServer({ source: viewSource(workflow), address, port, token });
    } catch (err) {
      await workflow.close();
      throw new InputError(`cannot listen on ${address}:${port}: ${(err as Error).message}`);
    }
    if (!isLoopbackAddress(address)) {
      ctx.io.err(
        `warning: listening on ${address}, not loopback: other machines can reach this dashboard; anyone with the URL (its token) can read every shown app's objects\n`,
      );
    }
    ctx.io.out(`Dashboard: ${server.url}\n`);
    ctx.io.err('Read-only; Ctrl-C stops it.\n');
    if (args.open === true) {
      const { spawn } = await import('node:child_process');
      const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
      const child = spawn(opener, [server.url], { stdio: 'ignore', detached: true });
      child.on('error', (err) => ctx.io.err(`warning: cannot open a browser (${opener}): ${err.message}; open the URL above\n`));
      child.unref();
    }
    await stopped;
    await server.close();
    await workflow.close();
    return ExitCode.Ok;
  },
});
