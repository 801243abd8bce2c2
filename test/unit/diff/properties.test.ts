import fc from 'fast-check';
import { diffObject } from '../../../src/diff/index.js';
import { differences } from '../../../src/diff/compare.js';
import type { JsonObject, JsonValue, KubeObject } from '../../../src/model/object.js';
import { isPlainObject } from '../../../src/model/object.js';
import { renderPath } from '../../../src/model/field-path.js';

const opts = { rules: [], fieldManager: 'argocd-controller' };
const key = fc.constantFrom('a', 'b', 'c', 'name', 'image', 'port', 'cpu', 'limits', 'requests', 'items');
const value: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.string({ maxLength: 5 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(key, tie('v'), { maxKeys: 4 }),
  ),
})).v;

const object: fc.Arbitrary<KubeObject> = fc
  .record({
    name: fc.string({ minLength: 1, maxLength: 6 }),
    spec: fc.dictionary(key, value, { maxKeys: 5 }),
    labels: fc.dictionary(key, fc.string({ maxLength: 4 }), { maxKeys: 3 }),
  })
  .map(({ name, spec, labels }) => ({ apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name, namespace: 'ns', labels }, spec }));

/** Adds fields to every map in a value (live's extra keys); lists keep their length and order. */
function addFields(v: JsonValue, extra: JsonObject): JsonValue {
  if (Array.isArray(v)) return v.map((x) => addFields(x, extra));
  if (isPlainObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) out[k] = addFields(x, extra);
    for (const [k, x] of Object.entries(extra)) if (!(k in out)) out[`extra-${k}`] = x;
    return out;
  }
  return v;
}

describe('diff properties', () => {
  it('diff(x, x) is in sync', async () => {
    await fc.assert(
      fc.asyncProperty(object, async (x) => {
        const d = await diffObject({ ...opts, desired: x, live: structuredClone(x) });
        expect(d.status).toBe('in-sync');
        expect(d.fields).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('adding any field to live never creates drift', async () => {
    await fc.assert(
      fc.asyncProperty(object, fc.dictionary(key, value, { minKeys: 1, maxKeys: 3 }), async (x, extra) => {
        const live = addFields(x as unknown as JsonValue, extra) as unknown as KubeObject;
        const d = await diffObject({ ...opts, desired: x, live });
        expect(d.fields).toEqual([]);
        expect(d.status).toBe('in-sync');
      }),
      { numRuns: 300 },
    );
  });

  it('changing a declared scalar is always drift at that path', async () => {
    await fc.assert(
      fc.asyncProperty(object, fc.string({ minLength: 1, maxLength: 5 }), async (x, s) => {
        const live = structuredClone(x) as KubeObject & { spec: JsonObject };
        live.spec = { ...(live.spec as JsonObject), marker: `live-${s}` };
        const desired = { ...x, spec: { ...(x.spec as JsonObject), marker: `desired-${s}` } };
        const d = await diffObject({ ...opts, desired, live });
        expect(d.status).toBe('drifted');
        expect(d.fields.map((f) => f.pointer)).toEqual(['/spec/marker']);
      }),
      { numRuns: 200 },
    );
  });

  it('differences never reports a path that is equal on both sides', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        for (const d of differences(a, b)) expect(d.desired).not.toEqual(d.live);
      }),
      { numRuns: 500 },
    );
  });
});

describe('paths of list elements', () => {
  it('name an element by its live key when desired leaves out a defaulted key field', async () => {
    const desired = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { template: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 8080, name: 'http' }] }] } } },
    } as KubeObject;
    const live = structuredClone(desired) as unknown as { spec: { template: { spec: { containers: { ports: JsonObject[] }[] } } } };
    live.spec.template.spec.containers[0]!.ports[0] = { containerPort: 8080, protocol: 'TCP', name: 'web' };
    const d = await diffObject({ ...opts, desired, live: live as unknown as KubeObject });
    expect(d.fields.map((f) => renderPath(f.path))).toEqual(['spec.template.spec.containers[name=app].ports[containerPort=8080,protocol=TCP].name']);
  });
});

describe('conflict verdicts on lists of another length', () => {
  const base = (containers: JsonObject[], args: string[]): KubeObject =>
    ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' }, spec: { template: { spec: { containers, args } } } }) as unknown as KubeObject;
  const live = base([{ name: 'app', image: 'a' }], ['--x']);
  live.metadata.managedFields = [
    {
      manager: 'other',
      operation: 'Update',
      apiVersion: 'apps/v1',
      fieldsV1: {
        'f:spec': { 'f:template': { 'f:spec': { 'f:args': {}, 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      },
    },
  ];
  it('a declared container absent live is drift by its name (containers merge by key); an atomic list owned by another manager is a conflict', async () => {
    const d = await diffObject({
      ...opts,
      desired: base(
        [
          { name: 'app', image: 'a' },
          { name: 'sidecar', image: 's' },
        ],
        ['--x', '--y'],
      ),
      live,
    });
    expect(d.fields.map((f) => `${renderPath(f.path)} ${f.verdict}`)).toEqual([
      'spec.template.spec.containers[name=sidecar] drift',
      'spec.template.spec.args conflict',
    ]);
  });
});
