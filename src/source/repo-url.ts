// Classifies an Application's source.repoURL and source.path: a local repository or a remote one to fetch; pure.
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../model/errors.js';
import { isSemverConstraint } from './semver.js';

export type RepoLocation = { kind: 'local'; path: string } | { kind: 'remote'; url: string };

/** Where a repoURL points: a `file://` URL or a path is local (relative to `cwd`); any other URL or `host:path` is remote. */
export function classifyRepoURL(repoURL: string, cwd: string): RepoLocation {
  const url = repoURL.trim();
  if (url === '') throw new InputError('the Application has no source.repoURL: give --desired DIR|FILE, or set spec.source.repoURL');
  if (/^file:/i.test(url)) {
    try {
      return { kind: 'local', path: fileURLToPath(url) };
    } catch (e) {
      throw new InputError(`source.repoURL ${JSON.stringify(url)} is not a valid file:// URL`, { cause: e });
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return { kind: 'remote', url };
  // scp-like syntax `user@host:path` or `host:path` (git's rule: a colon before any slash); not a Windows drive.
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  if (colon > 1 && (slash < 0 || colon < slash)) return { kind: 'remote', url };
  return { kind: 'local', path: isAbsolute(url) ? url : resolve(cwd, url) };
}

/**
 * source.path as a path inside the repository: `/`-separated, without `./`, a trailing `/` or empty segments;
 * `''` is the root. Paths that climb out with `..` are refused.
 */
export function normalizeSourcePath(path: string | undefined): string {
  const parts = (path ?? '').split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new InputError(`source.path ${JSON.stringify(path)} must stay inside the repository (no "..")`);
  return parts.join('/');
}

/** Revisions that could be read as git options or that git rejects outright are refused before git sees them. */
export function checkRevision(revision: string, flag: string): string {
  const rev = revision.trim();
  // A semver constraint may hold spaces (`>=1.0.0 <2.0.0`, `1.2 - 1.4`): it names a tag, found by its own rule.
  const spaces = /\s/.test(rev) && !isSemverConstraint(rev);
  if (rev.startsWith('-') || spaces || rev.includes('\0') || rev.includes('..')) {
    throw new InputError(`${flag} ${JSON.stringify(revision)} is not a valid git revision (a branch, tag, commit SHA or HEAD)`);
  }
  return rev === '' ? 'HEAD' : rev;
}

/** A URL safe to print: any password or token in it replaced by `***`. */
export function redactURL(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/@]*)@/i, (_m, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(':');
    return colon < 0 ? `${scheme}***@` : `${scheme}${userinfo.slice(0, colon)}:***@`;
  });
}
