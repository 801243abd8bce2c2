// Which Lua health check applies to an object, in Argo CD's order (GetHealthScript): argocd-cm's
// resource.customizations.health.<group_kind> (exact, then a key that matches as a glob), then the library of
// checks in a resource_customizations/<group>/<kind>/health.lua folder (exact, then its `_` wildcard folders),
// and the results, computed ahead so that the synchronous health code reads them. No I/O: the library comes as
// data (workflows/status/health-library.ts reads --lua-dir) and the Lua engine as an evaluator (src/lua/).
import { globMatch } from '../model/glob.js';
import { groupOf, type KubeObject } from '../model/object.js';
import type { ArgoSettings } from '../settings/argocd-cm.js';
import { healthOfLuaResult, type LuaEvaluator } from './lua-check.js';
import type { HealthStatus } from './types.js';

export interface HealthScript {
  script: string;
  useOpenLibs: boolean;
  /** Where it comes from: argocd-cm's key or the file. */
  source: string;
}

/**
 * A library of checks in Argo CD's layout, read: each folder that holds a health.lua, by its path under the
 * library's root (`apps/Deployment`, `_.crossplane.io/_`, or `Kind` for the core group).
 */
export type HealthLibrary = ReadonlyMap<string, HealthScript>;

/** GetConfigMapKey: `group/Kind`, or `Kind` for the core group. */
function configKey(group: string, kind: string): string {
  return group === '' ? kind : `${group}/${kind}`;
}

/** The `_`-wildcard folders of a library (`_.crossplane.io/_`), as Argo CD sorts them. */
function wildcardFolders(library: HealthLibrary): string[] {
  return [...library.keys()].filter((rel) => rel.includes('/') && rel.includes('_')).sort();
}

/** Finds the health script for a kind; built once per command. */
export class HealthScripts {
  private wildcards?: string[];

  constructor(
    private readonly settings: Pick<ArgoSettings, 'health'>,
    private readonly library?: HealthLibrary,
  ) {}

  /** Whether any script can apply at all (else nothing needs Lua). */
  get empty(): boolean {
    return this.settings.health.size === 0 && (this.library === undefined || this.library.size === 0);
  }

  /** The script of each group and kind asked for (every object of a kind asks; the answer does not change). */
  private readonly found = new Map<string, HealthScript | null>();

  lookup(group: string, kind: string): HealthScript | undefined {
    const id = `${group}/${kind}`;
    let hit = this.found.get(id);
    if (hit === undefined) {
      hit = this.search(group, kind) ?? null;
      this.found.set(id, hit);
    }
    return hit ?? undefined;
  }

  private search(group: string, kind: string): HealthScript | undefined {
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
    const library = this.library;
    if (library === undefined) return undefined;
    const found = library.get(key);
    if (found) return found;
    this.wildcards ??= wildcardFolders(library);
    const hit = this.wildcards.find((w) => globMatch(w.replaceAll('_', '*'), key, '/'));
    return hit === undefined ? undefined : library.get(hit);
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
 * that cannot run become Unknown with the reason, as in Argo CD. `evaluator` (the Lua engine) is asked for only
 * when a check applies, so a command with none never loads the VM.
 */
export async function computeCustomHealth(objects: readonly KubeObject[], scripts: HealthScripts, evaluator: () => Promise<LuaEvaluator>): Promise<number> {
  if (scripts.empty) return 0;
  const todo = objects.flatMap((o) => {
    if (computed.has(o) || o.metadata.deletionTimestamp) return [];
    const s = scripts.lookup(groupOf(o.apiVersion), o.kind);
    return s ? [{ o, s }] : [];
  });
  if (todo.length === 0) return 0;
  const lua = await evaluator();
  for (const { o, s } of todo) computed.set(o, healthOfLuaResult(await lua.run(s.script, o, s.useOpenLibs)) ?? null);
  return todo.length;
}
