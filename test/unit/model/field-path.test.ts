import fc from 'fast-check';
import {
  atOrBelowPointer,
  formatPointer,
  locate,
  onOneLine,
  parsePath,
  parsePointer,
  parseServerField,
  pathKey,
  renderPath,
  resolvePointer,
  sameLocation,
  serverFieldText,
  stepsOf,
  valueAt,
  type FieldPath,
  type PathElement,
} from '../../../src/model/field-path.js';
import type { JsonValue } from '../../../src/model/object.js';

describe('renderPath', () => {
  it.each<[FieldPath, string]>([
    [
      [{ field: 'spec' }, { field: 'template' }, { field: 'spec' }, { field: 'containers' }, { key: { name: 'orders' } }, { field: 'image' }],
      'spec.template.spec.containers[name=orders].image',
    ],
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

const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
);
const fieldName = fc.oneof(
  fc.string({ minLength: 0, maxLength: 12 }),
  fc.constantFrom('spec', 'app.kubernetes.io/name', 'a=b', '3', 'x[y]', 'with space', '"q"'),
);
const element: fc.Arbitrary<PathElement> = fc.oneof(
  fieldName.map((field) => ({ field })),
  fc
    .dictionary(fc.oneof(fc.constantFrom('name', 'port', 'protocol', 'containerPort'), fc.string({ minLength: 1, maxLength: 6 })), scalar, {
      minKeys: 1,
      maxKeys: 3,
    })
    .map((key) => ({ key })),
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

describe('the edges: JSON pointers', () => {
  const obj: JsonValue = { metadata: { annotations: { 'a/b': '1', 'x~y': '2' } }, spec: { containers: [{ name: 'a' }, { name: 'b' }] } };

  it('formats a located path, escaping ~ and /, and resolves it back against the object', () => {
    const at = stepsOf(['metadata', 'annotations', 'a/b']);
    expect(formatPointer(at)).toBe('/metadata/annotations/a~1b');
    expect(formatPointer(stepsOf(['metadata', 'annotations', 'x~y']))).toBe('/metadata/annotations/x~0y');
    expect(resolvePointer(obj, parsePointer('/metadata/annotations/a~1b'))).toEqual(at);
    // A token is an index only where the value is a list.
    expect(resolvePointer(obj, parsePointer('/spec/containers/1/name'))).toEqual([{ field: 'spec' }, { field: 'containers' }, { index: 1 }, { field: 'name' }]);
    expect(resolvePointer(obj, parsePointer('/spec/containers/2'))).toBeUndefined();
    expect(resolvePointer(obj, parsePointer('/spec/containers/01'))).toBeUndefined();
    expect(() => parsePointer('spec')).toThrow(/must start with \//);
  });

  it('says whether a located path is at or below a pointer', () => {
    const at = stepsOf(['spec', 'containers', 1, 'env']);
    expect(atOrBelowPointer(at, parsePointer('/spec/containers'))).toBe(true);
    expect(atOrBelowPointer(at, parsePointer('/spec/containers/1/env'))).toBe(true);
    expect(atOrBelowPointer(at, parsePointer('/spec/containers/0'))).toBe(false);
    expect(atOrBelowPointer(at, parsePointer('/spec/containers/1/env/0'))).toBe(false);
  });
});

describe('located paths and lookups', () => {
  const obj: JsonValue = { spec: { ports: [{ port: 80 }, { port: 443, protocol: 'TCP' }], finalizers: ['x', 'y'] } };

  it('locates a keyed path (a defaulted key field may be absent) and reads the value at any path', () => {
    expect(locate(obj, parsePath('spec.ports[port=80,protocol=TCP]'))).toEqual(stepsOf(['spec', 'ports', 0]));
    expect(locate(obj, parsePath('spec.finalizers[=y]'))).toEqual(stepsOf(['spec', 'finalizers', 1]));
    expect(locate(obj, parsePath('spec.ports[port=8080]'))).toBeUndefined();
    expect(valueAt(obj, parsePath('spec.ports[port=443,protocol=TCP].protocol'))).toBe('TCP');
    expect(valueAt(obj, stepsOf(['spec', 'ports', 1, 'port']))).toBe(443);
    expect(valueAt(obj, stepsOf(['spec', 'constructor']))).toBeUndefined();
  });

  it('compares located paths: the same place, and one on the line of the other', () => {
    expect(sameLocation(stepsOf(['a', 0]), stepsOf(['a', 0]))).toBe(true);
    // A map key "0" is not list index 0.
    expect(sameLocation(stepsOf(['a', '0']), stepsOf(['a', 0]))).toBe(false);
    expect(onOneLine(stepsOf(['a']), stepsOf(['a', 0, 'b']))).toBe(true);
    expect(onOneLine(stepsOf(['a', 1]), stepsOf(['a', 0, 'b']))).toBe(false);
  });
});

describe('the edges: server-side apply conflict fields', () => {
  const live: JsonValue = {
    metadata: { labels: { 'app.kubernetes.io/name': 'orders', app: 'x' }, annotations: { 'example.com/owner': 'team' } },
    spec: {
      template: { spec: { containers: [{ name: 'proxy' }, { name: 'orders', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
      finalizers: ['a', 'b'],
    },
  };

  it.each<[string, string]>([
    ['.spec.replicas', 'spec.replicas'],
    ['.spec.template.spec.containers[name="orders"].image', 'spec.template.spec.containers[name=orders].image'],
    [
      '.spec.template.spec.containers[name="orders"].ports[containerPort=80,protocol="TCP"].hostPort',
      'spec.template.spec.containers[name=orders].ports[containerPort=80,protocol=TCP].hostPort',
    ],
    ['.metadata.labels.app.kubernetes.io/name', 'metadata.labels[app.kubernetes.io/name]'],
    ['.metadata.labels.app', 'metadata.labels.app'],
    ['.metadata.annotations.example.com/owner', 'metadata.annotations[example.com/owner]'],
    ['.spec.finalizers[="b"]', 'spec.finalizers[=b]'],
    ['.spec.args[2]', 'spec.args[2]'],
  ])('%s reads as %s against the live object', (text, human) => {
    const p = parseServerField(text, live);
    expect(p && renderPath(p)).toBe(human);
    expect(serverFieldText(text, live)).toBe(human);
  });

  it('reads the rest of the text as one key under a map of free-text keys when there is no object', () => {
    expect(serverFieldText('.metadata.labels.app.kubernetes.io/name')).toBe('metadata.labels[app.kubernetes.io/name]');
    expect(serverFieldText('.spec.selector.matchLabels.app.kubernetes.io/name')).toBe('spec.selector.matchLabels[app.kubernetes.io/name]');
    expect(serverFieldText('.spec.template.spec.containers[name="a"].image')).toBe('spec.template.spec.containers[name=a].image');
  });

  it('is undefined for text that is not such a path, and serverFieldText then gives the text as it came', () => {
    for (const bad of ['spec.replicas', '.spec[', '.spec[name=]', '.spec[name="a"', '', '..x']) expect(parseServerField(bad)).toBeUndefined();
    expect(serverFieldText('spec.replicas')).toBe('spec.replicas');
  });
});
