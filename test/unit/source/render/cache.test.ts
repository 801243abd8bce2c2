// The render cache: a render kept by everything it depends on, read back as written, and kept for a day from when it
// was written (the repo-server's --repo-cache-expiration default), expired entries swept at the first write of a process
// when no process swept the folder within the hour.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  readRenderCache,
  RENDER_CACHE_EXPIRATION_MS,
  renderCacheKey,
  RENDER_CACHE_SWEEP_INTERVAL_MS,
  sweepRenderCache,
  SWEEP_MARKER,
  writeRenderCache,
  type CachedRender,
} from '../../../../src/source/render/cache.js';

const parts = {
  sha: 'a'.repeat(40),
  path: 'apps/shop',
  options: { directory: { recurse: false } },
  appEnv: { ARGOCD_APP_NAME: 'shop' },
  tool: 'directory',
  build: '1 x',
};
const render: CachedRender = {
  objects: [
    {
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { n: '1' } },
      source: { file: 'repo@aaaaaaa:apps/shop/a.yaml', doc: 0, line: 1 },
    },
  ],
  warnings: ['skipped a link'],
};

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'kgitops-render-cache-')), 'renders');
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

test('the key changes with every part it depends on, and only with them', () => {
  const key = renderCacheKey(parts);
  expect(key).toMatch(/^[0-9a-f]{64}$/);
  expect(renderCacheKey({ ...parts })).toBe(key);
  for (const changed of [
    { sha: 'b'.repeat(40) },
    { path: 'apps/other' },
    { options: { directory: { recurse: true } } },
    { appEnv: { ARGOCD_APP_NAME: 'other' } },
    { tool: 'jsonnet embedded' },
    { build: '1 y' },
    { extra: { namespace: 'x' } },
  ])
    expect(renderCacheKey({ ...parts, ...changed })).not.toBe(key);
});

test('a render is read back as written; none, or one that is not a render, reads as undefined', () => {
  const key = renderCacheKey(parts);
  expect(readRenderCache(dir, key)).toBeUndefined();
  writeRenderCache(dir, key, render);
  expect(readRenderCache(dir, key)).toEqual(render);
  writeFileSync(join(dir, 'broken.json'), '{"objects": 1}');
  expect(readRenderCache(dir, 'broken')).toBeUndefined();
  writeFileSync(join(dir, 'text.json'), 'not json');
  expect(readRenderCache(dir, 'text')).toBeUndefined();
});

test('an entry is kept for a day from when it was written; older ones are not read, and the first write of a process sweeps them', () => {
  const key = renderCacheKey(parts);
  writeRenderCache(dir, key, render);
  const written = Date.now();
  expect(readRenderCache(dir, key, written + RENDER_CACHE_EXPIRATION_MS - 60_000)).toEqual(render);
  expect(readRenderCache(dir, key, written + RENDER_CACHE_EXPIRATION_MS + 60_000)).toBeUndefined();
  // Aged by a day and a minute: a read misses it.
  const old = (written - RENDER_CACHE_EXPIRATION_MS - 60_000) / 1000;
  utimesSync(join(dir, `${key}.json`), old, old);
  expect(readRenderCache(dir, key)).toBeUndefined();
  // A folder this process has not written to yet: its first sweep removes the aged entry and keeps the fresh one.
  const other = join(dir, '..', 'other');
  mkdirSync(other);
  writeFileSync(join(other, 'aged.json'), JSON.stringify(render));
  writeFileSync(join(other, 'fresh.json'), JSON.stringify(render));
  utimesSync(join(other, 'aged.json'), old, old);
  writeRenderCache(other, renderCacheKey(parts), render);
  expect(readdirSync(other).sort()).toEqual([`${renderCacheKey(parts)}.json`, SWEEP_MARKER, 'fresh.json'].sort());
  // Once per folder and process: an entry that ages after the sweep stays until the next process.
  utimesSync(join(other, 'fresh.json'), old, old);
  sweepRenderCache(other);
  expect(existsSync(join(other, 'fresh.json'))).toBe(true);
});

test('a folder swept by any process within the hour is not swept again; after the hour it is', () => {
  const old = (Date.now() - RENDER_CACHE_EXPIRATION_MS - 60_000) / 1000;
  const make = (name: string, markerAgeMs: number) => {
    const d = join(dir, '..', name);
    mkdirSync(d);
    writeFileSync(join(d, 'aged.json'), JSON.stringify(render));
    utimesSync(join(d, 'aged.json'), old, old);
    writeFileSync(join(d, SWEEP_MARKER), '');
    const swept = (Date.now() - markerAgeMs) / 1000;
    utimesSync(join(d, SWEEP_MARKER), swept, swept);
    return d;
  };
  // Swept a minute ago (by another process): the aged entry stays, and is still not read.
  const recent = make('recent', 60_000);
  sweepRenderCache(recent);
  expect(existsSync(join(recent, 'aged.json'))).toBe(true);
  expect(readRenderCache(recent, 'aged')).toBeUndefined();
  // Swept an hour and a minute ago: this sweep removes it and stamps the marker again.
  const stale = make('stale', RENDER_CACHE_SWEEP_INTERVAL_MS + 60_000);
  const before = Date.now();
  sweepRenderCache(stale);
  expect(readdirSync(stale)).toEqual([SWEEP_MARKER]);
  expect(statSync(join(stale, SWEEP_MARKER)).mtimeMs).toBeGreaterThanOrEqual(before - 1000);
});

test("renders hold Secrets' values: the folder and each entry are readable by the user alone, a folder made readable before included", () => {
  const own = mkdtempSync(join(tmpdir(), 'render-cache-mode-'));
  try {
    const fresh = join(own, 'new');
    writeRenderCache(fresh, renderCacheKey(parts), render);
    expect([statSync(fresh).mode & 0o777, statSync(join(fresh, `${renderCacheKey(parts)}.json`)).mode & 0o777]).toEqual([0o700, 0o600]);
    const old = join(own, 'old');
    mkdirSync(old, { mode: 0o755 });
    writeRenderCache(old, renderCacheKey(parts), render);
    expect(statSync(old).mode & 0o777).toBe(0o700);
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
});
