// The render cache, like Argo CD's repo-server manifest cache: a Kustomize, Jsonnet or Helm render is kept by (commit SHA,
// source.path, the source's options, the app variables the render sees, the tool's version), so a repeated diff at
// the same commit does not build again (Helm adds the release, the cluster's capabilities and the ref sources' commits).
// Entries live in <cache home>/renders/ (see ../cache-home.ts) and expire after a day, as the repo-server's do (its
// --repo-cache-expiration defaults to 24h); expired entries are removed by a sweep at most once an hour.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { cacheHome } from '../cache-home.js';
import { join } from 'node:path';
import type { ManifestObject } from '../../manifest/parse.js';

/** Bump when the cached form or the rendering rules change, so older entries are not read. */
const CACHE_FORMAT = 2; // 2: plain scalars read as go-yaml v2 reads them (manifest/go-scalars.ts)

export function renderCacheDir(env: Record<string, string | undefined>): string {
  return join(cacheHome(env), 'renders');
}

/** The cache key of a render: a hash of everything it depends on. */
export function renderCacheKey(parts: {
  sha: string;
  path: string;
  options: unknown;
  appEnv: Record<string, string>;
  tool: string;
  build: string;
  extra?: unknown;
}): string {
  const text = JSON.stringify([
    CACHE_FORMAT,
    parts.sha,
    parts.path,
    parts.options ?? null,
    parts.appEnv,
    parts.tool,
    parts.build,
    ...(parts.extra !== undefined ? [parts.extra] : []),
  ]);
  return createHash('sha256').update(text).digest('hex');
}

export interface CachedRender {
  objects: ManifestObject[];
  warnings: string[];
}

/** How long an entry is kept, from when it was written (reading it does not extend it). */
export const RENDER_CACHE_EXPIRATION_MS = 24 * 60 * 60 * 1000;

/** How often a folder is swept of expired entries, across processes (a sweep stats every entry in it). */
export const RENDER_CACHE_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/** The file whose modification time says when a folder was last swept. */
export const SWEEP_MARKER = '.swept';

/** The folders this process already swept of expired entries. */
const swept = new Set<string>();

/**
 * Removes the entries written more than RENDER_CACHE_EXPIRATION_MS before `now`: once per folder and process, and only
 * when no process swept it within RENDER_CACHE_SWEEP_INTERVAL_MS (the marker's time), since a sweep stats every entry
 * (121 ms for a folder of 9,862). Expired entries are never read in between (`fresh`); they are only removed later.
 */
export function sweepRenderCache(dir: string, now = Date.now()): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  const marker = join(dir, SWEEP_MARKER);
  try {
    if (now - statSync(marker).mtimeMs < RENDER_CACHE_SWEEP_INTERVAL_MS) return;
  } catch {
    // never swept
  }
  let names: string[];
  try {
    names = readdirSync(dir);
    writeFileSync(marker, '');
    utimesSync(marker, now / 1000, now / 1000);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === SWEEP_MARKER) continue;
    const file = join(dir, name);
    try {
      if (now - statSync(file).mtimeMs > RENDER_CACHE_EXPIRATION_MS) rmSync(file, { force: true });
    } catch {
      // gone already, or another process's
    }
  }
}

/** Whether the entry at `file` was written within the expiration (false when there is none). */
function fresh(file: string, now: number): boolean {
  try {
    return now - statSync(file).mtimeMs <= RENDER_CACHE_EXPIRATION_MS;
  } catch {
    return false;
  }
}

/** A cached render, or undefined when there is none, it expired or it cannot be read. */
export function readRenderCache(dir: string, key: string, now = Date.now()): CachedRender | undefined {
  try {
    const file = join(dir, `${key}.json`);
    if (!fresh(file, now)) return undefined;
    const v = JSON.parse(readFileSync(file, 'utf8')) as CachedRender;
    return Array.isArray(v.objects) && Array.isArray(v.warnings) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Stores a render (sweeping the folder of expired entries first); a cache that cannot be written is no error (the next run renders again). */
export function writeRenderCache(dir: string, key: string, render: CachedRender): void {
  try {
    // Renders hold Secrets' values (a chart's, a secretGenerator's): the folder and its files are the user's alone,
    // a folder made readable by an earlier version included.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
    sweepRenderCache(dir);
    const file = join(dir, `${key}.json`);
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify(render), { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // not cached
  }
}
