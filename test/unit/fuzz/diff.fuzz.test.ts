// Fuzzing the diff: diff(x,x) is in sync, extra live fields never drift, arbitrary pairs (and odd managedFields) never crash, inputs never mutated.
import fc from 'fast-check';
import { comparableNormalized, diffObject } from '../../../src/diff/index.js';
import { normalizeObject, normalizeSecret } from '../../../src/normalize/index.js';
import { LAST_APPLIED } from '../../../src/model/keys.js';
import type { JsonObject, JsonValue, KubeObject } from '../../../src/model/object.js';
import { isPlainObject } from '../../../src/model/object.js';
import { fieldsTrie, isCrash, json, kubeObject, RUNS, tree, validFieldsTrie } from './arbitraries.js';
import { removedFields } from '../../../src/diff/removed.js';
import { managedEntries, type ManagedEntry } from '../../../src/ownership/index.js';
import { decodeFieldsV1, encodeFieldsV1 } from '../../../src/ownership/fieldsv1.js';
import { FieldSet } from '../../../src/ownership/fieldset.js';
import { locate, type PathElement } from '../../../src/model/field-path.js';

/** Every path into a value as a manager's FieldsV1 would name it: map fields, list elements by name, by value, else by index. */
function pathsOf(v: JsonValue, prefix: PathElement[], out: PathElement[][]): PathElement[][] {
  if (isPlainObject(v)) {
    for (const k of Object.keys(v)) {
      const p = [...prefix, { field: k }];
      out.push(p);
      pathsOf(v[k] as JsonValue, p, out);
    }
  } else if (Array.isArray(v)) {
    v.forEach((el, i) => {
      const step: PathElement =
        isPlainObject(el) && typeof el.name === 'string' ? { key: { name: el.name } } : isPlainObject(el) || Array.isArray(el) ? { index: i } : { value: el };
      const p = [...prefix, step];
      out.push(p);
      pathsOf(el, p, out);
    });
  }
  return out;
}

const opts = { rules: [], fieldManager: 'argocd-controller' };

/** Live's extra keys: added to every map, never replacing a declared key; lists keep their length and order. */
function addFields(v: JsonValue, extra: JsonObject): JsonValue {
  if (Array.isArray(v)) return v.map((x) => addFields(x, extra));
  if (isPlainObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = addFields(x, extra);
    for (const [k, x] of Object.entries(extra)) if (!(`zz-${k}` in out)) out[`zz-${k}`] = x;
    return out;
  }
  return v;
}

describe('diff fuzz', () => {
  test('what is compared of an object, made in one pass, is the normalizations one after another, key order included', () => {
    // The chain it replaces: normalizeObject, normalizeSecret, then without apiVersion, kind, metadata.name and namespace.
    const chain = (o: KubeObject): JsonObject => {
      const { apiVersion: _a, kind: _k, ...rest } = normalizeSecret(normalizeObject(o));
      const meta = { ...(rest.metadata as unknown as JsonObject) };
      delete meta.namespace;
      delete meta.name;
      return { ...(rest as unknown as JsonObject), metadata: meta };
    };
    const withServerFields = fc.record({
      o: kubeObject,
      lastApplied: fc.boolean(),
      other: fc.boolean(),
      status: fc.boolean(),
      secret: fc.boolean(),
    });
    fc.assert(
      fc.property(withServerFields, ({ o, lastApplied, other, status, secret }) => {
        const x: KubeObject = {
          ...o,
          ...(secret ? { apiVersion: 'v1', kind: 'Secret', stringData: { a: 'b' } } : {}),
          metadata: {
            ...o.metadata,
            resourceVersion: '7',
            uid: 'u',
            managedFields: [],
            ...(lastApplied || other ? { annotations: { ...(lastApplied ? { [LAST_APPLIED]: '{}' } : {}), ...(other ? { a: 'b' } : {}) } } : {}),
          },
          ...(status ? { status: { ready: true } } : {}),
        };
        expect(JSON.stringify(comparableNormalized(x))).toBe(JSON.stringify(chain(x)));
      }),
      { numRuns: RUNS.diff },
    );
  });

  it('diff(x, x) is in sync for any well-formed object, Secrets included', async () => {
    await fc.assert(
      fc.asyncProperty(kubeObject, async (x) => {
        const before = structuredClone(x);
        const d = await diffObject({ ...opts, desired: x, live: structuredClone(x) });
        expect(d.fields.filter((f) => f.verdict === 'drift')).toEqual([]);
        expect(d.status).toBe('in-sync');
        expect(x).toEqual(before);
      }),
      { numRuns: RUNS.diff },
    );
  });

  it('adding fields anywhere in live (spec, data, metadata maps) never creates drift', async () => {
    await fc.assert(
      fc.asyncProperty(
        kubeObject.filter((o) => o.kind !== 'Secret'),
        fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), json, { noNullPrototype: true, minKeys: 1, maxKeys: 2 }),
        async (x, extra) => {
          const { metadata, ...rest } = x;
          const live = {
            ...(addFields(rest as JsonObject, extra) as JsonObject),
            metadata: { ...metadata, labels: { ...metadata.labels, 'zz-extra': 'x' }, annotations: { ...metadata.annotations, 'zz/extra': 'y' } },
          } as unknown as KubeObject;
          const d = await diffObject({ ...opts, desired: x, live });
          expect(d.fields.filter((f) => f.verdict === 'drift')).toEqual([]);
          expect(d.status).toBe('in-sync');
        },
      ),
      { numRuns: RUNS.diff },
    );
  });

  it('arbitrary pairs of JSON bodies: a report, never a crash, inputs unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(kubeObject, tree, tree, async (base, a, b) => {
        const desired = { ...base, spec: a } as KubeObject;
        const live = { ...base, spec: b } as KubeObject;
        const snap = structuredClone([desired, live]);
        let err: unknown;
        try {
          const d = await diffObject({ ...opts, desired, live });
          expect(['in-sync', 'drifted']).toContain(d.status);
        } catch (e) {
          err = e;
        }
        expect(err === undefined || !isCrash(err)).toBe(true);
        if (err !== undefined) throw err;
        expect([desired, live]).toEqual(snap);
      }),
      { numRuns: RUNS.diff },
    );
  });

  it('a live object with arbitrary managedFields: a report or a reported decoding error, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(
        kubeObject,
        fc.array(
          fc.record({
            manager: fc.constantFrom('kubectl', 'argocd-controller', 'hpa'),
            operation: fc.constantFrom('Apply', 'Update'),
            fieldsType: fc.constant('FieldsV1'),
            fieldsV1: fieldsTrie,
          }),
          { maxLength: 3 },
        ),
        tree,
        async (x, mf, spec) => {
          const live = { ...structuredClone(x), spec, metadata: { ...structuredClone(x.metadata), managedFields: mf } } as unknown as KubeObject;
          try {
            await diffObject({ ...opts, desired: x, live });
          } catch (err) {
            expect(isCrash(err)).toBe(false);
            expect((err as Error).message).toMatch(/decoding managedFields/);
          }
        },
      ),
      { numRuns: RUNS.diff },
    );
  });

  it('removed fields: the walk of the raw tries (nothing decoded) and the decoded path sets give the same fields', () => {
    fc.assert(
      fc.property(
        kubeObject,
        fc.array(fc.nat(), { maxLength: 10 }),
        fc.option(fc.nat(), { nil: undefined, freq: 2 }),
        fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: validFieldsTrie, weight: 1 }),
        fc.option(validFieldsTrie, { nil: undefined }),
        (x, picks, drop, randomTrie, otherTrie) => {
          const all = pathsOf(x as unknown as JsonValue, [], []);
          // Ours: some of the object's own paths (the common case: nothing missing) or any trie.
          const ours = randomTrie ?? encodeFieldsV1(new FieldSet(all.length > 0 ? picks.map((i) => all[i % all.length]!) : []));
          const mf = [{ manager: 'argocd-controller', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: ours }];
          if (otherTrie) mf.push({ manager: 'kubectl', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: otherTrie });
          const live = { ...structuredClone(x), metadata: { ...structuredClone(x.metadata), managedFields: mf } } as unknown as KubeObject;
          // Desired: the object, perhaps without one of its fields.
          const desired = structuredClone(x) as unknown as JsonObject;
          if (drop !== undefined && all.length > 0) {
            const at = locate(desired, all[drop % all.length]!)!;
            const parent = at
              .slice(0, -1)
              .reduce<JsonValue>((n, st) => ('field' in st ? (n as JsonObject)[st.field]! : (n as JsonValue[])[st.index]!), desired);
            const last = at[at.length - 1]!;
            if ('field' in last) delete (parent as JsonObject)[last.field];
            else (parent as JsonValue[]).splice(last.index, 1);
          }
          const lazy = managedEntries(live);
          const decoded: ManagedEntry[] = mf.map((e, i) => ({ owner: lazy[i]!.owner, fields: decodeFieldsV1(e.fieldsV1) }));
          const want = removedFields(desired as unknown as KubeObject, live, decoded, 'argocd-controller');
          expect(removedFields(desired as unknown as KubeObject, live, lazy, 'argocd-controller')).toEqual(want);
        },
      ),
      { numRuns: RUNS.diff },
    );
  });

  it('a missing live object is reported missing', async () => {
    await fc.assert(
      fc.asyncProperty(kubeObject, async (x) => {
        const d = await diffObject({ ...opts, desired: x });
        expect(d.status).toBe('missing');
      }),
      { numRuns: 100 },
    );
  });
});
