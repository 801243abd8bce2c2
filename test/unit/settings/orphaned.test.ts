// orphanedResources: what Argo CD's controller lists as orphaned in an app's destination namespace.
import { orphanedResources, type OrphanInput } from '../../../src/settings/orphaned.js';
import { parseAppProject } from '../../../src/settings/project.js';
import type { KubeObject } from '../../../src/model/object.js';

const project = (orphaned: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  parseAppProject(
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'p' }, spec: { sourceRepos: ['*'], orphanedResources: orphaned, ...extra } },
    'test',
  );

function obj(kind: string, name: string, o: { apiVersion?: string; app?: string; owner?: string; namespace?: string } = {}): KubeObject {
  const namespace = o.namespace ?? 'shop';
  const group = (o.apiVersion ?? 'v1').includes('/') ? (o.apiVersion ?? '').split('/')[0] : '';
  return {
    apiVersion: o.apiVersion ?? 'v1',
    kind,
    metadata: {
      name,
      namespace,
      uid: `uid-${kind}-${name}`,
      ...(o.app ? { annotations: { 'argocd.argoproj.io/tracking-id': `${o.app}:${group}/${kind}:${namespace}/${name}` } } : {}),
      ...(o.owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'X', name: 'x', uid: o.owner }] } : {}),
    },
  };
}

const base = (objects: KubeObject[], p = project({})): OrphanInput => ({
  objects,
  namespace: 'shop',
  appInstance: 'shop',
  apps: new Set(['shop', 'other']),
  project: p,
});
const names = (input: OrphanInput) => orphanedResources(input).map((k) => `${k.kind}/${k.name}`);

test("top-level objects no existing app tracks are orphaned, with the objects under them; this app's and another app's are not", () => {
  const objects = [
    obj('ConfigMap', 'mine', { app: 'shop' }),
    obj('ConfigMap', 'theirs', { app: 'other' }),
    obj('ConfigMap', 'gone-app', { app: 'deleted-long-ago' }),
    obj('ConfigMap', 'by-hand'),
    obj('Deployment', 'manual', { apiVersion: 'apps/v1' }),
    obj('ReplicaSet', 'manual-1', { apiVersion: 'apps/v1', owner: 'uid-Deployment-manual' }),
    obj('Pod', 'manual-1-a', { owner: 'uid-ReplicaSet-manual-1' }),
    obj('Pod', 'owned-by-mine', { owner: 'uid-ConfigMap-mine' }),
    obj('ConfigMap', 'elsewhere', { namespace: 'other-ns' }),
  ];
  expect(names(base(objects))).toEqual(['ConfigMap/by-hand', 'ConfigMap/gone-app', 'Pod/manual-1-a', 'Deployment/manual', 'ReplicaSet/manual-1']);
});

test("Argo CD's built-in exclusions and the project's ignore globs; kinds the project does not permit", () => {
  const objects = [
    obj('ServiceAccount', 'default'),
    obj('ConfigMap', 'kube-root-ca.crt'),
    obj('Service', 'kubernetes', { namespace: 'default' }),
    obj('ConfigMap', 'cache-1'),
    obj('ConfigMap', 'settings'),
    obj('Secret', 'token'),
    obj('Deployment', 'web', { apiVersion: 'apps/v1' }),
  ];
  const ignoring = project({ ignore: [{ kind: 'ConfigMap', name: 'cache-*' }, { group: 'apps' }] });
  expect(names(base(objects, ignoring))).toEqual(['ConfigMap/settings', 'Secret/token']);
  const noSecrets = project({}, { namespaceResourceBlacklist: [{ group: '', kind: 'Secret' }] });
  expect(names(base(objects, noSecrets))).toEqual(['ConfigMap/cache-1', 'ConfigMap/settings', 'Deployment/web']);
  // The default namespace's kubernetes Service is Argo CD's exclusion there only.
  expect(names({ ...base([obj('Service', 'kubernetes')]), namespace: 'shop' })).toEqual(['Service/kubernetes']);
});

test('nothing without the project setting', () => {
  const p = parseAppProject({ apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'p' }, spec: {} }, 'test');
  expect(orphanedResources(base([obj('ConfigMap', 'by-hand')], p))).toEqual([]);
});
