// Which collections the dashboard follows for an app, and which apps a change in one of them concerns. Pure.
import { keyString, type KubeObject, type ResourceKey } from '../model/object.js';
import { TRACKING_ID } from '../model/keys.js';
import { CHILD_KINDS } from '../health/tree.js';

/** What is followed for one app: where its destination is, its resources, and the collections its children are in. */
export interface Followed {
  /** The kubeconfig context the app's destination resolved to. */
  context: string;
  /** keyString of each resource. */
  keys: Set<string>;
  /** `group/Kind@namespace` of the children's collections. */
  childTargets: Set<string>;
  /** The app's name and namespace, for its tracking marks. */
  app: { name: string; namespace: string };
}

/** What to follow for an app with these resources. */
export function followedOf(context: string, app: { name: string; namespace: string }, resources: readonly ResourceKey[]): Followed {
  const childTargets = new Set<string>();
  for (const r of resources) for (const c of CHILD_KINDS[`${r.group}/${r.kind}`] ?? []) childTargets.add(`${c}@${r.namespace}`);
  return { context, keys: new Set(resources.map((r) => keyString(r))), childTargets, app };
}

/** The collections (`group/Kind@namespace`) an app needs followed: its resources' and its children's. */
export function targetsOf(f: Followed): Set<string> {
  const out = new Set(f.childTargets);
  for (const k of f.keys) {
    const [group, kind, namespace] = k.split('/');
    out.add(`${group}/${kind}@${namespace}`);
  }
  return out;
}

/**
 * The apps (ids) a change in the collection `group/Kind@namespace` of `context` concerns: for one object, those that
 * have it as a resource, carry its tracking mark, or follow the collection for their children; for the whole
 * collection (`obj` undefined: a re-list), every app of that context that follows it.
 */
export function concerned(
  followed: ReadonlyMap<string, Followed>,
  context: string,
  target: { group: string; kind: string; namespace: string },
  obj: KubeObject | undefined,
): string[] {
  const collection = `${target.group}/${target.kind}@${target.namespace}`;
  const out: string[] = [];
  for (const [id, f] of followed) {
    if (f.context !== context) continue;
    if (f.childTargets.has(collection)) {
      out.push(id);
      continue;
    }
    if (obj === undefined) {
      if (targetsOf(f).has(collection)) out.push(id);
      continue;
    }
    const key = keyString({ group: target.group, kind: target.kind, namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' });
    const mark = obj.metadata.annotations?.[TRACKING_ID];
    const marked = mark !== undefined && (mark.startsWith(`${f.app.name}:`) || mark.startsWith(`${f.app.namespace}_${f.app.name}:`));
    if (f.keys.has(key) || marked) out.push(id);
  }
  return out;
}
