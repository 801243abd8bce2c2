// Reads a --lua-dir library of Lua health checks in Argo CD's layout (resource_customizations/<group>/<kind>/health.lua,
// `_` wildcard folders, `<Kind>/health.lua` for the core group) into data for health/custom.ts, which does no I/O.
// The whole library is read once per command, with the rules (Argo CD's own 233 checks in 6-15 ms); a folder
// or file that cannot be read is bad input naming it (exit 2), before anything is changed. Synchronous reads: a
// few hundred small files are read two to four times faster than through the thread pool, and nothing else is
// in flight while the rules load.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { HealthLibrary, HealthScript } from '../../health/custom.js';
import { InputError } from '../../model/errors.js';

const code = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;
/** What "there is nothing here" looks like: not an error, the folder just holds no check. */
const absent = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');
const isDir = (path: string): boolean => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;

/** The sub-folders of `dir` (symbolic links followed), sorted, and whether it holds a health.lua; nothing when `dir` is not a folder. */
function listing(dir: string): { folders: string[]; check: boolean } {
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    return {
      folders: entries
        .filter((e) => e.isDirectory() || (e.isSymbolicLink() && isDir(join(dir, e.name))))
        .map((e) => e.name)
        .sort(),
      check: entries.some((e) => e.name === 'health.lua'),
    };
  } catch (err) {
    if (absent(err)) return { folders: [], check: false };
    throw new InputError(`--lua-dir: reading ${dir}: ${code(err)}`, { cause: err });
  }
}

function healthScript(file: string): HealthScript | undefined {
  try {
    return { script: readFileSync(file, 'utf8'), useOpenLibs: true, source: file };
  } catch (err) {
    if (absent(err)) return undefined;
    throw new InputError(`--lua-dir: reading ${file}: ${code(err)}`, { cause: err });
  }
}

/** The checks under DIR, or under DIR/resource_customizations when DIR is its parent. */
export function readHealthLibrary(dir: string): HealthLibrary {
  let st;
  try {
    st = statSync(dir);
  } catch (err) {
    throw new InputError(`--lua-dir ${dir}: ${code(err)}`, { cause: err });
  }
  if (!st.isDirectory()) throw new InputError(`--lua-dir ${dir}: not a directory (give the resource_customizations folder)`);
  const inner = join(dir, 'resource_customizations');
  const root = isDir(inner) ? inner : dir;
  const library = new Map<string, HealthScript>();
  // Each folder one or two levels down that holds a health.lua: `Kind` (the core group) and `group/Kind`.
  for (const group of listing(root).folders) {
    const inGroup = listing(join(root, group));
    const rels = [...(inGroup.check ? [group] : []), ...inGroup.folders.map((kind) => `${group}/${kind}`)];
    for (const rel of rels) {
      const script = healthScript(join(root, rel, 'health.lua'));
      if (script) library.set(rel, script);
    }
  }
  return library;
}
