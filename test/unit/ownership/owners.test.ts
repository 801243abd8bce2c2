import { diffObject } from '../../../src/diff/index.js';
import { parsePath, renderPath, stepsOf } from '../../../src/model/field-path.js';
import { fieldsOwnedBy, keyedPath, managedEntries, ownersOf } from '../../../src/ownership/index.js';
import type { KubeObject, ManagedFieldsEntry } from '../../../src/model/object.js';

const entry = (manager: string, operation: string, fieldsV1: ManagedFieldsEntry['fieldsV1'], extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion: 'apps/v1',
  time: '2026-11-30T04:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...extra,
});

const live: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'orders',
    namespace: 'shop',
    labels: { app: 'orders' },
    managedFields: [
      entry('argocd-controller', 'Apply', {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': {
          'f:replicas': {},
          'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"orders"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } },
        },
      }),
      entry('kubectl-set', 'Update', { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"orders"}': { 'f:image': {} } } } } } }),
      entry('kube-controller-manager', 'Update', { 'f:status': { 'f:replicas': {} } }, { subresource: 'status' }),
      entry('kubectl', 'Update', { 'f:spec': { 'f:replicas': {} } }, { subresource: 'scale' }),
    ],
  },
  spec: {
    replicas: 5,
    template: {
      spec: {
        containers: [
          { name: 'sidecar', image: 'envoy' },
          { name: 'orders', image: 'orders:1.1' },
        ],
      },
    },
  },
  status: { replicas: 5 },
};

describe('ownersOf', () => {
  it('lists every owner of a shared field, with operation, apiVersion, subresource and time', () => {
    const owners = ownersOf(live, parsePath('spec.template.spec.containers[name=orders].image'));
    expect(owners.map((o) => o.manager)).toEqual(['argocd-controller', 'kubectl-set']);
    expect(owners[0]).toEqual({ manager: 'argocd-controller', operation: 'Apply', apiVersion: 'apps/v1', time: '2026-11-30T04:00:00Z' });
    expect(ownersOf(live, parsePath('spec.replicas')).map((o) => `${o.manager}/${o.subresource ?? ''}`)).toEqual(['argocd-controller/', 'kubectl/scale']);
    expect(ownersOf(live, parsePath('status.replicas'))[0]).toMatchObject({ manager: 'kube-controller-manager', subresource: 'status' });
  });

  it('falls back to the nearest owned ancestor', () => {
    expect(ownersOf(live, parsePath('spec.template.spec.containers[name=orders].resources.limits')).map((o) => o.manager)).toEqual(['argocd-controller']);
    expect(ownersOf(live, parsePath('spec.paused'))).toEqual([]);
  });
});

describe('fieldsOwnedBy', () => {
  it('is everything one manager owns', () => {
    expect(fieldsOwnedBy(live, 'kubectl').paths().map(renderPath)).toEqual(['spec.replicas']);
    expect(fieldsOwnedBy(live, 'argocd-controller').size).toBe(5);
    expect(fieldsOwnedBy(live, 'nobody').size).toBe(0);
  });
});

describe('keyedPath', () => {
  it('names list elements by the key fields the managedFields use', () => {
    const entries = managedEntries(live);
    expect(renderPath(keyedPath(live as never, stepsOf(['spec', 'template', 'spec', 'containers', 1, 'image']), entries))).toBe(
      'spec.template.spec.containers[name=orders].image',
    );
  });
  it('uses known list keys without managedFields, and indices otherwise', () => {
    const svc = { spec: { ports: [{ port: 80, protocol: 'TCP' }], rules: [{ host: 'a' }], finalizers: ['x'] } };
    expect(renderPath(keyedPath(svc, stepsOf(['spec', 'ports', 0])))).toBe('spec.ports[port=80,protocol=TCP]');
    expect(renderPath(keyedPath(svc, stepsOf(['spec', 'rules', 0, 'host'])))).toBe('spec.rules[0].host');
    expect(renderPath(keyedPath(svc, stepsOf(['spec', 'finalizers', 0])))).toBe('spec.finalizers[0]');
  });
});

describe('conflicts: the diff of a declared field another manager owns', () => {
  const desired: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'orders', namespace: 'shop', labels: { app: 'orders' } },
    spec: {
      replicas: 2,
      template: {
        spec: {
          containers: [
            { name: 'orders', image: 'orders:1.2' },
            { name: 'new-one', image: 'x' },
          ],
        },
      },
    },
  };

  const conflicts = async (d: KubeObject, l: KubeObject) =>
    (await diffObject({ desired: d, live: l, rules: [], fieldManager: 'argocd-controller' })).fields.filter((f) => f.verdict === 'conflict');

  it('is a declared field another manager owns with a different value, with its owners', async () => {
    const found = await conflicts(desired, live);
    // Every owner is listed (ours co-owns both); the verdict is conflict because the others own them too.
    expect(found.map((c) => [renderPath(c.path), c.owners.map((m) => m.manager)])).toEqual([
      ['spec.replicas', ['argocd-controller', 'kubectl']],
      ['spec.template.spec.containers[name=orders].image', ['argocd-controller', 'kubectl-set']],
    ]);
    expect(found[0]).toMatchObject({ desired: 2, live: 5 });
    // Matched by key (orders is the second live element), as SSA merges keyed lists; new-one is new, not a conflict.
    expect(found[1]).toMatchObject({ desired: 'orders:1.2', live: 'orders:1.1', pointer: '/spec/template/spec/containers/1/image' });
  });

  it('is none when values agree', async () => {
    const same: KubeObject = { ...desired, spec: { replicas: 5, template: { spec: { containers: [{ name: 'orders', image: 'orders:1.1' }] } } } };
    expect(await conflicts(same, live)).toEqual([]);
  });

  it('is none without managedFields (nobody is known to own the field: plain drift)', async () => {
    const { managedFields: _m, ...meta } = live.metadata;
    const d = await diffObject({ desired, live: { ...live, metadata: meta }, rules: [], fieldManager: 'argocd-controller' });
    expect(d.fields.some((f) => f.verdict === 'conflict')).toBe(false);
    expect(d.fields.map((f) => renderPath(f.path))).toContain('spec.replicas');
  });
});

describe('managedEntries on malformed entries (from a --live-file, say)', () => {
  const withMf = (managedFields: unknown): KubeObject =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', managedFields } }) as unknown as KubeObject;

  it('reads non-string manager, operation and time as empty (found by the fuzzer: a manager of {toString: null} crashed)', () => {
    const [e] = managedEntries(withMf([{ manager: { toString: null }, operation: 7, time: false, fieldsV1: { 'f:data': {} } }]));
    expect(e!.owner).toEqual({ manager: '', operation: '', apiVersion: '' });
    expect(e!.fields.has(parsePath('data'))).toBe(true);
  });

  it('names an entry that is not an object', () => {
    expect(() => managedEntries(withMf([null]))).toThrow('decoding managedFields[0]: the entry is not an object');
  });
});
