// The flag reference of docs/commands/<command>.md, generated from the commands' own yargs definitions
// (src/cli/commands/*.ts): between `<!-- flags:begin CMD -->` and `<!-- flags:end -->`, a table of the flags the
// command declares itself (not the cluster or global flags: docs/commands/flags.md describes those).
// `npm run docs:write` (scripts/write-docs.mjs) writes the blocks; test/unit/docs/flags.test.ts checks them.
import yargs from 'yargs';
import { COMMANDS } from '../../src/cli/app.js';
import type { GitopsCommand } from '../../src/cli/command.js';
import { globalOptions } from '../../src/cli/options.js';

interface Internals {
  getGroups(): Record<string, string[]>;
  getOptions(): {
    key: Record<string, unknown>;
    alias: Record<string, string[]>;
    boolean: string[];
    string: string[];
    number: string[];
    array: string[];
    count: string[];
    choices: Record<string, readonly unknown[]>;
    default: Record<string, unknown>;
  };
  getInternalMethods(): { getUsageInstance(): { getDescriptions(): Record<string, string | undefined> } };
}

/** The command's word, as typed after `kubectl gitops`. */
export function commandWord(cmd: GitopsCommand): string {
  return String(Array.isArray(cmd.command) ? cmd.command[0] : cmd.command).split(' ')[0]!;
}

/** The page a command's flags go on, from the repository root. */
function commandPage(cmd: GitopsCommand): string {
  return `docs/commands/${commandWord(cmd)}.md`;
}

function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;').trim();
}

function code(text: string): string {
  return `\`${text}\``;
}

/** The Markdown table of the flags `cmd`'s builder declares itself, in the order it declares them. */
export function flagTable(cmd: GitopsCommand): string {
  // The global flags first (as the CLI has them when a builder runs); the cluster flags group themselves.
  const y = cmd.builder(globalOptions(yargs([])).help('help')) as unknown as Internals;
  const grouped = new Set(Object.values(y.getGroups()).flat());
  const o = y.getOptions();
  const aliasOf = new Set(Object.values(o.alias).flat());
  const positionals = [...String(cmd.command).matchAll(/[[<]([\w-]+)(?:\.\.\.)?[\]>]/g)].map((m) => m[1]!);
  const descriptions = y.getInternalMethods().getUsageInstance().getDescriptions();
  const own = Object.keys(o.key).filter((k) => !grouped.has(k) && !aliasOf.has(k) && !positionals.includes(k) && k !== 'help' && k !== 'version');
  const rowOf = (k: string) => {
    const aliases = (o.alias[k] ?? []).filter((a) => a.length === 1).map((a) => code(`-${a}`));
    const choices = o.choices[k];
    const type = choices
      ? `one of ${choices.map((c) => code(String(c))).join(', ')}`
      : o.boolean.includes(k)
        ? 'boolean'
        : o.count.includes(k)
          ? 'count'
          : o.number.includes(k)
            ? 'number'
            : 'string';
    const repeat = o.array.includes(k) ? ' (repeatable)' : '';
    const def = k in o.default && o.default[k] !== undefined ? code(JSON.stringify(o.default[k])) : '';
    return `| ${code(`--${k}`)} | ${aliases.join(', ')} | ${type}${repeat} | ${def} | ${cell(descriptions[k] ?? '')} |`;
  };
  const header = ['| flag | alias | type | default | description |', '|---|---|---|---|---|'];
  // The shared source and render flags (a help group of their own, after the command's flags), when it takes them.
  const source = y.getGroups()[SOURCE_GROUP] ?? [];
  const sourceTable =
    source.length > 0
      ? `\n\n${SOURCE_GROUP.replace(/:$/, '')} (shared by the commands that read an Application):\n\n${[...header, ...source.map(rowOf)].join('\n')}`
      : '';
  if (own.length === 0) return `\`${commandWord(cmd)}\` has no flags of its own; the cluster and global flags: [flags.md](flags.md).${sourceTable}`;
  return [...header, ...own.map(rowOf)].join('\n') + sourceTable;
}

/** The help group of the shared source and render flags (src/cli/options.ts). */
const SOURCE_GROUP = 'Source and render flags:';

const BEGIN = (word: string) => `<!-- flags:begin ${word} -->`;
const END = '<!-- flags:end -->';

/**
 * The page with its flag block (re)generated: the block's content replaced, or, on a page without one, a
 * `## Flags` section with the block appended.
 */
export function withFlagBlock(page: string, cmd: GitopsCommand): string {
  const word = commandWord(cmd);
  const block = `${BEGIN(word)}\n\n${flagTable(cmd)}\n\n${END}`;
  const start = page.indexOf(BEGIN(word));
  if (start >= 0) {
    const end = page.indexOf(END, start);
    if (end < 0) throw new Error(`${commandPage(cmd)}: ${BEGIN(word)} without ${END}`);
    return page.slice(0, start) + block + page.slice(end + END.length);
  }
  const intro = `## Flags\n\nThe flags of \`${word}\` itself, generated from its yargs definition (src/cli/commands/${word}.ts) by \`npm run docs:write\`; the cluster and global flags: [flags.md](flags.md).`;
  return `${page.trimEnd()}\n\n${intro}\n\n${block}\n`;
}

/** Every command, with the page its flags go on. */
export function flagDocCommands(): { cmd: GitopsCommand; page: string }[] {
  return COMMANDS.map((cmd) => ({ cmd, page: commandPage(cmd) }));
}
