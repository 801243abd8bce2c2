// Fields removed from Git: what our manager applied that the desired object no longer declares is drift ('removed');
// what another manager also owns, what is already gone, and the tracking mark are not.
import { diffObject } from '../../../src/diff/index.js';
import type { KubeObject } from '../../../src/model/object.js';
import { renderPath } from '../../../src/model/field-path.js';

const applied = (fields: object, manager = 'argocd-controller', operation = 'Apply') => ({
  manager,
  operation,
  apiVersion: 'apps/v1',
  fieldsType: 'FieldsV1',
  fieldsV1: fields,
  time: '2026-12-01T10:00:00Z',
});

function deployment(container: object, labels: Record<string, string>, managedFields: object[]): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'orders', namespace: 'shop', labels, managedFields },
    spec: { template: { spec: { containers: [container] } } },
  } as unknown as KubeObject;
}

const OURS = applied({
  'f:metadata': { 'f:labels': { 'f:app': {}, 'f:tier': {} } },
  'f:spec': {
    'f:template': {
      'f:spec': {
        'f:containers': {
          'k:{"name":"orders"}': {
            '.': {},
            'f:name': {},
            'f:image': {},
            'f:env': {},
            'f:ports': { 'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
          },
        },
      },
    },
  },
});
const LIVE_CONTAINER = { name: 'orders', image: 'orders:1', env: [{ name: 'MODE', value: 'fast' }], ports: [{ containerPort: 8080, protocol: 'TCP' }] };

describe('removed fields', () => {
  it('an env var list, a label and a container port removed from Git are drift with the verdict removed', async () => {
    const live = deployment(LIVE_CONTAINER, { app: 'orders', tier: 'web' }, [OURS]);
    const desired = deployment({ name: 'orders', image: 'orders:1' }, { app: 'orders' }, []);
    const diff = await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' });
    expect(diff.status).toBe('drifted');
    expect(diff.fields.map((f) => [renderPath(f.path), f.verdict, f.desired, f.live])).toEqual([
      ['metadata.labels.tier', 'removed', undefined, 'web'],
      ['spec.template.spec.containers[name=orders].env', 'removed', undefined, [{ name: 'MODE', value: 'fast' }]],
      // The shortest path Git no longer has: the whole list here (an element alone when others stay).
      ['spec.template.spec.containers[name=orders].ports', 'removed', undefined, [{ containerPort: 8080, protocol: 'TCP' }]],
    ]);
    expect(diff.fields[0]?.pointer).toBe('/metadata/labels/tier');
    expect(diff.fields[0]?.owners.map((o) => o.manager)).toEqual(['argocd-controller']);
  });

  it('one list element removed while another stays: that element', async () => {
    const two = applied({
      'f:spec': {
        'f:template': {
          'f:spec': {
            'f:containers': {
              'k:{"name":"orders"}': {
                '.': {},
                'f:name': {},
                'f:ports': {
                  'k:{"containerPort":8080,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                  'k:{"containerPort":9090,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                },
              },
            },
          },
        },
      },
    });
    const live = deployment(
      {
        name: 'orders',
        ports: [
          { containerPort: 8080, protocol: 'TCP' },
          { containerPort: 9090, protocol: 'TCP' },
        ],
      },
      {},
      [two],
    );
    const desired = deployment({ name: 'orders', ports: [{ containerPort: 8080 }] }, {}, []);
    const diff = await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' });
    expect(diff.fields.filter((f) => f.verdict === 'removed').map((f) => renderPath(f.path))).toEqual([
      'spec.template.spec.containers[name=orders].ports[containerPort=9090,protocol=TCP]',
    ]);
  });

  it('nothing removed when Git still declares everything (a port whose protocol the server defaulted included)', async () => {
    const live = deployment(LIVE_CONTAINER, { app: 'orders', tier: 'web' }, [OURS]);
    const desired = deployment(
      { name: 'orders', image: 'orders:1', env: [{ name: 'MODE', value: 'fast' }], ports: [{ containerPort: 8080 }] },
      { app: 'orders', tier: 'web' },
      [],
    );
    expect((await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' })).status).toBe('in-sync');
  });

  it('a field another manager also owns is never reported removed; nor what another manager alone applied', async () => {
    const hpa = applied({ 'f:metadata': { 'f:labels': { 'f:tier': {} } } }, 'kubectl-label', 'Update');
    const live = deployment(LIVE_CONTAINER, { app: 'orders', tier: 'web' }, [OURS, hpa]);
    const desired = deployment(
      { name: 'orders', image: 'orders:1', env: [{ name: 'MODE', value: 'fast' }], ports: [{ containerPort: 8080 }] },
      { app: 'orders' },
      [],
    );
    expect((await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' })).status).toBe('in-sync');
    // Another field manager name: nothing of ours in managedFields, so nothing is ours to remove.
    expect((await diffObject({ desired, live, rules: [], fieldManager: 'someone-else' })).fields.filter((f) => f.verdict === 'removed')).toEqual([]);
  });

  it('an ignoreDifferences JSON pointer covers a removed field; the tracking mark is never reported removed', async () => {
    const mark = applied({ 'f:metadata': { 'f:labels': { 'f:app': {}, 'f:tier': {} }, 'f:annotations': { 'f:argocd.argoproj.io/tracking-id': {} } } });
    const live = {
      ...deployment(LIVE_CONTAINER, { app: 'orders', tier: 'web' }, [mark]),
      metadata: {
        name: 'orders',
        namespace: 'shop',
        labels: { app: 'orders', tier: 'web' },
        annotations: { 'argocd.argoproj.io/tracking-id': 'shop:apps/Deployment:shop/orders' },
        managedFields: [mark],
      },
    } as unknown as KubeObject;
    const desired = deployment(LIVE_CONTAINER, { app: 'orders' }, []);
    const rules = [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/metadata/labels'], jqPathExpressions: [], managedFieldsManagers: [] }];
    const diff = await diffObject({ desired, live, rules, fieldManager: 'argocd-controller' });
    expect(diff.fields.filter((f) => f.verdict === 'removed')).toEqual([]);
    const unruled = await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' });
    expect(unruled.fields.filter((f) => f.verdict === 'removed').map((f) => renderPath(f.path))).toEqual(['metadata.labels.tier']);
  });
});

describe('removed fields after a client-side apply migration', () => {
  it("the last-applied annotation a migrated entry handed to our Apply entry is never 'removed' (Argo CD's diff drops it from both sides)", async () => {
    const migrated = applied({
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
    });
    const live = {
      ...deployment({ name: 'orders', image: 'orders:1' }, { app: 'orders' }, [migrated]),
      metadata: {
        name: 'orders',
        namespace: 'shop',
        labels: { app: 'orders' },
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' },
        managedFields: [migrated],
      },
    } as unknown as KubeObject;
    const desired = deployment({ name: 'orders', image: 'orders:1' }, { app: 'orders' }, []);
    const diff = await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' });
    expect(diff.fields.filter((f) => f.verdict === 'removed')).toEqual([]);
  });
});

describe('removed fields of a client-side applied object (the last-applied three-way rule)', () => {
  const LA = 'kubectl.kubernetes.io/last-applied-configuration';
  const csa = (fields: object) => applied(fields, 'argocd-controller', 'Update');
  const withLast = (o: KubeObject, last: object): KubeObject => ({
    ...o,
    metadata: { ...o.metadata, annotations: { ...(o.metadata.annotations ?? {}), [LA]: JSON.stringify(last) } },
  });
  const lastContainer = {
    name: 'orders',
    image: 'orders:1',
    env: [
      { name: 'MODE', value: 'fast' },
      { name: 'KEEP', value: '1' },
    ],
    args: ['--a', '--b'],
  };
  const lastApplied = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'orders', namespace: 'shop', labels: { app: 'orders', tier: 'web' } },
    spec: { template: { spec: { containers: [lastContainer] } } },
  };
  const UPDATE = csa({ 'f:metadata': { 'f:annotations': { [`f:${LA}`]: {} }, 'f:labels': { 'f:app': {}, 'f:tier': {} } } });

  it('a label, a named env var and a scalar set value the last apply declared and Git dropped are removed; what stays is not', async () => {
    const last = { ...lastApplied, metadata: { ...lastApplied.metadata, finalizers: ['example.com/a', 'example.com/b'] } };
    const live = withLast(
      deployment({ ...lastContainer, env: [...lastContainer.env, { name: 'INJECTED', value: 'x' }], args: ['--a'] }, { app: 'orders', tier: 'web' }, [UPDATE]),
      last,
    );
    live.metadata.finalizers = ['example.com/a', 'example.com/b'];
    const desired = deployment({ name: 'orders', image: 'orders:1', env: [{ name: 'KEEP', value: '1' }], args: ['--a'] }, { app: 'orders' }, []);
    desired.metadata.finalizers = ['example.com/a'];
    const diff = await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' });
    expect(diff.fields.map((f) => [renderPath(f.path), f.verdict, f.live])).toEqual([
      ['metadata.labels.tier', 'removed', 'web'],
      // finalizers merge by value (a strategic merge list of scalars): the one dropped value.
      ['metadata.finalizers[=example.com/b]', 'removed', 'example.com/b'],
      ['spec.template.spec.containers[name=orders].env[name=MODE]', 'removed', { name: 'MODE', value: 'fast' }],
    ]);
  });

  it('an atomic list the last apply declared longer is one drift row (the apply replaces it whole), not also its element removed', async () => {
    const live = withLast(deployment(lastContainer, { app: 'orders', tier: 'web' }, [UPDATE]), lastApplied);
    const desired = deployment({ name: 'orders', image: 'orders:1', env: lastContainer.env, args: ['--a'] }, { app: 'orders', tier: 'web' }, []);
    const diff = await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' });
    expect(diff.fields.map((f) => [renderPath(f.path), f.verdict, f.desired, f.live])).toEqual([
      ['spec.template.spec.containers[name=orders].args', 'drift', ['--a'], ['--a', '--b']],
    ]);
  });

  it('not when another manager owns the field, when it is already gone, or when our manager applies server-side (its managedFields rule decides)', async () => {
    const other = applied({ 'f:metadata': { 'f:labels': { 'f:tier': {} } } }, 'helm', 'Update');
    const desired = deployment({ name: 'orders', image: 'orders:1', env: [{ name: 'KEEP', value: '1' }], args: ['--a', '--b'] }, { app: 'orders' }, []);
    const owned = withLast(deployment({ ...lastContainer, env: [{ name: 'KEEP', value: '1' }] }, { app: 'orders', tier: 'web' }, [UPDATE, other]), lastApplied);
    expect((await diffObject({ desired, live: owned, rules: [], fieldManager: 'argocd-controller' })).fields.filter((f) => f.verdict === 'removed')).toEqual(
      [],
    );
    const ssa = withLast(
      deployment({ ...lastContainer, env: [{ name: 'KEEP', value: '1' }] }, { app: 'orders', tier: 'web' }, [
        applied({ 'f:metadata': { 'f:labels': { 'f:app': {} } } }),
      ]),
      lastApplied,
    );
    expect((await diffObject({ desired, live: ssa, rules: [], fieldManager: 'argocd-controller' })).fields.filter((f) => f.verdict === 'removed')).toEqual([]);
  });
});

describe('the last-applied rule never shows what the annotation holds', () => {
  it('a Secret applied client-side, desired with stringData and no annotations: no value of it in the diff, no whole-map removal', async () => {
    const LA = 'kubectl.kubernetes.io/last-applied-configuration';
    const value = 'c2VjcmV0LXZhbHVlLTEyMw=='; // base64 of a secret value
    const last = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'shop', annotations: { team: 'a' } }, data: { key: value } };
    const live = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's',
        namespace: 'shop',
        annotations: { team: 'a', [LA]: JSON.stringify(last) },
        managedFields: [
          applied({ 'f:metadata': { 'f:annotations': { [`f:${LA}`]: {}, 'f:team': {} } }, 'f:data': { 'f:key': {} } }, 'kubectl-client-side-apply', 'Update'),
        ],
      },
      data: { key: value },
    } as unknown as KubeObject;
    const desired = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'shop' },
      stringData: { key: 'other-value-456' },
    } as unknown as KubeObject;
    const diff = await diffObject({ desired, live, rules: [], fieldManager: 'argocd-controller' });
    const text = JSON.stringify(diff);
    expect(text).not.toContain(value);
    expect(text).not.toContain('secret-value-123');
    expect(text).not.toContain('other-value-456');
    // The annotation `team` went from Git: that one key is removed, not the annotations map with last-applied in it.
    expect(diff.fields.filter((f) => f.verdict === 'removed').map((f) => renderPath(f.path))).toEqual(['metadata.annotations.team']);
  });
});
