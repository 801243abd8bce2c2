// Fuzzing the metadata-list scan: against decoding the whole text, it never leaves out an item that carries the
// annotation, and every item it returns is that item's own decoding. The text is written as the API server writes
// it, except that strings escape characters at random (\uXXXX, \/) as other valid JSON writers may.
import fc from 'fast-check';
import { scanMetadataList } from '../../../src/kube/list-scan.js';
import { RUNS } from './arbitraries.js';

const KEY = 'argocd.argoproj.io/tracking-id';
const ITEM = '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{';

/** Strings built from the edges: the key and near misses, JSON structure, the item opening, quotes, backslashes. */
const text = fc.oneof(
  fc.constantFrom(KEY, `f:${KEY}`, `${KEY}x`, `x${KEY}`, 'argocd.argoproj.io', 'tracking-id', ITEM, `},${ITEM}`, '"', '\\', '\\u0061', '/', ']}', '{}', ''),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.array(fc.constantFrom(KEY, '"', '\\', '/', 'a', ':', ',', '{', '}', '[', ']', ITEM), { maxLength: 5 }).map((a) => a.join('')),
);
const stringMap = fc.dictionary(text, text, { noNullPrototype: true, maxKeys: 3 });
const item = fc.record({
  name: fc.string({ maxLength: 8 }),
  annotations: fc.option(stringMap, { nil: undefined }),
  labels: fc.option(stringMap, { nil: undefined }),
  marked: fc.boolean(),
  fields: fc.option(
    fc.dictionary(
      fc.oneof(
        text.map((t) => `f:${t}`),
        fc.constant(`f:${KEY}`),
      ),
      fc.constant({}),
      { noNullPrototype: true, maxKeys: 3 },
    ),
    { nil: undefined },
  ),
});

/** JSON.stringify, but each character of a string may be written as \uXXXX (or `/` as `\/`), decided by `seed`. */
function encode(value: unknown, seed: number): string {
  let s = seed >>> 0 || 1;
  const coin = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) % 8 === 0;
  const str = (v: string) =>
    '"' +
    [...v]
      .map((c) => {
        const plain = JSON.stringify(c).slice(1, -1);
        if (!coin() || plain.length > 1) return plain; // an escape already, or a surrogate pair
        if (c === '/' && coin()) return '\\/';
        return [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
      })
      .join('') +
    '"';
  const walk = (v: unknown): string => {
    if (typeof v === 'string') return str(v);
    if (Array.isArray(v)) return `[${v.map(walk).join(',')}]`;
    if (v !== null && typeof v === 'object')
      return `{${Object.entries(v)
        .map(([k, x]) => `${str(k)}:${walk(x)}`)
        .join(',')}}`;
    return JSON.stringify(v);
  };
  return walk(value);
}

describe('scanMetadataList against decoding the whole list', () => {
  it('leaves out no item with the annotation; returns each item as decoded; keeps the list metadata', () => {
    fc.assert(
      fc.property(
        fc.array(item, { maxLength: 8 }),
        fc.integer(),
        fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
        fc.constantFrom('', '\n', ' \r\n'),
        (specs, seed, cont, end) => {
          const items = specs.map((x, i) => {
            const annotations = x.marked ? { ...(x.annotations ?? {}), [KEY]: `app:/ConfigMap:ns/${x.name}` } : x.annotations;
            const metadata: Record<string, unknown> & { name: string } = { name: `${i}-${x.name}`, namespace: 'ns' };
            if (x.labels) metadata.labels = x.labels;
            if (annotations) metadata.annotations = annotations;
            if (x.fields) metadata.managedFields = [{ manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': x.fields } }];
            return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata };
          });
          const listMeta = { resourceVersion: '5', ...(cont !== undefined ? { continue: cont } : {}) };
          // The list's own head is written plainly (a continue token is base64); the items are escaped at random.
          const head = JSON.stringify({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: listMeta }).slice(0, -1);
          const body = `${head},"items":[${items.map((it) => `${ITEM}${encode(it.metadata, seed + it.metadata.name.length).slice(1)}}`).join(',')}]}${end}`;
          const whole = JSON.parse(body) as { metadata: unknown; items: { metadata: { name: string; annotations?: Record<string, string> } }[] };

          const r = scanMetadataList(body, KEY);
          if (/[{}]/.test(cont ?? '')) return; // a brace in the list's own metadata: decoding the whole text is the answer
          expect(r).toBeDefined();
          expect(r!.metadata).toEqual(whole.metadata);
          const got = new Map(r!.items.map((it) => [(it.metadata as { name: string }).name, it]));
          for (const it of whole.items) {
            if (it.metadata.annotations?.[KEY] !== undefined) expect(got.has(it.metadata.name)).toBe(true);
            if (got.has(it.metadata.name)) expect(got.get(it.metadata.name)).toEqual(it);
          }
          expect(r!.items.length).toBe(got.size);
          // In the list's order.
          const order = whole.items.map((it) => it.metadata.name).filter((n) => got.has(n));
          expect(r!.items.map((it) => (it.metadata as { name: string }).name)).toEqual(order);
        },
      ),
      { numRuns: RUNS.tree },
    );
  });

  it('any text: an answer or undefined, never a throw', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(text, fc.constantFrom('{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[', ITEM, ']}', '}', ',')),
          { maxLength: 12 },
        ),
        (parts) => {
          const r = scanMetadataList(parts.join(''), KEY);
          if (r) for (const it of r.items) expect(typeof it.metadata).toBe('object');
        },
      ),
      { numRuns: RUNS.text },
    );
  });
});
