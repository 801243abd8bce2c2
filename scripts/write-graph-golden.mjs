// Writes the live map's golden files (test/fixtures/golden/status-broken.dot, .svg) from the broken-app fixture.
// Run by hand after a deliberate change to the drawing (`node scripts/write-graph-golden.mjs`), then review the diff:
// the unit test (test/unit/render/graph.test.ts) only reads them.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const entry = `
import { buildStatusReport } from './src/health/report.ts';
import { renderStatusGraph } from './src/render/status-graph.ts';
import { brokenInput } from './test/unit/health/status-fixtures.ts';
const r = buildStatusReport(brokenInput());
export const dot = renderStatusGraph(r, 'dot');
export const svg = renderStatusGraph(r, 'svg');
`;
process.chdir(root);
const dir = mkdtempSync(join(tmpdir(), 'graph-golden-'));
const file = join(dir, 'entry.mjs');
await build({
  stdin: { contents: entry, resolveDir: root, loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: file,
  banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  logLevel: 'error',
});
const mod = await import(file);
rmSync(dir, { recursive: true, force: true });
for (const [name, text] of [['status-broken.dot', mod.dot], ['status-broken.svg', mod.svg]]) {
  writeFileSync(join(root, 'test/fixtures/golden', name), text);
  console.log(`wrote test/fixtures/golden/${name}`);
}
