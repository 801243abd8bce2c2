// The watch-fed cache `sync --watch --all` shares (kube/cluster-cache.ts): one cluster-wide list-then-watch per type,
// reads answered from it with no request, changes seen as the watch delivers them, a write's next read waiting for the
// written version (or the server asked when it does not come), RBAC's 403 read as asked, listeners fed.
import { COMMON_TYPES, FakeGateway } from '../../support/fake-gateway.js';
import { ClusterCache } from '../../../src/kube/cluster-cache.js';
import type { WatchEvent, WatchOptions } from '../../../src/kube/gateway.js';
import type { FollowEvent } from '../../../src/kube/watch.js';
import type { KubeObject } from '../../../src/model/object.js';
import type { ResourceType } from '../../../src/model/resource-type.js';

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

/** The fake gateway, whose watches stay open until stopped and play the events a test sends. */
class WatchedFake extends FakeGateway {
  private readonly streams: { type: ResourceType; opts: WatchOptions; onEvent: (e: WatchEvent) => void }[] = [];

  override async watch(t: ResourceType, opts: WatchOptions, onEvent: (e: WatchEvent) => void): Promise<void> {
    this.calls.push(
      `WATCH ${t.kind} rv=${opts.resourceVersion ?? ''}${opts.metadataOnly ? ' meta' : ''}${opts.namespace ? ` ${opts.namespace}` : ''}${opts.labelSelector ? ` ${opts.labelSelector}` : ''}`,
    );
    const entry = { type: t, opts, onEvent };
    this.streams.push(entry);
    await new Promise<void>((resolve) => opts.signal?.addEventListener('abort', () => resolve(), { once: true }));
    this.streams.splice(this.streams.indexOf(entry), 1);
  }

  /** Sends an event to every open watch of the kind. */
  send(kind: string, e: WatchEvent): void {
    for (const s of this.streams) if (s.type.kind === kind) s.onEvent(structuredClone(e));
  }

  open(): number {
    return this.streams.length;
  }
}

const opts = { reconnectDelay: () => 10, sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)), settleMs: 300 };
const requests = (g: FakeGateway) => g.calls.filter((c) => !c.startsWith('WATCH'));
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('ClusterCache', () => {
  let inner: WatchedFake;
  let cache: ClusterCache;
  beforeEach(() => {
    inner = new WatchedFake({ objects: [cm('a', 'one', true), cm('a', 'two'), cm('b', 'three', true)] });
    cache = new ClusterCache(inner, opts);
  });
  afterEach(() => cache.closeInner());

  test('one cluster-wide LIST and one watch per type answer every namespace and GET; a change is seen with no request', async () => {
    const [a, b] = await Promise.all([cache.list(type('ConfigMap'), { namespace: 'a' }), cache.list(type('ConfigMap'), { namespace: 'b' })]);
    expect(a.items.map((o) => o.metadata.name)).toEqual(['one', 'two']);
    expect(b.items.map((o) => o.metadata.name)).toEqual(['three']);
    expect((await cache.get(type('ConfigMap'), 'a', 'two'))?.data).toEqual({ k: 'two' });
    expect(await cache.get(type('ConfigMap'), 'a', 'absent')).toBeUndefined();
    expect(requests(inner)).toEqual(['LIST ConfigMap *']);
    await tick();
    expect(inner.calls.filter((c) => c.startsWith('WATCH'))).toHaveLength(1);

    // A change by hand, delivered by the watch: the next read has it, and nothing was asked of the server.
    inner.send('ConfigMap', { type: 'MODIFIED', object: { ...cm('a', 'two'), data: { k: 'by hand' } } });
    inner.send('ConfigMap', { type: 'ADDED', object: cm('c', 'new') });
    inner.send('ConfigMap', { type: 'DELETED', object: cm('b', 'three') });
    expect((await cache.get(type('ConfigMap'), 'a', 'two'))?.data).toEqual({ k: 'by hand' });
    expect((await cache.list(type('ConfigMap'), {})).items.map((o) => o.metadata.name).sort()).toEqual(['new', 'one', 'two']);
    expect(requests(inner)).toEqual(['LIST ConfigMap *']);
    // Shared and frozen: a mutation throws and changes nothing.
    const mine = await cache.get(type('ConfigMap'), 'a', 'one');
    expect(() => {
      mine!.data = { k: 'mutated' };
    }).toThrow(TypeError);
    expect((await cache.get(type('ConfigMap'), 'a', 'one'))?.data).toEqual({ k: 'one' });
  });

  test('a metadata-only read of a type kept in full is cut from it (filtered by the annotation); one no app keeps in full stays metadata only', async () => {
    await cache.list(type('ConfigMap'), { namespace: 'a' });
    const meta = await cache.list(type('ConfigMap'), { namespace: 'a', metadataOnly: true, withAnnotation: MARK });
    expect(meta.items.map((o) => [Object.keys(o), o.metadata.name])).toEqual([[['apiVersion', 'kind', 'metadata'], 'one']]);
    expect(requests(inner)).toEqual(['LIST ConfigMap *']);

    const secrets = await cache.list(type('Secret'), { namespace: 'a', metadataOnly: true });
    expect(secrets.items).toEqual([]);
    expect(requests(inner)).toEqual(['LIST ConfigMap *', 'LIST Secret * meta']);
    expect(cache.kept().sort((x, y) => x.resource.localeCompare(y.resource))).toEqual([
      { resource: 'configmaps', metadataOnly: false, objects: 2 + 1 },
      { resource: 'secrets', metadataOnly: true, objects: 0 },
    ]);
  });

  test('a read after a write waits for the watch to deliver the written version; one that never comes is asked of the server', async () => {
    await cache.list(type('ConfigMap'), {});
    await tick();
    const written = await cache.apply(type('ConfigMap'), { ...cm('a', 'two'), data: { k: 'applied' } }, { fieldManager: 'm', force: true, dryRun: false });
    // The watch delivers it a little later: the read waits for it rather than answer the state before the write.
    setTimeout(() => inner.send('ConfigMap', { type: 'MODIFIED', object: written }), 50);
    expect((await cache.get(type('ConfigMap'), 'a', 'two'))?.data).toEqual({ k: 'applied' });
    expect(requests(inner)).toEqual(['LIST ConfigMap *', 'APPLY force ConfigMap a/two']);

    // A dry run waits for nothing.
    await cache.apply(type('ConfigMap'), { ...cm('a', 'one'), data: { k: 'dry' } }, { fieldManager: 'm', force: true, dryRun: true });
    expect((await cache.get(type('ConfigMap'), 'a', 'one'))?.data).toEqual({ k: 'one' });

    // A write the watch never delivers (a stream stalled): after settleMs the server answers.
    await cache.apply(type('ConfigMap'), { ...cm('b', 'three'), data: { k: 'unseen' } }, { fieldManager: 'm', force: true, dryRun: false });
    const started = Date.now();
    expect((await cache.get(type('ConfigMap'), 'b', 'three'))?.data).toEqual({ k: 'unseen' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(requests(inner).slice(-1)).toEqual(['GET ConfigMap b/three']);
  });

  test('a write the watch delivered before its response was read, a controller’s update after it, is not waited for', async () => {
    await cache.list(type('ConfigMap'), {});
    await tick();
    const apply = inner.apply.bind(inner);
    inner.apply = async (t, obj, o) => {
      const written = await apply(t, obj, o);
      inner.send('ConfigMap', { type: 'MODIFIED', object: written });
      inner.send('ConfigMap', { type: 'MODIFIED', object: { ...written, metadata: { ...written.metadata, resourceVersion: '999' } } });
      return written;
    };
    await cache.apply(type('ConfigMap'), { ...cm('a', 'two'), data: { k: 'fast' } }, { fieldManager: 'm', force: true, dryRun: false });
    expect((await cache.get(type('ConfigMap'), 'a', 'two'))?.metadata.resourceVersion).toBe('999');
    // Not waited for: a read that waits out settleMs asks the server (the GET the stalled-stream test above sees);
    // no GET was made. (A bound on the time was a flake beside a busy CI run, and proved less.)
    expect(requests(inner)).toEqual(['LIST ConfigMap *', 'APPLY force ConfigMap a/two']);
  });

  test('a delete: the next read waits until the watch says the object is gone', async () => {
    await cache.list(type('ConfigMap'), {});
    await tick();
    await cache.delete(type('ConfigMap'), 'a', 'one');
    setTimeout(() => inner.send('ConfigMap', { type: 'DELETED', object: cm('a', 'one') }), 50);
    expect(await cache.get(type('ConfigMap'), 'a', 'one')).toBeUndefined();
    expect(requests(inner)).toEqual(['LIST ConfigMap *', 'DELETE ConfigMap a/one']);
  });

  test('a type whose cluster-wide LIST is forbidden is read from the server as asked, each time; a field selector too', async () => {
    const denied = new WatchedFake({ objects: [cm('a', 'one')], forbiddenClusterWide: ['list configmaps'] });
    const c = new ClusterCache(denied, opts);
    try {
      expect((await c.list(type('ConfigMap'), { namespace: 'a' })).items.map((o) => o.metadata.name)).toEqual(['one']);
      await c.list(type('ConfigMap'), { namespace: 'a' });
      expect(requests(denied)).toEqual(['LIST ConfigMap *', 'LIST ConfigMap a', 'LIST ConfigMap a']);
      expect(c.snapshotStats()).toEqual({ clusterWideLists: 0, splitByNamespace: ['configmaps'] });
    } finally {
      c.closeInner();
    }
    // A field selector, and a label selector the cache cannot read (an integer comparison), go to the server each time.
    await cache.list(type('ConfigMap'), { namespace: 'a', fieldSelector: 'metadata.name=one' });
    await cache.list(type('ConfigMap'), { namespace: 'a', labelSelector: 'tier>1' });
    await cache.list(type('ConfigMap'), { namespace: 'a', labelSelector: 'tier>1' });
    expect(requests(inner)).toEqual(['LIST ConfigMap a', 'LIST ConfigMap a', 'LIST ConfigMap a']);
  });

  test('label tracking: a metadata-only read by label selector is cut from the type’s cluster-wide copy, with no request of its own', async () => {
    const labelled = (namespace: string, name: string, instance?: string): KubeObject => ({
      ...cm(namespace, name),
      metadata: { namespace, name, ...(instance ? { labels: { 'app.kubernetes.io/instance': instance } } : {}) },
    });
    const g = new WatchedFake({ objects: [labelled('a', 'one', 'shop'), labelled('a', 'two'), labelled('b', 'three', 'cart')] });
    const c = new ClusterCache(g, opts);
    try {
      const scan = (namespace: string) => c.list(type('ConfigMap'), { namespace, metadataOnly: true, labelSelector: 'app.kubernetes.io/instance' });
      expect((await scan('a')).items.map((o) => [Object.keys(o), o.metadata.name])).toEqual([[['apiVersion', 'kind', 'metadata'], 'one']]);
      expect((await scan('b')).items.map((o) => o.metadata.name)).toEqual(['three']);
      await tick();
      // A label added by hand, delivered by the watch: the next scan has it, with no request.
      g.send('ConfigMap', { type: 'MODIFIED', object: labelled('a', 'two', 'shop') });
      expect((await scan('a')).items.map((o) => o.metadata.name)).toEqual(['one', 'two']);
      expect(
        (await c.list(type('ConfigMap'), { metadataOnly: true, labelSelector: 'app.kubernetes.io/instance=cart' })).items.map((o) => o.metadata.name),
      ).toEqual(['three']);
      expect(requests(g)).toEqual(['LIST ConfigMap * meta']);
      expect(g.calls.filter((x) => x.startsWith('WATCH')).map((x) => x.replace(/rv=\d+/, 'rv'))).toEqual(['WATCH ConfigMap rv meta']);
    } finally {
      c.closeInner();
    }
  });

  test('a full read by label selector (Argo CD’s cluster Secrets) follows that selector in that namespace: one LIST, one watch, its changes and writes seen', async () => {
    const secret = (name: string, labels: Record<string, string>, server = 'https://x'): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { namespace: 'argocd', name, labels },
      data: { server: Buffer.from(server).toString('base64') },
    });
    const CLUSTER = { 'argocd.argoproj.io/secret-type': 'cluster' };
    const g = new WatchedFake({
      objects: [secret('east', CLUSTER), secret('token', {}), { ...secret('west', CLUSTER), metadata: { namespace: 'other', name: 'west', labels: CLUSTER } }],
    });
    const asked: string[] = [];
    const list = g.list.bind(g);
    g.list = async (t, o = {}) => (asked.push(`${o.namespace ?? '*'} ${o.labelSelector ?? ''}`), list(t, o));
    const c = new ClusterCache(g, opts);
    const read = async () =>
      (await c.list(type('Secret'), { namespace: 'argocd', labelSelector: 'argocd.argoproj.io/secret-type=cluster' })).items.map((o) => o.metadata.name).sort();
    try {
      expect(await read()).toEqual(['east']);
      expect(await read()).toEqual(['east']);
      expect(asked).toEqual(['argocd argocd.argoproj.io/secret-type=cluster']);
      await tick();
      expect(g.calls.filter((x) => x.startsWith('WATCH')).map((x) => x.replace(/rv=\d+/, 'rv'))).toEqual([
        'WATCH Secret rv argocd argocd.argoproj.io/secret-type=cluster',
      ]);
      // Only the selector's Secrets are kept, not every Secret of the cluster.
      expect(c.kept()).toEqual([{ resource: 'secrets', metadataOnly: false, objects: 1 }]);
      expect(c.snapshotStats().clusterWideLists).toBe(0);
      // A cluster added (the server's watch of that selector delivers only what matches).
      g.send('Secret', { type: 'ADDED', object: secret('north', CLUSTER) });
      expect(await read()).toEqual(['east', 'north']);
      // A write through the cache of a matching Secret: the next read waits for the watch to deliver it.
      const written = await c.apply(type('Secret'), secret('south', CLUSTER, 'https://south'), { fieldManager: 'm', force: true, dryRun: false });
      setTimeout(() => g.send('Secret', { type: 'ADDED', object: written }), 50);
      expect(await read()).toEqual(['east', 'north', 'south']);
      // One its selector does not match is not waited for (the watch would never deliver it): no fallback to the server.
      await c.apply(type('Secret'), secret('plain', {}), { fieldManager: 'm', force: true, dryRun: false });
      expect(await read()).toEqual(['east', 'north', 'south']);
      expect(asked).toEqual(['argocd argocd.argoproj.io/secret-type=cluster']);
      // A Secret that stops matching leaves it when the watch says so (DELETED), and the read waits for that.
      const unlabelled = await c.apply(type('Secret'), secret('north', {}), { fieldManager: 'm', force: true, dryRun: false });
      setTimeout(() => g.send('Secret', { type: 'DELETED', object: unlabelled }), 50);
      expect(await read()).toEqual(['east', 'south']);
      expect(asked).toEqual(['argocd argocd.argoproj.io/secret-type=cluster']);
    } finally {
      c.closeInner();
    }
  });

  test('once a type is kept in full, its metadata-only and selector copies stop watching (those awaiting a write once it is seen)', async () => {
    const sel = 'team=x';
    const labelledCm = (name: string): KubeObject => ({ ...cm('a', name), metadata: { namespace: 'a', name, labels: { team: 'x' } } });
    const g = new WatchedFake({ objects: [labelledCm('l1'), cm('a', 'plain')] });
    const c = new ClusterCache(g, opts);
    const bySelector = async () => (await c.list(type('ConfigMap'), { namespace: 'a', labelSelector: sel })).items.map((o) => o.metadata.name).sort();
    try {
      expect(await bySelector()).toEqual(['l1']);
      await c.list(type('ConfigMap'), { metadataOnly: true });
      await tick();
      expect(g.open()).toBe(2);
      // A write both copies wait for (it matches the selector): they stay until their watches deliver it.
      const written = await c.apply(type('ConfigMap'), labelledCm('l2'), { fieldManager: 'm', force: true, dryRun: false });
      // The type kept in full (an app declares ConfigMaps).
      expect((await c.list(type('ConfigMap'), { namespace: 'a' })).items.map((o) => o.metadata.name).sort()).toEqual(['l1', 'l2', 'plain']);
      await tick();
      expect(g.open()).toBe(3);
      g.send('ConfigMap', { type: 'ADDED', object: written });
      await tick();
      expect(g.open()).toBe(1);
      expect(c.kept()).toEqual([{ resource: 'configmaps', metadataOnly: false, objects: 3 }]);
      // Reads by selector and of metadata are cut from the full copy, with no request of their own.
      const before = requests(g).length;
      expect(await bySelector()).toEqual(['l1', 'l2']);
      expect((await c.list(type('ConfigMap'), { namespace: 'a', metadataOnly: true })).items).toHaveLength(3);
      expect(requests(g).length).toBe(before);
    } finally {
      c.closeInner();
    }
  });

  test('listeners get the list they came after, then every change', async () => {
    await cache.list(type('ConfigMap'), {});
    await tick();
    const seen: string[] = [];
    const off = cache.subscribe(type('ConfigMap'), (e: FollowEvent) =>
      seen.push(e.kind === 'listed' ? `listed ${e.items.length}` : e.kind === 'change' ? `${e.type} ${e.object.metadata.name}` : e.kind),
    );
    inner.send('ConfigMap', { type: 'MODIFIED', object: cm('a', 'two') });
    off!();
    inner.send('ConfigMap', { type: 'MODIFIED', object: cm('a', 'one') });
    expect(seen).toEqual(['listed 3', 'MODIFIED two']);
    expect(requests(inner)).toEqual(['LIST ConfigMap *']);
  });

  test('a read waiting for a first list when the cache closes gets an error, not silence', async () => {
    const stuck = new WatchedFake({ objects: [] });
    stuck.list = () => new Promise(() => undefined);
    const c = new ClusterCache(stuck, opts);
    const read = c.get(type('ConfigMap'), 'a', 'one');
    await tick();
    c.closeInner();
    await expect(read).rejects.toThrow('the cluster cache stopped before configmaps was listed');
  });

  test('a listener scoped to a namespace gets that namespace only, and none after its signal aborts', async () => {
    await cache.list(type('ConfigMap'), {});
    await tick();
    const seen: string[] = [];
    const stop = new AbortController();
    cache.subscribe(
      type('ConfigMap'),
      (e: FollowEvent) =>
        seen.push(
          e.kind === 'listed'
            ? `listed ${e.items.map((o) => o.metadata.name).join(',')}`
            : e.kind === 'change'
              ? `${e.type} ${e.object.metadata.name}`
              : e.kind,
        ),
      { namespace: 'a', signal: stop.signal },
    );
    inner.send('ConfigMap', { type: 'MODIFIED', object: cm('b', 'three') });
    inner.send('ConfigMap', { type: 'MODIFIED', object: cm('a', 'two') });
    stop.abort();
    inner.send('ConfigMap', { type: 'MODIFIED', object: cm('a', 'one') });
    expect(seen).toEqual(['listed one,two', 'MODIFIED two']);
  });

  test('closing stops every watch', async () => {
    await cache.list(type('ConfigMap'), {});
    await tick();
    expect(inner.open()).toBe(1);
    cache.closeInner();
    await tick();
    expect(inner.open()).toBe(0);
  });
});
