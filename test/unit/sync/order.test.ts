// Argo CD's sync order: waves, kind order, names; namespaces and CRDs moved ahead of their users; prune in reverse.
import { kindRank, pruneOrder, syncOrder, waveOf } from '../../../src/sync/order.js';
import type { KubeObject } from '../../../src/model/object.js';

const obj = (kind: string, name: string, opts: { ns?: string; wave?: string; apiVersion?: string; spec?: KubeObject['spec'] } = {}): KubeObject => ({
  apiVersion: opts.apiVersion ?? (kind === 'Deployment' ? 'apps/v1' : 'v1'),
  kind,
  metadata: { name, ...(opts.ns ? { namespace: opts.ns } : {}), ...(opts.wave ? { annotations: { 'argocd.argoproj.io/sync-wave': opts.wave } } : {}) },
  ...(opts.spec ? { spec: opts.spec } : {}),
});
const order = (objs: KubeObject[]) =>
  syncOrder(objs.map((o) => ({ item: o, object: o, wave: waveOf(o).wave }))).map((o) => `${o.object.kind}/${o.object.metadata.name}@${o.wave}`);

test('kinds follow Helm order within a wave, then names; custom resources last', () => {
  expect(
    order([
      obj('Deployment', 'b'),
      obj('Widget', 'w', { apiVersion: 'example.com/v1' }),
      obj('ConfigMap', 'z'),
      obj('Deployment', 'a'),
      obj('Namespace', 'n'),
      obj('Service', 's'),
    ]),
  ).toEqual(['Namespace/n@0', 'ConfigMap/z@0', 'Service/s@0', 'Deployment/a@0', 'Deployment/b@0', 'Widget/w@0']);
  expect(kindRank('Widget')).toBe(0);
  expect(kindRank('Namespace')).toBeLessThan(kindRank('CustomResourceDefinition'));
});

test('names compare as Go compares strings (gitops-engine `a.GetName() < b.GetName()`), not by locale', () => {
  // By locale (ICU) the order would be System, system:z, system1 (punctuation before digits) and ab before aB.
  expect(
    order([obj('ClusterRole', 'system:z'), obj('ClusterRole', 'system1'), obj('ClusterRole', 'System'), obj('ClusterRole', 'ab'), obj('ClusterRole', 'aB')]),
  ).toEqual(['ClusterRole/System@0', 'ClusterRole/aB@0', 'ClusterRole/ab@0', 'ClusterRole/system1@0', 'ClusterRole/system:z@0']);
});

test('waves come before kinds', () => {
  expect(order([obj('ConfigMap', 'late', { wave: '5' }), obj('Deployment', 'early', { wave: '-1' }), obj('Service', 's')])).toEqual([
    'Deployment/early@-1',
    'Service/s@0',
    'ConfigMap/late@5',
  ]);
});

test('a namespace in a later wave moves ahead of the first object in it, taking its wave', () => {
  expect(order([obj('Namespace', 'shop', { wave: '3' }), obj('ConfigMap', 'c', { ns: 'shop', wave: '1' }), obj('ConfigMap', 'other', { ns: 'x' })])).toEqual([
    'ConfigMap/other@0',
    'Namespace/shop@1',
    'ConfigMap/c@1',
  ]);
});

test('a CRD in a later wave moves ahead of its custom resources', () => {
  const crd = obj('CustomResourceDefinition', 'widgets.example.com', {
    apiVersion: 'apiextensions.k8s.io/v1',
    wave: '2',
    spec: { group: 'example.com', names: { kind: 'Widget', plural: 'widgets' } },
  });
  expect(order([crd, obj('Widget', 'w', { apiVersion: 'example.com/v1' })])).toEqual(['CustomResourceDefinition/widgets.example.com@0', 'Widget/w@0']);
});

test('a malformed wave is reported and counts as 0', () => {
  expect(waveOf(obj('ConfigMap', 'c', { wave: 'soon' }))).toEqual({ wave: 0, error: 'argocd.argoproj.io/sync-wave "soon" is not an integer' });
});

test('prune order is the reverse of creation order', () => {
  const items = [obj('Namespace', 'n'), obj('ConfigMap', 'c', { wave: '1' }), obj('Deployment', 'd')].map((o) => ({
    item: o,
    object: o,
    wave: waveOf(o).wave,
  }));
  expect(pruneOrder(items).map((o) => o.object.kind)).toEqual(['ConfigMap', 'Deployment', 'Namespace']);
});

test("a plain resource's wave: its sync-wave as Go's Atoi reads it, else helm.sh/hook-weight (gitops-engine syncwaves.Wave)", () => {
  const w = (annotations: Record<string, string>) => waveOf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations } });
  expect(w({ 'helm.sh/hook-weight': '4' })).toEqual({ wave: 4 });
  expect(w({ 'argocd.argoproj.io/sync-wave': '-1', 'helm.sh/hook-weight': '4' })).toEqual({ wave: -1 });
  expect(w({ 'argocd.argoproj.io/sync-wave': ' 5' })).toMatchObject({ wave: 0, error: expect.stringMatching(/sync-wave " 5" is not an integer/) });
  expect(w({ 'argocd.argoproj.io/sync-wave': '1_0' }).wave).toBe(0);
  expect(w({ 'argocd.argoproj.io/sync-wave': '' })).toEqual({ wave: 0 });
});
