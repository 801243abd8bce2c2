// Loads one of the repository's TypeScript modules from a script (the writers of generated files), as jest loads it:
// bundled by esbuild with our sources only, packages from node_modules.
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Imports `entry` (a path under `root`) and returns the module. */
export async function importTs(root, entry) {
  // The bundle imports packages by name, so it sits under node_modules/ where Node finds the repository's packages.
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  const dir = mkdtempSync(join(root, 'node_modules/.cache/import-ts-'));
  try {
    const file = join(dir, `${basename(entry, '.ts')}.mjs`);
    await build({ entryPoints: [join(root, entry)], bundle: true, platform: 'node', format: 'esm', outfile: file, packages: 'external', logLevel: 'error' });
    return await import(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
