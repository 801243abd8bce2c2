// planChanges (src/diff/plan.ts) on a fixture of three object sets (test/fixtures/plan/<case>/: base.yaml, head.yaml,
// live.yaml): a changed image is this change, replicas scaled by hand are drift already there with kubectl as owner,
// a ConfigMap head no longer declares would be pruned by this change, a leftover kept by Prune=false is old, a new
// object is created by this change, Secret values are compared unmasked and shown masked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { planChanges, planRenders } from '../../../src/diff/plan.js';
import { renderPath } from '../../../src/model/field-path.js';
import { keyOf, keyString, type KubeObject } from '../../../src/model/object.js';

const FM = 'argocd-controller';

function load(name: string, file: string): KubeObject[] {
  const text = readFileSync(join(process.cwd(), 'test/fixtures/plan', name, file), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as KubeObject);
}

/** The fixture's three sets as planChanges takes them: head paired with live, live objects head lacks as extras. */
async function plan(name: string, skip: Record<string, string> = {}) {
  const base = load(name, 'base.yaml');
  const head = load(name, 'head.yaml');
  const live = new Map(load(name, 'live.yaml').map((o) => [keyString(keyOf(o)), o]));
  const headKeys = new Set(head.map((o) => keyString(keyOf(o))));
  return planChanges({
    base,
    head: head.map((o) => {
      const l = live.get(keyString(keyOf(o)));
      return { key: keyOf(o), applied: o, declared: o, ...(l ? { live: l } : {}) };
    }),
    extras: [...live.entries()]
      .filter(([k]) => !headKeys.has(k))
      .map(([, o]) => ({ key: keyOf(o), object: o, ...(skip[o.metadata.name ?? ''] ? { skip: skip[o.metadata.name ?? '']! } : {}) })),
    rules: [],
    fieldManager: FM,
  });
}

test('each change says whether this change introduces it or it was already there, with the owners of the live value', async () => {
  const p = await plan('image-scale-prune', { leftover: 'Prune=false' });
  const rows = p.objects.map((o) => ({
    object: `${o.key.kind}/${o.key.name}`,
    action: o.action,
    origin: o.origin,
    ...(o.reason ? { reason: o.reason } : {}),
    fields: o.fields.map((f) => ({
      path: renderPath(f.path),
      origin: f.origin,
      verdict: f.verdict,
      base: f.base,
      desired: f.desired,
      live: f.live,
      owners: f.owners.map((w) => `${w.manager}${w.subresource ? `/${w.subresource}` : ''}`),
    })),
  }));
  expect(rows).toEqual([
    {
      object: 'Deployment/web',
      action: 'update',
      origin: 'this-change',
      fields: [
        { path: 'spec.replicas', origin: 'already-there', verdict: 'conflict', base: 1, desired: 1, live: 3, owners: ['kubectl/scale'] },
        {
          path: 'spec.template.spec.containers[name=web].image',
          origin: 'this-change',
          verdict: 'drift',
          base: 'nginx:1.26',
          desired: 'nginx:1.27',
          live: 'nginx:1.26',
          owners: [FM],
        },
      ],
    },
    { object: 'ConfigMap/added', action: 'create', origin: 'this-change', fields: [] },
    {
      object: 'Secret/creds',
      action: 'update',
      origin: 'this-change',
      // Base and live hold the same password, head another: masks as the comparison gives them, base's the same as live's.
      fields: [{ path: 'data.password', origin: 'this-change', verdict: 'drift', base: '++++++++++++', desired: '++++++++', live: '++++++++++++', owners: [] }],
    },
    { object: 'ConfigMap/leftover', action: 'keep', origin: 'already-there', reason: 'Prune=false', fields: [] },
    { object: 'ConfigMap/settings', action: 'prune', origin: 'this-change', fields: [] },
  ]);
  expect(p.inSync).toBe(1);
  expect(p.comparison.sync).toBe('OutOfSync');
});

test('a change that only brings Git to what is live changes nothing: no object planned', async () => {
  const head = load('image-scale-prune', 'head.yaml');
  const live = head.map((o) =>
    o.kind === 'Secret' ? { ...o, stringData: undefined, data: { password: 'aGVhZC1zZWNyZXQ=', user: 'YWRtaW4=' } } : o,
  ) as KubeObject[];
  const p = await planChanges({
    base: load('image-scale-prune', 'base.yaml'),
    head: head.map((o, i) => ({ key: keyOf(o), applied: o, live: live[i]! })),
    extras: [],
    rules: [],
    fieldManager: FM,
  });
  expect(p.objects).toEqual([]);
  expect(p.inSync).toBe(4);
});

test('drift the change leaves alone is already there; a field head removes that base declared is this change', async () => {
  const configMap = (image: string, extra: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c', namespace: 'shop' },
    data: { image, ...extra },
  });
  const live: KubeObject = {
    ...configMap('b', { gone: 'x' }),
    metadata: {
      name: 'c',
      namespace: 'shop',
      managedFields: [{ manager: FM, operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:image': {}, 'f:gone': {} } } }],
    },
  };
  const p = await planChanges({
    base: [configMap('a', { gone: 'x' })],
    head: [{ key: keyOf(live), applied: configMap('a'), live }],
    extras: [],
    rules: [],
    fieldManager: FM,
  });
  expect(p.objects[0]!.fields.map((f) => [renderPath(f.path), f.verdict, f.origin, f.base])).toEqual([
    ['data.image', 'drift', 'already-there', 'a'],
    ['data.gone', 'removed', 'this-change', 'x'],
  ]);
  expect(p.objects[0]!.origin).toBe('this-change');
});

describe('planRenders (--offline): head against base, no cluster', () => {
  const entries = (objects: KubeObject[]) => objects.map((o) => ({ key: keyOf(o), applied: o, declared: o }));

  test('every difference is this change: an update with the base and head values, a creation, a prune; Secret values masked', async () => {
    const p = await planRenders({
      base: entries(load('image-scale-prune', 'base.yaml')),
      head: entries(load('image-scale-prune', 'head.yaml')),
      rules: [],
      fieldManager: FM,
    });
    expect(
      p.objects.map((o) => [
        `${o.key.kind}/${o.key.name}`,
        o.action,
        o.origin,
        o.fields.map((f) => [renderPath(f.path), f.verdict, f.origin, f.base, f.desired, f.live, f.owners]),
      ]),
    ).toEqual([
      [
        'Deployment/web',
        'update',
        'this-change',
        [['spec.template.spec.containers[name=web].image', 'drift', 'this-change', 'nginx:1.26', 'nginx:1.27', undefined, []]],
      ],
      ['ConfigMap/added', 'create', 'this-change', []],
      ['Secret/creds', 'update', 'this-change', [['data.password', 'drift', 'this-change', '++++++++++++', '++++++++', undefined, []]]],
      ['ConfigMap/settings', 'prune', 'this-change', []],
    ]);
    expect(p.inSync).toBe(1);
  });

  test('a field base declares and head no longer does is removed, with its base value', async () => {
    const cm = (data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' }, data });
    const p = await planRenders({ base: entries([cm({ a: '1', gone: 'x' })]), head: entries([cm({ a: '1' })]), rules: [], fieldManager: FM });
    expect(p.objects.map((o) => o.fields.map((f) => [renderPath(f.path), f.verdict, f.base, f.desired]))).toEqual([[['data.gone', 'removed', 'x', undefined]]]);
    const same = await planRenders({ base: entries([cm({ a: '1' })]), head: entries([cm({ a: '1' })]), rules: [], fieldManager: FM });
    expect([same.objects, same.inSync]).toEqual([[], 1]);
  });
});

test("a Secret's annotation argocd-cm names is masked in base, head and live, as its data is (live and offline)", async () => {
  const secret = (token: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'shop', annotations: { token } },
    data: { k: 'eA==' },
  });
  const live: KubeObject = {
    ...secret('LIVEVAL'),
    metadata: {
      ...secret('LIVEVAL').metadata,
      managedFields: [
        { manager: FM, operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:token': {} } } } },
      ],
    },
  };
  const sensitiveAnnotations = new Set(['token']);
  const p = await planChanges({
    base: [secret('BASEVAL')],
    head: [{ key: keyOf(live), applied: secret('HEADVAL'), live }],
    extras: [],
    rules: [],
    fieldManager: FM,
    sensitiveAnnotations,
  });
  const shown = p.objects.flatMap((o) => o.fields.map((f) => [renderPath(f.path), f.base, f.desired, f.live]));
  expect(shown).toEqual([['metadata.annotations.token', '++++++++++++++++', '++++++++', '++++++++++++']]);
  const offline = await planRenders({
    base: [{ key: keyOf(live), applied: secret('BASEVAL'), declared: secret('BASEVAL') }],
    head: [{ key: keyOf(live), applied: secret('HEADVAL'), declared: secret('HEADVAL') }],
    rules: [],
    fieldManager: FM,
    sensitiveAnnotations,
  });
  expect(JSON.stringify(offline.objects)).not.toMatch(/BASEVAL|HEADVAL/);
  expect(offline.objects.flatMap((o) => o.fields.map((f) => renderPath(f.path)))).toEqual(['metadata.annotations.token']);
});
