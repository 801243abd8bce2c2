import fc from 'fast-check';
import { parsePath, renderPath, pathKey, type FieldPath, type PathElement } from '../../../src/ownership/path.js';
import type { JsonValue } from '../../../src/model/object.js';

describe('renderPath', () => {
  it.each<[FieldPath, string]>([
    [[{ field: 'spec' }, { field: 'template' }, { field: 'spec' }, { field: 'containers' }, { key: { name: 'orders' } }, { field: 'image' }], 'spec.template.spec.containers[name=orders].image'],
    [[{ field: 'metadata' }, { field: 'annotations' }, { field: 'argocd.argoproj.io/tracking-id' }], 'metadata.annotations[argocd.argoproj.io/tracking-id]'],
    [[{ field: 'spec' }, { field: 'ports' }, { key: { protocol: 'TCP', port: 80 } }], 'spec.ports[port=80,protocol=TCP]'],
    [[{ field: 'metadata' }, { field: 'finalizers' }, { value: 'kubernetes' }], 'metadata.finalizers[=kubernetes]'],
    [[{ field: 'spec' }, { field: 'args' }, { index: 2 }], 'spec.args[2]'],
    [[{ field: 'data' }, { field: '8080' }], 'data["8080"]'],
    [[{ field: 'spec' }, { field: 'ports' }, { key: { port: '80' } }], 'spec.ports[port="80"]'],
    [[], '.'],
  ])('%j -> %s', (path, text) => {
    expect(renderPath(path)).toBe(text);
    expect(pathKey(parsePath(text))).toBe(pathKey(path));
  });

  it('refuses text it could not have printed', () => {
    expect(() => parsePath('spec..x')).toThrow(/parsing field path/);
    expect(() => parsePath('spec[name=a')).toThrow(/parsing field path/);
  });
});

const scalar: fc.Arbitrary<JsonValue> = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)));
const fieldName = fc.oneof(fc.string({ minLength: 0, maxLength: 12 }), fc.constantFrom('spec', 'app.kubernetes.io/name', 'a=b', '3', 'x[y]', 'with space', '"q"'));
const element: fc.Arbitrary<PathElement> = fc.oneof(
  fieldName.map((field) => ({ field })),
  fc.dictionary(fc.oneof(fc.constantFrom('name', 'port', 'protocol', 'containerPort'), fc.string({ minLength: 1, maxLength: 6 })), scalar, { minKeys: 1, maxKeys: 3 }).map((key) => ({ key })),
  fc.oneof(scalar, fc.dictionary(fc.string({ maxLength: 4 }), scalar, { maxKeys: 2 })).map((value) => ({ value: value as JsonValue })),
  fc.nat({ max: 1000 }).map((index) => ({ index })),
);

describe('path rendering round trip', () => {
  it('parsePath(renderPath(p)) is p for any path', () => {
    fc.assert(
      fc.property(fc.array(element, { minLength: 1, maxLength: 6 }), (p) => {
        expect(pathKey(parsePath(renderPath(p)))).toBe(pathKey(p));
      }),
      { numRuns: 500 },
    );
  });
});
