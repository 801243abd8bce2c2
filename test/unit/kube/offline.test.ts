// The offline gateway: the built-in table's kinds in the asked version, any other kind namespaced and remembered,
// nothing live, every write refused.
import { OfflineGateway } from '../../../src/kube/offline.js';

describe('OfflineGateway', () => {
  it("resolves Kubernetes' own kinds by group and kind, in the asked version; another kind namespaced, remembered", async () => {
    const gw = new OfflineGateway();
    expect(await gw.resolve('rbac.authorization.k8s.io/v1', 'ClusterRole')).toMatchObject({ resource: 'clusterroles', namespaced: false, version: 'v1' });
    expect(await gw.resolve('autoscaling/v1', 'HorizontalPodAutoscaler')).toMatchObject({ namespaced: true, version: 'v1' });
    expect(await gw.resolve('v1', 'Namespace')).toMatchObject({ namespaced: false });
    expect(await gw.resolve('example.com/v1', 'Widget')).toMatchObject({ namespaced: true, group: 'example.com' });
    expect([...gw.assumed]).toEqual(['Widget.example.com/v1']);
  });

  it('has nothing live and refuses every write', async () => {
    const gw = new OfflineGateway();
    const t = (await gw.resolve('v1', 'ConfigMap'))!;
    expect(await gw.get()).toBeUndefined();
    expect((await gw.list()).items).toEqual([]);
    await expect(gw.apply()).rejects.toThrow('offline: there is no cluster to write to');
    await expect(gw.delete()).rejects.toThrow('offline');
    expect(t.resource).toBe('configmaps');
    expect(gw.stats()).toEqual({ requests: 0, retries: 0 });
  });
});
