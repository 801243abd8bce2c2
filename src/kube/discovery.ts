// Pure parsers for API discovery documents (aggregated v2 and legacy), into ResourceType lists.
import type { ResourceType } from '../model/resource-type.js';

type Json = Record<string, unknown>;

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v.filter((x) => typeof x === 'object' && x !== null) as Json[]) : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Types from an APIGroupDiscoveryList (`/api` or `/apis` with the aggregated Accept); versions in preference order. */
export function parseAggregatedDiscovery(doc: Json): ResourceType[] {
  const out: ResourceType[] = [];
  for (const g of arr(doc.items)) {
    const group = str((g.metadata as Json | undefined)?.name);
    for (const v of arr(g.versions)) {
      const version = str(v.version);
      for (const r of arr(v.resources)) {
        const kind = str((r.responseKind as Json | undefined)?.kind);
        const resource = str(r.resource);
        if (!kind || !resource || resource.includes('/')) continue;
        out.push({ group, version, kind, resource, namespaced: r.scope === 'Namespaced', verbs: (r.verbs as string[] | undefined) ?? [] });
      }
    }
  }
  return out;
}

/** Group-versions from a legacy APIGroupList, the preferred version of each group first. */
export function parseLegacyGroupList(doc: Json): { group: string; version: string }[] {
  const out: { group: string; version: string }[] = [];
  for (const g of arr(doc.groups)) {
    const group = str(g.name);
    const preferred = str((g.preferredVersion as Json | undefined)?.version);
    const versions = arr(g.versions).map((v) => str(v.version));
    const ordered = preferred ? [preferred, ...versions.filter((v) => v !== preferred)] : versions;
    for (const version of ordered) out.push({ group, version });
  }
  return out;
}

/** Types from a legacy APIResourceList (`/api/v1`, `/apis/apps/v1`), without subresources. */
export function parseLegacyResourceList(group: string, version: string, doc: Json): ResourceType[] {
  return arr(doc.resources)
    .filter((r) => !str(r.name).includes('/') && str(r.kind) !== '')
    .map((r) => ({
      group,
      version,
      kind: str(r.kind),
      resource: str(r.name),
      namespaced: r.namespaced === true,
      verbs: (r.verbs as string[] | undefined) ?? [],
    }));
}

/** One type per group+kind: the first seen, which is the preferred version when the input is in preference order. */
export function preferredTypes(all: readonly ResourceType[]): ResourceType[] {
  const seen = new Set<string>();
  const out: ResourceType[] = [];
  for (const t of all) {
    const k = `${t.group}/${t.kind}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(t);
  }
  return out;
}
