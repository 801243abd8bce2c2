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

/** Argo CD's own checks among the executable's SEA assets (ARGOCD_HEALTH_ASSET in plugin/build.mjs). */
const ARGOCD_HEALTH_ASSET = 'argocd-health.json';

/**
 * Argo CD's checks as plugin/build.mjs writes them (folder -> health.lua, read from the Argo CD Go module the
 * conformance suite pins): a library as --lua-dir gives one.
 */
export function healthLibraryFromJson(text: string, origin: string): HealthLibrary {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new InputError(`${origin}: not JSON: ${(err as Error).message}`, { cause: err });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InputError(`${origin}: expected a map of folder -> health.lua`);
  const library = new Map<string, HealthScript>();
  for (const [rel, script] of Object.entries(parsed as Record<string, unknown>)) {
    if (typeof script !== 'string') throw new InputError(`${origin}: ${rel}: expected the text of a health.lua`);
    library.set(rel, { script, useOpenLibs: true, source: `Argo CD's resource_customizations/${rel}/health.lua` });
  }
  return library;
}

let bundled: Promise<HealthLibrary | undefined> | undefined;

/**
 * The checks Argo CD ships, built into the executable (read once per process); undefined when running from the
 * sources (unit tests), where only --lua-dir gives a library.
 */
export function bundledHealthLibrary(): Promise<HealthLibrary | undefined> {
  bundled ??= (async () => {
    const sea = await import('node:sea').catch(() => undefined);
    if (!sea?.isSea()) return undefined;
    let asset: ArrayBuffer;
    try {
      asset = sea.getAsset(ARGOCD_HEALTH_ASSET);
    } catch {
      return undefined;
    }
    return healthLibraryFromJson(Buffer.from(asset).toString('utf8'), `the executable's ${ARGOCD_HEALTH_ASSET}`);
  })();
  return bundled;
}

/** --lua-dir over Argo CD's own checks: a folder the user gives wins over the same folder of the built-in library. */
export function mergeHealthLibraries(builtIn: HealthLibrary | undefined, given: HealthLibrary | undefined): HealthLibrary | undefined {
  if (!builtIn) return given;
  if (!given) return builtIn;
  return new Map([...builtIn, ...given]);
}
