// Read-only git plumbing (rev-parse, ls-tree, cat-file) against a git directory: never a working tree or an index.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InputError } from '../model/errors.js';

/** A git directory to read from (a bare repository or a clone's .git), with the environment to run git in. */
export interface GitDir {
  gitDir: string;
  env: Record<string, string | undefined>;
}

/** One file of a commit's tree. */
export interface TreeEntry {
  mode: string;
  type: string;
  sha: string;
  /** Path from the repository root, `/`-separated. */
  path: string;
}

/** A failed git command, with what git printed on stderr. */
class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim().split('\n').pop() ?? ''}`);
    this.name = 'GitCommandError';
  }
}

/** git is not installed (or not on PATH): reading a repoURL needs it. */
export class GitNotFoundError extends InputError {
  constructor(options?: { cause?: unknown }) {
    super('git is not installed or not on PATH: reading source.repoURL needs it (or give --desired DIR|FILE)', options);
  }
}

/** Variables that would redirect git to another repository, index or work tree; never inherited. */
const REDIRECTING_ENV = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
];

/** The environment git runs in: the caller's, minus redirections, never prompting for credentials. */
export function gitEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env };
  for (const k of REDIRECTING_ENV) delete out[k];
  out.GIT_TERMINAL_PROMPT = '0';
  out.GIT_ASKPASS = out.GIT_ASKPASS ?? 'true';
  out.GIT_OPTIONAL_LOCKS = '0';
  out.LC_ALL = 'C';
  return out;
}

export interface RunGitOptions {
  cwd?: string;
  env: Record<string, string | undefined>;
  /** Variables set for this call only, after the inherited ones are cleaned. */
  set?: Record<string, string>;
  input?: string | Buffer;
  /** Kill git after this many ms (0 or absent: no limit). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Runs git with arguments (no shell) and returns stdout as bytes; throws GitCommandError on a non-zero exit. */
export function runGit(args: readonly string[], opts: RunGitOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: opts.cwd,
      env: { ...gitEnv(opts.env), ...opts.set } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: opts.timeoutMs && opts.timeoutMs > 0 ? opts.timeoutMs : undefined,
      signal: opts.signal,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', (e) => {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') reject(new GitNotFoundError({ cause: e }));
      else reject(new Error(`running git ${args[0] ?? ''}`, { cause: e }));
    });
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * The absolute git directory of the repository at `path` (its work-tree root or a bare repository), or undefined
 * when `path` is not one; a folder inside some other repository does not count.
 */
export async function findGitDir(path: string, env: Record<string, string | undefined>): Promise<string | undefined> {
  try {
    const real = await realpath(path);
    const plain = plainGitDir(real);
    if (plain) return plain;
    const out = await runGit(['rev-parse', '--absolute-git-dir'], { cwd: real, env, set: { GIT_CEILING_DIRECTORIES: dirname(real) } });
    return out.toString('utf8').trim();
  } catch (e) {
    if (e instanceof GitNotFoundError) throw e;
    return undefined;
  }
}

/**
 * The `.git` folder of a work tree's root when it is plainly a repository as git's discovery sees one (a HEAD naming a
 * ref or a commit, objects/ and refs/), and the folder and it belong to us (git's safe.directory check passes without
 * its configuration): found without starting git. Anything else (a `.git` file of a linked work tree, a bare
 * repository, another owner) is left to `git rev-parse`.
 */
function plainGitDir(root: string): string | undefined {
  try {
    const uid = process.getuid?.();
    const dir = join(root, '.git');
    const st = statSync(dir);
    if (uid === undefined || !st.isDirectory() || st.uid !== uid || statSync(root).uid !== uid) return undefined;
    if (!statSync(join(dir, 'objects')).isDirectory() || !statSync(join(dir, 'refs')).isDirectory()) return undefined;
    const head = readFileSync(join(dir, 'HEAD'), 'utf8');
    return /^(ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\n?$/.test(head) ? dir : undefined;
  } catch {
    return undefined;
  }
}

function git(dir: GitDir, args: readonly string[], input?: string): Promise<Buffer> {
  return runGit([`--git-dir=${dir.gitDir}`, ...args], { env: dir.env, input });
}

/** The commit SHA a revision names (branch, tag, SHA or HEAD), or undefined when it names no commit. */
export async function resolveCommit(dir: GitDir, revision: string): Promise<string | undefined> {
  try {
    const out = await git(dir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`]);
    const sha = out.toString('utf8').trim();
    return /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined;
  } catch (e) {
    if (e instanceof GitCommandError && e.exitCode === 1) return undefined;
    throw e;
  }
}

/** The repository's tag names (`refs/tags/<name>` as `<name>`, as go-git's Short names them), in git's order. */
export async function listTags(dir: GitDir): Promise<string[]> {
  const out = (await git(dir, ['for-each-ref', '--format=%(refname:strip=2)', 'refs/tags'])).toString('utf8');
  return out.split('\n').filter((t) => t !== '');
}

/** The object type at `<commit>:<path>` (`tree`, `blob`, ...), or undefined when the path is not in that commit. */
export async function objectTypeAt(dir: GitDir, commit: string, path: string): Promise<string | undefined> {
  try {
    const out = await git(dir, ['cat-file', '-t', `${commit}:${path}`]);
    return out.toString('utf8').trim();
  } catch (e) {
    if (e instanceof GitCommandError) return undefined;
    throw e;
  }
}

/** Every entry under `path` (a directory or one file; empty = the root) in a commit's tree, recursively, in git's order. */
export async function listTree(dir: GitDir, commit: string, path: string): Promise<TreeEntry[]> {
  const args = ['ls-tree', '-r', '-z', '--full-tree', commit];
  if (path !== '') args.push('--', path);
  const out = (await git(dir, args)).toString('utf8');
  const entries: TreeEntry[] = [];
  for (const rec of out.split('\0')) {
    if (rec === '') continue;
    const tab = rec.indexOf('\t');
    const [mode, type, sha] = rec.slice(0, tab).split(' ');
    if (mode === undefined || type === undefined || sha === undefined) throw new Error(`parsing git ls-tree output: ${JSON.stringify(rec)}`);
    entries.push({ mode, type, sha, path: rec.slice(tab + 1) });
  }
  return entries;
}

/** The contents of blobs by SHA, read in one `git cat-file --batch` call. */
export async function readBlobs(dir: GitDir, shas: readonly string[]): Promise<Map<string, Buffer>> {
  const result = new Map<string, Buffer>();
  if (shas.length === 0) return result;
  const unique = [...new Set(shas)];
  const out = await git(dir, ['cat-file', '--batch'], unique.map((s) => `${s}\n`).join(''));
  let pos = 0;
  for (const sha of unique) {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) throw new Error(`reading blob ${sha}: truncated git cat-file output`);
    const header = out.subarray(pos, nl).toString('utf8');
    const [gotSha, type, sizeText] = header.split(' ');
    if (gotSha !== sha || type !== 'blob' || sizeText === undefined)
      throw new Error(`reading blob ${sha}: unexpected git cat-file header ${JSON.stringify(header)}`);
    const size = Number(sizeText);
    result.set(sha, out.subarray(nl + 1, nl + 1 + size));
    pos = nl + 1 + size + 1;
  }
  return result;
}

/**
 * One `git cat-file --batch` process kept open for many reads (the renders of many apps of one command read their files
 * through it instead of starting git once each). Reads go one batch at a time, in order. `close()` ends it; the process
 * never keeps ours alive (unref'd), and it ends by itself when our end of its pipe closes.
 */
export class BlobReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private failed: Error | undefined;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(dir: GitDir) {
    this.child = spawn('git', [`--git-dir=${dir.gitDir}`, 'cat-file', '--batch'], {
      env: gitEnv(dir.env) as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (c: Buffer) => {
      this.buffer = this.buffer.length === 0 ? c : Buffer.concat([this.buffer, c]);
      this.waiting?.();
    });
    const fail = (e: Error) => {
      this.failed ??= e;
      this.waiting?.();
    };
    this.child.on('error', (e) => fail((e as NodeJS.ErrnoException).code === 'ENOENT' ? new GitNotFoundError({ cause: e }) : e));
    this.child.on('close', (code) => fail(new GitCommandError(['cat-file', '--batch'], code, 'git cat-file ended')));
    this.child.stdin.on('error', () => undefined);
    this.hold(false);
  }

  /** While a read waits the process keeps ours alive; idle, it never does (a reader nobody closed cannot hang a command). */
  private hold(on: boolean): void {
    const handles = [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as { ref?: () => void; unref?: () => void }[];
    for (const h of handles) (on ? h.ref : h.unref)?.call(h);
  }

  /** The contents of blobs by SHA, as readBlobs returns them. */
  read(shas: readonly string[]): Promise<Map<string, Buffer>> {
    const run = this.chain.then(() =>
      this.readNow([...new Set(shas)]).catch((e: unknown) => {
        // Out of step with the process (an unexpected answer): nothing more is read through it.
        this.failed ??= e as Error;
        this.close();
        throw e;
      }),
    );
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Waits until `n` bytes are buffered (or the process failed). */
  private async bytes(n: number): Promise<void> {
    while (this.buffer.length < n) {
      if (this.failed) throw this.failed;
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
  }

  private async readNow(shas: readonly string[]): Promise<Map<string, Buffer>> {
    if (shas.length === 0) return new Map();
    if (this.failed) throw this.failed;
    this.hold(true);
    try {
      return await this.answers(shas);
    } finally {
      this.hold(false);
    }
  }

  private async answers(shas: readonly string[]): Promise<Map<string, Buffer>> {
    const result = new Map<string, Buffer>();
    this.child.stdin.write(shas.map((s) => `${s}\n`).join(''));
    for (const sha of shas) {
      let nl = this.buffer.indexOf(0x0a);
      while (nl < 0) {
        await this.bytes(this.buffer.length + 1);
        nl = this.buffer.indexOf(0x0a);
      }
      const header = this.buffer.subarray(0, nl).toString('utf8');
      const [gotSha, type, sizeText] = header.split(' ');
      if (gotSha !== sha || type !== 'blob' || sizeText === undefined)
        throw new Error(`reading blob ${sha}: unexpected git cat-file header ${JSON.stringify(header)}`);
      const size = Number(sizeText);
      await this.bytes(nl + 1 + size + 1);
      result.set(sha, Buffer.from(this.buffer.subarray(nl + 1, nl + 1 + size)));
      this.buffer = this.buffer.subarray(nl + 1 + size + 1);
    }
    return result;
  }

  close(): void {
    this.child.stdin.end();
  }
}
