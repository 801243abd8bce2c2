// Builds the yargs program, registers every command explicitly and runs one of them.
import yargs, { type Argv } from 'yargs';
import { resolve } from 'node:path';
import type { Io } from '../model/context.js';
import type { GitopsCommand } from './command.js';
import { OUTPUT_FORMATS, globalOptions, toGlobalOptions, type GlobalArgs } from './options.js';
import { SHORTHANDS, UsageError, normalizeArgv, repeatedValues } from './argv.js';
import { makeContext } from './context.js';
import { ExitCode, describeError, exitCodeFor } from '../model/errors.js';
import { didYouMean, suggestions } from '../model/suggest.js';
import { diffCommand } from './commands/diff.js';
import { syncCommand } from './commands/sync.js';
import { pruneCommand } from './commands/prune.js';
import { deleteCommand } from './commands/delete.js';
import { manifestsCommand } from './commands/manifests.js';
import { planCommand } from './commands/plan.js';
import { statusCommand } from './commands/status.js';
import { normalizeCommand } from './commands/normalize.js';
import { versionCommand } from './commands/version.js';
import { windowsCommand } from './commands/windows.js';
import { completionCommand } from './commands/completion.js';
import { appsetCommand } from './commands/appset.js';
import { historyCommand } from './commands/history.js';
import { rollbackCommand } from './commands/rollback.js';
import { listCommand } from './commands/list.js';
import { dashboardCommand } from './commands/dashboard.js';
import { complete, formatCompletion, type CommandSpec, type FlagSpec } from './completion.js';

/** The keys that stay arrays: the variadic positional (`[more..]`: several Applications by name), the repeatable flags. */
const ARRAY_KEYS = new Set([
  'more',
  'resource',
  'api-versions',
  'apiVersions',
  'as-group',
  'asGroup',
  'sync-option',
  'syncOption',
  'revisions',
  'source-positions',
  'sourcePositions',
  'source-names',
  'sourceNames',
]);

export const COMMANDS: readonly GitopsCommand[] = [
  diffCommand,
  syncCommand,
  pruneCommand,
  deleteCommand,
  statusCommand,
  manifestsCommand,
  planCommand,
  listCommand,
  dashboardCommand,
  historyCommand,
  rollbackCommand,
  windowsCommand,
  normalizeCommand,
  versionCommand,
  completionCommand,
  appsetCommand,
];

const EPILOGUE = `Exit codes: 0 success (diff: in sync), 1 drift found, 2 usage or input error,
3 cluster or API error, 4 refused by a safety rule, 130/143 sync, prune or delete stopped by SIGINT/SIGTERM.
Nothing is changed on 2 or 4.
Put flags after the command: kubectl gitops diff -n shop (not kubectl gitops -n shop diff).`;

/** The help text width: the terminal's, at most 110; 100 when not on a terminal. */
function helpWidth(io: Io): number {
  return Math.min(110, io.columns ?? 100);
}

/**
 * Help texts already laid out, by width and arguments. Help depends only on those (the commands are
 * fixed), so the executable's startup snapshot carries the common ones (src/main.ts lays them out
 * while it is built), and `--help` need not lay out its text again on every start.
 */
const HELP_TEXTS = new Map<string, string>();

/** The key of a pure help request (`--help`, `-h`, `<command> --help`), else undefined. */
function helpOnlyKey(argv: string[], width: number): string | undefined {
  const isHelp = (a: string | undefined) => a === '--help' || a === '-h';
  const pure = (argv.length === 1 && isHelp(argv[0])) || (argv.length === 2 && isHelp(argv[1]) && COMMANDS.some((c) => commandWord(c) === argv[0]));
  return pure ? `${width} ${argv.join(' ')}` : undefined;
}

/**
 * Parses argv, runs the chosen command and returns its exit code; never exits the process.
 * Everything, help text included, is written through `io` (yargs never prints by itself).
 * `commands` defaults to the real ones; tests pass probes.
 */
export async function runCli(typed: string[], io: Io, commands: readonly GitopsCommand[] = COMMANDS): Promise<ExitCode> {
  if (typed[0] === '__complete') {
    const { completionSources } = await import('./completion-sources.js');
    io.out(formatCompletion(await complete(typed.slice(1), commandSpecs(commands), completionSources(io.env))));
    return ExitCode.Ok;
  }
  const width = helpWidth(io);
  let argv: string[];
  try {
    const words = commands.map(commandWord);
    if (typed[0] === 'help' && typed[1] !== undefined && !words.includes(typed[1])) {
      throw new UsageError(`unknown command "${typed[1]}" for "kubectl gitops help"${unknownHint(typed[1], words)}`);
    }
    // kubectl's (cobra's) words for a command that does not exist, with the commands close to it.
    const first = typed[0];
    if (first !== undefined && first !== 'help' && !first.startsWith('-') && !words.includes(first)) {
      throw new UsageError(`unknown command "${first}" for "kubectl gitops"${unknownHint(first, words)}`);
    }
    argv = normalizeArgv(typed);
  } catch (err) {
    io.err(describeError(err, false) + '\n');
    io.err(`See 'kubectl gitops ${commandName(typed, commands)}--help' for usage.\n`);
    return exitCodeFor(err);
  }
  const helpKey = commands === COMMANDS ? helpOnlyKey(argv, width) : undefined;
  const laidOut = helpKey === undefined ? undefined : HELP_TEXTS.get(helpKey);
  if (laidOut !== undefined) {
    io.out(laidOut);
    return ExitCode.Ok;
  }
  let code: ExitCode = ExitCode.Ok;
  let verbose = argv.some((a) => a === '--verbose' || /^--v=0*[1-9]/.test(a));
  let ran = false;
  const repeated = repeatedValues(argv);
  let y = globalOptions(yargs(argv))
    .scriptName('kubectl gitops')
    .usage('kubectl gitops <command> [options]\n\nSee, explain and repair drift between Git and a Kubernetes cluster, the way Argo CD would.')
    .epilogue(EPILOGUE)
    .strict()
    .demandCommand(1, `name a command: ${commands.map(commandWord).join(', ')}`)
    .recommendCommands()
    .exitProcess(false)
    .version(false)
    .help('help')
    .alias('help', 'h')
    .wrap(width)
    // Repeated flags: the last one wins, as in kubectl (yargs would otherwise make an array); the repeatable ones
    // (--resource, --api-versions, --as-group) keep every value, put back before validation.
    // Variadic positionals (`status A B C`) need arrays, so yargs keeps every value and the middleware takes the
    // last of a flag that is not declared an array.
    .parserConfiguration({ 'duplicate-arguments-array': true })
    .middleware((args) => {
      for (const [key, value] of Object.entries(args)) {
        if (key === '_' || key === '$0' || !Array.isArray(value) || ARRAY_KEYS.has(key)) continue;
        args[key] = value[value.length - 1];
      }
      for (const [name, values] of repeated) {
        args[name] = values;
        args[name.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())] = values;
      }
    }, true)
    .fail((msg, err) => {
      // yargs' own parse errors (YError, e.g. a flag without its value) are usage errors; others are the command's.
      if (err && err.name !== 'YError') throw err;
      const typed = argv.find((a) => !a.startsWith('-'));
      const text = explainFlags(tidyUnknown(err?.message ?? msg ?? 'invalid usage'), commands.find((c) => commandWord(c) === typed)?.why ?? {});
      throw new UsageError(text.startsWith('Did you mean') && typed ? `unknown command "${typed}". ${text}` : text);
    });
  for (const cmd of commands) {
    y = y.command({
      command: cmd.command,
      describe: cmd.describe,
      builder: (b) => withOwnFlagsFirst(b, cmd),
      handler: async (args) => {
        const outputs = cmd.outputs ?? OUTPUT_FORMATS;
        const word = commandWord(cmd);
        if (typeof args.output === 'string' && !outputs.includes(args.output as never)) {
          // A format another command prints (status's dot, plan's markdown) is known: this command cannot print it.
          const known = [...OUTPUT_FORMATS, ...commands.flatMap((c) => c.outputs ?? [])].includes(args.output as never);
          throw new UsageError(`${known ? `${word} cannot print` : 'unknown'} output format "${args.output}": ${word} prints ${outputs.join(', ')}`);
        }
        if (args.allNamespaces === true && cmd.allNamespaces !== true) {
          throw new UsageError(
            `-A/--all-namespaces does not apply to ${word}: it acts on one Application (its objects' namespace is -n/--namespace, the Application's is --app-namespace)`,
          );
        }
        const opts = toGlobalOptions(args, outputs[0]);
        verbose = opts.verbose;
        ran = true;
        // --cache-dir is what kubectl's default ($KUBECACHEDIR) would have said: it reaches the caches as that variable.
        const cmdIo = opts.cacheDir !== undefined && opts.cacheDir !== '' ? { ...io, env: { ...io.env, KUBECACHEDIR: resolve(opts.cacheDir) } } : io;
        const ctx = makeContext(cmdIo, opts, typed);
        // -f with an ApplicationSet: each Application it generates, as --all does (cli/appset-file.ts).
        const appFile = typeof args.appFile === 'string' ? args.appFile : undefined;
        // plan reads an ApplicationSet file itself: at base and at head (apps that appear or disappear).
        if (appFile !== undefined && word !== 'appset' && word !== 'plan') {
          const { holdsApplicationSet, forEachGeneratedApp } = await import('./appset-file.js');
          if (await holdsApplicationSet(appFile, ctx.io)) {
            code = await forEachGeneratedApp(ctx, word, appFile, (file, appCtx) => cmd.run({ ...args, appFile: file, f: file }, appCtx));
            return;
          }
        }
        code = await cmd.run(args, ctx);
      },
    });
  }
  skipHelpCache(y);
  let output = '';
  try {
    // With a parse callback yargs hands over what it would have printed (help) instead of printing it.
    await y.parseAsync(argv, {}, (_err, _argv, text) => {
      output = text;
    });
  } catch (err) {
    io.err(describeError(err, verbose) + '\n');
    if (err instanceof UsageError) io.err(`See 'kubectl gitops ${commandName(argv, commands)}--help' for usage.\n`);
    return exitCodeFor(err);
  }
  if (!ran && output !== '') {
    const text = output.endsWith('\n') ? output : output + '\n';
    if (helpKey !== undefined) HELP_TEXTS.set(helpKey, text);
    io.out(text);
  }
  return code;
}

/** After an unknown command: the commands close to it (cobra's "Did you mean this?"), else all of them. */
function unknownHint(typed: string, words: readonly string[]): string {
  const near = suggestions(typed, words);
  return near.length > 0 ? didYouMean(near) : `: the commands are ${words.join(', ')}`;
}

/** Help group of a command's own flags: shown before the cluster and global ones. */
const COMMAND_GROUP = 'Flags:';

/**
 * Builds a command so that its help lists its own flags first (the group is made before the cluster
 * and global groups exist) and its examples one command per line under a comment, as kubectl's help
 * does, instead of yargs' two columns that wrap long commands.
 */
function withOwnFlagsFirst(b: Argv<GlobalArgs>, cmd: GitopsCommand): Argv<object> {
  const examples: [string, string][] = [];
  type Internals = { example: unknown; getGroups(): Record<string, string[]>; getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]> } };
  const inner = b as unknown as Internals;
  // Collected while the builder runs (an own property shadows yargs' method), then removed again.
  inner.example = (command: unknown, description?: string) => {
    if (typeof command === 'string') examples.push([command, description ?? '']);
    return b;
  };
  let y: Argv<object>;
  try {
    y = cmd.builder(b.group([], 'Positionals:').group([], COMMAND_GROUP));
  } finally {
    delete (inner as { example?: unknown }).example;
  }
  const internals = y as unknown as Internals;
  const grouped = new Set(Object.values(internals.getGroups()).flat());
  const { key, alias } = internals.getOptions();
  const aliases = new Set(Object.values(alias).flat());
  const own = Object.keys(key).filter((k) => !grouped.has(k) && !aliases.has(k) && k !== 'help' && k !== 'version');
  if (own.length > 0) y = y.group(own, COMMAND_GROUP);
  if (examples.length > 0) y = y.epilogue(`Examples:\n${examples.map(([c, d]) => `  # ${d}\n  ${c}`).join('\n\n')}`);
  return y;
}

/** What completion needs to know of each command: its flags (own, cluster and global) and its positional argument. */
export function commandSpecs(commands: readonly GitopsCommand[]): CommandSpec[] {
  return commands.map((cmd) => {
    const y = withOwnFlagsFirst(globalOptions(yargs([])).help('help'), cmd) as unknown as {
      getOptions(): { key: Record<string, unknown>; alias: Record<string, string[]>; boolean: string[]; choices: Record<string, readonly string[]> };
      getInternalMethods(): { getUsageInstance(): { getDescriptions(): Record<string, string | undefined> } };
    };
    const o = y.getOptions();
    const aliases = new Set(
      Object.values(o.alias)
        .flat()
        .filter((a) => a.length === 1 || /[A-Z]/.test(a)),
    );
    const descriptions = y.getInternalMethods().getUsageInstance().getDescriptions();
    const positional = /\[app\]/.test(String(cmd.command))
      ? 'app'
      : /<path>/.test(String(cmd.command))
        ? 'file'
        : /<shell>/.test(String(cmd.command))
          ? 'shell'
          : undefined;
    const flags: FlagSpec[] = Object.keys(o.key)
      .filter((k) => !aliases.has(k) && k !== 'version' && k.length > 1 && !/[A-Z]/.test(k) && !['app', 'id', 'path', 'shell'].includes(k))
      .map((k) => ({
        name: k,
        describe: (descriptions[k] ?? '').replace(/\s+/g, ' '),
        takesValue: !o.boolean.includes(k),
        ...(k === 'output' ? { choices: cmd.outputs ?? OUTPUT_FORMATS } : o.choices[k] ? { choices: o.choices[k] } : {}),
      }));
    // -v's long form is `--v`: offered as such.
    flags.push({ name: 'v', describe: 'Log level', takesValue: true, choices: ['0', '1', '4', '6', '7', '8', '9'] });
    return { name: commandWord(cmd), describe: cmd.describe, flags, ...(positional ? { positional } : {}) } as CommandSpec;
  });
}

/** The command word the user typed (for the help hint), followed by a space, or nothing. */
function commandName(argv: string[], commands: readonly GitopsCommand[]): string {
  const first = argv.find((a) => !a.startsWith('-'));
  return first !== undefined && commands.some((c) => commandWord(c) === first) ? `${first} ` : '';
}

/** A flag as the user knows it: `-l/--selector`, `--live`; the positionals as the usage line names them (`APP`). */
export function flagLabel(key: string): string {
  if (key === 'app' || key === 'id' || key === 'path' || key === 'shell') return key.toUpperCase();
  const short = Object.entries(SHORTHANDS).find(([, f]) => f.long === key)?.[0];
  return short !== undefined ? `-${short}/--${key}` : `--${key}`;
}

/**
 * yargs' refusals of flags declared `conflicts` or `implies` (`Arguments a and b are mutually exclusive`, `Implications
 * failed: a -> b`) in the tool's words, each flag as the user types it, with the command's reason when it gives one.
 */
export function explainFlags(message: string, why: Readonly<Record<string, string>>): string {
  const reason = (a: string, b: string) => (why[`${a} ${b}`] !== undefined ? `: ${why[`${a} ${b}`]}` : '');
  const conflict = /^Arguments (\S+) and (\S+) are mutually exclusive$/.exec(message);
  if (conflict) return `${flagLabel(conflict[1]!)} does not go with ${flagLabel(conflict[2]!)}${reason(conflict[1]!, conflict[2]!)}`;
  if (/^Implications failed:/.test(message)) {
    const pairs = [...message.matchAll(/(\S+) -> (\S+)/g)];
    if (pairs.length > 0) return pairs.map((m) => `${flagLabel(m[1]!)} needs ${flagLabel(m[2]!)}${reason(m[1]!, m[2]!)}`).join('; ');
  }
  return message;
}

/** yargs names an unknown `--some-flag` twice (`some-flag, someFlag`): keep the spelling the user typed. */
export function tidyUnknown(message: string): string {
  const m = /^Unknown arguments?: (.*)$/s.exec(message);
  if (!m?.[1]) return message;
  const names = m[1].split(', ');
  const camel = (n: string) => n.replace(/-([a-z])/g, (_x, c: string) => c.toUpperCase());
  const kept = names.filter((n) => !names.some((o) => o !== n && o.includes('-') && camel(o) === n));
  return `Unknown argument${kept.length > 1 ? 's' : ''}: ${kept.join(', ')}`;
}

/**
 * yargs renders the complete help text every time a command handler starts, so that the handler could
 * call showHelp(); no command here does, and that rendering costs more than the rest of start-up.
 */
function skipHelpCache(y: unknown): void {
  type Internals = { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } };
  const usage = (y as Internals).getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

function commandWord(c: GitopsCommand): string {
  return [c.command].flat()[0]?.split(' ')[0] ?? '';
}
