// What the renders of many Applications in one command (`list`, `status -A`, `sync --all`, a dashboard round) share of
// their Git sources: each repository found or fetched once, each revision resolved once, and each commit's tree listed
// once, whole, for every app's path in it, and their files read through one `git cat-file --batch` per repository. A
// point-in-time memo: made per command (or per round) and closed with it, never kept longer, so a push is seen by the
// next command. A failed read is forgotten, and the next app asks again.
import { BlobReader, listTree, type GitDir, type TreeEntry } from './git.js';

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

  /** A commit's whole tree (`git ls-tree -r` of the root), listed once for every app that reads it. */
  wholeTree(dir: GitDir, sha: string): Promise<TreeEntry[]> {
    return this.once(`tree|${dir.gitDir}|${sha}`, () => listTree(dir, sha, ''));
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

/** One period's reads, and how many looks are using them. */
interface Period {
  reads: SourceReads;
  since: number;
  leases: number;
}

/**
 * The SourceReads of long-running loops that share them (`sync --watch --all`): the reads of the present period, and
 * a new period, where Git is read anew, once `ttlMs` has passed since the period began or `expire()` is called (a
 * webhook push), as Argo CD's repo-server keeps a resolved revision for --revision-cache-expiration. A look leases the
 * reads for its duration; a period no longer current is closed when its last lease is released, never under a look.
 */
export class RotatingSourceReads {
  private current: Period | undefined;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The present period's reads, for one look; `release()` when it is done (once; more calls do nothing). */
  lease(): { reads: SourceReads; release(): void } {
    const t = this.now();
    if (this.current === undefined || t - this.current.since >= this.ttlMs) {
      this.retire();
      this.current = { reads: new SourceReads(), since: t, leases: 0 };
    }
    const period = this.current;
    period.leases++;
    let released = false;
    return {
      reads: period.reads,
      release: () => {
        if (released) return;
        released = true;
        period.leases--;
        if (period !== this.current && period.leases === 0) period.reads.close();
      },
    };
  }

  /** The next lease starts a new period (Git read anew). */
  expire(): void {
    this.retire();
    this.current = undefined;
  }

  /** Ends the present period (its reads are closed when its last look is done). */
  close(): void {
    this.expire();
  }

  private retire(): void {
    const p = this.current;
    if (p !== undefined && p.leases === 0) p.reads.close();
  }
}

/**
 * The entries under `path` (normalized: repo-url.ts normalizeSourcePath; a directory or one file; '' = all) of a
 * whole-tree listing, as `git ls-tree -r --full-tree COMMIT -- path` lists them (it matches whole path components, no
 * globs); undefined when the path is not in the tree (where `git cat-file -t COMMIT:path` fails).
 */
export function entriesUnder(whole: readonly TreeEntry[], path: string): TreeEntry[] | undefined {
  if (path === '') return [...whole];
  // Cut from an index of the listing, built once: a fleet's apps cut one tree a thousand times.
  let ix = indexes.get(whole);
  if (!ix) indexes.set(whole, (ix = indexTree(whole)));
  const file = ix.files.get(path);
  if (file !== undefined) return [whole[file] as TreeEntry];
  const dir = ix.dirs.get(path);
  if (!dir) return undefined;
  // git lists a folder's entries together; were they not (they are), the listing is filtered as it is.
  if (dir.last - dir.first + 1 === dir.count) return whole.slice(dir.first, dir.last + 1);
  const prefix = `${path}/`;
  return whole.filter((e) => e.path.startsWith(prefix));
}

/** Where each path of a whole-tree listing is: files by index, folders by the range and number of their entries. */
interface TreeIndex {
  files: Map<string, number>;
  dirs: Map<string, { first: number; last: number; count: number }>;
}

const indexes = new WeakMap<readonly TreeEntry[], TreeIndex>();

function indexTree(whole: readonly TreeEntry[]): TreeIndex {
  const files = new Map<string, number>();
  const dirs = new Map<string, { first: number; last: number; count: number }>();
  whole.forEach((e, i) => {
    files.set(e.path, i);
    for (let at = e.path.indexOf('/'); at >= 0; at = e.path.indexOf('/', at + 1)) {
      const dir = e.path.slice(0, at);
      const d = dirs.get(dir);
      if (d) {
        d.last = i;
        d.count++;
      } else dirs.set(dir, { first: i, last: i, count: 1 });
    }
  });
  return { files, dirs };
}
