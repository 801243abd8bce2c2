import fc from 'fast-check';
import { normalizeObject, normalizeSecret } from '../../../src/normalize/index.js';
import type { KubeObject } from '../../../src/model/object.js';
import { LAST_APPLIED } from '../../../src/model/keys.js';

const live: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: 'settings',
    namespace: 'shop',
    uid: 'u-1',
    resourceVersion: '42',
    generation: 3,
    creationTimestamp: '2026-11-29T10:00:00Z',
    selfLink: '/api/v1/namespaces/shop/configmaps/settings',
    managedFields: [{ manager: 'kubectl', operation: 'Update' }],
    labels: { app: 'shop' },
    annotations: { [LAST_APPLIED]: '{"data":{"a":"1"}}', note: 'kept' },
  },
  data: { a: '1' },
  status: { whatever: true },
};

describe('normalizeObject', () => {
  it('strips what the cluster fills in and keeps what a person declared', () => {
    expect(normalizeObject(live)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: 'shop', labels: { app: 'shop' }, annotations: { note: 'kept' } },
      data: { a: '1' },
    });
  });

  it('removes an annotations map only when stripping emptied it', () => {
    const onlyLastApplied = { ...live, metadata: { name: 'x', annotations: { [LAST_APPLIED]: '{}' } } };
    expect(normalizeObject(onlyLastApplied).metadata).toEqual({ name: 'x' });
    const alreadyEmpty = { ...live, metadata: { name: 'x', annotations: {} } };
    expect(normalizeObject(alreadyEmpty).metadata).toEqual({ name: 'x', annotations: {} });
  });

  it('never mutates its input', () => {
    const copy = structuredClone(live);
    normalizeObject(live);
    expect(live).toEqual(copy);
  });

  it('keeps key order (deterministic output)', () => {
    expect(Object.keys(normalizeObject(live))).toEqual(['apiVersion', 'kind', 'metadata', 'data']);
  });
});

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const kubeObject: fc.Arbitrary<KubeObject> = fc
  .record({
    name: fc.string({ minLength: 1, maxLength: 8 }),
    meta: fc.dictionary(
      fc.constantFrom('uid', 'resourceVersion', 'generation', 'labels', 'selfLink', 'managedFields', 'creationTimestamp', 'finalizers'),
      jsonValue,
    ),
    annotations: fc.option(fc.dictionary(fc.constantFrom(LAST_APPLIED, 'a', 'b/c'), fc.string()), { nil: undefined }),
    rest: fc.dictionary(fc.constantFrom('spec', 'status', 'data', 'rules'), jsonValue),
  })
  .map(
    ({ name, meta, annotations, rest }) =>
      ({
        apiVersion: 'v1',
        kind: 'Thing',
        ...rest,
        metadata: { ...(meta as object), name, ...(annotations ? { annotations } : {}) },
      }) as KubeObject,
  );

describe('normalize properties', () => {
  it('is idempotent', () => {
    fc.assert(
      fc.property(kubeObject, (o) => {
        const once = normalizeObject(o);
        expect(normalizeObject(once)).toEqual(once);
      }),
      { numRuns: 300 },
    );
  });
  it('leaves no server field behind', () => {
    fc.assert(
      fc.property(kubeObject, (o) => {
        const n = normalizeObject(o);
        for (const k of ['uid', 'resourceVersion', 'generation', 'selfLink', 'managedFields', 'creationTimestamp']) expect(n.metadata).not.toHaveProperty(k);
        expect(n).not.toHaveProperty('status');
        expect(n.metadata.annotations?.[LAST_APPLIED]).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });
});

describe('normalizeSecret', () => {
  it('moves stringData into base64 data (stringData wins), as Argo CD compares Secrets', () => {
    const s: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'eA==', b: null }, stringData: { a: 'hello' } };
    expect(normalizeSecret(s)).toEqual({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'aGVsbG8=', b: '' } });
  });
  it('encodes a non-string stringData value (an invalid Secret) as its JSON text instead of failing', () => {
    const s: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { a: { toString: false }, n: 5 } };
    expect(normalizeSecret(s).data).toEqual({ a: Buffer.from('{"toString":false}').toString('base64'), n: 'NQ==' });
  });

  it('reads a base64 value wrapped over lines as Go decodes it (line breaks skipped), so it compares equal to the unwrapped one; not base64: as written', () => {
    const s = (a: string): KubeObject => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a } });
    expect(normalizeSecret(s('Zm9v\nYmFy')).data).toEqual({ a: 'Zm9vYmFy' });
    expect(normalizeSecret(s('Zm9v\r\nYmFy\n')).data).toEqual({ a: 'Zm9vYmFy' });
    const plain = s('Zm9vYmFy');
    expect(normalizeSecret(plain)).toBe(plain);
    expect(normalizeSecret(s('not\nbase64!')).data).toEqual({ a: 'not\nbase64!' });
  });

  it('leaves other kinds alone', () => {
    expect(normalizeSecret(live)).toBe(live);
  });
});
