// Desired state from a Git revision, end to end: sync and status read a branch, a tag or --revision from a local
// repository (work tree or bare, path or file:// URL); a bad revision, path or render changes nothing.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectl, kubectlOk, runPlugin } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TEST_TIMEOUT_MS = 120_000;

function configMap(name: string, color: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  color: ${color}\n`;
}

function appYaml(name: string, repoURL: string, namespace: string, path: string, targetRevision: string): string {
  return applicationYaml({
    name,
    spec: {
      project: 'default',
      source: { repoURL, path, targetRevision },
      destination: inCluster(namespace),
      syncPolicy: { automated: { prune: true, selfHeal: true }, syncOptions: ['ServerSideApply=true'] },
    },
  });
}

interface LiveConfigMap {
  color?: string;
  uid: string;
  resourceVersion: string;
}

async function liveConfigMap(namespace: string, name: string): Promise<LiveConfigMap | undefined> {
  const res = await kubectl(['get', 'configmap', name, '-n', namespace, '-o', 'json']);
  if (res.code !== 0) return undefined;
  const o = JSON.parse(res.stdout) as { data?: { color?: string }; metadata: { uid: string; resourceVersion: string } };
  return { color: o.data?.color, uid: o.metadata.uid, resourceVersion: o.metadata.resourceVersion };
}

describe('desired state from a Git revision (sync and status)', () => {
  let fx: GitFixture;
  let namespace: string;
  let v1: string;
  let tip: string;
  const appFile = (path: string, targetRevision: string, repoURL = fx.repo) => {
    const file = join(fx.root, `app-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, appYaml('gitsrc', repoURL, namespace, path, targetRevision));
    return file;
  };

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('apps/shop/a.yaml', configMap('a', 'v1'));
    fx.write('apps/shop/b.yaml', configMap('b', 'v1'));
    v1 = fx.commit('v1');
    fx.git(['tag', '-a', '-m', 'release 1', 'v1']);
    fx.write('apps/shop/a.yaml', configMap('a', 'v2'));
    fx.remove('apps/shop/b.yaml');
    tip = fx.commit('v2');
    fx.write('apps/shop/a.yaml', configMap('a', 'uncommitted')); // the work tree is never read
    namespace = await createTestNamespace('git-source');
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    fx?.cleanup();
    if (namespace) await deleteNamespace(namespace);
  }, TEST_TIMEOUT_MS);

  it(
    'syncs what a tag names, and status shows the resolved commit',
    async () => {
      const file = appFile('apps/shop', 'v1');
      const res = await runPlugin(['sync', '-f', file, '-o', 'json']);
      expect(res.code).toBe(0);
      const report = JSON.parse(res.stdout) as { revision?: string; applied: number };
      expect(report.revision).toBe(v1);
      expect(report.applied).toBe(2);
      expect((await liveConfigMap(namespace, 'a'))?.color).toBe('v1');
      expect((await liveConfigMap(namespace, 'b'))?.color).toBe('v1');
      const status = await runPlugin(['status', '-f', file, '-o', 'json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ source: { targetRevision: 'v1', revision: v1 } });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    '--revision overrides targetRevision; the branch tip prunes what it no longer declares',
    async () => {
      const res = await runPlugin(['sync', '-f', appFile('apps/shop', 'v1'), '--revision', 'main', '--prune', '-o', 'json']);
      expect(res.code).toBe(0);
      expect((JSON.parse(res.stdout) as { revision?: string }).revision).toBe(tip);
      expect((await liveConfigMap(namespace, 'a'))?.color).toBe('v2');
      expect(await liveConfigMap(namespace, 'b')).toBeUndefined();
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a revision that does not exist, or a path missing at that revision: exit 2, nothing applied or pruned',
    async () => {
      const before = await liveConfigMap(namespace, 'a');
      expect(before).toBeDefined();
      const noRev = await runPlugin(['sync', '-f', appFile('apps/shop', 'release-9'), '-o', 'kv']);
      expect(noRev.code).toBe(2);
      expect(noRev.stderr).toMatch(/"release-9" names no commit/);
      const noPath = await runPlugin(['sync', '-f', appFile('apps/gone', 'main'), '-o', 'kv']);
      expect(noPath.code).toBe(2);
      expect(noPath.stderr).toMatch(new RegExp(`source\\.path "apps/gone" does not exist at .*@${tip.slice(0, 7)}`));
      expect(await liveConfigMap(namespace, 'a')).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a broken manifest in the commit: exit 2 naming the file at the commit, nothing applied or pruned',
    async () => {
      const before = await liveConfigMap(namespace, 'a');
      fx.git(['checkout', '--quiet', '-b', 'broken', tip]);
      fx.write('apps/shop/a.yaml', configMap('a', 'v3'));
      fx.write('apps/shop/z.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [oops\n');
      const broken = fx.commit('broken');
      fx.git(['checkout', '--quiet', 'main']);
      const res = await runPlugin(['sync', '-f', appFile('apps/shop', 'broken'), '-o', 'kv']);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(`@${broken.slice(0, 7)}:apps/shop/z.yaml`);
      expect(await liveConfigMap(namespace, 'a')).toEqual(before);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'reads a bare repository through a file:// URL',
    async () => {
      const bare = join(fx.root, 'bare.git');
      fx.git(['clone', '--quiet', '--bare', fx.repo, bare], fx.root);
      const res = await runPlugin(['diff', '-f', appFile('apps/shop', 'v1', pathToFileURL(bare).href), '-o', 'kv']);
      // the cluster holds main's state (a=v2, b pruned): at v1 both differ
      expect(res.code).toBe(1);
      expect(res.stdout).toMatch(/MISSING=ConfigMap\/b/);
      await kubectlOk(['get', 'configmap', 'a', '-n', namespace]);
    },
    TEST_TIMEOUT_MS,
  );
});
