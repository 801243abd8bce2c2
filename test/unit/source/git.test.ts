import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findGitDir, gitEnv, listTree, objectTypeAt, readBlobs, resolveCommit } from '../../../src/source/git.js';
import { GitFixture, configMap } from '../../support/git-source.js';

describe('git plumbing', () => {
  let fx: GitFixture;
  beforeEach(() => {
    fx = new GitFixture();
  });
  afterEach(() => fx.cleanup());

  it('finds the git directory of a work tree root and of a bare repository, not of a subfolder', async () => {
    fx.write('apps/a.yaml', configMap('a', '1'));
    fx.commit('one');
    expect(await findGitDir(fx.repo, fx.env)).toBe(join(fx.repo, '.git'));
    expect(await findGitDir(join(fx.repo, 'apps'), fx.env)).toBeUndefined();
    expect(await findGitDir(fx.home, fx.env)).toBeUndefined();
    const bare = join(fx.root, 'bare.git');
    fx.git(['clone', '--quiet', '--bare', fx.repo, bare], fx.root);
    expect(await findGitDir(bare, fx.env)).toBe(bare);
  });

  it('a work tree root found without git is the one git finds; a .git folder git would not take is left to git', async () => {
    fx.write('a.yaml', configMap('a', '1'));
    fx.commit('one');
    const trace = join(fx.root, 'trace.log');
    const traced = { ...fx.env, GIT_TRACE: trace };
    const byGit = fx.git(['rev-parse', '--absolute-git-dir']);
    expect(await findGitDir(fx.repo, traced)).toBe(byGit);
    expect(existsSync(trace)).toBe(false); // no git process
    // A HEAD git would refuse: git is asked, and says it is no repository.
    writeFileSync(join(fx.repo, '.git', 'HEAD'), 'garbage\n');
    expect(await findGitDir(fx.repo, traced)).toBeUndefined();
    expect(readFileSync(trace, 'utf8')).toContain('rev-parse --absolute-git-dir');
  });

  it('resolves branches, tags, SHAs and HEAD, and nothing for an unknown name', async () => {
    fx.write('a.yaml', configMap('a', '1'));
    const first = fx.commit('one');
    fx.git(['tag', '-a', '-m', 'v1', 'v1']);
    fx.write('a.yaml', configMap('a', '2'));
    const second = fx.commit('two');
    const dir = { gitDir: join(fx.repo, '.git'), env: fx.env };
    expect(await resolveCommit(dir, 'main')).toBe(second);
    expect(await resolveCommit(dir, 'HEAD')).toBe(second);
    expect(await resolveCommit(dir, 'v1')).toBe(first); // annotated tag peeled to its commit
    expect(await resolveCommit(dir, first.slice(0, 10))).toBe(first);
    expect(await resolveCommit(dir, 'nope')).toBeUndefined();
    expect(await resolveCommit(dir, '0000000000000000000000000000000000000000')).toBeUndefined();
  });

  it('lists a directory recursively, one file, and reports missing paths', async () => {
    fx.write('apps/shop/b.yaml', configMap('b', '1'));
    fx.write('apps/shop/sub/c.yml', configMap('c', '1'));
    fx.write('apps/shopping/x.yaml', configMap('x', '1'));
    fx.write('README.md', '# hi\n');
    const sha = fx.commit('one');
    const dir = { gitDir: join(fx.repo, '.git'), env: fx.env };
    const listed = await listTree(dir, sha, 'apps/shop');
    expect(listed.map((e) => e.path)).toEqual(['apps/shop/b.yaml', 'apps/shop/sub/c.yml']);
    expect(listed.every((e) => e.type === 'blob' && /^[0-9a-f]{40}$/.test(e.sha))).toBe(true);
    expect((await listTree(dir, sha, 'apps/shop/b.yaml')).map((e) => e.path)).toEqual(['apps/shop/b.yaml']);
    expect((await listTree(dir, sha, '')).length).toBe(4);
    expect(await objectTypeAt(dir, sha, 'apps/shop')).toBe('tree');
    expect(await objectTypeAt(dir, sha, 'apps/shop/b.yaml')).toBe('blob');
    expect(await objectTypeAt(dir, sha, 'apps/none')).toBeUndefined();
  });

  it('reads several blobs, including binary-safe and empty ones, in one call', async () => {
    fx.write('a.yaml', configMap('a', 'é\n'));
    fx.write('empty.yaml', '');
    writeFileSync(join(fx.repo, 'nl.yaml'), 'x: 1\n\n\n');
    const sha = fx.commit('one');
    const dir = { gitDir: join(fx.repo, '.git'), env: fx.env };
    const entries = await listTree(dir, sha, '');
    const blobs = await readBlobs(
      dir,
      entries.map((e) => e.sha),
    );
    const text = (p: string) => blobs.get(entries.find((e) => e.path === p)!.sha)!.toString('utf8');
    expect(text('a.yaml')).toBe(configMap('a', 'é\n'));
    expect(text('empty.yaml')).toBe('');
    expect(text('nl.yaml')).toBe('x: 1\n\n\n');
  });

  it('never inherits variables that redirect git elsewhere', () => {
    const env = gitEnv({ GIT_DIR: '/elsewhere', GIT_INDEX_FILE: '/x', HOME: '/h' });
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_INDEX_FILE).toBeUndefined();
    expect(env.HOME).toBe('/h');
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');
  });
});
