// Charts from a Helm repository: which repoURLs are Helm repositories and which OCI, which targetRevisions are exact
// versions (found in the cache without asking) and which ranges (resolved by Helm), the cache, and the refusals.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../../src/model/errors.js';
import { chartCacheDir, chartRepoKind, isExactVersion, isLoopbackRegistry, pullChart, pullTarget } from '../../../src/source/chart-repo.js';

describe('charts from a Helm repository', () => {
  it('tells a Helm repository (http, https) from an OCI registry (oci:// or no scheme, as Argo CD writes it)', () => {
    expect(chartRepoKind('https://charts.example.com')).toBe('http');
    expect(chartRepoKind('http://127.0.0.1:8080/x')).toBe('http');
    expect(chartRepoKind('registry.example.com/charts')).toBe('oci');
    expect(chartRepoKind('oci://registry.example.com/charts')).toBe('oci');
  });

  it('pulls from a Helm repository with --repo, from an OCI registry as oci://REGISTRY/PATH/CHART (plain HTTP on loopback only)', () => {
    expect(pullTarget('https://charts.example.com', 'web')).toEqual(['web', '--repo', 'https://charts.example.com']);
    expect(pullTarget('https://charts.example.com', 'web', true)).toEqual(['web', '--repo', 'https://charts.example.com', '--pass-credentials']);
    expect(pullTarget('registry.example.com/charts', 'web')).toEqual(['oci://registry.example.com/charts/web']);
    expect(pullTarget('oci://registry.example.com/charts/', 'web')).toEqual(['oci://registry.example.com/charts/web']);
    expect(pullTarget('127.0.0.1:5000/charts', 'web')).toEqual(['oci://127.0.0.1:5000/charts/web', '--plain-http']);
    for (const h of ['localhost:5000/x', '127.0.0.2/x', '[::1]:5000/x']) expect(isLoopbackRegistry(h)).toBe(true);
    for (const h of ['registry.example.com/x', '10.0.0.1:5000/x', '127.0.0.1.example.com/x']) expect(isLoopbackRegistry(h)).toBe(false);
  });

  it('tells an exact version from a range', () => {
    for (const v of ['1.2.3', 'v1.2.3', '1.2.3-rc.1', '1.2.3+build.5']) expect(isExactVersion(v)).toBe(true);
    for (const v of ['1.*', '^1.2', '~1.2.0', '>=1.0.0 <2.0.0', '1.2', '', '*']) expect(isExactVersion(v)).toBe(false);
  });

  describe('pulling', () => {
    let home: string;
    beforeAll(() => {
      home = mkdtempSync(join(tmpdir(), 'kgitops-chart-test-'));
    });
    afterAll(() => rmSync(home, { recursive: true, force: true }));
    const env = () => ({ XDG_CACHE_HOME: home, PATH: process.env.PATH ?? '' });

    it('takes an exact version from the cache without running helm', async () => {
      const dir = chartCacheDir(env(), 'https://charts.example.com');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'web-1.2.3.tgz'), 'x');
      const got = await pullChart({ repoURL: 'https://charts.example.com', chart: 'web', version: 'v1.2.3', helm: '/no/such/helm', env: env() });
      expect(got).toEqual({ version: '1.2.3', archive: join(dir, 'web-1.2.3.tgz') });
      // Another repository has its own cache.
      expect(chartCacheDir(env(), 'https://other.example.com')).not.toBe(dir);
    });

    it("refuses a chart name that is a path and a version that is an option; helm's failure is exit 2", async () => {
      await expect(pullChart({ repoURL: 'https://c.example', chart: '../web', version: '1.0.0', helm: '/bin/false', env: env() })).rejects.toThrow(
        /is not a chart name/,
      );
      await expect(pullChart({ repoURL: 'https://c.example', chart: 'web', version: '--devel', helm: '/bin/false', env: env() })).rejects.toThrow(
        /is not a version or a range/,
      );
      const failed = pullChart({ repoURL: 'https://c.example', chart: 'web', version: '1.*', helm: '/bin/false', env: env() });
      await expect(failed).rejects.toThrow(InputError);
      await expect(pullChart({ repoURL: 'https://c.example', chart: 'web', version: '1.*', helm: '/bin/false', env: env() })).rejects.toThrow(
        /helm pull failed for web@1\.\* from https:\/\/c\.example: exit 1/,
      );
    });
  });
});
