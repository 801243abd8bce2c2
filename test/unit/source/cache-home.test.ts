// Where the caches live: kubectl's cache directory (--cache-dir, passed on as KUBECACHEDIR, or $KUBECACHEDIR) first,
// then $XDG_CACHE_HOME, then ~/.cache; the Git mirrors and the render cache both follow it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cacheHome } from '../../../src/source/cache-home.js';
import { cacheDirFor } from '../../../src/source/cache.js';
import { renderCacheDir } from '../../../src/source/render/cache.js';
import { runCli } from '../../../src/cli/app.js';
import { memoryIo } from '../../../src/cli/io.js';
import { applicationYaml, inCluster } from '../../support/application.js';

describe('cacheHome', () => {
  it('KUBECACHEDIR over XDG_CACHE_HOME over HOME/.cache, always in a kubectl-gitops folder', () => {
    expect(cacheHome({ KUBECACHEDIR: '/k', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/k/kubectl-gitops');
    expect(cacheHome({ KUBECACHEDIR: '', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/x/kubectl-gitops');
    expect(cacheHome({ HOME: '/h' })).toBe('/h/.cache/kubectl-gitops');
    expect(cacheHome({ KUBECACHEDIR: 'rel' })).toBe(join(resolve('rel'), 'kubectl-gitops'));
  });

  it('the Git mirrors and the render cache are both under it', () => {
    const env = { KUBECACHEDIR: '/k', HOME: '/h' };
    expect(cacheDirFor('https://h/a.git', env)).toMatch(/^\/k\/kubectl-gitops\/repos\/[0-9a-f]{16}$/);
    expect(renderCacheDir(env)).toBe('/k/kubectl-gitops/renders');
  });
});

describe('--cache-dir', () => {
  it('is taken by the commands that read sources, and refused by the others', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kgitops-cachedir-'));
    try {
      const app = join(dir, 'app.yaml');
      writeFileSync(app, applicationYaml({ namespace: null, spec: { destination: inCluster('shop') } }));
      const env = { KUBECONFIG: join(dir, 'none'), HOME: join(dir, 'home') };
      // Parsed (the command then stops at the missing kubeconfig, exit 2 naming it, not the flag).
      const diff = memoryIo({ env });
      expect(await runCli(['diff', '-f', app, '--desired', dir, '--cache-dir', join(dir, 'c')], diff.io)).toBe(2);
      expect(diff.stderr()).not.toMatch(/cache-dir/);
      expect(diff.stderr()).toMatch(/no current-context/);
      const version = memoryIo({ env });
      expect(await runCli(['version', '--cache-dir', dir], version.io)).toBe(2);
      expect(version.stderr()).toMatch(/cache-dir/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
