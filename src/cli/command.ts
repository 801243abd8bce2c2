// The shape of one command module: its yargs definition and one run function, typed by what the definition declares.
import type { Arguments, ArgumentsCamelCase, Argv } from 'yargs';
import type { CommandContext } from './context.js';
import type { ExitCode } from '../model/errors.js';
import type { OutputFormat } from '../render/colour.js';
import type { GlobalArgs } from './options.js';

/** What app.ts needs of any command besides its builder and its run function. */
interface CommandInfo {
  command: string | string[];
  describe: string;
  /** The output modes it can produce, its default first (default: table, json, yaml, kv, env); any other is a usage error. */
  outputs?: readonly OutputFormat[];
  /** Takes -A/--all-namespaces (for the other commands it is an error: they act on one Application). */
  allNamespaces?: boolean;
  /**
   * Why two flags the builder declares `conflicts` (or `implies`) go together or not, keyed `flag other` (yargs keys, as
   * the builder names them): said after yargs' refusal, which only names them.
   */
  why?: Readonly<Record<string, string>>;
}

/**
 * A command as its module writes it: `builder` returns the typed Argv (yargs infers `A` from its options and
 * positionals), and `run` receives exactly those arguments, camel-cased.
 */
export interface TypedCommand<A> extends CommandInfo {
  builder: (y: Argv<GlobalArgs>) => Argv<A>;
  /** Runs the command with parsed arguments; returns the exit code. Throws ExitErrors. */
  run: (args: ArgumentsCamelCase<A>, ctx: CommandContext) => Promise<ExitCode>;
}

/** The arguments a builder declares, as a command's run function (or a helper of it) receives them. */
export type ArgsOf<B> = B extends (y: Argv<GlobalArgs>) => Argv<infer A> ? ArgumentsCamelCase<A> : never;

/** A command as app.ts registers it, its argument type no longer known (see defineCommand). */
export interface GitopsCommand extends CommandInfo {
  builder: (y: Argv<GlobalArgs>) => Argv<object>;
  run: (args: Arguments, ctx: CommandContext) => Promise<ExitCode>;
}

/**
 * A typed command, for the list of all commands. The one place the argument type is forgotten: yargs calls `run` with
 * what this command's own builder declared, so `run` gets the arguments its type says.
 */
export function defineCommand<A>(command: TypedCommand<A>): GitopsCommand {
  return command as unknown as GitopsCommand;
}
