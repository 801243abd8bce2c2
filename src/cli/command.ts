// The shape of one command module: its yargs definition and one run function.
import type { Argv } from 'yargs';
import type { CommandContext } from './context.js';
import type { ExitCode } from './exit-codes.js';

export interface GitopsCommand {
  command: string | string[];
  describe: string;
  builder: (y: Argv) => Argv;
  /** Runs the command with parsed arguments; returns the exit code. Throws ExitErrors. */
  run: (args: Record<string, unknown>, ctx: CommandContext) => Promise<ExitCode>;
}
