// `plan --all`: which of the listed Applications a change from --base to --head is about. A pull request changes one
// repository's branch: the apps that follow that branch of that repository (a source whose repoURL is --repo, when
// given, and whose targetRevision is --base; of a multi-source app, any of its Git sources) are planned; the others are
// left out, each with the reason.
import { isPlainObject, type JsonObject, type KubeObject } from '../../model/object.js';
import { repoKey } from '../../model/repo-url.js';
import { movingSources, type MovableSource } from '../../app/source-revisions.js';

/** An Application `plan --all` leaves out, and why. */
export interface SkippedApp {
  namespace: string;
  name: string;
  reason: string;
}

function sourcesOf(spec: JsonObject): { many: boolean; list: JsonObject[] } {
  if (Array.isArray(spec.sources) && spec.sources.length > 0) return { many: true, list: spec.sources.filter(isPlainObject) as JsonObject[] };
  return { many: false, list: isPlainObject(spec.source) ? [spec.source as JsonObject] : [] };
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A listed Application's raw source as movingSources reads it. */
function movable(s: JsonObject): MovableSource {
  return {
    repoURL: text(s.repoURL),
    targetRevision: text(s.targetRevision),
    ...(typeof s.chart === 'string' && s.chart !== '' ? { chart: s.chart } : {}),
  };
}

/**
 * The Applications to plan, in the order given, and those left out: an app is planned when its one source follows
 * `base` (its targetRevision, HEAD when empty) in `repo` (any repository when absent; URLs compared as Argo CD's
 * webhook compares them), or when any Git source of several does (movingSources: those move to head, the others stay).
 */
export function planScope(apps: readonly KubeObject[], opts: { base: string; repo?: string }): { planned: KubeObject[]; skipped: SkippedApp[] } {
  const planned: KubeObject[] = [];
  const skipped: SkippedApp[] = [];
  const repo = opts.repo !== undefined ? repoKey(opts.repo) : undefined;
  for (const o of apps) {
    const id = { namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' };
    const spec = isPlainObject(o.spec) ? (o.spec as JsonObject) : {};
    const { many, list } = sourcesOf(spec);
    const from = repo === undefined ? list : list.filter((s) => repoKey(text(s.repoURL)) === repo);
    if (from.length === 0) {
      skipped.push({ ...id, reason: list.length === 0 ? 'no source' : `its source is another repository (${list.map((s) => text(s.repoURL)).join(', ')})` });
      continue;
    }
    if (many) {
      if (movingSources(list.map(movable), opts).length === 0)
        skipped.push({
          ...id,
          reason: `none of its ${list.length} sources (spec.sources) follows ${opts.base}${repo !== undefined ? ' of that repository' : ''} (${list.map((s) => (typeof s.chart === 'string' ? `chart ${s.chart} ${text(s.targetRevision)}` : text(s.targetRevision) || 'HEAD')).join(', ')})`,
        });
      else planned.push(o);
      continue;
    }
    const follows = text(from[0]!.targetRevision) || 'HEAD';
    if (follows !== opts.base) {
      skipped.push({ ...id, reason: `it follows ${follows}, not ${opts.base}` });
      continue;
    }
    planned.push(o);
  }
  return { planned, skipped };
}

/** One Application an ApplicationSet generates at base, at head, or at both (`namespace/name`). */
export interface GeneratedPair {
  id: string;
  base?: KubeObject;
  head?: KubeObject;
}

/**
 * The Applications an ApplicationSet generates at base and at head, paired by namespace and name: those at head in
 * their order (with their twin at base, if any), then those generated only at base, in theirs.
 */
export function pairGenerated(base: readonly KubeObject[], head: readonly KubeObject[]): GeneratedPair[] {
  const id = (o: KubeObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  const atBase = new Map(base.map((o) => [id(o), o]));
  const atHead = new Set(head.map(id));
  return [
    ...head.map((o) => ({ id: id(o), head: o, ...(atBase.has(id(o)) ? { base: atBase.get(id(o)) } : {}) })),
    ...base.filter((o) => !atHead.has(id(o))).map((o) => ({ id: id(o), base: o })),
  ];
}
