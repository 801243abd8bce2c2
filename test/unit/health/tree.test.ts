// The live tree through ownerReferences, and the most specific cause found by walking it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { buildTree, CHILD_API_VERSIONS, CHILD_KINDS, childKindsOf, indexByOwner, walk, type TreeNode } from '../../../src/health/tree.js';
import { findCause } from '../../../src/health/reason.js';
import type { KubeObject } from '../../../src/model/object.js';

function load(name: string): KubeObject[] {
  const text = readFileSync(join(process.cwd(), 'test/fixtures/health/trees', name), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

function shape(n: TreeNode, depth = 0): string[] {
  return [`${'  '.repeat(depth)}${n.key.kind}/${n.key.name} ${n.health?.status ?? '-'}`, ...n.children.flatMap((c) => shape(c, depth + 1))];
}

test('childKindsOf: the kinds to list under roots, with the namespaces of the roots that have them; every one has an apiVersion to list', () => {
  const wanted = childKindsOf([
    { groupKind: 'apps/Deployment', namespace: 'a' },
    { groupKind: 'batch/CronJob', namespace: 'b' },
    { groupKind: '/ConfigMap', namespace: 'c' },
    { groupKind: 'apps/StatefulSet', namespace: 'a' },
  ]);
  expect(Object.fromEntries([...wanted].map(([k, v]) => [k, [...v].sort()]))).toEqual({
    'apps/ReplicaSet': ['a'],
    '/Pod': ['a', 'b'],
    'batch/Job': ['b'],
  });
  for (const child of new Set(Object.values(CHILD_KINDS).flat())) expect(CHILD_API_VERSIONS[child]).toBeDefined();
});

describe('buildTree', () => {
  it('links Deployment → ReplicaSet → Pod by owner uid and leaves unrelated objects out', () => {
    const [root, ...rest] = load('unschedulable.yaml');
    expect(shape(buildTree(root!, rest))).toEqual([
      'Deployment/broken Progressing',
      '  ReplicaSet/broken-6f9c Progressing',
      '    Pod/broken-6f9c-abcde Progressing',
    ]);
  });

  it('links CronJob → Job → Pod', () => {
    const [root, ...rest] = load('cronjob-failed.yaml');
    expect(shape(buildTree(root!, rest))).toEqual(['CronJob/report Degraded', '  Job/report-29408700 Degraded', '    Pod/report-29408700-q8r7s Degraded']);
  });

  it('sorts children by key and places an object once even when references loop', () => {
    const [root, ...rest] = load('crashloop-statefulset.yaml');
    const tree = buildTree(root!, rest);
    expect(tree.children.map((c) => c.key.name)).toEqual(['db-0', 'db-1']);
    const a: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', uid: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'b', uid: 'b' }] },
    };
    const b: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'b', uid: 'b', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'a', uid: 'a' }] },
    };
    expect(walk(buildTree(a, [a, b])).map((n) => n.key.name)).toEqual(['a', 'b']);
  });

  it('builds the same trees from a shared owner index as from the plain candidate list', () => {
    for (const file of ['unschedulable.yaml', 'cronjob-failed.yaml', 'crashloop-statefulset.yaml', 'rollout-imagepull.yaml']) {
      const objs = load(file);
      const index = indexByOwner(objs);
      for (const root of objs) expect(buildTree(root, index)).toEqual(buildTree(root, objs));
    }
    const a: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'a', uid: 'a', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'b', uid: 'b' }] },
    };
    const b: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'b', uid: 'b', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'a', uid: 'a' }] },
    };
    const index = indexByOwner([a, b]);
    expect(walk(buildTree(a, index)).map((n) => n.key.name)).toEqual(['a', 'b']);
    expect(walk(buildTree(b, index)).map((n) => n.key.name)).toEqual(['b', 'a']);
  });

  it('does not mutate the objects', () => {
    const objs = load('unschedulable.yaml');
    const before = JSON.stringify(objs);
    buildTree(objs[0]!, objs.slice(1));
    expect(JSON.stringify(objs)).toBe(before);
  });
});

describe('findCause', () => {
  it("surfaces the scheduler's message from a Pending pod's PodScheduled=False condition", () => {
    const [root, ...rest] = load('unschedulable.yaml');
    expect(findCause(buildTree(root!, rest))).toEqual({
      object: { group: '', kind: 'Pod', namespace: 'shop', name: 'broken-6f9c-abcde' },
      source: 'PodUnschedulable',
      reason: 'Unschedulable',
      message:
        "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
    });
  });

  it("names the new pod's image pull back-off and ignores the healthy old pod's past restart", () => {
    const [root, ...rest] = load('rollout-imagepull.yaml');
    expect(findCause(buildTree(root!, rest))).toEqual({
      object: { group: '', kind: 'Pod', namespace: 'shop', name: 'web-new-bbbbb' },
      source: 'ContainerWaiting',
      container: 'web',
      reason: 'ImagePullBackOff',
      message: 'Back-off pulling image "nginx:1.99-typo"',
    });
  });

  it('prefers a crash loop over a sibling that is still creating', () => {
    const [root, ...rest] = load('crashloop-statefulset.yaml');
    const cause = findCause(buildTree(root!, rest));
    expect(cause).toMatchObject({ source: 'ContainerWaiting', reason: 'CrashLoopBackOff', container: 'db', object: { name: 'db-0' } });
  });

  it("reports a failed Job's condition under a CronJob", () => {
    const [root, ...rest] = load('cronjob-failed.yaml');
    expect(findCause(buildTree(root!, rest))).toEqual({
      object: { group: 'batch', kind: 'Job', namespace: 'shop', name: 'report-29408700' },
      source: 'JobFailed',
      reason: 'BackoffLimitExceeded',
      message: 'Job has reached the specified backoff limit',
    });
  });

  it("falls back to the resource's own health message when its tree shows nothing more specific", () => {
    const [root] = load('unschedulable.yaml');
    expect(findCause(buildTree(root!, []))).toEqual({
      object: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'broken' },
      source: 'Health',
      reason: 'Progressing',
      message: 'Waiting for rollout to finish: 0 of 1 updated replicas are available...',
    });
  });

  it('has no cause for a healthy resource with no message', () => {
    const dep: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'ok', uid: 'u', generation: 1 },
      spec: { replicas: 1 },
      status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 },
    };
    expect(findCause(buildTree(dep, []))).toBeUndefined();
  });
});
