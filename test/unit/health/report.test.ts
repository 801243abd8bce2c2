// The status report: per-resource and app sync status, health per resource and for the app, trees, cause.
import { buildStatusReport } from '../../../src/health/report.js';
import { reasonText } from '../../../src/render/status.js';
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
    expect(byName['ConfigMap/metrics']).toMatchObject({ status: 'OutOfSync', syncReason: 'missing', health: { status: 'Missing' } });
    expect(byName['ConfigMap/old-config']).toMatchObject({ status: 'OutOfSync', syncReason: 'requires-pruning', requiresPruning: true });
    expect(byName['ConfigMap/web-config']).toMatchObject({ status: 'Synced' });
    expect(byName['ConfigMap/web-config']?.health).toBeUndefined();
    expect(r.sync).toEqual({ status: 'OutOfSync', outOfSync: 3, requiresPruning: 1 });
    // The missing ConfigMap does not drag health down (no built-in check for its kind); a missing Service would.
    expect(r.health.status).toBe('Progressing');
    const input = brokenInput();
    input.resources[4] = { key: { group: '', kind: 'Service', namespace: 'shop', name: 'metrics' }, comparison: 'missing' };
    const missingService = buildStatusReport(input);
    expect(missingService.health.status).toBe('Missing');
    expect(missingService.health.worst).toEqual([{ group: '', kind: 'Service', namespace: 'shop', name: 'metrics' }]);
    expect(missingService.health.cause).toEqual({
      object: { group: '', kind: 'Service', namespace: 'shop', name: 'metrics' },
      source: 'Health',
      reason: '',
      message: 'missing from the cluster',
    });
    expect(r.syncPolicy).toEqual({ automated: true, prune: true, selfHeal: true, allowEmpty: false });
  });

  it('names the resource that holds the app at its health when its check gives no message (a LoadBalancer waiting for its address)', () => {
    const lb: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'lb', namespace: 'shop' },
      spec: { type: 'LoadBalancer', ports: [{ port: 80 }] },
      status: { loadBalancer: {} },
    };
    const r = buildStatusReport({ app: app(), resources: [res(lb, 'in-sync'), res(cm('c'), 'in-sync')], children: [] });
    expect(r.health.status).toBe('Progressing');
    expect(r.resources.find((x) => x.name === 'lb')?.health).toMatchObject({ status: 'Progressing' });
    expect(r.health.cause).toEqual({
      object: { group: '', kind: 'Service', namespace: 'shop', name: 'lb' },
      source: 'Health',
      reason: 'Progressing',
      message: 'Progressing',
    });
    expect(reasonText(r)).toBe('Service/lb: Progressing');
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

  it("marks a kind the AppProject refuses Unknown with the project's reason, and counts it OutOfSync for the app (Argo CD's CompareAppState)", () => {
    const refused = { ...res(cm('b'), 'missing'), notPermitted: 'not permitted in project team: namespaceResourceBlacklist lists /ConfigMap' };
    delete refused.live;
    const r = buildStatusReport({ app: app(), resources: [res(cm('a'), 'in-sync'), refused], children: [] });
    expect(r.resources.find((x) => x.name === 'b')).toMatchObject({
      status: 'Unknown',
      syncReason: 'not-permitted',
      notPermitted: 'not permitted in project team: namespaceResourceBlacklist lists /ConfigMap',
      countsForSync: true,
    });
    expect(r.sync).toEqual({ status: 'OutOfSync', outOfSync: 1, requiresPruning: 0 });
    // A comparison that failed still makes the app Unknown beside it.
    const failed = buildStatusReport({ app: app(), resources: [{ ...res(cm('a'), 'unknown'), error: 'boom' }, refused], children: [] });
    expect(failed.sync.status).toBe('Unknown');
  });

  it('is Unknown when a resource could not be compared', () => {
    const r = buildStatusReport({ app: app(), resources: [res(cm('a'), 'drifted'), res(cm('b'), 'unknown', { error: 'forbidden' })], children: [] });
    expect(r.sync.status).toBe('Unknown');
  });

  it('is Missing when a resource with a built-in check (a Deployment) is missing, even with nothing live', () => {
    const r = buildStatusReport({
      app: app(),
      resources: [{ key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' }, comparison: 'missing' }],
      children: [],
    });
    expect(r.health.status).toBe('Missing');
    expect(r.health.worst).toEqual([{ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' }]);
    expect(r.sync.status).toBe('OutOfSync');
    expect(r.trees).toEqual([]);
  });

  it("counts a missing resource whose kind has no built-in check only when argocd-cm's resource.customizations names it", () => {
    const missing = (group: string, kind: string, name: string) => ({ key: { group, kind, namespace: 'shop', name }, comparison: 'missing' as const });
    // TestSetApplicationHealth_MissingResourceNoBuiltHealthCheck: a missing ConfigMap is skipped, even when nothing is live.
    const onlyCm = buildStatusReport({ app: app(), resources: [missing('', 'ConfigMap', 'settings')], children: [] });
    expect(onlyCm.health).toEqual({ status: 'Healthy', worst: [] });
    expect(onlyCm.resources[0]?.health).toEqual({ status: 'Missing', message: '' });
    const withCm = buildStatusReport({ app: app(), resources: [res(cm('a'), 'in-sync'), missing('', 'ConfigMap', 'settings')], children: [] });
    expect(withCm.health.status).toBe('Healthy');
    // A bundled Lua script (CronJob's) is not a check there; an argocd-cm override (any field) is.
    const cron = missing('batch', 'CronJob', 'report');
    expect(buildStatusReport({ app: app(), resources: [cron], children: [] }).health.status).toBe('Healthy');
    const overridden = buildStatusReport({
      app: app(),
      resources: [cron, missing('', 'ConfigMap', 'settings')],
      children: [],
      resourceOverrides: new Set(['batch/CronJob', 'ConfigMap']),
    });
    expect(overridden.health).toMatchObject({
      status: 'Missing',
      worst: [
        { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'settings' },
        { group: 'batch', kind: 'CronJob', namespace: 'shop', name: 'report' },
      ],
    });
    // TestSetApplicationHealth_MissingResource: a missing Pod (a built-in check) makes the app Missing.
    expect(buildStatusReport({ app: app(), resources: [res(cm('a'), 'in-sync'), missing('', 'Pod', 'p')], children: [] }).health.status).toBe('Missing');
  });

  it("skips a child Application that is Missing, and the app's own Application object", () => {
    const child = (name: string): KubeObject => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name, namespace: 'argocd', uid: `app-${name}` },
      spec: {},
    });
    const appKey = (name: string) => ({ group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name });
    const missingChild = { key: appKey('b'), comparison: 'missing' as const };
    const r = buildStatusReport({
      app: app(),
      resources: [missingChild, res(child('a'), 'in-sync')],
      children: [],
      resourceOverrides: new Set(['argoproj.io/Application']),
    });
    // The missing child would count (argocd-cm names the kind) but a child app's Missing never does.
    expect(r.health).toEqual({ status: 'Healthy', worst: [] });
    // The app's own Application object (name and namespace of the app, kind Application) is never counted.
    const self = res(child('shop'), 'in-sync');
    expect(self.key).toEqual(appKey('shop'));
    const degradedSelf = { ...self, live: { ...self.live!, metadata: { ...self.live!.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } } };
    expect(buildStatusReport({ app: app(), resources: [degradedSelf], children: [] }).health.status).toBe('Healthy');
    expect(buildStatusReport({ app: { ...app(), name: 'other' }, resources: [degradedSelf], children: [] }).health.status).toBe('Progressing');
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
