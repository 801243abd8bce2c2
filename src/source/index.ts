// The desired manifests of an Application: from --desired, or from a Git revision's tree read without any checkout.
import type { Application } from '../app/types.js';
import type { Io } from '../cli/io.js';
import { InputError, UnrenderableError } from '../cli/exit-codes.js';
import { loadManifests, localFiles, parseManifests, rejectDuplicates, type ManifestObject } from '../manifest/index.js';
import { fileBlockers, recurses, specBlockers } from './renderability.js';
import { fetchIntoCache, REMOTE_HEAD_REF } from './cache.js';
import { findGitDir, listTree, objectTypeAt, readBlobs, resolveCommit, type GitDir, type TreeEntry } from './git.js';
import { checkRevision, classifyRepoURL, normalizeSourcePath, redactURL } from './repo-url.js';

export interface DesiredOptions {
  /** A file, directory or `-`: overrides the Application's source entirely. */
  desired?: string;
  /** Overrides source.targetRevision. */
  revision?: string;
  /** A local clone to read a remote repoURL from, instead of fetching it. */
  repoDir?: string;
  /** Resolves relative repoURL paths (default: the process working directory). */
  cwd?: string;
  signal?: AbortSignal;
}

export interface DesiredManifests {
  objects: ManifestObject[];
  /** The resolved commit SHA (absent for --desired). */
  revision?: string;
  /** Where the manifests came from, for messages: the --desired path or `<repo>@<sha7>:<path>`. */
  origin: string;
  /** Files skipped on purpose (symlinks, submodules), said rather than dropped silently. */
  warnings: string[];
}

const MANIFEST_FILE = /\.(ya?ml|json)$/i;

/** Whether a file or folder below `root` starts with a dot (skipped, as loadManifests skips them on disk). */
function hiddenBelow(path: string, root: string): boolean {
  const rest = root === '' ? path : path.slice(root.length + 1);
  return rest.split('/').some((seg) => seg.startsWith('.'));
}

/** Folder by folder, name by name: the order loadManifests walks a directory in. */
function comparePaths(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i] ?? '';
    const y = bs[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

/**
 * Loads the desired manifests: `desired` given → that file or directory; otherwise the Application's
 * source.repoURL (a local path, a file:// URL, or a remote fetched into a cache, or read from `repoDir`) at
 * `revision` ?? source.targetRevision ?? HEAD, under source.path. Any error is an InputError and nothing is returned.
 */
export async function loadDesiredManifests(app: Application, opts: DesiredOptions, io: Io): Promise<DesiredManifests> {
  if (opts.desired !== undefined && opts.desired !== '') {
    // Plain manifests, read recursively; a folder that is really another type of source is refused, not half read.
    if (opts.desired !== '-') refuseUnrenderable(fileBlockers(await localFiles(opts.desired), `--desired ${opts.desired}`));
    return { objects: await loadManifests(opts.desired, io), origin: opts.desired, warnings: [] };
  }
  refuseUnrenderable(specBlockers(app));
  const repoURL = app.source.repoURL ?? '';
  if (repoURL.trim() === '') {
    throw new InputError(`the Application ${app.name} (${app.origin}) has no spec.source.repoURL: give --desired DIR|FILE`);
  }
  const flag = opts.revision !== undefined ? '--revision' : 'source.targetRevision';
  const revision = checkRevision(opts.revision ?? app.source.targetRevision ?? '', flag);
  const path = normalizeSourcePath(app.source.path);
  const repo = await openRepository(repoURL, opts, io);
  const sha = await resolveRevision(repo, revision);
  if (sha === undefined) {
    throw new InputError(`${flag} ${JSON.stringify(revision)} names no commit in ${repo.label}: expected a branch, tag, commit SHA or HEAD`);
  }
  return readManifestsAt(repo, sha, path, recurses(app));
}

/** Throws the refusal when a source cannot be rendered completely as Argo CD would. */
function refuseUnrenderable(reasons: readonly string[]): void {
  if (reasons.length > 0) throw new UnrenderableError(reasons);
}

interface OpenRepository {
  dir: GitDir;
  /** The repository as people named it, safe to print. */
  label: string;
  /** Refs to try, in order, for a revision name (a mirror's HEAD lives elsewhere; a clone's branches under origin/). */
  candidates(revision: string): string[];
}

async function openRepository(repoURL: string, opts: DesiredOptions, io: Io): Promise<OpenRepository> {
  const location = classifyRepoURL(repoURL, opts.cwd ?? process.cwd());
  const env = io.env;
  if (opts.repoDir !== undefined && opts.repoDir !== '') {
    const gitDir = await findGitDir(opts.repoDir, env);
    if (gitDir === undefined) throw new InputError(`--repo-dir ${opts.repoDir} is not a git repository (its root or a bare repository)`);
    return {
      dir: { gitDir, env },
      label: opts.repoDir,
      candidates: (rev) => (rev === 'HEAD' || /^[0-9a-f]{7,64}$/i.test(rev) ? [rev] : [rev, `refs/remotes/origin/${rev}`]),
    };
  }
  if (location.kind === 'local') {
    const gitDir = await findGitDir(location.path, env);
    if (gitDir === undefined) {
      throw new InputError(`source.repoURL ${repoURL} is not a git repository (expected its root, a bare repository, or a file:// URL to one)`);
    }
    return { dir: { gitDir, env }, label: repoURL, candidates: (rev) => [rev] };
  }
  const dir = await fetchIntoCache(location.url, env, { signal: opts.signal });
  return { dir, label: redactURL(location.url), candidates: (rev) => (rev === 'HEAD' ? [REMOTE_HEAD_REF] : [rev]) };
}

async function resolveRevision(repo: OpenRepository, revision: string): Promise<string | undefined> {
  for (const candidate of repo.candidates(revision)) {
    try {
      const sha = await resolveCommit(repo.dir, candidate);
      if (sha !== undefined) return sha;
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError(`resolving revision ${JSON.stringify(revision)} in ${repo.label}`, { cause: e });
    }
  }
  return undefined;
}

/**
 * The manifests at `path` in commit `sha`: the folder's own files, and those of its subfolders only with `recurse`
 * (Argo CD's `directory.recurse`, false by default); a path naming one file is that file.
 */
async function readManifestsAt(repo: OpenRepository, sha: string, path: string, recurse: boolean): Promise<DesiredManifests> {
  const at = `${repo.label}@${sha.slice(0, 7)}`;
  const origin = `${at}:${path === '' ? '/' : path}`;
  let entries: TreeEntry[];
  try {
    if (path !== '' && (await objectTypeAt(repo.dir, sha, path)) === undefined) {
      throw new InputError(`source.path ${JSON.stringify(path)} does not exist at ${at}`);
    }
    entries = await listTree(repo.dir, sha, path);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`listing ${origin}`, { cause: e });
  }
  const warnings: string[] = [];
  const files: TreeEntry[] = [];
  const single = entries.length === 1 && entries[0]?.path === path;
  const below = (p: string) => (path === '' ? p : p.slice(path.length + 1));
  if (!single) {
    entries = entries.filter((e) => !hiddenBelow(e.path, path) && (recurse || !below(e.path).includes('/')));
    refuseUnrenderable(fileBlockers(entries.map((e) => below(e.path)), origin));
  }
  for (const entry of entries) {
    if (!single && (!MANIFEST_FILE.test(entry.path) || hiddenBelow(entry.path, path))) continue;
    if (entry.type !== 'blob') warnings.push(`skipped ${at}:${entry.path}: a ${entry.type === 'commit' ? 'submodule' : entry.type}, not a file`);
    else if (entry.mode === '120000') warnings.push(`skipped ${at}:${entry.path}: a symbolic link`);
    else files.push(entry);
  }
  files.sort((a, b) => comparePaths(a.path, b.path));
  let blobs: Map<string, Buffer>;
  try {
    blobs = await readBlobs(repo.dir, files.map((f) => f.sha));
  } catch (e) {
    throw new InputError(`reading ${origin}`, { cause: e });
  }
  const objects: ManifestObject[] = [];
  for (const file of files) {
    const text = blobs.get(file.sha)?.toString('utf8') ?? '';
    objects.push(...parseManifests(text, `${at}:${file.path}`));
  }
  rejectDuplicates(objects);
  return { objects, revision: sha, origin, warnings };
}
