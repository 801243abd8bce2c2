// The snapshot the sessions of a many-app command share: each namespaced type listed once over all namespaces, each app
// handed its namespace's part; namespace by namespace where RBAC forbids the cluster-wide LIST; writes forget.
import { COMMON_TYPES, FakeGateway } from '../../support/fake-gateway.js';
import { CLUSTER_WIDE_PAGE_SIZE, ClusterSnapshot, deepFreeze } from '../../../src/kube/snapshot.js';
import type { ListOptions } from '../../../src/kube/gateway.js';
import type { KubeObject } from '../../../src/model/object.js';

const type = (kind: string) => COMMON_TYPES.find((t) => t.kind === kind)!;
const MARK = 'argocd.argoproj.io/tracking-id';

function cm(namespace: string, name: string, marked = false): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace, name, ...(marked ? { annotations: { [MARK]: `${name}:/ConfigMap:${namespace}/${name}` } } : {}) },
    data: { k: name },
  };
}

const objects = [cm('a', 'one', true), cm('a', 'two'), cm('b', 'three', true), cm('c', 'four')];
const lists = (inner: FakeGateway) => inner.calls.filter((c) => c.startsWith('LIST'));

test('every namespace of a type is answered by one cluster-wide LIST, whole, shared and frozen (a mutation throws)', async () => {
  const inner = new FakeGateway({ objects });
  const snap = new ClusterSnapshot(inner);
  const [a, b, none] = await Promise.all([
    snap.list(type('ConfigMap'), { namespace: 'a', maxPages: 1 }),
    snap.list(type('ConfigMap'), { namespace: 'b' }),
    snap.list(type('ConfigMap'), { namespace: 'empty' }),
  ]);
  expect(a.items.map((o) => o.metadata.name)).toEqual(['one', 'two']);
  expect(a.continue).toBeUndefined();
  expect(b.items.map((o) => o.metadata.name)).toEqual(['three']);
  expect(none.items).toEqual([]);
  expect(lists(inner)).toEqual(['LIST ConfigMap *']);
  expect(() => {
    a.items[0]!.data = { k: 'changed' };
  }).toThrow(TypeError);
  expect(() => {
    (a.items[0]!.metadata.labels ??= {}).x = 'y';
  }).toThrow(TypeError);
  // The array is the caller's own.
  a.items.pop();
  expect((await snap.list(type('ConfigMap'), { namespace: 'a' })).items.map((o) => [o.metadata.name, o.data])).toEqual([
    ['one', { k: 'one' }],
    ['two', { k: 'two' }],
  ]);
  expect(lists(inner)).toHaveLength(1);
  expect(snap.snapshotStats()).toEqual({ clusterWideLists: 1, splitByNamespace: [] });
});

test('a metadata-only LIST is cut from the full one when that was asked; otherwise listed once, by its annotation', async () => {
  const inner = new FakeGateway({ objects });
  const snap = new ClusterSnapshot(inner);
  const meta = await snap.list(type('ConfigMap'), { namespace: 'a', metadataOnly: true, withAnnotation: MARK });
  expect(meta.items.map((o) => o.metadata.name)).toEqual(['one']);
  expect(lists(inner)).toEqual(['LIST ConfigMap * meta']);
  await snap.list(type('ConfigMap'), { namespace: 'b', metadataOnly: true, withAnnotation: MARK });
  expect(lists(inner)).toHaveLength(1);

  const other = new FakeGateway({ objects });
  const cut = new ClusterSnapshot(other);
  await cut.list(type('ConfigMap'), { namespace: 'c' });
  const fromFull = await cut.list(type('ConfigMap'), { namespace: 'a', metadataOnly: true, withAnnotation: MARK });
  // As the gateway returns a metadata-only item: apiVersion, kind and metadata, nothing else.
  expect(fromFull.items.map((o) => [Object.keys(o), o.metadata.name])).toEqual([[['apiVersion', 'kind', 'metadata'], 'one']]);
  expect(fromFull.items[0]).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: objects[0]!.metadata });
  expect(lists(other)).toEqual(['LIST ConfigMap *']);
});

test('GETs are answered from the type’s cluster-wide LIST (absent there: absent); seeded objects need no request', async () => {
  const inner = new FakeGateway({ objects });
  const snap = new ClusterSnapshot(inner);
  expect((await snap.get(type('ConfigMap'), 'b', 'three'))?.data).toEqual({ k: 'three' });
  expect(await snap.get(type('ConfigMap'), 'b', 'gone')).toBeUndefined();
  expect(inner.calls.filter((c) => !c.startsWith('DISCOVER'))).toEqual(['LIST ConfigMap *']);
  const app: KubeObject = { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { namespace: 'argocd', name: 'shop' }, spec: {} };
  snap.seed(type('Application'), [app]);
  expect(await snap.get(type('Application'), 'argocd', 'shop')).toEqual(app);
  expect(inner.calls.filter((c) => c.includes('Application'))).toEqual([]);
});

test('a cluster-wide LIST asks for pages of 5,000; a prefetched GET is made at once, alone, and answers the later GETs', async () => {
  const inner = new FakeGateway({ objects });
  const asked: ListOptions[] = [];
  const list = inner.list.bind(inner);
  inner.list = (t, o = {}) => {
    asked.push(o);
    return list(t, o);
  };
  const snap = new ClusterSnapshot(inner);
  snap.prefetch(type('ConfigMap'), 'b', 'three');
  snap.prefetch(type('ConfigMap'), 'b', 'gone');
  snap.prefetch(type('ConfigMap'), 'b', 'three');
  await snap.list(type('ConfigMap'), { namespace: 'a' });
  expect(asked.map((o) => o.pageSize)).toEqual([CLUSTER_WIDE_PAGE_SIZE]);
  const three = await snap.get(type('ConfigMap'), 'b', 'three');
  expect(three?.data).toEqual({ k: 'three' });
  expect(Object.isFrozen(three?.data)).toBe(true);
  expect(await snap.get(type('ConfigMap'), 'b', 'gone')).toBeUndefined();
  // The GETs went out before the LIST, once each, and the LIST answered no GET.
  expect(inner.calls.filter((c) => !c.startsWith('DISCOVER'))).toEqual(['GET ConfigMap b/three', 'GET ConfigMap b/gone', 'LIST ConfigMap *']);
});

test('a cluster-wide LIST is frozen as it is handed out, a namespace at a time: objects of namespaces nobody reads are never walked', async () => {
  const inner = new FakeGateway({ objects });
  let read: KubeObject[] = [];
  const list = inner.list.bind(inner);
  inner.list = async (t, o = {}) => {
    const res = await list(t, o);
    read = res.items;
    return res;
  };
  const snap = new ClusterSnapshot(inner);
  const a = await snap.list(type('ConfigMap'), { namespace: 'a' });
  expect(a.items.map((o) => o.metadata.name)).toEqual(['one', 'two']);
  expect(a.items.every((o) => Object.isFrozen(o) && Object.isFrozen(o.metadata) && Object.isFrozen(o.data))).toBe(true);
  const b = read.filter((o) => o.metadata.namespace === 'b');
  expect(b.map((o) => o.metadata.name)).toEqual(['three']);
  expect(Object.isFrozen(b[0])).toBe(false);
  // The metadata-only cut of namespace b from the same LIST: frozen through, the object it is cut from too.
  const meta = await snap.list(type('ConfigMap'), { namespace: 'b', metadataOnly: true });
  expect(meta.items.every((o) => Object.isFrozen(o) && Object.isFrozen(o.metadata) && Object.isFrozen(o.metadata.annotations))).toBe(true);
  expect(Object.isFrozen(b[0]?.data)).toBe(true);
  expect(read.filter((o) => o.metadata.namespace === 'c').some((o) => Object.isFrozen(o))).toBe(false);
  expect(lists(inner)).toEqual(['LIST ConfigMap *']);
});

test('deepFreeze freezes every object and array inside, in place, and leaves what is frozen already', () => {
  const o = { a: { b: [{ c: 1 }, 'x'] }, d: null, e: 'y' };
  expect(deepFreeze(o)).toBe(o);
  expect([o, o.a, o.a.b, o.a.b[0]].every((v) => Object.isFrozen(v))).toBe(true);
  const outer = { inner: Object.freeze({ open: { n: 1 } }) };
  deepFreeze(outer);
  // A frozen value is taken as frozen through (what the snapshot freezes, it freezes whole).
  expect(Object.isFrozen(outer.inner.open)).toBe(false);
});

test('where RBAC forbids the cluster-wide LIST: namespace by namespace, each once, and said', async () => {
  const inner = new FakeGateway({ objects, forbiddenClusterWide: ['list configmaps'] });
  const snap = new ClusterSnapshot(inner);
  for (let i = 0; i < 2; i++) {
    expect((await snap.list(type('ConfigMap'), { namespace: 'a' })).items).toHaveLength(2);
    expect((await snap.list(type('ConfigMap'), { namespace: 'b' })).items).toHaveLength(1);
  }
  expect(lists(inner)).toEqual(['LIST ConfigMap *', 'LIST ConfigMap a', 'LIST ConfigMap b']);
  expect(snap.snapshotStats().splitByNamespace).toEqual(['configmaps']);
  // Every namespace at once is the forbidden LIST itself.
  await expect(snap.list(type('ConfigMap'))).rejects.toMatchObject({ status: 403 });
});

test('a failed LIST is asked again by the next caller; other errors than 403 are not split by namespace', async () => {
  const inner = new FakeGateway({ objects });
  const snap = new ClusterSnapshot(inner);
  let fail = true;
  const list = inner.list.bind(inner);
  inner.list = async (t, o) => {
    if (fail) {
      fail = false;
      throw new Error('connection reset');
    }
    return list(t, o);
  };
  await expect(snap.list(type('ConfigMap'), { namespace: 'a' })).rejects.toThrow('connection reset');
  expect((await snap.list(type('ConfigMap'), { namespace: 'a' })).items).toHaveLength(2);
});

test('a write forgets what was read of its type; a dry run does not; one app’s snapshot can stay in its namespace', async () => {
  const inner = new FakeGateway({ objects });
  const snap = new ClusterSnapshot(inner);
  await snap.list(type('ConfigMap'), { namespace: 'a' });
  await snap.apply(type('ConfigMap'), cm('a', 'new'), { fieldManager: 'm', force: false, dryRun: true });
  expect((await snap.list(type('ConfigMap'), { namespace: 'a' })).items).toHaveLength(2);
  await snap.apply(type('ConfigMap'), cm('a', 'new'), { fieldManager: 'm', force: false, dryRun: false });
  expect((await snap.list(type('ConfigMap'), { namespace: 'a' })).items.map((o) => o.metadata.name).sort()).toEqual(['new', 'one', 'two']);
  expect(lists(inner)).toEqual(['LIST ConfigMap *', 'LIST ConfigMap *']);

  const narrow = new FakeGateway({ objects });
  const one = new ClusterSnapshot(narrow, { wide: false });
  await one.list(type('ConfigMap'), { namespace: 'a' });
  await one.list(type('ConfigMap'), { namespace: 'a' });
  expect(lists(narrow)).toEqual(['LIST ConfigMap a']);
  one.close();
  expect(one.server).toBe(narrow.server);
});
