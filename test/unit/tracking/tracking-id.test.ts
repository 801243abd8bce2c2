// Tracking-id rules: Argo CD's format, the app part, self-reference, and selection with reasons.
import fc from 'fast-check';
import { buildTrackingId, instanceName, isSelfReferenced, parseTrackingId, stampTrackingId, WRONG_FORMAT } from '../../../src/tracking/tracking-id.js';
import { describeNotOwned, selectOwned } from '../../../src/tracking/select.js';
import type { KubeObject } from '../../../src/model/object.js';

const dns = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/);
const group = fc.oneof(fc.constant(''), fc.stringMatching(/^[a-z0-9]+(\.[a-z0-9]+){0,3}$/));
const kind = fc.stringMatching(/^[A-Z][A-Za-z0-9]{0,15}$/);
const appPart = fc.oneof(
  dns,
  fc.tuple(dns, dns).map(([n, a]) => `${n}_${a}`),
);

test('build then parse returns the same coordinates', () => {
  fc.assert(
    fc.property(appPart, group, kind, dns, dns, (app, g, k, ns, name) => {
      const value = buildTrackingId(app, { group: g, kind: k, namespace: ns, name }, 'dest');
      const parsed = parseTrackingId(value);
      expect(parsed).toEqual({ ok: true, id: { app, group: g, kind: k, namespace: ns, name } });
    }),
  );
});

test('parse then build returns the same string for every well-formed value', () => {
  fc.assert(
    fc.property(appPart, group, kind, dns, dns, (app, g, k, ns, name) => {
      const value = `${app}:${g}/${k}:${ns}/${name}`;
      const p = parseTrackingId(value);
      if (!p.ok) throw new Error(p.error);
      expect(buildTrackingId(p.id.app, p.id, 'unused')).toBe(value);
    }),
  );
});

test('the core group is empty and a cluster-scoped object carries the destination namespace', () => {
  expect(buildTrackingId('shop', { group: '', kind: 'ConfigMap', namespace: 'prod', name: 'cm' }, 'dest')).toBe('shop:/ConfigMap:prod/cm');
  expect(buildTrackingId('shop', { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', namespace: '', name: 'r' }, 'dest')).toBe(
    'shop:rbac.authorization.k8s.io/ClusterRole:dest/r',
  );
});

test('the app part is namespace_name outside the control-plane namespace', () => {
  expect(instanceName({ name: 'shop', namespace: 'argocd' })).toBe('shop');
  expect(instanceName({ name: 'shop', namespace: '' })).toBe('shop');
  expect(instanceName({ name: 'shop', namespace: 'team-a' })).toBe('team-a_shop');
  expect(instanceName({ name: 'shop', namespace: 'gitops' }, 'gitops')).toBe('shop');
});

test.each(['shop', 'shop:apps/Deployment', 'shop:Deployment:ns/n', 'shop:apps/Deployment:n', 'shop:a/b/c:ns/n', 'shop:apps/Deployment:ns/n/x', ''])(
  'malformed value %p is reported, not guessed at',
  (v) => {
    const p = parseTrackingId(v);
    expect(p.ok).toBe(false);
    if (!p.ok && v !== '') expect(p.error).toBe(WRONG_FORMAT);
  },
);

test('self-reference: namespace must match unless the object is cluster-scoped', () => {
  const id = { app: 'shop', group: 'apps', kind: 'Deployment', namespace: 'prod', name: 'orders' };
  expect(isSelfReferenced({ group: 'apps', kind: 'Deployment', namespace: 'prod', name: 'orders' }, id)).toBe(true);
  expect(isSelfReferenced({ group: 'apps', kind: 'Deployment', namespace: 'other', name: 'orders' }, id)).toBe(false);
  expect(isSelfReferenced({ group: 'apps', kind: 'Deployment', namespace: 'prod', name: 'orders-copy' }, id)).toBe(false);
  expect(isSelfReferenced({ group: 'apps', kind: 'ReplicaSet', namespace: 'prod', name: 'orders' }, id)).toBe(false);
  expect(isSelfReferenced({ group: 'apps', kind: 'Deployment', namespace: '', name: 'orders' }, id)).toBe(true);
});

test('stamping copies and never mutates', () => {
  const obj: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n', annotations: { a: 'b' } } };
  const before = structuredClone(obj);
  const out = stampTrackingId(obj, 'shop', 'dest');
  expect(obj).toEqual(before);
  expect(out.metadata.annotations).toEqual({ a: 'b', 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:n/c' });
});

describe('the legacy instance label key also labels pod templates (util/kube SetAppInstanceLabel)', () => {
  const legacy = { method: 'label' as const, labelKey: 'applications.argoproj.io/app-name', installationID: '' };
  const workload = (apiVersion: string, kind: string, spec: Record<string, unknown>): KubeObject => ({
    apiVersion,
    kind,
    metadata: { name: 'w', namespace: 'n' },
    spec: spec as KubeObject['spec'],
  });
  const podSpec = { template: { metadata: { labels: { app: 'w' } }, spec: { containers: [] } } };

  test('Deployment, ReplicaSet, StatefulSet, DaemonSet (apps, extensions) and batch Job get it on spec.template', () => {
    for (const [av, kind] of [
      ['apps/v1', 'Deployment'],
      ['apps/v1', 'ReplicaSet'],
      ['apps/v1', 'StatefulSet'],
      ['apps/v1', 'DaemonSet'],
      ['extensions/v1beta1', 'DaemonSet'],
      ['batch/v1', 'Job'],
    ] as const) {
      const obj = workload(av, kind, { selector: { matchLabels: { app: 'w' } }, ...structuredClone(podSpec) });
      const before = structuredClone(obj);
      const out = stampTrackingId(obj, 'shop', 'dest', legacy);
      expect(obj).toEqual(before);
      expect(out.metadata.labels).toEqual({ 'applications.argoproj.io/app-name': 'shop' });
      expect(out.spec).toEqual({
        selector: { matchLabels: { app: 'w' } },
        template: { metadata: { labels: { app: 'w', 'applications.argoproj.io/app-name': 'shop' } }, spec: { containers: [] } },
      });
    }
  });

  test('a template without labels (or without metadata) gets them; annotation+label writes the truncated value', () => {
    const long = 'a'.repeat(70);
    const out = stampTrackingId(workload('batch/v1', 'Job', { template: { spec: {} } }), long, 'dest', { ...legacy, method: 'annotation+label' });
    expect(out.spec).toEqual({ template: { spec: {}, metadata: { labels: { 'applications.argoproj.io/app-name': 'a'.repeat(63) } } } });
  });

  test('apps/v1beta1 and extensions/v1beta1 without a selector get the template labels but ours as matchLabels', () => {
    for (const av of ['apps/v1beta1', 'extensions/v1beta1']) {
      const out = stampTrackingId(workload(av, 'Deployment', structuredClone(podSpec)), 'shop', 'dest', legacy);
      expect((out.spec as Record<string, unknown>).selector).toEqual({ matchLabels: { app: 'w' } });
    }
    const v1 = stampTrackingId(workload('apps/v1', 'Deployment', structuredClone(podSpec)), 'shop', 'dest', legacy);
    expect((v1.spec as Record<string, unknown>).selector).toBeUndefined();
  });

  test('other kinds, other groups and any other label key leave the spec alone', () => {
    const spec = structuredClone(podSpec);
    for (const obj of [workload('batch/v1', 'CronJob', spec), workload('example.com/v1', 'Deployment', spec), workload('v1', 'Pod', spec)])
      expect(stampTrackingId(obj, 'shop', 'dest', legacy).spec).toEqual(spec);
    const other = stampTrackingId(workload('apps/v1', 'Deployment', spec), 'shop', 'dest', { ...legacy, labelKey: 'example.com/app' });
    expect(other.spec).toEqual(spec);
    const byAnnotation = stampTrackingId(workload('apps/v1', 'Deployment', spec), 'shop', 'dest', { ...legacy, method: 'annotation' });
    expect(byAnnotation.spec).toEqual(spec);
  });
});

test('selectOwned keeps only self-referencing marks of this app on root objects, with a reason for the rest', () => {
  const cm = (name: string, mark?: string, owner = false): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'ns',
      ...(mark ? { annotations: { 'argocd.argoproj.io/tracking-id': mark } } : {}),
      ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'd', uid: 'u' }] } : {}),
    },
  });
  const sel = selectOwned(
    [
      cm('mine', 'shop:/ConfigMap:ns/mine'),
      cm('plain'),
      cm('bad', 'shop'),
      cm('theirs', 'other:/ConfigMap:ns/theirs'),
      cm('copy', 'shop:/ConfigMap:ns/mine'),
      cm('child', 'shop:/ConfigMap:ns/child', true),
    ],
    'shop',
  );
  expect(sel.owned.map((o) => o.metadata.name)).toEqual(['mine']);
  expect(sel.notOwned.map((n) => [n.object.metadata.name, n.reason.code])).toEqual([
    ['plain', 'unmarked'],
    ['bad', 'malformed'],
    ['theirs', 'other-app'],
    ['copy', 'not-self'],
    ['child', 'has-owner'],
  ]);
});

test("inferred owners, as gitops-engine's cluster cache infers them: an ownerless Endpoints, a service-account token Secret, an OLM CSV are no app's root", () => {
  const labelTracking = { method: 'label' as const, labelKey: 'app.kubernetes.io/instance', installationID: '' };
  const endpoints: KubeObject = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'web', namespace: 'ns', labels: { 'app.kubernetes.io/instance': 'shop' } },
  };
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web', namespace: 'ns', labels: { 'app.kubernetes.io/instance': 'shop' } },
  };
  const byLabel = selectOwned([endpoints, service], 'shop', labelTracking);
  expect(byLabel.owned.map((o) => o.kind)).toEqual(['Service']);
  expect(byLabel.notOwned.map((n) => [n.object.kind, describeNotOwned(n.reason)])).toEqual([
    ['Endpoints', 'has an owner (Service/web (inferred, as Argo CD infers it))'],
  ]);
  const mark = (o: KubeObject, extra: Record<string, string> = {}): KubeObject => ({
    ...o,
    metadata: {
      ...o.metadata,
      annotations: {
        'argocd.argoproj.io/tracking-id': `shop:${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}/${o.kind}:ns/${o.metadata.name}`,
        ...extra,
      },
    },
  });
  const token = mark(
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bot-token', namespace: 'ns' } },
    { 'kubernetes.io/service-account.name': 'bot', 'kubernetes.io/service-account.uid': 'u-1' },
  );
  const named = mark({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'asked', namespace: 'ns' } }, { 'kubernetes.io/service-account.name': 'bot' });
  const csv = mark(
    { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'ClusterServiceVersion', metadata: { name: 'op.v1', namespace: 'ns' } },
    { 'olm.operatorGroup': 'og' },
  );
  const sel = selectOwned([token, named, csv], 'shop');
  // A token Secret asked for by hand has only the name until the token controller fills in the uid: a root until then.
  expect(sel.owned.map((o) => o.metadata.name)).toEqual(['asked']);
  expect(sel.notOwned.map((n) => describeNotOwned(n.reason))).toEqual([
    'has an owner (ServiceAccount/bot (inferred: a service-account token, as Argo CD infers it))',
    'has an owner (OperatorGroup/og (inferred, as Argo CD infers it))',
  ]);
});
