// Fuzzing managedFields decoding: arbitrary FieldsV1 tries never crash; decode and encode agree where the format allows.
import fc from 'fast-check';
import { managedEntries } from '../../../src/ownership/index.js';
import { checkFieldsV1, decodeFieldsV1, encodeFieldsV1 } from '../../../src/ownership/fieldsv1.js';
import { FieldSet } from '../../../src/ownership/fieldset.js';
import { pathKey } from '../../../src/model/field-path.js';
import type { JsonObject, KubeObject } from '../../../src/model/object.js';
import { fieldsTrie, isCrash, json, RUNS, thrown, validFieldsTrie } from './arbitraries.js';

const keys = (s: FieldSet) => s.paths().map(pathKey).sort();

describe('FieldsV1 decoding', () => {
  it('any trie (k: with any JSON, v:, i:, ., garbage keys, non-map values): a FieldSet or a reported decoding error', () => {
    fc.assert(
      fc.property(fieldsTrie, (t) => {
        const before = structuredClone(t);
        const err = thrown(() => decodeFieldsV1(t));
        expect(t).toEqual(before);
        if (err !== undefined) {
          expect(isCrash(err)).toBe(false);
          expect((err as Error).message).toMatch(/^decoding FieldsV1/);
        }
      }),
      { numRuns: RUNS.fields },
    );
  });

  it('checkFieldsV1 (managedEntries decodes lazily) fails exactly where decodeFieldsV1 fails, with the same error', () => {
    fc.assert(
      fc.property(fieldsTrie, (t) => {
        const a = thrown(() => decodeFieldsV1(t));
        const b = thrown(() => checkFieldsV1(t));
        expect(b === undefined).toBe(a === undefined);
        if (a !== undefined) expect((b as Error).message).toBe((a as Error).message);
      }),
      { numRuns: RUNS.fields },
    );
  });

  it('valid tries: decode(encode(decode(t))) equals decode(t)', () => {
    fc.assert(
      fc.property(validFieldsTrie, (t) => {
        const set = decodeFieldsV1(t);
        const again = decodeFieldsV1(encodeFieldsV1(set));
        expect(keys(again)).toEqual(keys(set));
      }),
      { numRuns: RUNS.fields },
    );
  });

  it('sets it produced: encode then decode gives the set back, and encode is stable', () => {
    fc.assert(
      fc.property(validFieldsTrie, (t) => {
        const set = decodeFieldsV1(t);
        const enc = encodeFieldsV1(set);
        expect(keys(decodeFieldsV1(enc))).toEqual(keys(set));
        expect(encodeFieldsV1(decodeFieldsV1(enc))).toEqual(enc);
      }),
      { numRuns: RUNS.fields },
    );
  });

  it('managedEntries over arbitrary managedFields entries: decoded entries or an Error naming the entry', () => {
    const entry = fc.record(
      {
        manager: fc.oneof(fc.string({ maxLength: 8 }), json),
        operation: fc.constantFrom('Apply', 'Update', 'x'),
        fieldsType: fc.constant('FieldsV1'),
        fieldsV1: fc.oneof(fieldsTrie, json),
        subresource: fc.constantFrom('status', 'scale', ''),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 3 }), (mf) => {
        const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', managedFields: mf } } as unknown as KubeObject;
        const err = thrown(() => managedEntries(obj));
        if (err !== undefined) {
          expect(isCrash(err)).toBe(false);
          expect((err as Error).message).toMatch(/^decoding managedFields\[\d+\]/);
        }
      }),
      { numRuns: RUNS.fields },
    );
  });

  it('FieldSet algebra on decoded sets: union/intersection/difference agree with set semantics', () => {
    fc.assert(
      fc.property(validFieldsTrie, validFieldsTrie, (a, b) => {
        const A = decodeFieldsV1(a as JsonObject);
        const B = decodeFieldsV1(b as JsonObject);
        const ka = new Set(keys(A));
        const kb = new Set(keys(B));
        expect(keys(A.union(B))).toEqual([...new Set([...ka, ...kb])].sort());
        expect(keys(A.intersection(B))).toEqual([...ka].filter((k) => kb.has(k)).sort());
        expect(keys(A.difference(B))).toEqual([...ka].filter((k) => !kb.has(k)).sort());
      }),
      { numRuns: RUNS.fields },
    );
  });
});
