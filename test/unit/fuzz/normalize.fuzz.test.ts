// Fuzzing normalization: idempotent, never mutates its input, strips only what the server fills in.
import fc from 'fast-check';
import { normalizeObject, normalizeSecret, SERVER_METADATA } from '../../../src/normalize/index.js';
import { LAST_APPLIED } from '../../../src/model/keys.js';
import type { KubeObject } from '../../../src/model/object.js';
import { json, kubeObject, RUNS, tree } from './arbitraries.js';

/** Objects with server-set metadata, a last-applied annotation, managedFields and odd shapes in metadata. */
const liveObject: fc.Arbitrary<KubeObject> = fc
  .record({
    base: kubeObject,
    lastApplied: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
    mf: fc.option(fc.array(json, { maxLength: 2 }), { nil: undefined }),
    status: fc.option(tree, { nil: undefined }),
  })
  .map(({ base, lastApplied, mf, status }) => {
    const o = structuredClone(base);
    if (lastApplied !== undefined) o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [LAST_APPLIED]: lastApplied };
    if (mf !== undefined) (o.metadata as Record<string, unknown>).managedFields = mf;
    if (status !== undefined) o.status = status;
    return o;
  });

/** Secrets with arbitrary data/stringData (null values, non-strings). */
const secret: fc.Arbitrary<KubeObject> = fc
  .record({
    data: fc.option(
      fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.base64String({ maxLength: 12 }), fc.constant(null), json), { noNullPrototype: true }),
      { nil: undefined },
    ),
    stringData: fc.option(
      fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null), json), { noNullPrototype: true }),
      { nil: undefined },
    ),
  })
  .map(
    ({ data, stringData }) =>
      ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 's', namespace: 'n' },
        ...(data !== undefined ? { data } : {}),
        ...(stringData !== undefined ? { stringData } : {}),
      }) as KubeObject,
  );

describe('normalizeObject', () => {
  it('is idempotent and never mutates its input', () => {
    fc.assert(
      fc.property(liveObject, (o) => {
        const before = structuredClone(o);
        const once = normalizeObject(o);
        expect(o).toEqual(before);
        expect(normalizeObject(once)).toEqual(once);
      }),
      { numRuns: RUNS.object },
    );
  });

  it('removes exactly the server-set fields, status and last-applied; keeps the rest', () => {
    fc.assert(
      fc.property(liveObject, (o) => {
        const n = normalizeObject(o);
        for (const k of SERVER_METADATA) expect(n.metadata[k]).toBeUndefined();
        expect(n.status).toBeUndefined();
        expect(n.metadata.annotations?.[LAST_APPLIED]).toBeUndefined();
        for (const k of Object.keys(o)) if (k !== 'status' && k !== 'metadata') expect(n[k]).toEqual(o[k]);
        expect(n.metadata.name).toBe(o.metadata.name);
        expect(n.metadata.labels).toEqual(o.metadata.labels);
      }),
      { numRuns: RUNS.object },
    );
  });

  it('survives metadata of the wrong type without throwing', () => {
    fc.assert(
      fc.property(json, json, (meta, extra) => {
        const o = { apiVersion: 'v1', kind: 'X', metadata: meta, extra } as unknown as KubeObject;
        const before = structuredClone(o);
        normalizeObject(o);
        expect(o).toEqual(before);
      }),
      { numRuns: RUNS.object },
    );
  });
});

describe('normalizeSecret', () => {
  it('is idempotent, never mutates its input, and leaves no stringData', () => {
    fc.assert(
      fc.property(secret, (s) => {
        const before = structuredClone(s);
        const once = normalizeSecret(s);
        expect(s).toEqual(before);
        expect(once.stringData).toBeUndefined();
        expect(normalizeSecret(once)).toEqual(once);
      }),
      { numRuns: RUNS.object },
    );
  });
});
