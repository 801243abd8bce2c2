// The flag tables of docs/commands/<command>.md are what the commands' yargs definitions declare: each page's
// `<!-- flags:begin CMD -->` block, regenerated in memory (test/support/flag-docs.ts), is what the page holds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandWord, flagDocCommands, flagTable, withFlagBlock } from '../../support/flag-docs.js';

const root = process.cwd();
const commands = flagDocCommands();

test('every command has its page, one per module of src/cli/commands/', () => {
  expect(commands.map((c) => c.page).sort()).toEqual(
    [
      'appset',
      'completion',
      'dashboard',
      'delete',
      'diff',
      'history',
      'list',
      'manifests',
      'normalize',
      'plan',
      'prune',
      'rollback',
      'status',
      'sync',
      'version',
      'windows',
    ].map((c) => `docs/commands/${c}.md`),
  );
});

describe.each(commands.map((c) => [c.page, c] as const))('%s', (page, { cmd }) => {
  it('holds the flag block its command generates', () => {
    const text = readFileSync(join(root, page), 'utf8');
    expect(text).toContain(`<!-- flags:begin ${commandWord(cmd)} -->`);
    if (withFlagBlock(text, cmd) !== text) throw new Error(`${page} is stale: run npm run docs:write`);
  });
});

it('a table row per own flag, not the cluster or global ones', () => {
  const sync = commands.find((c) => commandWord(c.cmd) === 'sync')!.cmd;
  const table = flagTable(sync);
  expect(table).toContain('| `--force-conflicts` |');
  expect(table).toContain('| `--selector` | `-l` |');
  for (const shared of ['--kubeconfig', '--context', '--output', '--namespace', '--app']) expect(table).not.toContain(`| \`${shared}\` |`);
});

it('a stale block is replaced, the rest of the page kept', () => {
  const { cmd } = commands[0]!;
  const word = commandWord(cmd);
  const page = `# x\n\nbefore\n\n<!-- flags:begin ${word} -->\nold\n<!-- flags:end -->\n\nafter\n`;
  const fresh = withFlagBlock(page, cmd);
  expect(fresh).not.toContain('\nold\n');
  expect(fresh.startsWith('# x\n\nbefore\n\n')).toBe(true);
  expect(fresh.endsWith('<!-- flags:end -->\n\nafter\n')).toBe(true);
  expect(withFlagBlock(fresh, cmd)).toBe(fresh);
});
