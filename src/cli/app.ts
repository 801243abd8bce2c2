// Builds the yargs program, registers every command explicitly and runs one of them.
import yargs from 'yargs';
import type { Io } from './io.js';
import type { GitopsCommand } from './command.js';
import { globalOptions, toGlobalOptions } from './options.js';
import { makeContext } from './context.js';
import { ExitCode, InputError, describeError, exitCodeFor } from './exit-codes.js';
import { diffCommand } from './commands/diff.js';
import { syncCommand } from './commands/sync.js';
import { pruneCommand } from './commands/prune.js';
import { statusCommand } from './commands/status.js';
import { normalizeCommand } from './commands/normalize.js';
import { versionCommand } from './commands/version.js';

export const COMMANDS: readonly GitopsCommand[] = [diffCommand, syncCommand, pruneCommand, statusCommand, normalizeCommand, versionCommand];

const EPILOGUE = `Exit codes: 0 success (diff: in sync), 1 drift found, 2 usage or input error,
3 cluster or API error, 4 refused by a safety rule. Nothing is changed on 2 or 4.
Put flags after the command: kubectl gitops diff -n shop (not kubectl gitops -n shop diff).`;

/** Parses argv, runs the chosen command and returns its exit code; never exits the process. */
export async function runCli(argv: string[], io: Io): Promise<ExitCode> {
  let code: ExitCode = ExitCode.Ok;
  let verbose = argv.includes('-v') || argv.includes('--verbose');
  let y = globalOptions(yargs(argv))
    .scriptName('kubectl gitops')
    .usage('kubectl gitops <command> [options]\n\nSee, explain and repair drift between Git and a Kubernetes cluster, the way Argo CD would.')
    .epilogue(EPILOGUE)
    .strict()
    .demandCommand(1, 'name a command: diff, sync, prune, status, normalize or version')
    .recommendCommands()
    .exitProcess(false)
    .version(false)
    .help('help')
    .alias('help', 'h')
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((msg, err) => {
      if (err) throw err;
      throw new InputError(msg ?? 'invalid usage');
    });
  for (const cmd of COMMANDS) {
    y = y.command({
      command: cmd.command,
      describe: cmd.describe,
      builder: (b) => cmd.builder(b),
      handler: async (args) => {
        const opts = toGlobalOptions(args);
        verbose = opts.verbose;
        code = await cmd.run(args, makeContext(io, opts));
      },
    });
  }
  try {
    await y.parseAsync();
  } catch (err) {
    io.err(describeError(err, verbose) + '\n');
    return exitCodeFor(err);
  }
  return code;
}
