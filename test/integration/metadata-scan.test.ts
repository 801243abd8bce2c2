// Reading crowded namespaces, against the real API server: the metadata-only list that leaves undecoded the items
// without an annotation (the same marked items as decoding every page, whole, across pages; the fast path taken; a
// value quoting the key not taken for it), a LIST stopped after its first pages and resumed, and `diff` of an app
// among 600 unrelated ConfigMaps, whose twins past the first page are read by GETs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubeconfigPath, kubectlOk, runPlugin } from './support/index.js';
import { resolveConnection } from '../../src/kube/connect.js';
import { createClientGateway } from '../../src/kube/client-gateway.js';
import type { KubeGateway } from '../../src/kube/gateway.js';
import type { ResourceType } from '../../src/model/resource-type.js';
import { TRACKING_ID } from '../../src/model/keys.js';
import type { KubeObject } from '../../src/model/object.js';
import { applicationYaml, inCluster } from '../support/application.js';

let ns: string;
let gw: KubeGateway;

beforeAll(async () => {
  ns = await createTestNamespace('metascan');
  gw = await createClientGateway({ connection: await resolveConnection({ kubeconfig: kubeconfigPath(), env: {} }), requestTimeoutMs: 30_000 });
});

afterAll(async () => {
  gw?.close();
  if (ns) await deleteNamespace(ns);
});

function configMap(i: number): KubeObject {
  const name = `cm-${String(i).padStart(2, '0')}`;
  const metadata: KubeObject['metadata'] = { name, namespace: ns };
  if (i % 7 === 3) metadata.annotations = { [TRACKING_ID]: `app-${i % 2}:/ConfigMap:${ns}/${name}` };
  if (i === 10) metadata.labels = { [TRACKING_ID]: 'a-label' }; // the key as a label: taken too (more, never fewer)
  if (i === 11) metadata.annotations = { note: `<b>&amp;</b> "${TRACKING_ID}"` }; // the server escapes <, > and &; the quotes are escaped
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { i: String(i) } };
}

test('the marked items of every page, as whole as a full decode, and only the items whose text holds the key', async () => {
  const objects = Array.from({ length: 40 }, (_, i) => configMap(i));
  await kubectlOk(['apply', '--server-side', '--field-manager', 'argocd-controller', '-f', '-'], {
    stdin: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }),
  });
  const type = (await gw.resolve('v1', 'ConfigMap')) as ResourceType;

  const all = await gw.list(type, { namespace: ns, metadataOnly: true, pageSize: 7 });
  const scanned = await gw.list(type, { namespace: ns, metadataOnly: true, pageSize: 7, withAnnotation: TRACKING_ID });

  const names = (items: KubeObject[]) => items.map((o) => o.metadata.name);
  const marked = all.items.filter((o) => o.metadata.annotations?.[TRACKING_ID] !== undefined);
  expect(marked.length).toBe(6);
  expect(all.items.length).toBeGreaterThanOrEqual(40); // with the namespace's kube-root-ca.crt
  expect(names(scanned.items)).toEqual(names(all.items.filter((o) => marked.includes(o) || o.metadata.name === 'cm-10')));
  for (const o of scanned.items) expect(o).toEqual(all.items.find((x) => x.metadata.name === o.metadata.name));
  expect(scanned.pages).toBe(all.pages);
  expect(scanned.pages).toBeGreaterThanOrEqual(6);
  expect(scanned.resourceVersion).toMatch(/^\d+$/);
  // A kind with nothing in the namespace: the server's empty list ("items":null) reads as no items.
  const secrets = (await gw.resolve('v1', 'Secret')) as ResourceType;
  expect(await gw.list(secrets, { namespace: ns, metadataOnly: true, withAnnotation: TRACKING_ID })).toMatchObject({ items: [], pages: 1 });
});

test('a LIST stopped after two pages says how many items are left, and goes on from its continue token', async () => {
  const type = (await gw.resolve('v1', 'ConfigMap')) as ResourceType;
  const all = await gw.list(type, { namespace: ns, pageSize: 7 });
  const head = await gw.list(type, { namespace: ns, pageSize: 7, maxPages: 2 });
  expect(head.pages).toBe(2);
  expect(head.items).toHaveLength(14);
  expect(head.continue).toEqual(expect.any(String));
  expect(head.remainingItemCount).toBe(all.items.length - 14);
  const rest = await gw.list(type, { namespace: ns, pageSize: 7, continue: head.continue });
  expect(rest.continue).toBeUndefined();
  expect([...head.items, ...rest.items].map((o) => o.metadata.name)).toEqual(all.items.map((o) => o.metadata.name));
});

test('diff of an app among 600 unrelated ConfigMaps (past the first page its twins are read by GET: the unit tests count the calls): the drift and the extra found as in a quiet namespace', async () => {
  const crowd = await createTestNamespace('crowd');
  try {
    const root = tempDir('crowd');
    const desired = join(root, 'desired');
    mkdirSync(desired);
    // Names sort around the crowd: `aa-first` in the first page of 500, `zz-*` after it.
    const names = ['aa-first', 'zz-changed', 'zz-same'];
    writeFileSync(join(desired, 'cms.yaml'), names.map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}}\ndata: {v: "1"}\n`).join('---\n'));
    const appFile = join(root, 'app.yaml');
    writeFileSync(
      appFile,
      applicationYaml({ name: 'crowd', spec: { source: { repoURL: 'https://git.example.com/x.git', path: 'deploy' }, destination: inCluster(crowd) } }),
    );
    const sync = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect(sync.code).toBe(0);
    const unrelated = Array.from({ length: 600 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `m-${String(i).padStart(3, '0')}`, namespace: crowd },
      data: { note: 'not the app' },
    }));
    const stale = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'zz-stale', namespace: crowd, annotations: { [TRACKING_ID]: `crowd:/ConfigMap:${crowd}/zz-stale` } },
    };
    await kubectlOk(['apply', '-f', '-'], { stdin: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [...unrelated, stale] }) });
    await kubectlOk(['patch', 'configmap', 'zz-changed', '-n', crowd, '--type=merge', '-p', '{"data":{"v":"2"}}']);

    const res = await runPlugin(['diff', '-f', appFile, '--desired', desired, '-o', 'json', '-v']);
    expect(res.code).toBe(1);
    const report = JSON.parse(res.stdout) as {
      sync: string;
      objects: { key: { name: string }; status: string; fields: { path: string; live?: unknown }[] }[];
      extras: { name: string }[];
    };
    expect(report.sync).toBe('OutOfSync');
    expect(Object.fromEntries(report.objects.map((o) => [o.key.name, o.status]))).toEqual({
      'aa-first': 'in-sync',
      'zz-changed': 'drifted',
      'zz-same': 'in-sync',
    });
    expect(report.objects.find((o) => o.key.name === 'zz-changed')?.fields.find((f) => f.path === 'data.v')?.live).toBe('2');
    expect(report.extras.map((k) => k.name)).toEqual(['zz-stale']);
  } finally {
    await deleteNamespace(crowd);
  }
});
