// plan's report of an ApplicationSet's app generated at base only (`disappears`): what the controller's deletion of it
// deletes, as `delete --dry-run` plans it, and — when that cannot plan it (the change removed its source path, so its
// source no longer renders) — from the live scan of its tracking mark, which needs no render.
import { goneReport, type Disappearance, type GoneReads, type ScannedDeletion } from '../../../../src/workflows/plan/plan.js';
import type { KubeObject } from '../../../../src/model/object.js';

const req = { base: 'b'.repeat(40), head: 'h'.repeat(40) };
const why: Disappearance = {
  deletes: true,
  kept: 'no longer generated at head; the ApplicationSet keeps it',
  cascades: 'no longer generated at head: the controller deletes it, and its resources finalizer its objects',
  orphans: 'no longer generated at head: the controller deletes it; without a resources finalizer its objects stay',
};
const app = (finalizers: string[] = ['resources-finalizer.argocd.argoproj.io']): KubeObject =>
  ({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'web-eu', namespace: 'argocd', finalizers }, spec: {} }) as KubeObject;
const apiVersion = (group: string, kind: string) => (group === 'apps' && kind === 'Deployment' ? 'apps/v1' : group === '' ? 'v1' : group);
const failed = 'its deletion could not be planned: source.path "apps/eu" does not exist at repo@1234567';
/** delete --dry-run could not plan it: its source no longer renders. */
const unplanned: GoneReads['plannedDeletion'] = { application: 'absent', entries: [], hooks: [], message: failed };
const scanned: ScannedDeletion = {
  entries: [
    { group: 'apps', kind: 'Deployment', namespace: 'eu', name: 'web', outcome: 'would-delete' },
    { group: '', kind: 'ConfigMap', namespace: 'eu', name: 'settings', outcome: 'waiting', message: 'annotated Delete=confirm: deleted only once approved' },
    { group: '', kind: 'Secret', namespace: 'eu', name: 'creds', outcome: 'kept', message: 'annotated Prune=false' },
  ],
  warnings: ['the live scan is partial (secrets in namespace eu): its deletion may delete more'],
};

describe('an app at base only, whose deletion delete --dry-run cannot plan: its objects from the live scan', () => {
  test('each object the scan finds is pruned by this change, or kept with the reason; the scan says so, and that its hooks are unknown', async () => {
    let scans = 0;
    const r = await goneReport(app(), req, why, {
      plannedDeletion: unplanned,
      scan: async () => {
        scans++;
        return scanned;
      },
      apiVersion,
    });
    expect(scans).toBe(1);
    expect([r.app, r.namespace, r.presence, r.base, r.head, r.refused, r.unknown]).toEqual([
      'web-eu',
      'argocd',
      'disappears',
      req.base,
      req.head,
      undefined,
      undefined,
    ]);
    expect(r.prune).toEqual({ enabled: true, why: why.cascades });
    expect(r.objects).toEqual([
      { key: { group: 'apps', kind: 'Deployment', namespace: 'eu', name: 'web' }, apiVersion: 'apps/v1', action: 'prune', origin: 'this-change', fields: [] },
      {
        key: { group: '', kind: 'ConfigMap', namespace: 'eu', name: 'settings' },
        apiVersion: 'v1',
        action: 'keep',
        origin: 'this-change',
        fields: [],
        reason: 'annotated Delete=confirm: deleted only once approved',
      },
      {
        key: { group: '', kind: 'Secret', namespace: 'eu', name: 'creds' },
        apiVersion: 'v1',
        action: 'keep',
        origin: 'this-change',
        fields: [],
        reason: 'annotated Prune=false',
      },
    ]);
    // The Application's deletion and the one object it prunes.
    expect(r.summary).toEqual({ thisChange: 2, alreadyThere: 0, inSync: 0 });
    expect(r.warnings).toEqual([
      `its objects are listed from the live scan (its tracking mark), as its deletion finds them; its PreDelete/PostDelete hooks are unknown: ${failed}`,
      'the live scan is partial (secrets in namespace eu): its deletion may delete more',
    ]);
  });

  test('a scan that fails: what the deletion does is unknown, said with both reasons; nothing listed', async () => {
    const r = await goneReport(app(), req, why, {
      plannedDeletion: unplanned,
      scan: () => Promise.reject(new Error('secrets is forbidden')),
      apiVersion,
    });
    expect(r.objects).toEqual([]);
    expect(r.unknown).toBe(`its objects could not be listed (${failed}; the live scan: secrets is forbidden)`);
    expect(r.warnings).toEqual([r.unknown]);
    expect(r.summary.thisChange).toBe(1);
  });

  test('an Application not in the cluster: its deletion deletes nothing live', async () => {
    const r = await goneReport(app(), req, why, { plannedDeletion: unplanned, scan: async () => undefined, apiVersion });
    expect(r.objects).toEqual([]);
    expect(r.unknown).toBeUndefined();
    expect(r.warnings).toEqual(['the Application is not in the cluster: nothing of it is live']);
  });

  test('without a resources finalizer its objects stay (orphans): nothing is listed as pruned, whatever the scan finds', async () => {
    const r = await goneReport(app([]), req, why, { plannedDeletion: unplanned, scan: async () => scanned, apiVersion });
    expect(r.prune).toEqual({ enabled: false, why: why.orphans });
    expect(r.objects).toEqual([]);
    expect(r.summary.thisChange).toBe(1);
  });
});

test('an app at base only whose deletion delete --dry-run plans: its plan, the live scan not read', async () => {
  const r = await goneReport(app(), req, why, {
    plannedDeletion: {
      application: 'would-delete',
      entries: [{ group: 'apps', kind: 'Deployment', namespace: 'eu', name: 'web', outcome: 'would-delete' }],
      hooks: [{ group: 'batch', kind: 'Job', namespace: 'eu', name: 'backup', phase: 'PreDelete', outcome: 'would-run' }],
    },
    scan: () => Promise.reject(new Error('the live scan is not read when the deletion is planned')),
    apiVersion,
  });
  expect(r.objects.map((o) => [o.key.kind, o.action])).toEqual([['Deployment', 'prune']]);
  expect(r.unknown).toBeUndefined();
  expect(r.warnings).toEqual(['its deletion runs 1 PreDelete/PostDelete hook(s) first (delete --dry-run lists them)']);
});
