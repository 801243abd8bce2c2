// Reads desired manifests from a file, a directory (recursive, stable order) or stdin, and refuses duplicates.
import { readFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Io } from '../model/context.js';
import { InputError, ManifestError } from '../model/errors.js';
import { keyOf, keyString } from '../model/object.js';
import { parseManifests, formatSource, manifestText, type ManifestObject } from './parse.js';

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/**
 * Every object under `path` (`-` is stdin): a file, or a directory walked recursively in
 * sorted order (.yaml, .yml, .json; dot-entries skipped). Throws ManifestError naming the file and
 * line; the same group/kind/namespace/name twice is an error naming both places.
 */
export async function loadManifests(path: string, io?: Pick<Io, 'readStdin'>): Promise<ManifestObject[]> {
  if (path === '-') {
    if (!io) throw new InputError('reading manifests from stdin (-): no standard input available');
    const objects = parseManifests(await io.readStdin(), '<stdin>');
    rejectDuplicates(objects);
    return objects;
  }
  return parseManifestFiles(await readManifestFiles(path));
}

/** A manifest file's path and text. */
export interface ManifestFile {
  path: string;
  text: string;
}

/** The manifest files under `path` (a file, or a directory walked as loadManifests walks it) with their text. */
export async function readManifestFiles(path: string): Promise<ManifestFile[]> {
  return (await manifestFiles(path)).map((f) => {
    try {
      // Synchronous: local files read one after another and parsed at once. Each asynchronous read is several
      // trips through the thread pool; for the bench's 100 files that was ~30 ms of a ~165 ms read and parse.
      const bytes = readFileSync(f);
      return { path: f, text: manifestText(bytes, f) };
    } catch (err) {
      if (err instanceof InputError) throw err;
      throw new InputError(`reading ${f}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
    }
  });
}

/** Every object of the files, in order; the same group/kind/namespace/name twice is an error naming both places. */
export function parseManifestFiles(files: readonly ManifestFile[]): ManifestObject[] {
  const objects: ManifestObject[] = [];
  for (const f of files) for (const o of parseManifests(f.text, f.path)) objects.push(o);
  rejectDuplicates(objects);
  return objects;
}

/** The error for a manifest file or directory that cannot be read. */
export function manifestPathError(path: string, err: unknown): InputError {
  return new InputError(
    `reading manifests from ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message}`,
    { cause: err },
  );
}

/** The manifest files under `path`, sorted; a named file is taken whatever its extension. */
async function manifestFiles(path: string): Promise<string[]> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    throw manifestPathError(path, err);
  }
  if (!st.isDirectory()) return [path];
  const out: string[] = [];
  const walk = async (dir: string) => {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (MANIFEST_FILE.test(e.name)) out.push(p);
    }
  };
  await walk(path);
  return out;
}

/**
 * Every file below a directory, as paths relative to it (`a/b.yaml`), dot-entries skipped; [] for a file. For the
 * render check: which files make a folder something other than plain manifests.
 */
export async function localFiles(path: string): Promise<string[]> {
  let st;
  try {
    st = await stat(path);
  } catch (err) {
    throw manifestPathError(path, err);
  }
  if (!st.isDirectory()) return [];
  const out: string[] = [];
  const walk = async (dir: string, rel: string) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      if (e.isDirectory()) await walk(join(dir, e.name), `${rel}${e.name}/`);
      else out.push(`${rel}${e.name}`);
    }
  };
  await walk(path, '');
  return out.sort();
}

/** Throws a ManifestError when two objects share group/kind/namespace/name, naming both places. */
export function rejectDuplicates(objects: readonly ManifestObject[]): void {
  const seen = new Map<string, ManifestObject>();
  for (const o of objects) {
    // A hook declared with generateName only gets its name per sync: it collides with nothing here.
    if (!o.object.metadata.name) continue;
    const k = keyString(keyOf(o.object));
    const first = seen.get(k);
    if (first) {
      const key = keyOf(o.object);
      const name = `${key.group ? key.group + '/' : ''}${key.kind} ${key.namespace ? key.namespace + '/' : ''}${key.name}`;
      throw new ManifestError(`${name} is declared twice: at ${formatSource(first.source)} and at ${formatSource(o.source)}`);
    }
    seen.set(k, o);
  }
}
