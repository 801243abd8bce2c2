// The formatter's check (Biome, biome.json at the root: 2 spaces, single quotes, 160 columns) over src/, test/, scripts/
// and plugin/: a file `npm run format` would change fails here, named. Runs offline: Biome is a native binary.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = process.cwd();
const BIOME = join(ROOT, 'node_modules/@biomejs/biome/bin/biome');

test('every source and test file is formatted as biome.json says (npm run format fixes it)', () => {
  expect(existsSync(BIOME) ? BIOME : `${BIOME} is missing: npm ci installs @biomejs/biome (a devDependency)`).toBe(BIOME);
  const run = spawnSync(process.execPath, [BIOME, 'format', '--reporter=summary', '--colors=off', '--max-diagnostics=0'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const output = `${run.stdout}${run.stderr}`;
  // The summary lists each file that would change as `  - path`; anything else failing (a bad config) is shown whole.
  const unformatted = [...output.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]!);
  expect(run.status === 0 ? [] : unformatted.length > 0 ? unformatted : [output]).toEqual([]);
  // It did look at the tree (a configuration that matches nothing would pass silently).
  expect(output).toMatch(/Checked ([1-9]\d{2,}) files/);
});
