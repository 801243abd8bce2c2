// Loads one of the repository's TypeScript modules from a script (the writers of generated files), as jest loads it:
// bundled by esbuild with our sources only, packages from node_modules.
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Imports `entry` (a path under `root`) and returns the module. With `beside`, the bundle is written next to the entry
 * for the moment it is loaded, so a module that finds the repository from its own `import.meta.url` (the integration
 * suites' support) finds it as under jest.
 */
export async function importTs(root, entry, { beside = false } = {}) {
  // The bundle imports packages by name, so it sits under node_modules/ (or the repository) where Node finds them.
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  const dir = beside ? undefined : mkdtempSync(join(root, 'node_modules/.cache/import-ts-'));
  const file = beside
    ? join(root, dirname(entry), `.${basename(entry, '.ts')}.import-ts-${randomBytes(4).toString('hex')}.mjs`)
    : join(dir, `${basename(entry, '.ts')}.mjs`);
  try {
    await build({ entryPoints: [join(root, entry)], bundle: true, platform: 'node', format: 'esm', outfile: file, packages: 'external', logLevel: 'error' });
    return await import(file);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
    else rmSync(file, { force: true });
  }
}
