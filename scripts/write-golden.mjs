// Writes every golden file (test/fixtures/golden/*) from the cases in test/unit/render/golden-cases.ts, with the same
// fixtures and renderers the unit test (test/unit/render/golden.test.ts) checks against; the test itself never writes.
// `npm run golden:write` after a deliberate change of output, then review the diff.
//   --check      write nothing: list the files that are missing or differ, exit 1 if any
//   --out DIR    write into DIR instead of test/fixtures/golden (the unit test compares that with the committed files)
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { importTs } from './import-ts.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { check: { type: 'boolean', default: false }, out: { type: 'string' } } });
const out = args.out === undefined ? undefined : resolve(args.out);
process.chdir(root);

const mod = await importTs(root, 'test/unit/render/golden-cases.ts');

const goldenDir = out ?? join(root, mod.GOLDEN_DIR);
const shown = out ?? mod.GOLDEN_DIR;
const cases = mod.goldenCases();
let differ = 0;
if (!args.check) mkdirSync(goldenDir, { recursive: true });
for (const c of cases) {
  const text = await c.render();
  const path = join(goldenDir, c.file);
  const old = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (old === text) {
    console.log(`unchanged ${shown}/${c.file}`);
    continue;
  }
  differ++;
  if (args.check) console.log(`${old === undefined ? 'missing' : 'differs'} ${shown}/${c.file}`);
  else {
    writeFileSync(path, text);
    console.log(`wrote ${shown}/${c.file}`);
  }
}
// A file no case writes would go unchecked: name it (the unit test fails on it too).
const named = new Set(cases.map((c) => c.file));
const stray = existsSync(goldenDir) ? readdirSync(goldenDir).filter((f) => !named.has(f)) : [];
for (const f of stray) console.log(`not written by any case: ${shown}/${f}`);
if (args.check && differ + stray.length > 0) {
  console.log(`${differ + stray.length} golden file(s) out of date: run \`${mod.WRITE_COMMAND}\` and review the diff`);
  process.exitCode = 1;
}
