// The render cache, like Argo CD's repo-server manifest cache: a Kustomize, Jsonnet or Helm render is kept by (commit SHA,
// source.path, the source's options, the app variables the render sees, the tool's version), so a repeated diff at
// the same commit does not build again (Helm adds the release, the cluster's capabilities and the ref sources' commits).
// Entries live in <cache home>/renders/ (see ../cache-home.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cacheHome } from '../cache-home.js';
import { join } from 'node:path';
import type { ManifestObject } from '../../manifest/parse.js';

/** Bump when the cached form or the rendering rules change, so older entries are not read. */
const CACHE_FORMAT = 1;

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

/** A cached render, or undefined when there is none or it cannot be read. */
export function readRenderCache(dir: string, key: string): CachedRender | undefined {
  try {
    const v = JSON.parse(readFileSync(join(dir, `${key}.json`), 'utf8')) as CachedRender;
    return Array.isArray(v.objects) && Array.isArray(v.warnings) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Stores a render; a cache that cannot be written is no error (the next run renders again). */
export function writeRenderCache(dir: string, key: string, render: CachedRender): void {
  try {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${key}.json`);
    const tmp = `${file}.${process.pid}`;
    writeFileSync(tmp, JSON.stringify(render));
    renameSync(tmp, file);
  } catch {
    // not cached
  }
}
