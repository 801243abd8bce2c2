// The Git reads the apps of one many-app command share: a whole-tree listing cut to each app's path gives what git
// itself lists for that path, and apps of one repository and revision find, resolve and list it once.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Application } from '../../../src/app/types.js';
import { memoryIo } from '../../../src/cli/io.js';
import { BlobReader, listTree, objectTypeAt, readBlobs } from '../../../src/source/git.js';
import { loadDesiredManifests } from '../../../src/source/index.js';
import { entriesUnder, RotatingSourceReads, SourceReads } from '../../../src/source/shared-reads.js';
import { commitFiles } from '../../../src/source/render/index.js';
import { GitFixture, configMap } from '../../support/git-source.js';

let fx: GitFixture;
let sha: string;

beforeAll(() => {
  fx = new GitFixture();
  fx.write('apps/shop/a.yaml', configMap('a', '1'));
  fx.write('apps/shop/sub/b.yaml', configMap('b', '1'));
  fx.write('apps/shopping/c.yaml', configMap('c', '1'));
  fx.write('apps/other/d.yaml', configMap('d', '1'));
  fx.write('top.yaml', configMap('t', '1'));
  sha = fx.commit('one');
});
afterAll(() => fx.cleanup());

test('entriesUnder cuts a whole-tree listing as git ls-tree lists a path (whole components), undefined where git finds none', async () => {
  const dir = { gitDir: join(fx.repo, '.git'), env: fx.env };
  const whole = await listTree(dir, sha, '');
  for (const path of ['', 'apps', 'apps/shop', 'apps/shop/sub', 'apps/shop/a.yaml', 'top.yaml', 'apps/sho', 'apps/shop/a', 'missing']) {
    const exists = path === '' || (await objectTypeAt(dir, sha, path)) !== undefined;
    expect([path, entriesUnder(whole, path)]).toEqual([path, exists ? await listTree(dir, sha, path) : undefined]);
  }
  expect(entriesUnder(whole, 'apps/shop')!.map((e) => e.path)).toEqual(['apps/shop/a.yaml', 'apps/shop/sub/b.yaml']);
});

test('apps of one repository and revision: the same objects, with the repository, revision and tree read once', async () => {
  const trace = join(fx.root, 'git-trace.log');
  const io = () => memoryIo({ env: { ...fx.env, GIT_TRACE: trace } }).io;
  const app = (path: string): Application =>
    ({
      name: path.replace(/\W/g, '-'),
      namespace: 'argocd',
      source: { repoURL: fx.repo, path, targetRevision: 'main' },
      destination: { namespace: 'x' },
      sourcesCount: 0,
      sourceOptions: {},
      syncOptions: {},
      ignoreDifferences: [],
      warnings: [],
      origin: 'test',
    }) as unknown as Application;
  const paths = ['apps/shop', 'apps/shopping', 'apps/other'];
  const gitCommands = () =>
    readFileSync(trace, 'utf8')
      .split('\n')
      .flatMap((l) => /trace: built-in: git (?:--git-dir=\S+ )?(\S+ \S+)/.exec(l)?.[1] ?? [])
      .reduce<Record<string, number>>((m, c) => ({ ...m, [c]: (m[c] ?? 0) + 1 }), {});

  const alone = [];
  for (const p of paths) alone.push(await loadDesiredManifests(app(p), {}, io()));
  const each = gitCommands();
  const reads = new SourceReads();
  const together = await Promise.all(paths.map((p) => loadDesiredManifests(app(p), { reads }, io())));
  const all = gitCommands();
  const shared = Object.fromEntries(Object.entries(all).map(([c, n]) => [c, n - (each[c] ?? 0)]));

  expect(together.map((r) => [r.origin, r.objects.map((o) => o.object.metadata.name)])).toEqual(
    alone.map((r) => [r.origin, r.objects.map((o) => o.object.metadata.name)]),
  );
  // (The repository's .git folder is found without git: findGitDir.) Each app alone lists its path, then the whole tree
  // for its links (Argo CD checks the whole checkout for links out of it before a render).
  expect(each).toEqual({ 'rev-parse --verify': 3, 'cat-file -t': 3, 'ls-tree -r': 6, 'cat-file --batch': 3 });
  // Once for all three: the revision, the tree (the path checked in it). The files themselves come from the render cache
  // the runs alone wrote, so the cat-file the shared reads would keep open for them is never started.
  expect(shared).toEqual({ 'rev-parse --verify': 1, 'cat-file -t': 0, 'ls-tree -r': 1, 'cat-file --batch': 0 });
  reads.close();
  await expect(loadDesiredManifests(app('apps/sho'), { reads: new SourceReads() }, io())).rejects.toThrow(/source.path "apps\/sho" does not exist at .*@/);
});

test('a failed read is asked again by the next app', async () => {
  const reads = new SourceReads();
  await expect(reads.once('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  expect(await reads.once('k', () => Promise.resolve(1))).toBe(1);
  expect(await reads.once('k', () => Promise.resolve(2))).toBe(1);
});

test('a cat-file kept open reads as readBlobs does, batch after batch; out of step, it fails every later read', async () => {
  const dir = { gitDir: join(fx.repo, '.git'), env: fx.env };
  const whole = await listTree(dir, sha, '');
  const shas = whole.map((e) => e.sha);
  const reader = new BlobReader(dir);
  try {
    const [a, b] = await Promise.all([reader.read(shas.slice(0, 2)), reader.read([...shas, shas[0]!])]);
    expect(a).toEqual(await readBlobs(dir, shas.slice(0, 2)));
    expect(b).toEqual(await readBlobs(dir, shas));
    expect((await reader.read([])).size).toBe(0);
    await expect(reader.read(['0'.repeat(40)])).rejects.toThrow(/unexpected git cat-file header "0{40} missing"/);
    await expect(reader.read(shas.slice(0, 1))).rejects.toThrow();
    // A render's files are still read, by git started once, as without a kept process.
    expect(await commitFiles(dir, sha, reader).read(whole)).toEqual(await readBlobs(dir, shas));
  } finally {
    reader.close();
  }
});

test("the loops' shared reads: one period's reads until it expires (by time or by a push), each closed once no look holds it", () => {
  let now = 1_000;
  const closed: SourceReads[] = [];
  const original = SourceReads.prototype.close;
  SourceReads.prototype.close = function (this: SourceReads) {
    closed.push(this);
  };
  try {
    const rotating = new RotatingSourceReads(10_000, () => now);
    const a = rotating.lease();
    const b = rotating.lease();
    expect(b.reads).toBe(a.reads);
    now += 9_999;
    const c = rotating.lease();
    expect(c.reads).toBe(a.reads);
    // Past the period: new reads; the old ones stay open while a look holds them.
    now += 1;
    const d = rotating.lease();
    expect(d.reads).not.toBe(a.reads);
    a.release();
    b.release();
    b.release(); // a second release counts for nothing
    expect(closed).toEqual([]);
    c.release();
    expect(closed).toEqual([a.reads]);
    // A push: the next look reads anew at once; reads no look holds are closed then, the others when released.
    d.release();
    expect(closed).toEqual([a.reads]);
    rotating.expire();
    expect(closed).toEqual([a.reads, d.reads]);
    const e = rotating.lease();
    expect(e.reads).not.toBe(d.reads);
    rotating.expire();
    const f = rotating.lease();
    expect(f.reads).not.toBe(e.reads);
    expect(closed).toEqual([a.reads, d.reads]);
    e.release();
    expect(closed).toEqual([a.reads, d.reads, e.reads]);
    f.release();
    rotating.close();
    expect(closed).toEqual([a.reads, d.reads, e.reads, f.reads]);
  } finally {
    SourceReads.prototype.close = original;
  }
});
