import { decodeFieldsV1, encodeFieldsV1, decodeElement } from '../../../src/ownership/fieldsv1.js';
import { FieldSet } from '../../../src/ownership/fieldset.js';
import { parsePath, renderPath } from '../../../src/model/field-path.js';
import type { JsonObject } from '../../../src/model/object.js';

const rendered = (s: FieldSet) => s.paths().map(renderPath).sort();

// Hand-written in the shape the API server writes (every prefix kind: f:, k:, v:, i: and `.`).
const FIELDS: JsonObject = {
  'f:metadata': {
    'f:labels': { '.': {}, 'f:app': {} },
    'f:annotations': { 'f:argocd.argoproj.io/tracking-id': {} },
    'f:finalizers': { 'v:"example.com/protect"': {} },
  },
  'f:spec': {
    'f:replicas': {},
    'f:ports': {
      'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:targetPort': {} },
    },
    'f:template': {
      'f:spec': {
        'f:containers': {
          'k:{"name":"orders"}': { '.': {}, 'f:image': {}, 'f:name': {} },
        },
      },
    },
    'f:args': { 'i:0': {} },
  },
};

describe('decodeFieldsV1', () => {
  it('decodes f:, k: (several key fields), v:, i: and `.` into paths', () => {
    expect(rendered(decodeFieldsV1(FIELDS))).toEqual(
      [
        'metadata.annotations[argocd.argoproj.io/tracking-id]',
        'metadata.finalizers[="example.com/protect"]'.replace('"example.com/protect"', 'example.com/protect'),
        'metadata.labels',
        'metadata.labels.app',
        'spec.args[0]',
        'spec.ports[port=80,protocol=TCP]',
        'spec.ports[port=80,protocol=TCP].port',
        'spec.ports[port=80,protocol=TCP].targetPort',
        'spec.replicas',
        'spec.template.spec.containers[name=orders]',
        'spec.template.spec.containers[name=orders].image',
        'spec.template.spec.containers[name=orders].name',
      ].sort(),
    );
  });

  it('keeps key values typed (port 80 is a number, not "80")', () => {
    const el = decodeElement('k:{"port":80,"protocol":"TCP"}');
    expect(el).toEqual({ key: { port: 80, protocol: 'TCP' } });
  });

  it('encodes back to the same trie', () => {
    expect(encodeFieldsV1(decodeFieldsV1(FIELDS))).toEqual(FIELDS);
  });

  it('names the bad key on malformed input', () => {
    expect(() => decodeFieldsV1({ 'x:foo': {} })).toThrow(/x:foo/);
    expect(() => decodeFieldsV1({ 'k:{not json': {} })).toThrow(/bad JSON/);
    expect(() => decodeFieldsV1({ 'i:abc': {} })).toThrow(/index/);
  });
});

describe('FieldSet', () => {
  const a = new FieldSet(['spec.replicas', 'spec.template.spec.containers[name=orders].image'].map(parsePath));
  const b = new FieldSet(['spec.replicas', 'metadata.labels.app'].map(parsePath));
  it('union, intersection and difference are plain values', () => {
    expect(rendered(a.union(b))).toEqual(['metadata.labels.app', 'spec.replicas', 'spec.template.spec.containers[name=orders].image']);
    expect(rendered(a.intersection(b))).toEqual(['spec.replicas']);
    expect(rendered(a.difference(b))).toEqual(['spec.template.spec.containers[name=orders].image']);
    expect(a.size).toBe(2);
    expect(a.union(b).equals(b.union(a))).toBe(true);
  });
  it('knows what lies below a path', () => {
    expect(a.hasBelow(parsePath('spec.template'))).toBe(true);
    expect(a.hasBelow(parsePath('spec.replicas'))).toBe(false);
    expect(a.childrenOf(parsePath('spec.template.spec.containers'))).toEqual([{ key: { name: 'orders' } }]);
  });
});
