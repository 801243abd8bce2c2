// Argo CD's OCI source (`repoURL: oci://…` with a path, no chart) against the CNCF distribution registry the local
// control plane builds from its Go module, on loopback: an artifact of plain manifests pushed through the registry API
// (a tar+gzip layer, as `oras push` makes it) is synced at its tag, its digest is the revision, and a second tag is
// read as a new revision; its render is kept by the digest and --hard-refresh renders it anew; an OCI entry of spec.sources renders beside a Git one; an artifact of two content layers is refused in Argo CD's words, nothing changed.
import { spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applicationYaml, inCluster } from '../support/application.js';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin } from './support/index.js';
import { startRegistry } from './support/registry.js';

const T = 180_000;
const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

describe('OCI sources', () => {
  let work: string;
  let registry: ChildProcess | undefined;
  let host: string;
  let ns: string;

  /** Uploads a blob (monolithic: POST then PUT with its digest) and returns its descriptor. */
  const blob = async (repo: string, body: Buffer, mediaType: string) => {
    const started = await fetch(`http://${host}/v2/${repo}/blobs/uploads/`, { method: 'POST' });
    expect(started.status).toBe(202);
    const location = new URL(started.headers.get('location') ?? '', `http://${host}`);
    location.searchParams.set('digest', sha256(body));
    const put = await fetch(location, { method: 'PUT', body, headers: { 'Content-Type': 'application/octet-stream' } });
    expect(put.status).toBe(201);
    return { mediaType, digest: sha256(body), size: body.length };
  };
  /** Pushes an artifact of these layers under `tag`; returns the manifest's digest. */
  const push = async (repo: string, tag: string, layers: Buffer[]) => {
    const config = await blob(repo, Buffer.from('{}'), 'application/vnd.oci.image.config.v1+json');
    const descs = [];
    for (const l of layers) descs.push(await blob(repo, l, 'application/vnd.oci.image.layer.v1.tar+gzip'));
    const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config, layers: descs }));
    const res = await fetch(`http://${host}/v2/${repo}/manifests/${tag}`, {
      method: 'PUT',
      body: manifest,
      headers: { 'Content-Type': 'application/vnd.oci.image.manifest.v1+json' },
    });
    expect(res.status).toBe(201);
    return sha256(manifest);
  };
  /** A tar+gzip of these files (made by tar, as a user's would be). */
  const tgz = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(work, 'layer-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name, '..'), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    const out = join(work, `${Math.random().toString(36).slice(2)}.tgz`);
    const r = spawnSync('tar', ['czf', out, '-C', dir, '.']);
    expect(r.status).toBe(0);
    return readFileSync(out);
  };
  const cm = (name: string, v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {v: "${v}"}\n`;
  const appFile = (repoURL: string, tag: string) => {
    const file = join(work, `app-${tag}.yaml`);
    writeFileSync(file, applicationYaml({ name: 'oci', spec: { source: { repoURL, path: 'deploy', targetRevision: tag }, destination: inCluster(ns) } }));
    return file;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'kgitops-oci-'));
    const started = await startRegistry(work);
    host = started.host;
    registry = started.process;
    ns = await createTestNamespace('oci');
  }, T);

  afterAll(async () => {
    registry?.kill();
    if (work) rmSync(work, { recursive: true, force: true });
    if (ns) await deleteNamespace(ns);
  }, T);

  test(
    "a manifests artifact syncs at its tag with the manifest's digest as the revision; a new tag is a new revision",
    async () => {
      const v1 = await push('manifests/shop', 'v1', [tgz({ 'deploy/a.yaml': cm('oci-a', '1'), 'README.md': '# not read\n' })]);
      const repoURL = `oci://${host}/manifests/shop`;
      const synced = await runPlugin(['sync', '-f', appFile(repoURL, 'v1'), '-o', 'kv']);
      expect({ code: synced.code, out: synced.stdout, err: synced.stderr }).toEqual({ code: 0, out: `APPLIED=1\nPHASE=Succeeded\nREVISION=${v1}\n`, err: '' });
      expect(JSON.parse(await kubectlOk(['get', 'configmap', 'oci-a', '-n', ns, '-o', 'json'])).data).toEqual({ v: '1' });
      const status = await runPlugin(['status', '-f', appFile(repoURL, 'v1'), '-o', 'kv']);
      expect({ sync: kvValues(status.stdout).SYNC, revision: kvValues(status.stdout).REVISION }).toEqual({ sync: ['Synced'], revision: [v1] });

      const v2 = await push('manifests/shop', 'v2', [tgz({ 'deploy/a.yaml': cm('oci-a', '2') })]);
      const diff = await runPlugin(['diff', '-f', appFile(repoURL, 'v2'), '-o', 'kv']);
      expect(diff.code).toBe(1);
      expect(kvValues(diff.stdout).DRIFT).toEqual(['ConfigMap/oci-a data.v']);
      // The digest pins the artifact as the tag did.
      expect((await runPlugin(['diff', '-f', appFile(repoURL, v2), '-o', 'kv'])).code).toBe(1);
      expect(v2).not.toBe(v1);
    },
    T,
  );

  test(
    "a semver constraint names the greatest tag that satisfies it, as Argo CD's OCI client resolves it (the registry's tags list); none is exit 2",
    async () => {
      const repoURL = `oci://${host}/manifests/ranged`;
      const digests: Record<string, string> = {};
      for (const tag of ['1.0.0', '1.4.0', '1.10.0-rc.1', '2.0.0', 'latest'])
        digests[tag] = await push('manifests/ranged', tag, [tgz({ 'deploy/r.yaml': cm(`oci-ranged-${tag.replaceAll('.', '-')}`, tag) })]);
      const revision = async (range: string) => {
        const res = await runPlugin(['status', '-f', appFile(repoURL, range), '-o', 'kv']);
        expect({ code: res.code, err: res.stderr }).toEqual({ code: 0, err: '' });
        return kvValues(res.stdout).REVISION?.[0];
      };
      expect(await revision('1.*')).toBe(digests['1.4.0']);
      expect(await revision('>=1.0.0 <1.4.0')).toBe(digests['1.0.0']);
      expect(await revision('*')).toBe(digests['2.0.0']);
      // A tag that reads as a constraint too is that tag.
      expect(await revision('1.0.0')).toBe(digests['1.0.0']);
      const none = await runPlugin(['sync', '-f', appFile(repoURL, '^3'), '-o', 'kv']);
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/no version for constraints: version matching constraint not found in 5 tags/);
    },
    T,
  );

  test(
    "an artifact's render is kept by its digest, as a Git commit's is, and --hard-refresh renders it anew",
    async () => {
      await push('manifests/cached', 'v1', [tgz({ 'deploy/c.yaml': cm('oci-cached', '1') })]);
      // An app of its own name: the first test's app (oci) tracks objects in the same namespace.
      const file = join(work, 'app-cached.yaml');
      writeFileSync(
        file,
        applicationYaml({
          name: 'oci-cached',
          spec: { source: { repoURL: `oci://${host}/manifests/cached`, path: 'deploy', targetRevision: 'v1' }, destination: inCluster(ns) },
        }),
      );
      const env = { XDG_CACHE_HOME: join(work, 'cache') };
      expect((await runPlugin(['sync', '-f', file, '-o', 'kv'], { env })).code).toBe(0);
      // The entry the sync wrote, changed by hand: a plain diff reads it (drift), a hard refresh does not (in sync).
      const renders = join(work, 'cache', 'kubectl-gitops', 'renders');
      const entries = readdirSync(renders).filter((f) => f.endsWith('.json') && readFileSync(join(renders, f), 'utf8').includes('oci-cached'));
      expect(entries).toHaveLength(1);
      const entry = join(renders, entries[0]!);
      writeFileSync(entry, readFileSync(entry, 'utf8').replace('"v":"1"', '"v":"from-the-cache"'));
      const cached = await runPlugin(['diff', '-f', file, '-o', 'kv'], { env });
      expect({ code: cached.code, drift: kvValues(cached.stdout).DRIFT }).toEqual({ code: 1, drift: ['ConfigMap/oci-cached data.v'] });
      const hard = await runPlugin(['diff', '--hard-refresh', '-f', file, '-o', 'kv'], { env });
      expect({ code: hard.code, sync: kvValues(hard.stdout).SYNC, err: hard.stderr }).toEqual({ code: 0, sync: ['Synced'], err: '' });
    },
    T,
  );

  test(
    'an OCI entry of spec.sources beside a Git one: both rendered, each revision recorded in order',
    async () => {
      const digest = await push('manifests/multi', 'v1', [tgz({ 'deploy/m.yaml': cm('oci-multi', '1') })]);
      const fx = new GitFixture();
      try {
        fx.write('git/g.yaml', cm('git-multi', '1'));
        const sha = fx.commit('git');
        const file = join(work, 'multi.yaml');
        writeFileSync(
          file,
          applicationYaml({
            name: 'multi',
            spec: {
              sources: [
                { repoURL: `oci://${host}/manifests/multi`, path: 'deploy', targetRevision: 'v1' },
                { repoURL: fx.repo, path: 'git', targetRevision: 'main' },
              ],
              destination: inCluster(ns),
            },
          }),
        );
        const synced = await runPlugin(['sync', '-f', file, '-o', 'json']);
        expect(synced.code).toBe(0);
        expect((JSON.parse(synced.stdout) as { revisions: string[] }).revisions).toEqual([digest, sha]);
        for (const name of ['oci-multi', 'git-multi'])
          expect(JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'json'])).data).toEqual({ v: '1' });
      } finally {
        fx.cleanup();
      }
    },
    T,
  );

  test('two content layers, or a tag the registry lacks: refused before anything is applied (exit 2)', async () => {
    await push('manifests/two', 'v1', [tgz({ 'deploy/b.yaml': cm('oci-b', '1') }), tgz({ 'deploy/c.yaml': cm('oci-c', '1') })]);
    const two = await runPlugin(['sync', '-f', appFile(`oci://${host}/manifests/two`, 'v1'), '-o', 'kv']);
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('expected only a single oci content layer, got 2');
    const missing = await runPlugin(['sync', '-f', appFile(`oci://${host}/manifests/two`, 'nope'), '-o', 'kv']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`the OCI artifact oci://${host}/manifests/two at nope does not exist`);
    expect((await kubectl(['get', 'configmap', 'oci-b', '-n', ns])).code).not.toBe(0);
  });
});
