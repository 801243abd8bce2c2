// The status report: per-resource and app sync status, health per resource and for the app, trees, cause.
import { buildStatusReport } from '../../../src/health/report.js';
import { app, brokenInput, cm, loadTree, res } from './status-fixtures.js';
import type { KubeObject } from '../../../src/model/object.js';

describe('buildStatusReport', () => {
  it('keeps the two axes apart: Synced and Progressing, with the scheduler as the reason', () => {
    const [deploy, ...children] = loadTree('unschedulable.yaml');
    const r = buildStatusReport({ app: app(), resources: [res(deploy!, 'in-sync'), res(cm('c'), 'in-sync')], children });
    expect(r.schemaVersion).toBe(1);
    expect(r.sync).toEqual({ status: 'Synced', outOfSync: 0, requiresPruning: 0 });
    expect(r.health.status).toBe('Progressing');
    expect(r.health.worst).toEqual([{ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'broken' }]);
    expect(r.health.cause?.source).toBe('PodUnschedulable');
    expect(r.health.cause?.message).toMatch(/^0\/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector/);
    expect(r.syncPolicy).toEqual({ automated: false, prune: false, selfHeal: false, allowEmpty: false });
  });

  it('marks drifted, missing and prune candidates OutOfSync, each with its reason, and the app OutOfSync', () => {
    const r = buildStatusReport(brokenInput());
    const byName = Object.fromEntries(r.resources.map((x) => [`${x.kind}/${x.name}`, x]));
    expect(byName['Service/web']).toMatchObject({ status: 'OutOfSync', syncReason: 'drifted', driftedFields: 2, health: { status: 'Healthy' } });
    expect(byName['Service/metrics']).toMatchObject({ status: 'OutOfSync', syncReason: 'missing', health: { status: 'Missing' } });
    expect(byName['ConfigMap/old-config']).toMatchObject({ status: 'OutOfSync', syncReason: 'requires-pruning', requiresPruning: true });
    expect(byName['ConfigMap/web-config']).toMatchObject({ status: 'Synced' });
    expect(byName['ConfigMap/web-config']?.health).toBeUndefined();
    expect(r.sync).toEqual({ status: 'OutOfSync', outOfSync: 3, requiresPruning: 1 });
    // The missing Service does not drag health down: it is counted as OutOfSync instead.
    expect(r.health.status).toBe('Progressing');
    expect(r.syncPolicy).toEqual({ automated: true, prune: true, selfHeal: true, allowEmpty: false });
  });

  it('makes the app OutOfSync when managedNamespaceMetadata changed since the last sync, every resource Synced', () => {
    const r = buildStatusReport({ app: { ...app(), managedNamespaceMetadataChanged: true }, resources: [res(cm('a'), 'in-sync')], children: [] });
    expect(r.sync).toEqual({ status: 'OutOfSync', outOfSync: 0, requiresPruning: 0 });
  });

  it('makes the app OutOfSync for a prune candidate alone, unless it is annotated IgnoreExtraneous', () => {
    const plain = buildStatusReport({ app: app(), resources: [res(cm('a'), 'in-sync'), res(cm('b'), 'extra')], children: [] });
    expect(plain.sync.status).toBe('OutOfSync');
    const ignored = buildStatusReport({
      app: app(),
      resources: [res(cm('a'), 'in-sync'), res(cm('b', { 'argocd.argoproj.io/compare-options': 'IgnoreExtraneous' }), 'extra')],
      children: [],
    });
    expect(ignored.sync.status).toBe('Synced');
    expect(ignored.resources.find((x) => x.name === 'b')).toMatchObject({ status: 'OutOfSync', countsForSync: false });
  });

  it('is Unknown when a resource could not be compared', () => {
    const r = buildStatusReport({ app: app(), resources: [res(cm('a'), 'drifted'), res(cm('b'), 'unknown', { error: 'forbidden' })], children: [] });
    expect(r.sync.status).toBe('Unknown');
  });

  it('is Missing when nothing is live', () => {
    const r = buildStatusReport({
      app: app(),
      resources: [{ key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' }, comparison: 'missing' }],
      children: [],
    });
    expect(r.health.status).toBe('Missing');
    expect(r.sync.status).toBe('OutOfSync');
    expect(r.trees).toEqual([]);
  });

  it('keeps health as it is when a resource drifts', () => {
    const [deploy, ...children] = loadTree('unschedulable.yaml');
    const synced = buildStatusReport({ app: app(), resources: [res(deploy!, 'in-sync')], children });
    const drifted = buildStatusReport({ app: app(), resources: [res(deploy!, 'drifted', { driftedFields: 1 })], children });
    expect(drifted.sync.status).toBe('OutOfSync');
    expect(drifted.health).toEqual(synced.health);
  });

  it("builds the live tree with each node's own cause", () => {
    const r = buildStatusReport(brokenInput());
    const deploy = r.trees.find((t) => t.kind === 'Deployment');
    expect(deploy?.children.map((c) => c.kind)).toEqual(['ReplicaSet']);
    const pod = deploy?.children[0]?.children[0];
    expect(pod).toMatchObject({ kind: 'Pod', name: 'broken-6f9c-abcde', health: { status: 'Progressing' }, cause: { reason: 'Unschedulable' } });
  });

  it('does not mutate its input', () => {
    const input = brokenInput();
    const before = JSON.stringify(input);
    buildStatusReport(input);
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('buildStatusReport at scale', () => {
  // 2,000 Deployments, each owning one ReplicaSet that owns one Pod: 4,000 children, plus strays owned by nothing listed.
  const N = 2000;
  const deployment = (i: number): KubeObject => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `web-${i}`, namespace: 'shop', uid: `d-${i}`, generation: 1 },
    spec: { replicas: 1 },
    status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
  });
  const owned = (
    kind: string,
    apiVersion: string,
    name: string,
    uid: string,
    owner: { kind: string; name: string; uid: string; apiVersion: string },
  ): KubeObject => ({
    apiVersion,
    kind,
    metadata: { name, namespace: 'shop', uid, ownerReferences: [owner] },
  });
  function children(): KubeObject[] {
    const out: KubeObject[] = [];
    for (let i = 0; i < N; i++) {
      out.push(owned('ReplicaSet', 'apps/v1', `web-${i}-rs`, `r-${i}`, { apiVersion: 'apps/v1', kind: 'Deployment', name: `web-${i}`, uid: `d-${i}` }));
      out.push(owned('Pod', 'v1', `web-${i}-rs-pod`, `p-${i}`, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${i}-rs`, uid: `r-${i}` }));
    }
    return out;
  }

  it('builds every tree correctly from 2,000 resources and 4,000 children, reading each child’s owners once', () => {
    const kids = children();
    // Count how often each child's ownerReferences are read: an owner index built once reads each exactly once.
    const reads = new Map<string, number>();
    for (const c of kids) {
      const refs = c.metadata.ownerReferences;
      const uid = c.metadata.uid as string;
      Object.defineProperty(c.metadata, 'ownerReferences', {
        enumerable: true,
        get: () => {
          reads.set(uid, (reads.get(uid) ?? 0) + 1);
          return refs;
        },
      });
    }
    const resources = Array.from({ length: N }, (_, i) => res(deployment(i), 'in-sync'));
    const r = buildStatusReport({ app: app(), resources, children: kids });
    expect(r.trees).toHaveLength(N);
    const shapes = new Set(
      r.trees.map((t) => `${t.name} > ${t.children.map((c) => `${c.kind}/${c.name} > ${c.children.map((p) => `${p.kind}/${p.name}`).join(',')}`).join(';')}`),
    );
    for (let i = 0; i < N; i++) expect(shapes.has(`web-${i} > ReplicaSet/web-${i}-rs > Pod/web-${i}-rs-pod`)).toBe(true);
    expect(r.resources).toHaveLength(N);
    expect(reads.size).toBe(2 * N);
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
  });
});
