// Which lists merge element by element (pure): the lists Kubernetes' own kinds declare with `patchStrategy: merge`
// (k8s.io/api struct tags), which a strategic merge patch — Argo CD's legacy diff, kubectl apply — matches by their
// merge key and leaves live-only elements in. A built-in table of the common ones (pod specs, Service ports,
// webhooks, metadata); every other list, and every list of a custom resource (a JSON merge patch), is atomic.
import { groupOf } from '../model/object.js';
import type { LocatedPath } from '../model/field-path.js';

/** A list that merges: elements are matched by `key` (a list of objects) or by value (`key` absent: scalars). */
export interface MergeList {
  key?: string;
}

/** Where a list sits (its located path from the object's root) → how it merges; undefined: atomic. */
export type ListRule = (at: LocatedPath) => MergeList | undefined;

type Pattern = readonly (string | '*')[];

const CONTAINER_LISTS: Record<string, string> = { env: 'name', ports: 'containerPort', volumeMounts: 'mountPath', volumeDevices: 'devicePath' };
const POD_SPEC_LISTS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  volumes: 'name',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  schedulingGates: 'name',
  resourceClaims: 'name',
};

function podSpecLists(root: Pattern): [Pattern, MergeList][] {
  const out: [Pattern, MergeList][] = Object.entries(POD_SPEC_LISTS).map(([f, key]) => [[...root, f], { key }]);
  for (const c of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const [f, key] of Object.entries(CONTAINER_LISTS)) out.push([[...root, c, '*', f], { key }]);
  }
  return out;
}

const TEMPLATE: Pattern = ['spec', 'template', 'spec'];
/** Pod specs by `group/Kind` (any version). */
const POD_SPEC_ROOTS: Record<string, Pattern> = {
  '/Pod': ['spec'],
  '/PodTemplate': ['template', 'spec'],
  '/ReplicationController': TEMPLATE,
  'apps/Deployment': TEMPLATE,
  'apps/ReplicaSet': TEMPLATE,
  'apps/StatefulSet': TEMPLATE,
  'apps/DaemonSet': TEMPLATE,
  'extensions/Deployment': TEMPLATE,
  'extensions/ReplicaSet': TEMPLATE,
  'extensions/DaemonSet': TEMPLATE,
  'batch/Job': TEMPLATE,
  'batch/CronJob': ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

const OTHER_LISTS: Record<string, [Pattern, MergeList][]> = {
  '/Service': [[['spec', 'ports'], { key: 'port' }]],
  '/ServiceAccount': [[['secrets'], { key: 'name' }]],
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': [
    [['webhooks'], { key: 'name' }],
    [['webhooks', '*', 'matchConditions'], { key: 'name' }],
  ],
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': [
    [['webhooks'], { key: 'name' }],
    [['webhooks', '*', 'matchConditions'], { key: 'name' }],
  ],
};

/** Every object of a built-in kind has ObjectMeta, whose finalizers and ownerReferences merge. */
const METADATA_LISTS: [Pattern, MergeList][] = [
  [['metadata', 'finalizers'], {}],
  [['metadata', 'ownerReferences'], { key: 'uid' }],
];

/**
 * The API groups of client-go's scheme (k8s.io/client-go/kubernetes/scheme, the one gitops-engine's diff converts
 * through): their kinds are compared through their Go types (strategic merge lists, empty values omitted). Every other
 * group is a custom resource's, compared as JSON, apiextensions.k8s.io (CustomResourceDefinitions),
 * apiregistration.k8s.io (APIServices) and the Gateway API's included, though their names end in `.k8s.io`.
 */
const SCHEME_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'internal.apiserver.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

function builtInGroup(group: string): boolean {
  return SCHEME_GROUPS.has(group);
}

/**
 * Whether the kind's Go types omit their empty values (`omitempty`): Kubernetes' own kinds, whose stored objects leave
 * out a `""`, `false` or `0` the desired object may spell (Argo CD's normalization drops them likewise).
 */
export function omitsZeroValues(apiVersion: string): boolean {
  return builtInGroup(groupOf(apiVersion));
}

function matches(p: Pattern, at: LocatedPath): boolean {
  return p.length === at.length && p.every((s, i) => (s === '*' ? 'index' in at[i]! : 'field' in at[i]! && at[i].field === s));
}

/**
 * The merging lists of one kind, or undefined for a custom resource (its lists are all atomic, as a JSON merge
 * patch replaces them whole).
 */
export function strategicListRule(apiVersion: string, kind: string): ListRule | undefined {
  const group = groupOf(apiVersion);
  if (!builtInGroup(group)) return undefined;
  const gk = `${group}/${kind}`;
  let rule = RULES.get(gk);
  if (!rule) {
    const root = POD_SPEC_ROOTS[gk];
    const table = [...METADATA_LISTS, ...(root ? podSpecLists(root) : []), ...(OTHER_LISTS[gk] ?? [])];
    rule = (at) => table.find(([p]) => matches(p, at))?.[1];
    // One rule per kind for the process (a handful of built-in kinds; every object of a kind shares its table).
    RULES.set(gk, rule);
  }
  return rule;
}

const RULES = new Map<string, ListRule>();
