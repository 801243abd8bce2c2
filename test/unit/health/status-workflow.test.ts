// The status workflow against the fake gateway (sync per resource, extras, live children, cause) and the --wait loop.
import { restrictedProjectFile } from '../../support/app-project.js';
import { COMMON_TYPES, FakeGateway } from '../../support/fake-gateway.js';
import { memoryIo } from '../../../src/cli/io.js';
import type { GlobalOptions } from '../../../src/model/context.js';
import type { KubeObject } from '../../../src/model/object.js';
import { listChildren, runStatus, waitForConverged, type Clock, type StatusResult } from '../../../src/workflows/status/status.js';
import { ClusterError, InputError } from '../../../src/model/errors.js';
import { apiError } from '../../../src/kube/errors.js';
import { buildStatusReport } from '../../../src/health/report.js';
import { app, loadTree } from './status-fixtures.js';
import { renderStatus } from '../../../src/render/status.js';
import { paint } from '../../../src/render/colour.js';
import { appWorkspace, localSource, type AppWorkspace } from '../../support/app-workspace.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

function workspace(desired: string): AppWorkspace {
  return appWorkspace({
    prefix: 'status',
    manifests: desired,
    spec: (root) => ({ source: localSource(root), destination: { namespace: 'shop' }, syncPolicy: { automated: { prune: true, allowEmpty: true } } }),
  });
}

const DESIRED = `apiVersion: apps/v1
kind: Deployment
metadata: {name: broken}
spec: {replicas: 1}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {mode: fast}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: flags}
data: {beta: "false"}
`;

const mark = (kind: string, name: string) => ({ 'argocd.argoproj.io/tracking-id': `shop:/${kind}:shop/${name}` });
const cm = (name: string, data: Record<string, string>, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', ...(annotations ? { annotations } : {}) },
  data,
});

test('reports each axis per resource, lists the extra, walks the live tree to the scheduler message', async () => {
  const { appFile, dir } = workspace(DESIRED);
  const [unmarked, rs, pod, strayPod] = loadTree('unschedulable.yaml');
  // As a sync leaves it: carrying the app's tracking-id.
  const deploy = {
    ...unmarked!,
    metadata: {
      ...unmarked!.metadata,
      annotations: { ...unmarked!.metadata.annotations, 'argocd.argoproj.io/tracking-id': 'shop:apps/Deployment:shop/broken' },
    },
  };
  const gw = new FakeGateway({
    objects: [
      deploy,
      rs!,
      pod!,
      strayPod!,
      cm('settings', { mode: 'fast' }, mark('ConfigMap', 'settings')),
      cm('flags', { beta: 'true' }, mark('ConfigMap', 'flags')),
      cm('old-config', { a: 'b' }, mark('ConfigMap', 'old-config')),
      cm('unrelated', { a: 'b' }),
    ],
  });
  const result = await runStatus({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw });
  const r = result.report;
  const rows = r.resources.map((x) => `${x.kind}/${x.name} ${x.status}${x.syncReason ? `(${x.syncReason})` : ''} ${x.health?.status ?? '-'}`);
  expect(rows).toEqual([
    'ConfigMap/flags OutOfSync(drifted) -',
    'ConfigMap/old-config OutOfSync(requires-pruning) -',
    'ConfigMap/settings Synced -',
    'Deployment/broken Synced Progressing',
  ]);
  expect(r.sync).toEqual({ status: 'OutOfSync', outOfSync: 2, requiresPruning: 1 });
  expect(r.health.status).toBe('Progressing');
  expect(r.health.cause).toMatchObject({ source: 'PodUnschedulable', object: { kind: 'Pod', name: 'broken-6f9c-abcde' } });
  expect(r.syncPolicy).toMatchObject({ prune: true, allowEmpty: true });
  const tree = r.trees.find((t) => t.kind === 'Deployment');
  expect(tree?.children.map((c) => `${c.kind}/${c.name} > ${c.children.map((p) => `${p.kind}/${p.name}`).join(',')}`)).toEqual([
    'ReplicaSet/broken-6f9c > Pod/broken-6f9c-abcde',
  ]);
  // Children are listed once per kind and namespace, in full (status is needed), not per object; with the live twins
  // (before the scan's first list, not after the comparison), and the scan takes those lists instead of their metadata.
  const childLists = gw.calls.filter((c) => /^LIST (ReplicaSet|Pod) /.test(c));
  expect(childLists.sort()).toEqual(['LIST Pod shop', 'LIST ReplicaSet shop']);
  const firstScan = gw.calls.findIndex((c) => c.endsWith(' meta'));
  expect(firstScan).toBeGreaterThan(0);
  expect(childLists.map((c) => gw.calls.indexOf(c)).every((i) => i < firstScan)).toBe(true);
  expect(result.requests).toBeGreaterThan(0);
});

test('a missing Deployment is OutOfSync and, with nothing live, the app is Missing', async () => {
  const { appFile, dir } = workspace('apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n');
  const r = (await runStatus({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: new FakeGateway() })).report;
  expect(r.sync.status).toBe('OutOfSync');
  expect(r.resources[0]).toMatchObject({ kind: 'Deployment', syncReason: 'missing', health: { status: 'Missing' } });
  expect(r.health.status).toBe('Missing');
});

test("lists a CronJob's Jobs and Pods, and nothing for kinds without children", async () => {
  const verbs = ['get', 'list'];
  const gw = new FakeGateway({
    types: [
      ...COMMON_TYPES,
      { group: 'batch', version: 'v1', kind: 'Job', resource: 'jobs', namespaced: true, verbs },
      { group: 'batch', version: 'v1', kind: 'CronJob', resource: 'cronjobs', namespaced: true, verbs },
    ],
    objects: loadTree('cronjob-failed.yaml'),
  });
  const [cronJob] = loadTree('cronjob-failed.yaml');
  const warnings: string[] = [];
  const children = await listChildren(gw, [cronJob!, cm('c', {})], warnings);
  expect(children.map((c) => `${c.kind}/${c.metadata.name}`).sort()).toEqual(['Job/report-29408700', 'Pod/report-29408700-q8r7s']);
  expect(gw.calls.filter((c) => c.startsWith('LIST')).sort()).toEqual(['LIST Job shop', 'LIST Pod shop']);
  expect(warnings).toEqual([]);
});

test('a child kind it may not list becomes a warning, not a failure', async () => {
  const [deploy, rs, pod] = loadTree('unschedulable.yaml');
  const gw = new FakeGateway({ objects: [deploy!, rs!, pod!], forbidden: ['list pods'] });
  const warnings: string[] = [];
  const children = await listChildren(gw, [deploy!], warnings);
  expect(children.map((c) => c.kind)).toEqual(['ReplicaSet']);
  expect(warnings).toEqual([expect.stringMatching(/^cannot list pods in namespace shop, so the tree under it is incomplete: /)]);
});

test("a live object that lost its tracking-id, or carries another app's, is OutOfSync, as Argo CD compares the marked target", async () => {
  const { appFile, dir } = workspace(DESIRED);
  const gw = new FakeGateway({
    objects: [cm('settings', { mode: 'fast' }), cm('flags', { beta: 'false' }, { 'argocd.argoproj.io/tracking-id': 'other:/ConfigMap:shop/flags' })],
  });
  const result = await runStatus({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw });
  const rows = result.report.resources.filter((x) => x.kind === 'ConfigMap').map((x) => `${x.name} ${x.status}${x.syncReason ? `(${x.syncReason})` : ''}`);
  expect(rows).toEqual(['flags OutOfSync(drifted)', 'settings OutOfSync(drifted)']);
});

test("a live object of a kind the AppProject refuses is compared as not live and is Unknown, the app OutOfSync (Argo CD's CompareAppState)", async () => {
  const ws = appWorkspace({
    prefix: 'status-project',
    manifests:
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: token}\ntype: Opaque\n',
    spec: (root) => ({ project: 'restricted', source: localSource(root), destination: { namespace: 'shop' } }),
  });
  const projectFile = restrictedProjectFile(ws.root, 'Secret');
  // Both live exactly as rendered, with the app's mark: without the project, both would be Synced.
  const secret: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'token', namespace: 'shop', annotations: mark('Secret', 'token') },
    type: 'Opaque',
  };
  const gw = new FakeGateway({ objects: [cm('settings', { mode: 'fast' }, mark('ConfigMap', 'settings')), secret] });
  const r = (await runStatus({ appFile: ws.appFile, projectFile, desired: ws.dir }, { io: memoryIo().io, opts, gateway: gw })).report;
  const rows = r.resources.map((x) => `${x.kind}/${x.name} ${x.status}${x.syncReason ? `(${x.syncReason})` : ''} ${x.health?.status ?? '-'}`);
  expect(rows).toEqual(['ConfigMap/settings Synced -', 'Secret/token Unknown(not-permitted) Missing']);
  expect(r.resources[1]?.notPermitted).toBe('not permitted in project restricted: namespaceResourceBlacklist lists /Secret (/Secret)');
  expect(r.sync).toEqual({ status: 'OutOfSync', outOfSync: 1, requiresPruning: 0 });
  expect(renderStatus(r, { output: 'table', tree: false, paint: paint(false) })).toContain(
    'not permitted in project restricted: namespaceResourceBlacklist lists /Secret (/Secret)',
  );
});

describe('waitForConverged', () => {
  function fakeClock(): Clock & { slept: number[] } {
    let t = 0;
    const slept: number[] = [];
    return { slept, now: () => t, sleep: async (ms) => void (slept.push(ms), (t += ms)) };
  }
  const [deploy, ...children] = loadTree('unschedulable.yaml');
  const progressing: StatusResult = {
    report: buildStatusReport({
      app: app(),
      resources: [{ key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'broken' }, comparison: 'in-sync', live: deploy! }],
      children,
    }),
    warnings: [],
    requests: 1,
  };
  const healthy: StatusResult = { report: buildStatusReport({ app: app(), resources: [], children: [] }), warnings: [], requests: 1 };

  it('polls until Synced and Healthy', async () => {
    const clock = fakeClock();
    const seq = [progressing, progressing, healthy];
    const seen: string[] = [];
    const got = await waitForConverged(async () => seq.shift() ?? healthy, {
      timeoutMs: 60_000,
      intervalMs: 2000,
      clock,
      onPoll: (r) => seen.push(r.report.health.status),
    });
    expect(got.converged).toBe(true);
    expect(got.polls).toBe(3);
    expect(clock.slept).toEqual([2000, 2000]);
    expect(seen).toEqual(['Progressing', 'Progressing']);
  });

  it('rides out a cluster that is unreachable or answers 503 for a while, telling each error', async () => {
    const clock = fakeClock();
    const errors: string[] = [];
    const seq: (StatusResult | Error)[] = [
      new ClusterError('cannot reach the API server'),
      apiError('listing', 503, '{"kind":"Status","message":"busy"}'),
      progressing,
      healthy,
    ];
    const got = await waitForConverged(
      async () => {
        const next = seq.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      { timeoutMs: 60_000, intervalMs: 2000, clock, onError: (e) => errors.push(e.message) },
    );
    expect(got.converged).toBe(true);
    expect(got.polls).toBe(4);
    expect(errors).toEqual(['cannot reach the API server', expect.stringMatching(/503/)]);
  });

  it('ends at once on an error that will not pass (forbidden, bad input), and with the error when the timeout comes during one', async () => {
    const forbidden = apiError('listing', 403, '{"kind":"Status","message":"no"}', { verb: 'list', resource: 'pods', namespace: 'shop' });
    await expect(waitForConverged(async () => Promise.reject(forbidden), { timeoutMs: 60_000, intervalMs: 2000, clock: fakeClock() })).rejects.toBe(forbidden);
    const bad = new InputError('bad.yaml:1: no kind');
    await expect(waitForConverged(async () => Promise.reject(bad), { timeoutMs: 60_000, intervalMs: 2000, clock: fakeClock() })).rejects.toBe(bad);
    const clock = fakeClock();
    const down = new ClusterError('cannot reach the API server');
    await expect(waitForConverged(async () => Promise.reject(down), { timeoutMs: 5000, intervalMs: 2000, clock })).rejects.toBe(down);
    expect(clock.slept).toEqual([2000, 2000, 1000]);
  });

  it('ends as the decision says: at once when it fails (--degraded), with each verdict not yet final told to onPoll', async () => {
    const { waitSpec, waitVerdict } = await import('../../../src/workflows/status/wait.js');
    const degraded: StatusResult = {
      report: buildStatusReport({
        app: app(),
        resources: [
          {
            key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'broken' },
            comparison: 'in-sync',
            live: {
              ...deploy!,
              status: { ...(deploy!.status as object), conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] },
            },
          },
        ],
        children,
      }),
      warnings: [],
      requests: 1,
    };
    const clock = fakeClock();
    const seq = [progressing, degraded, healthy];
    const seen: string[] = [];
    const spec = waitSpec({ degraded: true });
    const got = await waitForConverged(async () => seq.shift() ?? healthy, {
      timeoutMs: 60_000,
      intervalMs: 2000,
      clock,
      decide: (r) => waitVerdict(r, spec),
      onPoll: (_r, v) => seen.push(v.outcome === 'waiting' ? v.unmet.map((u) => `${u.condition} ${u.now}`).join() : v.outcome),
    });
    expect({ outcome: got.verdict.outcome, converged: got.converged, polls: got.polls, waitedMs: got.waitedMs }).toEqual({
      outcome: 'degraded',
      converged: false,
      polls: 2,
      waitedMs: 2000,
    });
    expect(seen).toEqual(['health Progressing']);
    // The default decision waits for the operation too: a recorded one still Running holds a Synced and Healthy app.
    const running: StatusResult = { ...healthy, operation: { requested: false, phase: 'Running' } };
    const held = await waitForConverged(async () => running, { timeoutMs: 4000, intervalMs: 2000, clock: fakeClock() });
    expect(held.verdict).toEqual({ outcome: 'waiting', unmet: [{ condition: 'operation', now: 'Running' }] });
  });

  it('gives up at the timeout with the last report (and its reason)', async () => {
    const clock = fakeClock();
    const got = await waitForConverged(async () => progressing, { timeoutMs: 5000, intervalMs: 2000, clock });
    expect(got.converged).toBe(false);
    expect(got.waitedMs).toBe(5000);
    expect(clock.slept).toEqual([2000, 2000, 1000]);
    expect(got.report.health.cause?.source).toBe('PodUnschedulable');
  });
});

test("with -n, the header and the JSON show the namespace status acted on, and the Application's beside it", async () => {
  const { appFile, dir } = workspace('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {k: v}\n');
  const r = (await runStatus({ appFile, desired: dir }, { io: memoryIo().io, opts: { ...opts, namespace: 'other' }, gateway: new FakeGateway() })).report;
  expect(r.destination).toMatchObject({ namespace: 'other', declaredNamespace: 'shop' });
  expect(renderStatus(r, { output: 'table', tree: false, paint: paint(false) })).toMatch(
    /^Destination: +.*, namespace other \(-n; the Application's is shop\)$/m,
  );
  const same = (await runStatus({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: new FakeGateway() })).report;
  expect(same.destination.namespace).toBe('shop');
  expect(same.destination.declaredNamespace).toBeUndefined();
});
