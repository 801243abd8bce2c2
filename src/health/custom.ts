// Which Lua health check applies to an object, in Argo CD's order (GetHealthScript): argocd-cm's
// resource.customizations.health.<group_kind> (exact, then a key that matches as a glob), then the library of
// checks in a resource_customizations/<group>/<kind>/health.lua folder (exact, then its `_` wildcard folders),
// and the results, computed ahead so that the synchronous health code reads them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { groupOf, type KubeObject } from '../model/object.js';
import type { ArgoSettings } from '../settings/argocd-cm.js';
import { globMatch } from '../model/glob.js';
import type { HealthStatus } from './types.js';

export interface HealthScript {
  script: string;
  useOpenLibs: boolean;
  /** Where it comes from: argocd-cm's key or the file. */
  source: string;
}

/** GetConfigMapKey: `group/Kind`, or `Kind` for the core group. */
function configKey(group: string, kind: string): string {
  return group === '' ? kind : `${group}/${kind}`;
}

/** The folder of checks: DIR itself, or DIR/resource_customizations when DIR is its parent. */
function libraryRoot(dir: string): string {
  const inner = join(dir, 'resource_customizations');
  return existsSync(inner) && statSync(inner).isDirectory() ? inner : dir;
}

/** The `_`-wildcard folders of a library (`_.crossplane.io/_`), as glob patterns, sorted as Argo CD sorts them. */
function wildcardFolders(root: string): string[] {
  const out: string[] = [];
  for (const group of readdirSync(root, { withFileTypes: true })) {
    if (!group.isDirectory()) continue;
    for (const kind of readdirSync(join(root, group.name), { withFileTypes: true })) {
      const rel = `${group.name}/${kind.name}`;
      if (kind.isDirectory() && rel.includes('_') && existsSync(join(root, rel, 'health.lua'))) out.push(rel);
    }
  }
  return out.sort();
}

/** Finds the health script for a kind; built once per command. */
export class HealthScripts {
  private readonly libRoot?: string;
  private wildcards?: string[];
  private readonly files = new Map<string, HealthScript | undefined>();

  constructor(
    private readonly settings: Pick<ArgoSettings, 'health'>,
    luaDir?: string,
  ) {
    if (luaDir !== undefined) this.libRoot = libraryRoot(luaDir);
  }

  /** Whether any script can apply at all (else nothing needs Lua). */
  get empty(): boolean {
    return this.settings.health.size === 0 && this.libRoot === undefined;
  }

  lookup(group: string, kind: string): HealthScript | undefined {
    const key = configKey(group, kind);
    const exact = this.settings.health.get(`${group}/${kind}`);
    if (exact && exact.script !== '') return exact;
    for (const [k, v] of [...this.settings.health].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const pattern = k.startsWith('/') ? k.slice(1) : k;
      if (v.script !== '' && globMatch(pattern, key)) return v;
    }
    return this.fromLibrary(key);
  }

  private fromLibrary(key: string): HealthScript | undefined {
    const root = this.libRoot;
    if (root === undefined) return undefined;
    if (this.files.has(key)) return this.files.get(key);
    const read = (rel: string): HealthScript | undefined => {
      const file = join(root, rel, 'health.lua');
      return existsSync(file) ? { script: readFileSync(file, 'utf8'), useOpenLibs: true, source: file } : undefined;
    };
    let found = read(key);
    if (!found) {
      this.wildcards ??= wildcardFolders(root);
      const hit = this.wildcards.find((w) => globMatch(w.replaceAll('_', '*'), key, '/'));
      if (hit) found = read(hit);
    }
    this.files.set(key, found);
    return found;
  }
}

/** Health computed by Lua checks, by object (the health code reads it before its built-in checks). */
const computed = new WeakMap<KubeObject, HealthStatus | null>();

/** The Lua check's health of this very object, if one ran: null when the check gave no health. */
export function customHealthOf(obj: KubeObject): HealthStatus | null | undefined {
  return computed.get(obj);
}

/**
 * Runs the applicable check of each object (once per object) and keeps the results for resourceHealth. Checks
 * that cannot run become Unknown with the reason, as in Argo CD. Loads the Lua VM only when a check applies.
 */
export async function computeCustomHealth(objects: readonly KubeObject[], scripts: HealthScripts): Promise<number> {
  if (scripts.empty) return 0;
  const todo = objects.flatMap((o) => {
    if (computed.has(o) || o.metadata.deletionTimestamp) return [];
    const s = scripts.lookup(groupOf(o.apiVersion), o.kind);
    return s ? [{ o, s }] : [];
  });
  if (todo.length === 0) return 0;
  const { luaRunner } = await import('./lua.js');
  const runner = await luaRunner();
  for (const { o, s } of todo) computed.set(o, (await runner.health(s.script, o, s.useOpenLibs)) ?? null);
  return todo.length;
}
