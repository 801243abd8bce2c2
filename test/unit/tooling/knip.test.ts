// The unused-export check: knip (knip.jsonc at the root) over src/, the tests, scripts/ and plugin/. An export, a file
// or a dependency nothing uses fails here with knip's own list. Runs offline: knip only reads the tree.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = process.cwd();
const KNIP = join(ROOT, 'node_modules/knip/bin/knip.js');

test('nothing exported, listed or installed goes unused (knip; an export kept for its unit test counts as used)', () => {
  expect(existsSync(KNIP) ? KNIP : `${KNIP} is missing: npm ci installs knip (a devDependency)`).toBe(KNIP);
  // Node itself runs knip (the one the tests run on, not whatever `node` is first on PATH).
  const run = spawnSync(process.execPath, [KNIP, '--no-progress', '--reporter', 'compact', '--no-config-hints'], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.error).toBeUndefined();
  expect(run.status === 0 ? '' : `${run.stdout}${run.stderr}`).toBe('');
});
