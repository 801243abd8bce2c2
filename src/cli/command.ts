// The shape of one command module: its yargs definition and one run function.
import type { Argv } from 'yargs';
import type { CommandContext } from './context.js';
import type { ExitCode } from './exit-codes.js';
import type { OutputFormat } from '../render/colour.js';

export interface GitopsCommand {
  command: string | string[];
  describe: string;
  builder: (y: Argv) => Argv;
  /** The output modes it can produce, its default first (default: table, json, yaml, kv, env); any other is a usage error. */
  outputs?: readonly OutputFormat[];
  /** Takes -A/--all-namespaces (for the other commands it is an error: they act on one Application). */
  allNamespaces?: boolean;
  /** Runs the command with parsed arguments; returns the exit code. Throws ExitErrors. */
  run: (args: Record<string, unknown>, ctx: CommandContext) => Promise<ExitCode>;
}
