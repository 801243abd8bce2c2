// The gateway list sessions share: cluster-scoped metadata-only lists made once, everything else passed through.
import { COMMON_TYPES, FakeGateway } from '../../support/fake-gateway.js';
import { SharedReads } from '../../../src/kube/shared-reads.js';

const type = (kind: string) => COMMON_TYPES.find((t) => t.kind === kind)!;

test('a cluster-scoped metadata-only list is asked once; each caller gets its own copy', async () => {
  const inner = new FakeGateway({
    objects: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'r', annotations: { a: '1' } } }],
  });
  const shared = new SharedReads(inner);
  const [a, b] = await Promise.all([shared.list(type('ClusterRole'), { metadataOnly: true }), shared.list(type('ClusterRole'), { metadataOnly: true })]);
  a.items[0]!.metadata.name = 'changed';
  expect(b.items[0]!.metadata.name).toBe('r');
  expect(inner.calls.filter((c) => c.startsWith('LIST ClusterRole'))).toHaveLength(1);
});

test('namespaced, full or paged lists go through every time; close leaves the connection to its owner', async () => {
  const inner = new FakeGateway();
  const shared = new SharedReads(inner);
  for (let i = 0; i < 2; i++) {
    await shared.list(type('ConfigMap'), { namespace: 'x', metadataOnly: true });
    await shared.list(type('ClusterRole'));
    await shared.list(type('ClusterRole'), { metadataOnly: true, maxPages: 1 });
  }
  expect(inner.calls.filter((c) => c.startsWith('LIST'))).toHaveLength(6);
  shared.close();
  expect(shared.server).toBe(inner.server);
});
