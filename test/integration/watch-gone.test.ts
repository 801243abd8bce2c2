// 410 Gone on the real API server: a watch from a resourceVersion etcd has compacted away ends with the server's own
// answer (410, reason Expired), and the follower (src/kube/watch.ts, under sync --watch, watch --all and the dashboard)
// lists again and goes on watching from the new list, seeing what changed after.
//
// The local control plane serves PodTemplates without the watch cache (test/cluster/up: --watch-cache-sizes=
// podtemplates#0), so their watches read etcd, and the test compacts etcd itself (its v3 HTTP gateway), as the API
// server does every five minutes: a resourceVersion from before the compaction is then gone for good. The follower's
// first watch stream is cut by the test, as a dropped connection would be; the rest is the real server and the real
// gateway: the 410, the re-list, the events.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createTestNamespace, deleteNamespace, kubeconfigPath, kubectlOk } from './support/index.js';
import { resolveConnection } from '../../src/kube/connect.js';
import { createClientGateway } from '../../src/kube/client-gateway.js';
import type { KubeGateway, WatchEvent, WatchOptions } from '../../src/kube/gateway.js';
import type { ResourceType } from '../../src/model/resource-type.js';
import { follow, type FollowEvent } from '../../src/kube/watch.js';

const podTemplates: ResourceType = { group: '', version: 'v1', kind: 'PodTemplate', resource: 'podtemplates', namespaced: true, verbs: ['list', 'watch'] };
let ns: string;
let gw: KubeGateway;
let etcd: string;

beforeAll(async () => {
  ns = await createTestNamespace('watch-gone');
  gw = await createClientGateway({ connection: await resolveConnection({ kubeconfig: kubeconfigPath(), env: {} }), requestTimeoutMs: 30_000 });
  const env = readFileSync(join(dirname(kubeconfigPath()), 'cluster.env'), 'utf8');
  etcd = /^KGITOPS_ETCD=(.+)$/m.exec(env)?.[1] ?? '';
  if (!etcd) throw new Error('no KGITOPS_ETCD in the control plane’s cluster.env');
});

afterAll(async () => {
  gw?.close();
  if (ns) await deleteNamespace(ns);
});

async function etcdCall(path: string, body: unknown): Promise<{ header?: { revision?: string } }> {
  const res = await fetch(`${etcd}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`etcd ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { header?: { revision?: string } };
}

/**
 * Compacts etcd at its current revision, after one more write of a key of its own outside the API server's: every
 * older resourceVersion is gone. The extra write matters: the API server watches from resourceVersion + 1, which a
 * compaction at exactly that revision would still serve.
 */
async function compactEtcd(): Promise<number> {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const now = Number((await etcdCall('/v3/kv/put', { key: b64('/kgitops-test/compaction'), value: b64(String(Date.now())) })).header?.revision);
  await etcdCall('/v3/kv/compaction', { revision: String(now), physical: true });
  return now;
}

const template = (name: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name, namespace: ns },
    template: { spec: { containers: [{ name: 'c', image: 'registry.local/x:1' }] } },
  });

async function listVersion(): Promise<string> {
  const list = await gw.list(podTemplates, { namespace: ns });
  if (!list.resourceVersion) throw new Error('the list has no resourceVersion');
  return list.resourceVersion;
}

test('a watch from a resourceVersion etcd compacted away: the server answers 410 Gone (Expired)', async () => {
  const before = await listVersion();
  await kubectlOk(['apply', '-f', '-'], { stdin: template('bump') });
  expect(await compactEtcd()).toBeGreaterThan(Number(before));
  const events: WatchEvent[] = [];
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 10_000);
  let status: number | undefined;
  try {
    await gw.watch(podTemplates, { namespace: ns, resourceVersion: before, signal: stop.signal }, (e) => {
      events.push(e);
      if (e.type === 'ERROR') stop.abort();
    });
  } catch (err) {
    status = (err as { status?: number }).status;
  } finally {
    clearTimeout(timer);
  }
  const error = events.find((e) => e.type === 'ERROR')?.object as unknown as { code?: number; reason?: string } | undefined;
  // The server says it either way, in the stream (an ERROR event) or as the response's status: both are Gone.
  expect({ code: error?.code ?? status, reason: error ? error.reason : 'Expired' }).toEqual({ code: 410, reason: 'Expired' });
  expect(events.filter((e) => e.type !== 'ERROR')).toEqual([]);
});

test('the follower: listed, its stream cut, 410 Gone on the resume, listed again, then every change after the new list', async () => {
  await kubectlOk(['apply', '-f', '-'], { stdin: template('before') });
  const streams: AbortController[] = [];
  const watchedFrom: (string | undefined)[] = [];
  let lists = 0;
  // The real gateway; each watch stream gets a controller of its own so that the test can cut the first one.
  const cuttable: KubeGateway = Object.assign(Object.create(gw) as KubeGateway, {
    list: (...args: Parameters<KubeGateway['list']>) => {
      lists++;
      return gw.list(...args);
    },
    watch: (type: ResourceType, opts: WatchOptions, onEvent: (e: WatchEvent) => void) => {
      const own = new AbortController();
      opts.signal?.addEventListener('abort', () => own.abort(), { once: true });
      streams.push(own);
      watchedFrom.push(opts.resourceVersion);
      return gw.watch(type, { ...opts, signal: own.signal }, onEvent);
    },
  });
  const events: FollowEvent[] = [];
  const stop = new AbortController();
  let listedAgain: () => void = () => undefined;
  const relisted = new Promise<void>((r) => (listedAgain = r));
  let sawAfter: () => void = () => undefined;
  const seen = new Promise<void>((r) => (sawAfter = r));
  const emit = (e: FollowEvent) => {
    events.push(e);
    if (e.kind === 'listed' && events.some((x) => x.kind === 'gone')) listedAgain();
    if (e.kind === 'change' && e.object.metadata.name === 'after') sawAfter();
  };
  const done = follow(cuttable, { type: podTemplates, namespace: ns }, emit, {
    signal: stop.signal,
    reconnectDelay: () => 200,
    sleep: (ms, signal) => new Promise((r) => (signal.aborted ? r() : setTimeout(r, ms))),
  });
  const within = <T>(p: Promise<T>, what: string) =>
    Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: ${JSON.stringify(events.map((e) => e.kind))}`)), 30_000))]);
  try {
    for (let i = 0; i < 100 && streams.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    // Longer than a healthy stream's minimum (1 s): its end is a normal one, resumed from the same resourceVersion.
    await new Promise((r) => setTimeout(r, 1_500));
    await kubectlOk(['create', 'configmap', 'bump', '-n', ns]);
    await compactEtcd();
    streams[0]!.abort();
    await within(relisted, 'no list after a Gone');
    await kubectlOk(['apply', '-f', '-'], { stdin: template('after') });
    await within(seen, 'no change seen after the re-list');
  } finally {
    stop.abort();
    await done;
  }
  const shape = events.map((e) =>
    e.kind === 'listed'
      ? `listed ${e.items
          .map((o) => o.metadata.name)
          .sort()
          .join(',')}`
      : e.kind === 'change'
        ? `${e.type} ${e.object.metadata.name}`
        : e.kind,
  );
  // `bump` is the first test's PodTemplate, in the same namespace.
  expect(shape).toEqual(['listed before,bump', 'gone', 'listed before,bump', 'ADDED after']);
  expect(lists).toBe(2);
  // The resume was asked from the first list's resourceVersion (the compacted one), the next watch from the new list's.
  expect(watchedFrom.length).toBeGreaterThanOrEqual(3);
  expect(watchedFrom[1]).toBe(watchedFrom[0]);
  expect(Number(watchedFrom[2])).toBeGreaterThan(Number(watchedFrom[0]));
});
