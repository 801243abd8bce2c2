// Writes the generated flag reference into docs/commands/<command>.md (the block between `<!-- flags:begin CMD -->`
// and `<!-- flags:end -->`), from the commands' yargs definitions, with the generator the unit test
// (test/unit/docs/flags.test.ts) checks against (test/support/flag-docs.ts); the test itself never writes.
// `npm run docs:write` after changing a command's flags, then review the diff.
//   --check      write nothing: list the pages that are stale, exit 1 if any
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { importTs } from './import-ts.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
process.chdir(root);

const mod = await importTs(root, 'test/support/flag-docs.ts');

const stale = [];
for (const { cmd, page } of mod.flagDocCommands()) {
  const path = join(root, page);
  const before = readFileSync(path, 'utf8');
  const after = mod.withFlagBlock(before, cmd);
  if (after === before) continue;
  stale.push(page);
  if (!args.check) writeFileSync(path, after);
}
if (args.check) {
  for (const p of stale) process.stdout.write(`stale: ${p}\n`);
  process.exit(stale.length > 0 ? 1 : 0);
}
process.stdout.write(stale.length > 0 ? `wrote ${stale.join(', ')}\n` : 'the flag blocks are up to date\n');
