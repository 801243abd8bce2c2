// The Git source tests build on: a throw-away repository with commits, a fixed identity and no user config.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** An environment for git that ignores the user's and system config. */
function isolatedGitEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@example.invalid',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@example.invalid',
  };
}

/** A scratch folder with a fake HOME and a repository in `repo` on branch main. */
export class GitFixture {
  readonly root: string;
  readonly home: string;
  readonly repo: string;
  readonly env: Record<string, string>;

  constructor() {
    this.root = mkdtempSync(join(tmpdir(), 'kgitops-src-'));
    this.home = join(this.root, 'home');
    this.repo = join(this.root, 'repo');
    mkdirSync(this.home);
    mkdirSync(this.repo);
    this.env = isolatedGitEnv(this.home);
    this.git(['init', '--quiet', '--initial-branch=main']);
  }

  git(args: string[], cwd: string = this.repo): string {
    return execFileSync('git', args, { cwd, env: this.env, encoding: 'utf8' }).trim();
  }

  write(path: string, text: string): void {
    const full = join(this.repo, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }

  remove(path: string): void {
    unlinkSync(join(this.repo, path));
  }

  /** Stages everything and commits; returns the new commit's SHA. */
  commit(message: string): string {
    this.git(['add', '-A']);
    this.git(['commit', '--quiet', '--allow-empty', '-m', message]);
    return this.git(['rev-parse', 'HEAD']);
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A ConfigMap manifest with one data key. */
export function configMap(name: string, value: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: "${value}"\n`;
}
