// scanMetadataList: the items that may carry an annotation, out of a metadata-only list's text, without decoding the rest.
import { scanMetadataList } from '../../../src/kube/list-scan.js';

const KEY = 'argocd.argoproj.io/tracking-id';

interface Meta {
  name: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  managedFields?: unknown[];
}

/** The list as the API server writes it (Go's field order, compact). */
function listText(items: Meta[], listMeta: Record<string, unknown> = { resourceVersion: '12' }): string {
  return JSON.stringify({
    kind: 'PartialObjectMetadataList',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    items: items.map((metadata) => ({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { namespace: 'ns', ...metadata } })),
  });
}

const names = (r: ReturnType<typeof scanMetadataList>) => r?.items.map((i) => (i.metadata as { name: string }).name);

describe('scanMetadataList', () => {
  const marked = (name: string): Meta => ({
    name,
    annotations: { [KEY]: `app:/ConfigMap:ns/${name}` },
    managedFields: [{ manager: 'argocd-controller', fieldsV1: { 'f:metadata': { 'f:annotations': { [`f:${KEY}`]: {} } } } }],
  });
  const plain = (name: string): Meta => ({ name, labels: { tier: 'web' }, managedFields: [{ manager: 'kubectl', fieldsV1: { 'f:data': { 'f:x': {} } } }] });

  it('returns the marked items whole, leaves the others out, and keeps the list metadata', () => {
    const text = listText([plain('a'), marked('b'), plain('c'), plain('d'), marked('e')], {
      resourceVersion: '7',
      continue: 'eyJ2Ijoi',
      remainingItemCount: 3,
    });
    const r = scanMetadataList(text, KEY);
    expect(r?.metadata).toEqual({ resourceVersion: '7', continue: 'eyJ2Ijoi', remainingItemCount: 3 });
    expect(names(r)).toEqual(['b', 'e']);
    expect(r?.items[0]).toEqual((JSON.parse(text) as { items: unknown[] }).items[1]);
  });

  it('the last and the first item are cut right; a managedFields entry naming the key (f:...) is not the key', () => {
    expect(names(scanMetadataList(listText([marked('first'), plain('mid'), marked('last')]), KEY))).toEqual(['first', 'last']);
    expect(names(scanMetadataList(listText([plain('only')]), KEY))).toEqual([]);
    expect(names(scanMetadataList(listText([{ name: 'x', managedFields: [{ fieldsV1: { [`f:${KEY}`]: {} } }] }]), KEY))).toEqual([]);
  });

  it('an empty list, with items [] or null (the server writes a nil slice so)', () => {
    expect(scanMetadataList(listText([]), KEY)).toEqual({ metadata: { resourceVersion: '12' }, items: [] });
    const nil = '{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"233"},"items":null}\n';
    expect(scanMetadataList(nil, KEY)).toEqual({ metadata: { resourceVersion: '233' }, items: [] });
    expect(scanMetadataList(nil.replace('null}', 'nul}'), KEY)).toBeUndefined();
  });

  it('the newline the server ends its JSON with', () => {
    expect(names(scanMetadataList(`${listText([plain('a'), marked('b')])}\n`, KEY))).toEqual(['b']);
    expect(names(scanMetadataList(`${listText([marked('a')])}\r\n `, KEY))).toEqual(['a']);
    expect(scanMetadataList(`${listText([])}\n`, KEY)?.items).toEqual([]);
  });

  it('takes an item whose text could spell the key through an escape, and one with the key as a label (more, never fewer)', () => {
    const text = listText([plain('a'), plain('escaped'), plain('slash'), { name: 'label', labels: { [KEY]: 'x' } }, plain('z')])
      .replace('"name":"escaped"', `"name":"escaped","annotations":{"\\u0061rgocd.argoproj.io/tracking-id":"v"}`)
      .replace('"name":"slash"', `"name":"slash","annotations":{"argocd.argoproj.io\\/tracking-id":"v"}`);
    const r = scanMetadataList(text, KEY);
    expect(names(r)).toEqual(['escaped', 'slash', 'label']);
    expect((r?.items[0]?.metadata as Meta).annotations).toEqual({ [KEY]: 'v' });
    expect((r?.items[1]?.metadata as Meta).annotations).toEqual({ [KEY]: 'v' });
  });

  it('an escape of a character that is not in the key (Go writes <, > and & so) does not make an item a candidate', () => {
    const text = listText([{ name: 'html', annotations: { note: '<b>&</b>' } }]).replace('<b>&</b>', '\\u003cb\\u003e\\u0026\\u003c/b\\u003e');
    expect(JSON.parse(text)).toBeDefined();
    expect(names(scanMetadataList(text, KEY))).toEqual([]);
  });

  it('item text that mimics the structure inside a string stays inside its item', () => {
    const tricky = `},{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"fake","annotations":{"${KEY}":"x"}}}`;
    const text = listText([{ name: 'a', annotations: { note: tricky } }, marked('b')]);
    const r = scanMetadataList(text, KEY);
    // The note's quotes are escaped, so neither the item boundary nor the quoted key occurs in it literally.
    expect(names(r)).toEqual(['b']);
  });

  it.each([
    ['pretty-printed', JSON.stringify(JSON.parse(listText([])), null, 2)],
    ['another key order (an unstructured list)', JSON.stringify({ apiVersion: 'v1', items: [], kind: 'ConfigMapList', metadata: {} })],
    ['a full list (the server ignored the metadata-only Accept)', JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: {}, items: [] })],
    ['cut short', listText([marked('a'), plain('b')]).slice(0, -10)],
    ['list metadata with a nested object', listText([], { resourceVersion: '1', extra: { x: 1 } })],
    ['items that are not PartialObjectMetadata', listText([plain('a')]).replace('"kind":"PartialObjectMetadata",', '"kind":"Other",')],
    ['a candidate item that does not decode', listText([plain('a'), plain('b')]).replace('"name":"a"', `"name":"a","${KEY}":}`)],
  ])('%s: undefined (the caller decodes the whole text)', (_what, text) => {
    expect(scanMetadataList(text, KEY)).toBeUndefined();
  });

  it('a key with a quote or a backslash is not looked for', () => {
    expect(scanMetadataList(listText([]), 'a"b')).toBeUndefined();
    expect(scanMetadataList(listText([]), 'a\\b')).toBeUndefined();
  });
});
