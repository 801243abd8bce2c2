// What the renders of many Applications in one command (`list`, `status -A`, `sync --all`, a dashboard round) share of
// their Git sources: each repository found or fetched once, each revision resolved once, and each commit's tree listed
// once, whole, for every app's path in it, and their files read through one `git cat-file --batch` per repository. A
// point-in-time memo: made per command (or per round) and closed with it, never kept longer, so a push is seen by the
// next command. A failed read is forgotten, and the next app asks again.
import { BlobReader, type GitDir, type TreeEntry } from './git.js';

export class SourceReads {
  private readonly memo = new Map<string, Promise<unknown>>();
  private readonly readers = new Map<string, BlobReader>();

  /** One `git cat-file --batch` per repository for every app's files (git.ts BlobReader); `close()` ends them. */
  blobs(dir: GitDir): BlobReader {
    let r = this.readers.get(dir.gitDir);
    if (!r) {
      r = new BlobReader(dir);
      this.readers.set(dir.gitDir, r);
    }
    return r;
  }

  close(): void {
    for (const r of this.readers.values()) r.close();
    this.readers.clear();
  }

  /** `read()`'s result for `key`, read once. */
  once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let p = this.memo.get(key) as Promise<T> | undefined;
    if (!p) {
      p = read();
      this.memo.set(key, p);
      p.catch(() => {
        if (this.memo.get(key) === p) this.memo.delete(key);
      });
    }
    return p;
  }
}

/**
 * The entries under `path` (normalized: repo-url.ts normalizeSourcePath; a directory or one file; '' = all) of a
 * whole-tree listing, as `git ls-tree -r --full-tree COMMIT -- path` lists them (it matches whole path components, no
 * globs); undefined when the path is not in the tree (where `git cat-file -t COMMIT:path` fails).
 */
export function entriesUnder(whole: readonly TreeEntry[], path: string): TreeEntry[] | undefined {
  if (path === '') return [...whole];
  const prefix = `${path}/`;
  const out = whole.filter((e) => e.path === path || e.path.startsWith(prefix));
  return out.length > 0 ? out : undefined;
}
