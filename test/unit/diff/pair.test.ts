import { pairObjects } from '../../../src/workflows/diff/file-diff.js';
import { parseManifests } from '../../../src/manifest/parse.js';

const desired = parseManifests(
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: other}\n`,
  'desired.yaml',
);
const live = parseManifests(
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: shop}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: shop}\n`,
  'live.yaml',
);
const summary = (ns?: string) =>
  pairObjects(desired, live, ns).map((p) => `${p.desired.metadata.name}->${p.live ? `${p.live.kind}/${p.live.metadata.namespace ?? '(cluster)'}` : 'missing'}`);

describe('pairObjects (file mode)', () => {
  it('gives desired objects without a namespace the default namespace; cluster-scoped ones match as they are', () => {
    expect(summary('shop')).toEqual(['a->ConfigMap/shop', 'r->ClusterRole/(cluster)', 'b->missing']);
  });
  it('without a default namespace, a namespaced live object does not match a desired one without namespace', () => {
    expect(summary(undefined)).toEqual(['a->missing', 'r->ClusterRole/(cluster)', 'b->missing']);
  });
});
