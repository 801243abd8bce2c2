// The live resource tree: each object's children found through ownerReferences (uid), with their health.
import { compareText, keyOf, keyString, type KubeObject, type ResourceKey } from '../model/object.js';
import type { HealthStatus } from './types.js';
import { resourceHealth } from './resource.js';

/** Which kinds a live root's children can be, by the root's `group/Kind` (Deployment → ReplicaSet → Pod…). */
export const CHILD_KINDS: Readonly<Record<string, readonly string[]>> = {
  'apps/Deployment': ['apps/ReplicaSet', '/Pod'],
  'apps/ReplicaSet': ['/Pod'],
  'apps/StatefulSet': ['/Pod'],
  'apps/DaemonSet': ['/Pod'],
  'batch/Job': ['/Pod'],
  'batch/CronJob': ['batch/Job', '/Pod'],
};

/** The apiVersion and kind to list for each child kind of CHILD_KINDS. */
export const CHILD_API_VERSIONS: Readonly<Record<string, readonly [string, string]>> = {
  'apps/ReplicaSet': ['apps/v1', 'ReplicaSet'],
  '/Pod': ['v1', 'Pod'],
  'batch/Job': ['batch/v1', 'Job'],
};

/** The child kinds (as in CHILD_KINDS) of roots of these `group/Kind`s, each with the namespaces it is wanted in. */
export function childKindsOf(roots: Iterable<{ groupKind: string; namespace: string }>): Map<string, Set<string>> {
  const wanted = new Map<string, Set<string>>();
  for (const r of roots) {
    for (const child of CHILD_KINDS[r.groupKind] ?? []) {
      const set = wanted.get(child) ?? new Set<string>();
      set.add(r.namespace);
      wanted.set(child, set);
    }
  }
  return wanted;
}

export interface TreeNode {
  key: ResourceKey;
  object: KubeObject;
  /** Undefined when the kind has no health. */
  health?: HealthStatus;
  children: TreeNode[];
}

function byKey(a: TreeNode, b: TreeNode): number {
  return compareText(keyString(a.key), keyString(b.key));
}

/** Candidates by the uid of each owner they reference, in candidate order. */
export type OwnerIndex = ReadonlyMap<string, readonly KubeObject[]>;

/** Indexes `candidates` by owner uid once, so many trees can be built over the same candidates without re-indexing. */
export function indexByOwner(candidates: readonly KubeObject[]): OwnerIndex {
  const byOwner = new Map<string, KubeObject[]>();
  for (const c of candidates) {
    for (const ref of c.metadata.ownerReferences ?? []) {
      const list = byOwner.get(ref.uid);
      if (list) list.push(c);
      else byOwner.set(ref.uid, [c]);
    }
  }
  return byOwner;
}

/**
 * Builds one tree per root from `candidates` (objects that may be owned: ReplicaSets, Pods, Jobs…),
 * following ownerReferences by uid at any depth (Deployment → ReplicaSet → Pod, CronJob → Job → Pod).
 * Children are sorted by key; an object is placed at most once, so a reference cycle cannot loop.
 * Pass an `indexByOwner` of the candidates when building many trees over the same candidates.
 */
export function buildTree(root: KubeObject, candidates: readonly KubeObject[] | OwnerIndex): TreeNode {
  const byOwner: OwnerIndex = candidates instanceof Map ? candidates : indexByOwner(candidates as readonly KubeObject[]);
  const seen = new Set<string>();
  const build = (obj: KubeObject): TreeNode => {
    const uid = obj.metadata.uid ?? '';
    if (uid !== '') seen.add(uid);
    const owned = uid === '' ? [] : (byOwner.get(uid) ?? []);
    const children: TreeNode[] = [];
    for (const c of owned) {
      if (!seen.has(c.metadata.uid ?? '')) children.push(build(c));
    }
    const node: TreeNode = { key: keyOf(obj), object: obj, children: children.sort(byKey) };
    const health = resourceHealth(obj);
    if (health !== undefined) node.health = health;
    return node;
  };
  return build(root);
}

/** Every node of a tree, parents before children. */
export function walk(node: TreeNode): TreeNode[] {
  return [node, ...node.children.flatMap(walk)];
}
