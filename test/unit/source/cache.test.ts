import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDirFor, fetchIntoCache, REMOTE_HEAD_REF } from '../../../src/source/cache.js';
import { resolveCommit } from '../../../src/source/git.js';
import { GitFixture, configMap } from '../../support/git-source.js';

describe('the remote mirror cache', () => {
  let fx: GitFixture;
  beforeEach(() => {
    fx = new GitFixture();
  });
  afterEach(() => fx.cleanup());

  it('lives under $XDG_CACHE_HOME/kubectl-gitops/repos, one folder per URL', () => {
    const a = cacheDirFor('https://h/a.git', { XDG_CACHE_HOME: '/c', HOME: '/h' });
    expect(a).toMatch(/^\/c\/kubectl-gitops\/repos\/[0-9a-f]{16}$/);
    expect(cacheDirFor('https://h/b.git', { XDG_CACHE_HOME: '/c' })).not.toBe(a);
    expect(cacheDirFor('https://h/a.git', { HOME: '/h' })).toMatch(/^\/h\/\.cache\/kubectl-gitops\/repos\//);
  });

  it('mirrors branches, tags and the remote HEAD, and follows a force-pushed branch', async () => {
    fx.write('a.yaml', configMap('a', '1'));
    const one = fx.commit('one');
    fx.git(['tag', 'v1']);
    fx.write('a.yaml', configMap('a', '2'));
    const two = fx.commit('two');
    // git accepts a path where a URL is expected: it stands in for a reachable remote here
    const dir = await fetchIntoCache(fx.repo, fx.env);
    expect(dir.gitDir.startsWith(join(fx.home, '.cache', 'kubectl-gitops', 'repos'))).toBe(true);
    expect(existsSync(join(dir.gitDir, 'HEAD'))).toBe(true);
    expect(existsSync(join(dir.gitDir, 'index'))).toBe(false); // bare: no index, no work tree
    expect(await resolveCommit(dir, 'main')).toBe(two);
    expect(await resolveCommit(dir, 'v1')).toBe(one);
    expect(await resolveCommit(dir, REMOTE_HEAD_REF)).toBe(two);

    fx.git(['reset', '--quiet', '--hard', one]);
    fx.write('a.yaml', configMap('a', 'rewritten'));
    const rewritten = fx.commit('rewritten history');
    await fetchIntoCache(fx.repo, fx.env);
    expect(await resolveCommit(dir, 'main')).toBe(rewritten);
    expect(await resolveCommit(dir, two)).toBe(two); // the old commit is still readable by SHA
  });
});
