// The metadata-only list that leaves undecoded the items without an annotation, against the real API server's
// encoding: the same marked items as decoding every page, whole, across pages; the fast path is taken (it returns
// exactly the items whose text holds the key), and a value quoting the key does not make an item a candidate.
import { createTestNamespace, deleteNamespace, kubeconfigPath, kubectlOk } from './support/index.js';
import { resolveConnection } from '../../src/kube/connect.js';
import { createClientGateway } from '../../src/kube/client-gateway.js';
import type { KubeGateway, ResourceType } from '../../src/kube/gateway.js';
import { TRACKING_ID } from '../../src/model/keys.js';
import type { KubeObject } from '../../src/model/object.js';

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
  await kubectlOk(['apply', '--server-side', '--field-manager', 'argocd-controller', '-f', '-'], { stdin: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) });
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
});
