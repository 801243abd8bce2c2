// Server messages that quote a Secret's value (the API server's typed-patch errors do: `.data: expected map, got
// &{[value]}`) are scrubbed of every form of the value before anyone sees them.
import { apiError, ApplyConflictError, isRbacDenial, KubeApiError, redactError, redactSecretError, secretStrings } from '../../../src/kube/errors.js';
import type { KubeObject } from '../../../src/model/object.js';

const RAW = 's3cret-value-XYZ';
const B64 = Buffer.from(RAW).toString('base64');
const secret = (data: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, ...data }) as KubeObject;

test('a Secret gives every form a message could quote (raw, base64, decoded); anything else gives none', () => {
  expect(secretStrings(secret({ data: { k: B64 } }))).toEqual(expect.arrayContaining([B64, RAW]));
  expect(secretStrings(secret({ stringData: { k: RAW } }))).toEqual(expect.arrayContaining([RAW, B64]));
  expect(secretStrings(secret({ data: [RAW] }))).toContain(RAW); // a list where a map belongs: still scanned
  expect(secretStrings({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: RAW } } as KubeObject)).toEqual([]);
});

test("a Secret's annotation values are secret strings too, but Argo CD's own; escaped forms are given", () => {
  const s = secret({});
  s.metadata.annotations = {
    'example.com/token': RAW,
    'argocd.argoproj.io/tracking-id': 'shop:/Secret:shop/db',
    'example.com/n': ['line "one"\nsecond'] as never,
  };
  const strings = secretStrings(s);
  expect(strings).toEqual(expect.arrayContaining([RAW, 'line "one"\nsecond', 'line \\"one\\"\\nsecond']));
  expect(strings).not.toContain('shop:/Secret:shop/db');
  // The Secret's own name or namespace as a value (meta.helm.sh/release-namespace): kept, so messages about it stay readable.
  const named = secret({ metadata: { name: 'db-main', namespace: 'payments', annotations: { 'meta.helm.sh/release-namespace': 'payments', a: 'db-main' } } });
  expect(secretStrings(named)).toEqual([]);
  const err = new KubeApiError(
    `applying Secret shop/db: .metadata.annotations.example.com/n: expected string, got &{[line \\"one\\"\\nsecond]} near ${RAW}`,
    422,
    'Invalid',
    [],
  );
  expect(redactError(err, strings).message).toBe(
    'applying Secret shop/db: .metadata.annotations.example.com/n: expected string, got &{[++++++++]} near ++++++++',
  );
});

test("the API server's own message quoting the value, its causes and its cause are scrubbed; status and reason kept", () => {
  // data holds base64 text: the server quotes it as written, and a decoding error could quote the decoded value.
  const message = `applying Secret shop/db: failed to create typed patch object (shop/db; /v1, Kind=Secret): .data: expected map, got &{[${B64}]} (decoded ${RAW})`;
  const err = new KubeApiError(message, 422, 'Invalid', [{ field: 'data', message: `bad ${RAW}` } as never], { cause: new Error(`server said ${B64}`) });
  const out = redactError(err, secretStrings(secret({ data: [B64] })));
  const seen = [out.message, ...out.causes.map((c) => c.message), (out.cause as Error).message].join('\n');
  expect(seen).not.toContain(RAW);
  expect(seen).not.toContain(B64);
  expect(out.message).toBe(
    'applying Secret shop/db: failed to create typed patch object (shop/db; /v1, Kind=Secret): .data: expected map, got &{[++++++++]} (decoded ++++++++)',
  );
  expect([out.status, out.reason]).toEqual([422, 'Invalid']);
});

test('a conflict stays a conflict (its fields are data, not values); without secrets the error is returned as is', () => {
  const conflict = new ApplyConflictError(`conflict on ${RAW}`, [{ manager: 'kubectl', field: '.data.k' } as never]);
  const out = redactError(conflict, [RAW]);
  expect(out).toBeInstanceOf(ApplyConflictError);
  expect(out.message).toBe('conflict on ++++++++');
  const plain = new KubeApiError('x', 500, undefined, []);
  expect(redactError(plain, [])).toBe(plain);
});

test("a Secret's write error hides what a typed-patch error quotes of a value (a number, a short string); another kind's error is kept", () => {
  const message = (v: string) =>
    `applying Secret shop/db: HTTP error (500): failed to create typed patch object (shop/db; /v1, Kind=Secret): .stringData.pin: expected string, got ${v}`;
  const number = new KubeApiError(message('&value.valueUnstructured{Value:987654321}'), 500, undefined, []);
  const s = secret({ stringData: { pin: 987654321 } });
  expect(secretStrings(s)).toContain('987654321');
  expect(redactSecretError(number, s).message).toBe(message('++++++++'));
  const short = new KubeApiError(message('&value.valueUnstructured{Value:[]interface {}{"abc"}}'), 500, undefined, []);
  expect(redactSecretError(short, secret({ stringData: { pin: ['abc'] } })).message).toBe(message('++++++++'));
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { n: 1 } } as unknown as KubeObject;
  expect(redactSecretError(short, cm)).toBe(short);
});

describe('a 403 is a missing permission only when the authorizer said so', () => {
  const status = (message: string) => JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message });
  const cm = { verb: 'create', resource: 'configmaps', namespace: 'shop' };

  it("RBAC's refusal (namespaced, cluster scope, a path) keeps the short phrasing", () => {
    const ns = apiError(
      'creating ConfigMap shop/a',
      403,
      status('configmaps is forbidden: User "dev" cannot create resource "configmaps" in API group "" in the namespace "shop"'),
      cm,
    );
    expect(ns.message).toBe('creating ConfigMap shop/a: forbidden (403): cannot create configmaps in namespace "shop"');
    expect(isRbacDenial(ns)).toBe(true);
    const cluster = apiError(
      'deleting ClusterRole r',
      403,
      status(
        'clusterroles.rbac.authorization.k8s.io "r" is forbidden: User "system:serviceaccount:ci:deployer" cannot delete resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope',
      ),
      { verb: 'delete', resource: 'clusterroles.rbac.authorization.k8s.io' },
    );
    expect(cluster.message).toBe('deleting ClusterRole r: forbidden (403): cannot delete clusterroles.rbac.authorization.k8s.io at cluster scope');
    const path = apiError('reading the API server version', 403, status('forbidden: User "system:anonymous" cannot get path "/version"'));
    expect(path.message).toBe('reading the API server version: forbidden (403): forbidden: User "system:anonymous" cannot get path "/version"');
    expect(isRbacDenial(path)).toBe(true);
  });

  it.each([
    [
      'an exceeded quota',
      'configmaps "d" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=3, limited: count/configmaps=3',
    ],
    ['a missing ServiceAccount', 'pods "p" is forbidden: error looking up service account shop/missing: serviceaccount "missing" not found'],
    [
      'PodSecurity',
      'pods "p" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false)',
    ],
    ['a webhook', 'admission webhook "deny.example.com" denied the request: configmaps named d are not allowed'],
    ['a namespace being terminated', 'configmaps "d" is forbidden: unable to create new content in namespace shop because it is being terminated'],
  ])("%s: the server's own text, not a permission", (_what, message) => {
    const err = apiError('creating ConfigMap shop/d', 403, status(message), cm);
    expect(err.message).toBe(`creating ConfigMap shop/d: forbidden (403): ${message}`);
    expect(err.message).not.toContain('cannot create configmaps');
    expect([err.status, err.reason, isRbacDenial(err)]).toEqual([403, 'Forbidden', false]);
  });

  it("a 403 with no Status body is its first line; an empty one says forbidden; a Secret's redaction keeps the RBAC verdict", () => {
    expect(apiError('getting ConfigMap shop/a', 403, 'denied by the proxy\nmore', cm).message).toBe(
      'getting ConfigMap shop/a: forbidden (403): denied by the proxy',
    );
    expect(apiError('getting ConfigMap shop/a', 403, '', cm).message).toBe('getting ConfigMap shop/a: forbidden (403): forbidden');
    const rbac = apiError(
      'applying Secret shop/db',
      403,
      status('secrets "db" is forbidden: User "dev" cannot patch resource "secrets" in API group "" in the namespace "shop"'),
      {
        verb: 'patch',
        resource: 'secrets',
        namespace: 'shop',
      },
    );
    expect(isRbacDenial(redactSecretError(rbac, secret({ stringData: { k: RAW } })))).toBe(true);
    expect(isRbacDenial(new Error('User "dev" cannot get resource "x"'))).toBe(false);
  });
});
