// The watch-fed cache's reads by label selector on the real API server (kube/cluster-cache.ts): a full read by selector
// follows that selector in that namespace with one LIST and one watch, sees a label added or removed by hand as the
// server's watch reports it (an object leaving the selector comes as DELETED), and a read right after a write through the
// cache waits for the watch to deliver it (the object written into the selector, or out of it). A metadata-only read
// by selector (label tracking's scan) is cut from the type's cluster-wide copy.
import { createTestNamespace, deleteNamespace, kubeconfigPath, kubectlOk, waitFor } from './support/index.js';
import { resolveConnection } from '../../src/kube/connect.js';
import { createClientGateway } from '../../src/kube/client-gateway.js';
import { ClusterCache } from '../../src/kube/cluster-cache.js';
import type { KubeGateway } from '../../src/kube/gateway.js';
import type { KubeObject } from '../../src/model/object.js';
import type { ResourceType } from '../../src/model/resource-type.js';

const secrets: ResourceType = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  resource: 'secrets',
  namespaced: true,
  verbs: ['get', 'list', 'watch', 'create', 'patch', 'update', 'delete'],
};
const configMaps: ResourceType = { ...secrets, kind: 'ConfigMap', resource: 'configmaps' };
const LABEL = 'argocd.argoproj.io/secret-type';
const SELECTOR = `${LABEL}=cluster`;
let ns: string;
let inner: KubeGateway;
let cache: ClusterCache;

beforeAll(async () => {
  ns = await createTestNamespace('cache-selector');
  inner = await createClientGateway({ connection: await resolveConnection({ kubeconfig: kubeconfigPath(), env: {} }), requestTimeoutMs: 30_000 });
  cache = new ClusterCache(inner, { reconnectDelay: () => 500, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) });
});

afterAll(async () => {
  cache?.closeInner();
  if (ns) await deleteNamespace(ns);
});

const secret = (name: string, labels: Record<string, string>): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns, labels },
    stringData: { server: `https://${name}.example` },
  }) as unknown as KubeObject;

const names = async (): Promise<string[]> =>
  (await cache.list(secrets, { namespace: ns, labelSelector: SELECTOR })).items.map((o) => o.metadata.name ?? '').sort();

test('a full read by label selector: one LIST and one watch of it; labels changed by hand and writes through the cache are seen', async () => {
  await kubectlOk(['create', 'secret', 'generic', 'east', '-n', ns, '--from-literal=server=https://east.example']);
  await kubectlOk(['label', 'secret', 'east', '-n', ns, SELECTOR]);
  await kubectlOk(['create', 'secret', 'generic', 'token', '-n', ns, '--from-literal=t=x']);
  const before = inner.stats().requests;
  expect(await names()).toEqual(['east']);
  expect(await names()).toEqual(['east']);
  // One LIST (the watch is a long request the stats count when it starts).
  expect(inner.stats().requests - before).toBeLessThanOrEqual(2);
  expect(cache.kept()).toEqual([{ resource: 'secrets', metadataOnly: false, objects: 1 }]);

  // By hand: a label added brings the Secret in, one removed takes it out (the server's watch says DELETED).
  await kubectlOk(['label', 'secret', 'token', '-n', ns, SELECTOR]);
  await waitFor(async () => (await names()).includes('token'), { what: 'token seen through the selector', timeoutMs: 10_000 });
  await kubectlOk(['label', 'secret', 'east', '-n', ns, `${LABEL}-`]);
  await waitFor(async () => !(await names()).includes('east'), { what: 'east gone from the selector', timeoutMs: 10_000 });
  expect(await names()).toEqual(['token']);

  // Through the cache: the read right after a write has it, into the selector and out of it, with no LIST of its own.
  const settled = inner.stats().requests;
  await cache.apply(secrets, secret('north', { [LABEL]: 'cluster' }), { fieldManager: 'kgitops-test', force: true, dryRun: false });
  expect(await names()).toEqual(['north', 'token']);
  await cache.apply(secrets, secret('north', {}), { fieldManager: 'kgitops-test', force: true, dryRun: false });
  expect(await names()).toEqual(['token']);
  // A Secret the selector never held is not waited for.
  await cache.apply(secrets, secret('plain', {}), { fieldManager: 'kgitops-test', force: true, dryRun: false });
  expect(await names()).toEqual(['token']);
  expect(inner.stats().requests - settled).toBe(3);
});

test('a metadata-only read by label selector (label tracking) is cut from the cluster-wide copy', async () => {
  await kubectlOk(['create', 'configmap', 'tracked', '-n', ns, '--from-literal=a=b']);
  await kubectlOk(['label', 'configmap', 'tracked', '-n', ns, 'app.kubernetes.io/instance=shop']);
  await kubectlOk(['create', 'configmap', 'untracked', '-n', ns, '--from-literal=a=b']);
  const scan = async () =>
    (await cache.list(configMaps, { namespace: ns, metadataOnly: true, labelSelector: 'app.kubernetes.io/instance' })).items.map((o) => o.metadata.name);
  expect(await scan()).toEqual(['tracked']);
  const listed = inner.stats().requests;
  await kubectlOk(['label', 'configmap', 'untracked', '-n', ns, 'app.kubernetes.io/instance=cart']);
  await waitFor(async () => (await scan()).length === 2, { what: 'the label added by hand seen', timeoutMs: 10_000 });
  expect(inner.stats().requests).toBe(listed);
  expect(cache.kept().find((k) => k.resource === 'configmaps')).toMatchObject({ metadataOnly: true });
});
