// Server messages that quote a Secret's value (the API server's typed-patch errors do: `.data: expected map, got
// &{[value]}`) are scrubbed of every form of the value before anyone sees them.
import { ApplyConflictError, KubeApiError, redactError, redactSecretError, secretStrings } from '../../../src/kube/errors.js';
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
