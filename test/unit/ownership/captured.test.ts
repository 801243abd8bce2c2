// The analyzer on managedFields captured from a real API server (test/fixtures/managedfields/, see capture.sh there).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { fieldsOwnedBy, managedEntries, ownersOf } from '../../../src/ownership/index.js';
import { decodeFieldsV1, encodeFieldsV1 } from '../../../src/ownership/fieldsv1.js';
import { locate, parsePath, renderPath } from '../../../src/model/field-path.js';
import { diffObject } from '../../../src/diff/index.js';
import type { JsonObject, KubeObject } from '../../../src/model/object.js';

const DIR = join(process.cwd(), 'test/fixtures/managedfields');
const NAMES = [
  'ssa-argocd-controller',
  'controller-status',
  'kubectl-scale',
  'kubectl-scale-replicas-owned',
  'kubectl-set-image',
  'kubectl-edit',
  'replicaset',
  'service-ports',
] as const;
const missing = NAMES.filter((n) => !existsSync(join(DIR, `${n}.json`)));
const load = (n: string): KubeObject => JSON.parse(readFileSync(join(DIR, `${n}.json`), 'utf8')) as KubeObject;

// The manifests capture.sh applies with --server-side --field-manager=argocd-controller, by name.
const applied = (() => {
  const text = readFileSync(join(DIR, 'capture.sh'), 'utf8');
  const out = new Map<string, KubeObject>();
  for (const m of text.matchAll(/<<'YAML'\n([\s\S]*?)\nYAML/g)) {
    const obj = parse(m[1]!) as KubeObject;
    obj.metadata.namespace = 'shop';
    out.set(`${obj.kind}/${obj.metadata.name}`, obj);
  }
  return out;
})();
const desired = applied.get('Deployment/orders');

// No silent skip: a missing capture fails here, with its name (capture.sh in that folder makes them again).
test('every captured managedFields fixture is there', () => {
  expect(missing).toEqual([]);
});
const managers = (o: KubeObject, p: string) => ownersOf(o, parsePath(p)).map((w) => `${w.manager}:${w.operation}${w.subresource ? '/' + w.subresource : ''}`);

describe('managedFields captured from a real API server', () => {
  it.each(NAMES)('%s: every entry decodes, re-encodes to the same trie and names fields that exist', (n) => {
    const live = load(n);
    for (const e of live.metadata.managedFields ?? []) {
      const set = decodeFieldsV1(e.fieldsV1 as JsonObject);
      expect(encodeFieldsV1(set)).toEqual(e.fieldsV1);
      for (const p of set.paths()) {
        expect(parsePath(renderPath(p))).toEqual(p);
        expect({ path: renderPath(p), found: locate(live as unknown as JsonObject, p) !== undefined }).toEqual({ path: renderPath(p), found: true });
      }
    }
    // Every entry names its API version; time is optional (the scale subresource writes none).
    expect(managedEntries(live).every((e) => e.owner.apiVersion !== '' && (e.owner.time === undefined || !Number.isNaN(Date.parse(e.owner.time))))).toBe(true);
  });

  it('an SSA apply under argocd-controller owns what it declared, keyed by name and containerPort/protocol', () => {
    const live = load('ssa-argocd-controller');
    expect(managedEntries(live).map((e) => `${e.owner.manager}:${e.owner.operation}`)).toContain('argocd-controller:Apply');
    const owned = fieldsOwnedBy(live, 'argocd-controller').paths().map(renderPath);
    for (const p of [
      'metadata.annotations[argocd.argoproj.io/tracking-id]',
      'spec.template.spec.containers[name=orders].image',
      'spec.template.spec.containers[name=orders].ports[containerPort=8080,protocol=TCP].containerPort',
      'spec.template.spec.containers[name=orders].env[name=LOG_LEVEL].value',
      'spec.template.spec.containers[name=orders].resources.limits.memory',
    ]) {
      expect(owned).toContain(p);
    }
  });

  it('the apply is in sync with what was applied (server defaults do not count)', async () => {
    for (const n of ['ssa-argocd-controller', 'controller-status'] as const) {
      const r = await diffObject({ desired: desired!, live: load(n), rules: [], fieldManager: 'argocd-controller' });
      expect({ n, status: r.status, fields: r.fields }).toEqual({ n, status: 'in-sync', fields: [] });
    }
  });

  it('the controller writes status (and the revision annotation) through the status subresource', () => {
    const live = load('controller-status');
    const status = managedEntries(live).find((e) => e.owner.subresource === 'status');
    expect(status?.owner).toMatchObject({ manager: 'kube-controller-manager', operation: 'Update', subresource: 'status' });
    const outside = status!.fields
      .paths()
      .map(renderPath)
      .filter((p) => !p.startsWith('status.'));
    expect(outside).toEqual(['metadata.annotations[deployment.kubernetes.io/revision]']);
    expect(managers(live, 'status.availableReplicas')).toEqual(['kube-controller-manager:Update/status']);
  });

  it('kubectl scale of a Deployment whose manifest omits replicas leaves replicas unowned, and in sync', async () => {
    const live = load('kubectl-scale');
    expect(live.spec).toMatchObject({ replicas: 3 });
    expect(managers(live, 'spec.replicas')).toEqual([]);
    expect((await diffObject({ desired: desired!, live, rules: [], fieldManager: 'argocd-controller' })).status).toBe('in-sync');
  });

  it('kubectl scale takes spec.replicas over through the scale subresource: a conflict, ignorable by its manager', async () => {
    const live = load('kubectl-scale-replicas-owned');
    const payments = applied.get('Deployment/payments')!;
    expect(managers(live, 'spec.replicas')).toEqual(['kubectl:Update/scale']);
    expect(fieldsOwnedBy(live, 'argocd-controller').has(parsePath('spec.replicas'))).toBe(false);
    const r = await diffObject({ desired: payments, live, rules: [], fieldManager: 'argocd-controller' });
    expect(r.fields.map((f) => [renderPath(f.path), f.desired, f.live, f.verdict, f.owners.map((m) => m.manager)])).toEqual([
      ['spec.replicas', 2, 4, 'conflict', ['kubectl']],
    ]);
    const ignored = await diffObject({
      desired: payments,
      live,
      fieldManager: 'argocd-controller',
      rules: [{ group: 'apps', kind: 'Deployment', jsonPointers: [], jqPathExpressions: [], managedFieldsManagers: ['kubectl'] }],
    });
    expect(ignored.status).toBe('in-sync');
    expect(ignored.fields.map((f) => [renderPath(f.path), f.verdict, f.rule?.value])).toEqual([['spec.replicas', 'ignored', 'kubectl']]);
  });

  it('a Service port list keyed by port and protocol: kubectl patch owns one targetPort', async () => {
    const live = load('service-ports');
    expect(managers(live, 'spec.ports[port=9090,protocol=TCP].targetPort')).toEqual(['kubectl-patch:Update']);
    expect(managers(live, 'spec.ports[port=80,protocol=TCP].targetPort')).toEqual(['argocd-controller:Apply']);
    const r = await diffObject({ desired: applied.get('Service/orders')!, live, rules: [], fieldManager: 'argocd-controller' });
    expect(r.fields.map((f) => [renderPath(f.path), f.desired, f.live, f.verdict])).toEqual([
      ['spec.ports[port=9090,protocol=TCP].targetPort', 9090, 9091, 'conflict'],
    ]);
  });

  it('a ReplicaSet written by the deployment controller decodes, with ownerReferences owned by it', () => {
    const live = load('replicaset');
    const set = fieldsOwnedBy(live, 'kube-controller-manager').paths().map(renderPath);
    expect(set.some((p) => p.startsWith('metadata.ownerReferences[uid='))).toBe(true);
    for (const e of live.metadata.managedFields ?? []) expect(encodeFieldsV1(decodeFieldsV1(e.fieldsV1 as JsonObject))).toEqual(e.fieldsV1);
  });

  it('kubectl set image takes the image over: drift on it is a conflict owned by kubectl-set', async () => {
    const live = load('kubectl-set-image');
    const r = await diffObject({ desired: desired!, live, rules: [], fieldManager: 'argocd-controller' });
    expect(r.fields.map((f) => [renderPath(f.path), f.verdict, f.desired, f.live, f.owners.map((o) => o.manager)])).toEqual([
      [
        'spec.template.spec.containers[name=orders].image',
        'conflict',
        'registry.example.com/shop/orders:1.4.2',
        'registry.example.com/shop/orders:1.5.0',
        ['kubectl-set'],
      ],
    ]);
  });

  it('kubectl edit owns what it changed; an ignore rule for its manager hides exactly those fields', async () => {
    const live = load('kubectl-edit');
    expect(managers(live, 'spec.template.spec.containers[name=orders].resources.limits.memory')).toEqual(['kubectl-edit:Update']);
    const r = await diffObject({ desired: desired!, live, rules: [], fieldManager: 'argocd-controller' });
    expect(r.fields.map((f) => `${renderPath(f.path)} ${f.verdict}`).sort()).toEqual([
      'spec.template.spec.containers[name=orders].env[name=LOG_LEVEL].value conflict',
      'spec.template.spec.containers[name=orders].image conflict',
      'spec.template.spec.containers[name=orders].resources.limits.memory conflict',
    ]);
    const ignored = await diffObject({
      desired: desired!,
      live,
      fieldManager: 'argocd-controller',
      rules: [{ group: 'apps', kind: 'Deployment', jsonPointers: [], jqPathExpressions: [], managedFieldsManagers: ['kubectl-edit'] }],
    });
    expect(
      ignored.fields
        .filter((f) => f.verdict === 'ignored')
        .map((f) => renderPath(f.path))
        .sort(),
    ).toEqual(['spec.template.spec.containers[name=orders].env[name=LOG_LEVEL].value', 'spec.template.spec.containers[name=orders].resources.limits.memory']);
  });
});

describe('the manifests capture.sh applies', () => {
  it('are read from capture.sh as the desired objects', () => {
    expect([...applied.keys()]).toEqual(['Deployment/orders', 'Deployment/payments', 'Service/orders']);
  });
});
