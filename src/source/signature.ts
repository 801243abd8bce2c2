// The GPG signature check Argo CD makes of a target commit when the AppProject lists signatureKeys (its repo-server's
// `git verify-commit` against a keyring that holds only argocd-gpg-keys-cm's public keys, the output read as
// util/gpg reads it, and controller/state.go's verdicts in its words). Without gpg on this machine the sync is refused
// rather than run unverified.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitEnv, type GitDir } from './git.js';
import { runTool } from './render/tools.js';

/** Argo CD's KeyID: a key ID or fingerprint compared by its last 16 hex digits, upper case. */
export function keyId(k: string): string {
  const hex = k.replace(/\s+/g, '').toUpperCase();
  return /^[0-9A-F]{16,}$/.test(hex) ? hex.slice(-16) : '';
}

export interface Verification {
  result: 'Good' | 'Invalid' | 'Unknown' | 'Unsigned';
  cipher: string;
  keyId: string;
  message: string;
}

/** `git verify-commit` output (gpg's lines on stderr), read as Argo CD's parseGitCommitVerification reads it. */
export function parseVerification(text: string): Verification {
  if (text.trim() === '') return { result: 'Unsigned', cipher: '', keyId: '', message: '' };
  let cipher = '';
  let key = '';
  for (const line of text.split('\n')) {
    const using = /^gpg:\s+using\s([A-Za-z0-9]+)\skey\s([a-zA-Z0-9]+)$/.exec(line.trim());
    if (using) {
      cipher = using[1]!;
      key = using[2]!;
      continue;
    }
    const status = /^gpg: ([a-zA-Z]+) signature from "([^"]+)"(?: \[([a-zA-Z]+)\])?$/.exec(line.trim());
    if (status) {
      const word = status[1]!;
      if (word === 'Good') return { result: 'Good', cipher, keyId: key, message: line.trim() };
      return { result: 'Invalid', cipher, keyId: key, message: line.replace(/^gpg:\s*/, '').trim() };
    }
  }
  return { result: 'Unknown', cipher, keyId: key, message: text.trim().split('\n').pop() ?? '' };
}

/** controller/state.go's verdict on one commit (undefined: a good signature by an allowed key). */
export function signatureVerdict(revision: string, v: Verification, allowed: readonly string[]): string | undefined {
  switch (v.result) {
    case 'Unsigned':
      return `Target revision ${revision} in Git is not signed, but a signature is required`;
    case 'Good':
      return allowed.some((k) => keyId(k) !== '' && keyId(k) === keyId(v.keyId))
        ? undefined
        : `Found good signature made with ${v.cipher} key ${v.keyId}, but this key is not allowed in AppProject`;
    case 'Invalid':
      return `Found signature made with ${v.cipher} key ${v.keyId}, but verification result was invalid: '${v.message}'`;
    default:
      return `Could not verify commit signature on revision '${revision}', check logs for more information.`;
  }
}

/**
 * Verifies each commit against a keyring of `publicKeys` (ASCII-armoured, argocd-gpg-keys-cm's values) and the
 * allowed key IDs; the first refusal, or undefined when every commit carries a good signature by an allowed key.
 */
export async function verifyCommits(
  commits: readonly { dir: GitDir; sha: string }[],
  publicKeys: readonly string[],
  allowed: readonly string[],
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  const home = await mkdtemp(join(tmpdir(), 'kubectl-gitops-gpg-'));
  try {
    const gpgEnv = { ...gitEnv(env), GNUPGHOME: home };
    try {
      for (const key of publicKeys) await runTool('gpg', ['--batch', '--quiet', '--import'], { env: gpgEnv, input: key });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT')
        return 'the project requires signed commits and gpg is not installed here, so no signature can be verified: install gpg (GnuPG)';
      throw err;
    }
    for (const c of commits) {
      const res = await runTool('git', ['--git-dir', c.dir.gitDir, 'verify-commit', c.sha], { env: { ...gitEnv(c.dir.env), GNUPGHOME: home } });
      const verdict = signatureVerdict(c.sha, parseVerification(res.stderr), allowed);
      if (verdict) return verdict;
    }
    return undefined;
  } finally {
    // A gpg-agent gpg may have started for this keyring ends with it.
    await runTool('gpgconf', ['--homedir', home, '--kill', 'all'], { env: { ...gitEnv(env), GNUPGHOME: home } }).catch(() => undefined);
    await rm(home, { recursive: true, force: true });
  }
}
