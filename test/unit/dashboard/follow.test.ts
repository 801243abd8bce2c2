// Which collections the dashboard follows for an app, and which apps a change concerns.
import { concerned, followedOf, targetsOf, type Followed } from '../../../src/dashboard/follow.js';
import type { KubeObject } from '../../../src/model/object.js';

const deploy = { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web' };
const cm = { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'settings' };
const role = { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', namespace: '', name: 'reader' };

const obj = (name: string, namespace: string, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
});

describe('dashboard follow', () => {
  const followed = new Map<string, Followed>([
    ['argocd/shop', followedOf('ctx', { name: 'shop', namespace: 'argocd' }, [deploy, cm, role])],
    ['argocd/other', followedOf('ctx', { name: 'other', namespace: 'argocd' }, [{ ...cm, namespace: 'other', name: 'o' }])],
    ['argocd/far', followedOf('far-ctx', { name: 'far', namespace: 'argocd' }, [cm])],
  ]);

  it("follows the resources' collections and, for a Deployment, its ReplicaSets and Pods", () => {
    expect([...targetsOf(followed.get('argocd/shop')!)].sort()).toEqual([
      '/ConfigMap@shop',
      '/Pod@shop',
      'apps/Deployment@shop',
      'apps/ReplicaSet@shop',
      'rbac.authorization.k8s.io/ClusterRole@',
    ]);
  });

  it('routes a change of a resource to the apps that have it, on the same cluster only', () => {
    expect(concerned(followed, 'ctx', { group: '', kind: 'ConfigMap', namespace: 'shop' }, obj('settings', 'shop'))).toEqual(['argocd/shop']);
    expect(concerned(followed, 'ctx', { group: '', kind: 'ConfigMap', namespace: 'shop' }, obj('unrelated', 'shop'))).toEqual([]);
    expect(concerned(followed, 'far-ctx', { group: '', kind: 'ConfigMap', namespace: 'shop' }, obj('settings', 'shop'))).toEqual(['argocd/far']);
    expect(concerned(followed, 'ctx', { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', namespace: '' }, obj('reader', ''))).toEqual(['argocd/shop']);
  });

  it("routes any change among the children's collections (a Pod of the Deployment) and a tracked extra", () => {
    expect(concerned(followed, 'ctx', { group: '', kind: 'Pod', namespace: 'shop' }, obj('web-abc-123', 'shop'))).toEqual(['argocd/shop']);
    expect(concerned(followed, 'ctx', { group: '', kind: 'Pod', namespace: 'other' }, obj('x', 'other'))).toEqual([]);
    const extra = obj('leftover', 'shop', { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/leftover' });
    expect(concerned(followed, 'ctx', { group: '', kind: 'ConfigMap', namespace: 'shop' }, extra)).toEqual(['argocd/shop']);
    const namespaced = obj('leftover', 'other', { 'argocd.argoproj.io/tracking-id': 'argocd_other:/ConfigMap:other/leftover' });
    expect(concerned(followed, 'ctx', { group: '', kind: 'ConfigMap', namespace: 'other' }, namespaced)).toEqual(['argocd/other']);
  });

  it('routes a re-list of a collection to every app following it', () => {
    expect(concerned(followed, 'ctx', { group: '', kind: 'ConfigMap', namespace: 'shop' }, undefined)).toEqual(['argocd/shop']);
    expect(concerned(followed, 'ctx', { group: '', kind: 'Secret', namespace: 'shop' }, undefined)).toEqual([]);
  });
});
