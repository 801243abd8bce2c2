// A local folder rendered like a source (--desired DIR --render): offline, with the folder's enclosing git work tree
// (or the folder itself) as the repository root, so a Kustomize overlay finds its bases; tools work on a copy.
import { cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import type { TreeEntry } from '../git.js';
import type { SourceFiles } from './index.js';

/** Every file under `dir` as tree entries with paths relative to `root` (`sha` is the file's own path); .git skipped. */
export function listLocal(root: string, dir: string): TreeEntry[] {
  const out: TreeEntry[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.push({ mode: e.isSymbolicLink() ? '120000' : '100644', type: 'blob', sha: full, path: relative(root, full).split(sep).join('/') });
    }
  };
  walk(dir);
  return out;
}

/** The files of a local folder tree rooted at `root`. */
export function localFiles(root: string): SourceFiles {
  return {
    read: async (entries) => new Map(entries.map((e) => [e.sha, readFileSync(e.sha)])),
    materialise: async () => {
      const copy = mkdtempSync(join(tmpdir(), 'kubectl-gitops-render-'));
      try {
        cpSync(resolve(root), copy, { recursive: true, verbatimSymlinks: true, filter: (src) => !src.split(sep).includes('.git') });
      } catch (e) {
        rmSync(copy, { recursive: true, force: true });
        throw e;
      }
      return { root: copy, dispose: async () => rmSync(copy, { recursive: true, force: true }) };
    },
    linkTarget: async (entry) => readlinkSync(entry.sha, 'utf8'),
    lookup: async (path) => {
      const full = join(root, ...path.split('/'));
      try {
        const st = lstatSync(full);
        if (st.isDirectory()) return 'dir';
        return { mode: st.isSymbolicLink() ? '120000' : '100644', type: 'blob', sha: full, path };
      } catch {
        return undefined;
      }
    },
  };
}

/** Whether `path` is a directory (not following a final symlink is not needed here). */
export function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
