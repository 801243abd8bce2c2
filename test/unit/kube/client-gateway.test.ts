// The client gateway against a local HTTP server: paths, headers, pagination, retries, error mapping.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClientGateway } from '../../../src/kube/client-gateway.js';
import { ApplyConflictError, isRbacDenial, KubeApiError } from '../../../src/kube/errors.js';
import type { KubeGateway } from '../../../src/kube/gateway.js';
import type { ResourceType } from '../../../src/model/resource-type.js';
import type { KubeObject } from '../../../src/model/object.js';

const CM: ResourceType = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, verbs: ['list'] };
const DEPLOY: ResourceType = { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, verbs: ['patch'] };

interface Seen {
  method: string;
  url: string;
  accept: string;
  contentType: string;
  auth: string;
  body: string;
}
type Handler = (req: Seen, res: http.ServerResponse) => void;

let server: http.Server;
let handler: Handler;
const seen: Seen[] = [];
let gw: KubeGateway;

async function gateway(timeoutMs = 0): Promise<KubeGateway> {
  const port = (server.address() as AddressInfo).port;
  const connection = { server: `http://127.0.0.1:${port}`, tls: {}, headers: { Authorization: 'Bearer tok' }, via: 'kubeconfig' as const };
  return createClientGateway({ connection, requestTimeoutMs: timeoutMs, backoffMs: 5 });
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const s: Seen = {
        method: req.method ?? '',
        url: req.url ?? '',
        accept: String(req.headers.accept),
        contentType: String(req.headers['content-type']),
        auth: String(req.headers.authorization),
        body,
      };
      seen.push(s);
      handler(s, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  gw = await gateway();
});
afterAll(async () => {
  gw.close();
  await new Promise((r) => server.close(r));
});
beforeEach(() => (seen.length = 0));

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

test('a metadata-only list follows continue tokens and fills in apiVersion and kind', async () => {
  handler = (req, res) => {
    const page2 = req.url.includes('continue=t1');
    json(res, 200, { kind: 'PartialObjectMetadataList', metadata: page2 ? {} : { continue: 't1' }, items: [{ metadata: { name: page2 ? 'b' : 'a' } }] });
  };
  const out = await gw.list(CM, { namespace: 'shop', metadataOnly: true, pageSize: 1 });
  expect(out.items.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name}`)).toEqual(['v1 ConfigMap a', 'v1 ConfigMap b']);
  expect(out.pages).toBe(2);
  expect(seen[0]!.url).toBe('/api/v1/namespaces/shop/configmaps?limit=1');
  expect(seen[0]!.accept).toContain('as=PartialObjectMetadataList;g=meta.k8s.io;v=v1');
  expect(seen[0]!.auth).toBe('Bearer tok');
});

test('basic authentication is sent as kubectl sends it (Authorization: Basic base64(user:password))', async () => {
  handler = (_req, res) => json(res, 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  const port = (server.address() as AddressInfo).port;
  const basic = await createClientGateway({
    connection: { server: `http://127.0.0.1:${port}`, tls: {}, headers: {}, basicAuth: 'alice:p@ss:w', via: 'kubeconfig' },
    requestTimeoutMs: 0,
    backoffMs: 5,
  });
  try {
    await basic.get(CM, 'shop', 'a');
  } finally {
    basic.close();
  }
  expect(seen[0]!.auth).toBe(`Basic ${Buffer.from('alice:p@ss:w').toString('base64')}`);
});

test('429 and 503 are retried (Retry-After honoured), then the answer is used', async () => {
  let n = 0;
  handler = (_req, res) => {
    n++;
    if (n === 1) return json(res, 429, { kind: 'Status', reason: 'TooManyRequests', message: 'slow down' }, { 'retry-after': '0' });
    if (n === 2) return json(res, 503, { kind: 'Status', message: 'unavailable' });
    json(res, 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
  };
  const got = await gw.get(CM, 'shop', 'a');
  expect(got?.metadata.name).toBe('a');
  expect(n).toBe(3);
});

test('a 500 the API server wrote (a Status) without Retry-After is its verdict: not retried, as client-go; with Retry-After, or from a proxy (no Status), it is', async () => {
  let n = 0;
  const typed = { kind: 'Status', status: 'Failure', message: 'failed to create typed patch object: .data.key: expected string', code: 500 };
  handler = (_req, res) => {
    n++;
    json(res, 500, typed);
  };
  await expect(
    gw.apply(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'shop' } }, { fieldManager: 'm', force: true, dryRun: false }),
  ).rejects.toThrow('failed to create typed patch object');
  expect(n).toBe(1);
  for (const first of [
    (res: http.ServerResponse) => json(res, 500, typed, { 'retry-after': '0' }),
    (res: http.ServerResponse) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('upstream error');
    },
  ]) {
    n = 0;
    handler = (_req, res) => {
      n++;
      if (n === 1) return first(res);
      json(res, 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } });
    };
    expect((await gw.get(CM, 'shop', 'a'))?.metadata.name).toBe('a');
    expect(n).toBe(2);
  }
});

test("a 404 GET is undefined; RBAC's 403 names verb, resource and namespace; any other 403 is the server's text", async () => {
  const rbac =
    'configmaps "secret" is forbidden: User "system:serviceaccount:shop:reader" cannot get resource "configmaps" in API group "" in the namespace "shop"';
  handler = (req, res) =>
    req.url.includes('missing')
      ? json(res, 404, { kind: 'Status', reason: 'NotFound', message: 'not found' })
      : json(res, 403, { kind: 'Status', reason: 'Forbidden', message: req.url.includes('secret') ? rbac : 'nope' });
  expect(await gw.get(CM, 'shop', 'missing')).toBeUndefined();
  await expect(gw.get(CM, 'shop', 'secret')).rejects.toThrow('forbidden (403): cannot get configmaps in namespace "shop"');
  await expect(gw.get(CM, 'shop', 'other')).rejects.toThrow(/^getting ConfigMap shop\/other: forbidden \(403\): nope$/);
});

test("a 403 from admission (an exceeded quota) on a Secret's apply is the server's text, with the Secret's values hidden", async () => {
  const value = 'hunter2-the-password';
  const quota = `secrets "db" is forbidden: exceeded quota: q, requested: count/secrets=1, used: count/secrets=3, limited: count/secrets=3 (${value})`;
  handler = (_req, res) => json(res, 403, { kind: 'Status', reason: 'Forbidden', message: quota });
  const SECRET: ResourceType = { ...CM, kind: 'Secret', resource: 'secrets' };
  const obj = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, stringData: { pw: value } } as KubeObject;
  const err = await gw.apply(SECRET, obj, { fieldManager: 'kubectl-gitops', force: false, dryRun: false }).catch((e: unknown) => e as Error);
  expect(err.message).toBe(
    'applying Secret shop/db: forbidden (403): secrets "db" is forbidden: exceeded quota: q, requested: count/secrets=1, used: count/secrets=3, limited: count/secrets=3 (++++++++)',
  );
  expect(isRbacDenial(err)).toBe(false);
});

test('server-side apply sends an apply patch with field manager, force and dryRun, and parses a conflict into data', async () => {
  handler = (_req, res) =>
    json(res, 409, {
      kind: 'Status',
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "kubectl-set" using apps/v1: .spec.template.spec.containers[name="app"].image',
      details: {
        causes: [
          { reason: 'FieldManagerConflict', message: 'conflict with "kubectl-set" using apps/v1', field: '.spec.template.spec.containers[name="app"].image' },
        ],
      },
    });
  const obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'orders', namespace: 'shop', resourceVersion: '5', managedFields: [] } };
  const err = await gw.apply(DEPLOY, obj, { fieldManager: 'argocd-controller', force: false, dryRun: true }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApplyConflictError);
  expect((err as ApplyConflictError).conflicts).toEqual([
    { manager: 'kubectl-set', field: '.spec.template.spec.containers[name="app"].image', message: 'conflict with "kubectl-set" using apps/v1' },
  ]);
  expect(seen[0]!.method).toBe('PATCH');
  expect(seen[0]!.url).toBe('/apis/apps/v1/namespaces/shop/deployments/orders?fieldManager=argocd-controller&dryRun=All');
  expect(seen[0]!.contentType).toBe('application/apply-patch+yaml');
  expect(JSON.parse(seen[0]!.body).metadata).toEqual({ name: 'orders', namespace: 'shop' });
  expect(seen.length).toBe(1);
});

test('a 422 names the field and its message', async () => {
  handler = (_req, res) =>
    json(res, 422, {
      kind: 'Status',
      reason: 'Invalid',
      message: 'bad',
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'spec.replicas', message: 'must be >= 0' }] },
    });
  const err = (await gw
    .apply(DEPLOY, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x', namespace: 'n' } }, { fieldManager: 'm', force: true, dryRun: false })
    .catch((e: unknown) => e)) as KubeApiError;
  expect(err.message).toBe('applying Deployment n/x: invalid (422): spec.replicas: must be >= 0');
  expect(err.code).toBe(3);
});

test('delete sends preconditions and the propagation policy', async () => {
  handler = (_req, res) => json(res, 200, { kind: 'Status', status: 'Success' });
  await gw.delete(CM, 'shop', 'old', { preconditions: { uid: 'u1', resourceVersion: '7' }, propagationPolicy: 'foreground' });
  expect(seen[0]!.method).toBe('DELETE');
  expect(JSON.parse(seen[0]!.body)).toEqual({
    apiVersion: 'v1',
    kind: 'DeleteOptions',
    propagationPolicy: 'Foreground',
    preconditions: { uid: 'u1', resourceVersion: '7' },
  });
});

test('aggregated discovery resolves kinds with their plural and scope', async () => {
  handler = (req, res) =>
    json(res, 200, {
      kind: 'APIGroupDiscoveryList',
      items:
        req.url === '/api'
          ? [
              {
                metadata: {},
                versions: [
                  { version: 'v1', resources: [{ resource: 'configmaps', responseKind: { kind: 'ConfigMap' }, scope: 'Namespaced', verbs: ['list'] }] },
                ],
              },
            ]
          : [
              {
                metadata: { name: 'apps' },
                versions: [
                  {
                    version: 'v1',
                    resources: [{ resource: 'deployments', responseKind: { kind: 'Deployment' }, scope: 'Namespaced', verbs: ['patch'], subresources: [] }],
                  },
                ],
              },
            ],
    });
  const fresh = await gateway();
  expect(await fresh.resolve('apps/v1', 'Deployment')).toEqual(DEPLOY);
  expect(await fresh.resolve('apps/v1', 'Nope')).toBeUndefined();
  fresh.close();
});

test("the server version is /version's major.minor, as gitops-engine's GetServerVersion hands it to Argo CD's renders (no patch)", async () => {
  let answer: Record<string, unknown> = { major: '1', minor: '35', gitVersion: 'v1.35.4' };
  handler = (_req, res) => json(res, 200, answer);
  expect(await gw.serverVersion!()).toBe('1.35');
  expect(seen.map((s) => s.url)).toEqual(['/version']);
  // EKS and GKE write a `+` into the minor; Argo CD passes it on (its render's ParseGeneric drops it).
  answer = { major: '1', minor: '30+', gitVersion: 'v1.30.14-eks-931bdca' };
  expect(await gw.serverVersion!()).toBe('1.30+');
  answer = { gitVersion: 'v1.35.4' };
  expect(await gw.serverVersion!()).toBe('');
});

test('an unreachable server and a timeout are one-line cluster errors', async () => {
  handler = () => undefined; // never answers
  const slow = await gateway(100);
  await expect(slow.get(CM, 'a', 'b')).rejects.toThrow(/timed out waiting for the response: nothing within 100ms \(--request-timeout\)/);
  slow.close();
  const dead = await createClientGateway({ connection: { server: 'http://127.0.0.1:1', tls: {}, headers: {}, via: 'kubeconfig' }, requestTimeoutMs: 0 });
  await expect(dead.get(CM, 'a', 'b')).rejects.toThrow('cannot reach the API server at http://127.0.0.1:1 (ECONNREFUSED)');
  dead.close();
});

test('default page sizes: 5,000 for metadata-only lists, 500 for full objects', async () => {
  handler = (_req, res) => json(res, 200, { kind: 'List', metadata: {}, items: [] });
  await gw.list(CM, { namespace: 'shop', metadataOnly: true });
  await gw.list(CM, { namespace: 'shop' });
  expect(seen.map((s) => new URL(s.url, 'http://x').searchParams.get('limit'))).toEqual(['5000', '500']);
});

test('a 401 asks the connection for fresh credentials once (a rotated token), then fails as 401', async () => {
  handler = (req, res) =>
    req.auth === 'Bearer new'
      ? json(res, 200, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } })
      : json(res, 401, { kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized', code: 401 });
  const port = (server.address() as AddressInfo).port;
  let refreshes = 0;
  const rotating = await createClientGateway({
    connection: {
      server: `http://127.0.0.1:${port}`,
      tls: {},
      headers: { Authorization: 'Bearer old', 'Impersonate-Group': ['a', 'b'] },
      via: 'kubeconfig',
      refresh: async () => (refreshes++, { Authorization: 'Bearer new' }),
    },
    requestTimeoutMs: 0,
  });
  expect((await rotating.get(CM, 'shop', 'a'))?.metadata.name).toBe('a');
  expect(seen.map((s) => s.auth)).toEqual(['Bearer old', 'Bearer new']);
  expect(refreshes).toBe(1);
  rotating.close();
  seen.length = 0;
  // Without a way to refresh, a 401 is not retried.
  const fixed = await createClientGateway({
    connection: { server: `http://127.0.0.1:${port}`, tls: {}, headers: { Authorization: 'Bearer old' }, via: 'kubeconfig' },
    requestTimeoutMs: 0,
  });
  await expect(fixed.get(CM, 'shop', 'a')).rejects.toThrow(/unauthorized \(401\): the credentials in the kubeconfig were rejected/);
  expect(seen).toHaveLength(1);
  fixed.close();
});

test('a failed discovery is not cached: the next call asks the server again', async () => {
  let down = true;
  handler = (_req, res) => (down ? json(res, 404, { kind: 'Status', message: 'not here' }) : json(res, 200, { kind: 'APIVersions', versions: ['v1'] }));
  const fresh = await gateway();
  await expect(fresh.discover()).rejects.toThrow();
  down = false;
  handler = (req, res) => {
    if (req.url === '/api') return json(res, 200, { kind: 'APIVersions', versions: ['v1'] });
    if (req.url === '/apis') return json(res, 200, { kind: 'APIGroupList', groups: [] });
    return json(res, 200, {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['list'] }],
    });
  };
  expect((await fresh.discover()).preferred.map((t) => t.kind)).toContain('ConfigMap');
  fresh.close();
});

test('a body whose multi-byte characters are cut between chunks is read whole, as a list and as a watch stream', async () => {
  const value = 'grüße — 東京 ✓';
  const list = Buffer.from(
    JSON.stringify({ kind: 'ConfigMapList', metadata: {}, items: [{ metadata: { name: 'a', namespace: 'shop' }, data: { v: value } }] }),
  );
  const event = Buffer.from(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'a', namespace: 'shop' }, data: { v: value } } })}\n`);
  // Cut inside the first multi-byte character, then inside a three-byte one, each write flushed on its own.
  const cuts = (b: Buffer) => {
    const at = b.indexOf(Buffer.from('ü')) + 1;
    const at2 = b.indexOf(Buffer.from('東')) + 2;
    return [b.subarray(0, at), b.subarray(at, at2), b.subarray(at2)];
  };
  handler = (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const parts = cuts(req.url.includes('watch=1') ? event : list);
    const next = () => {
      const p = parts.shift();
      if (!p) return res.end();
      res.write(p, () => setTimeout(next, 5));
    };
    next();
  };
  const got = await gw.list(CM, { namespace: 'shop' });
  expect(got.items.map((o) => o.data)).toEqual([{ v: value }]);
  const events: unknown[] = [];
  await gw.watch(CM, { namespace: 'shop' }, (e) => events.push(e.object.data));
  expect(events).toEqual([{ v: value }]);
});

test('a watch takes a field selector (one object: metadata.name=NAME) as a list does', async () => {
  handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`${JSON.stringify({ type: 'ADDED', object: { metadata: { name: 'shop', namespace: 'argocd' } } })}\n`);
  };
  const names: string[] = [];
  await gw.watch(CM, { namespace: 'argocd', fieldSelector: 'metadata.name=shop', resourceVersion: '7' }, (e) => names.push(e.object.metadata.name ?? ''));
  expect(names).toEqual(['shop']);
  const url = new URL(seen[0]!.url, 'http://x');
  expect([url.pathname, url.searchParams.get('watch'), url.searchParams.get('fieldSelector'), url.searchParams.get('resourceVersion')]).toEqual([
    '/api/v1/namespaces/argocd/configmaps',
    '1',
    'metadata.name=shop',
    '7',
  ]);
});
