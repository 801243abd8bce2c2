// Reads a --lua-dir library of Lua health checks in Argo CD's layout (resource_customizations/<group>/<kind>/health.lua,
// `_` wildcard folders, `<Kind>/health.lua` for the core group) into data for health/custom.ts, which does no I/O.
// The whole library is read once per command (Argo CD's own is some 230 small files); a folder or file that cannot
// be read is bad input naming it (exit 2), before anything is changed.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { HealthLibrary, HealthScript } from '../health/custom.js';
import { InputError } from '../model/errors.js';

const code = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;
/** What "there is nothing here" looks like: not an error, the folder just holds no check. */
const absent = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/** The sub-folders of `dir` (symbolic links followed), sorted; none when `dir` is not a folder. */
async function folders(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if (absent(err)) return [];
    throw new InputError(`--lua-dir: reading ${dir}: ${code(err)}`, { cause: err });
  }
  const dirs = await Promise.all(names.map(async (n) => ((await stat(join(dir, n)).catch(() => undefined))?.isDirectory() ? n : undefined)));
  return dirs.filter((n): n is string => n !== undefined).sort();
}

async function healthScript(file: string): Promise<HealthScript | undefined> {
  try {
    return { script: await readFile(file, 'utf8'), useOpenLibs: true, source: file };
  } catch (err) {
    if (absent(err)) return undefined;
    throw new InputError(`--lua-dir: reading ${file}: ${code(err)}`, { cause: err });
  }
}

/** The checks under DIR, or under DIR/resource_customizations when DIR is its parent. */
export async function readHealthLibrary(dir: string): Promise<HealthLibrary> {
  const st = await stat(dir).catch((err: unknown) => {
    throw new InputError(`--lua-dir ${dir}: ${code(err)}`, { cause: err });
  });
  if (!st.isDirectory()) throw new InputError(`--lua-dir ${dir}: not a directory (give the resource_customizations folder)`);
  const inner = join(dir, 'resource_customizations');
  const root = (await stat(inner).catch(() => undefined))?.isDirectory() ? inner : dir;
  // Each folder one or two levels down that holds a health.lua: `Kind` (the core group) and `group/Kind`.
  const rels = (await Promise.all((await folders(root)).map(async (g) => [g, ...(await folders(join(root, g))).map((k) => `${g}/${k}`)]))).flat();
  const found = await Promise.all(rels.map(async (rel) => [rel, await healthScript(join(root, rel, 'health.lua'))] as const));
  const library = new Map<string, HealthScript>();
  for (const [rel, script] of found) if (script) library.set(rel, script);
  return library;
}
