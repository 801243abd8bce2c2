// Mirrors a remote repository into a bare cache (~/.cache/kubectl-gitops/repos/<hash>, see cache-home.ts) with `git fetch`.
import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheHome } from './cache-home.js';
import { GitNotFoundError, runGit, type GitDir } from './git.js';
import { redactURL } from './repo-url.js';
import { InputError } from '../model/errors.js';

/** The ref the remote's HEAD is fetched into, since a bare mirror's own HEAD does not follow the remote's. */
export const REMOTE_HEAD_REF = 'refs/kgitops/remote-HEAD';

/** Where the mirror of `url` lives: <cache home>/repos/<sha256(url)[:16]> (see cache-home.ts). */
export function cacheDirFor(url: string, env: Record<string, string | undefined>): string {
  const hash = createHash('sha256').update(url).digest('hex').slice(0, 16);
  return join(cacheHome(env), 'repos', hash);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Fetches every branch and tag of `url` (forced, so a force-pushed branch follows the remote) and its HEAD into the
 * bare cache, creating it on first use. Unreachable: an InputError that says how to use a local clone instead.
 */
export async function fetchIntoCache(
  url: string,
  env: Record<string, string | undefined>,
  opts: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<GitDir> {
  const gitDir = cacheDirFor(url, env);
  const dir: GitDir = { gitDir, env };
  try {
    if (!(await exists(join(gitDir, 'HEAD')))) {
      await mkdir(gitDir, { recursive: true });
      await runGit(['init', '--bare', '--quiet', gitDir], { env });
    }
    await runGit(
      [
        `--git-dir=${gitDir}`,
        'fetch',
        '--quiet',
        '--prune',
        '--no-tags',
        '--',
        url,
        '+refs/heads/*:refs/heads/*',
        '+refs/tags/*:refs/tags/*',
        `+HEAD:${REMOTE_HEAD_REF}`,
      ],
      // Only ordinary transports: never ext:: or fd:: from a repoURL someone else wrote.
      { env, set: { GIT_ALLOW_PROTOCOL: 'file:git:http:https:ssh' }, timeoutMs: opts.timeoutMs ?? 120_000, signal: opts.signal },
    );
  } catch (e) {
    if (e instanceof GitNotFoundError) throw e;
    throw new InputError(
      `fetching ${redactURL(url)} failed: the remote is unreachable or refused us. ` +
        'Clone it yourself and point at the clone with --repo-dir DIR (or set source.repoURL to a local path or file:// URL)',
      { cause: e },
    );
  }
  return dir;
}
