// The multi-step sync against the fake gateway, checked against gitops-engine's sync_context.go Sync(): the last
// (phase, wave) without hooks is not waited for; hook delete policies applied once the operation is over; hooks and
// resources of one wave created by kind order; the wave delay before health is read; SyncFail hooks of a one-wave sync.
import { appWorkspace } from '../../../support/app-workspace.js';
import { FakeGateway } from '../../../support/fake-gateway.js';
import { apiError } from '../../../../src/kube/errors.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { syncApp, syncExitCode, type SyncRequest } from '../../../../src/workflows/sync/sync.js';
import type { SyncDeps } from '../../../../src/workflows/sync/execute.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import type { KubeObject } from '../../../../src/model/object.js';
import type { ResourceType } from '../../../../src/model/resource-type.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };
const NS: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } };

const workspace = (desired: Record<string, string>) => appWorkspace({ prefix: 'phases-run', manifests: desired });

const request = (ws: { appFile: string; dir: string }, flags: Partial<SyncRequest> = {}): SyncRequest => ({
  appFile: ws.appFile,
  desired: ws.dir,
  dryRun: false,
  prune: false,
  forceConflicts: true,
  timeoutMs: 1500,
  ...flags,
});

const deps = (gw: FakeGateway, delay = '0'): SyncDeps => ({ io: memoryIo({ env: { ARGOCD_SYNC_WAVE_DELAY: delay } }).io, opts, gateway: gw });

const ann = (a: Record<string, string>) => `annotations: ${JSON.stringify(a)}`;
const cm = (name: string, a: Record<string, string> = {}) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, ${ann(a)}}\ndata: {a: "1"}\n`;
const sa = (name: string, a: Record<string, string> = {}) => `apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: ${name}, ${ann(a)}}\n`;
/** A Pod hook that has already ended as `phase` (the fake stores the status it is given). */
const pod = (name: string, phase: 'Succeeded' | 'Failed' | 'Unknown' | 'Pending', a: Record<string, string>) =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, ${ann(a)}}\nspec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\nstatus: {phase: ${phase}}\n`;
/** A Deployment that never becomes healthy (no controller: no status), or a Degraded one. */
const deploy = (name: string, a: Record<string, string> = {}, degraded = false) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, generation: 1, ${ann(a)}}\nspec: {replicas: 1, selector: {matchLabels: {app: ${name}}}, template: {metadata: {labels: {app: ${name}}}, spec: {nodeSelector: {nope: x}, containers: [{name: c, image: nginx}]}}}\n${
    degraded
      ? 'status: {observedGeneration: 1, conditions: [{type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: "exceeded its progress deadline"}]}\n'
      : ''
  }`;

const applied = (gw: FakeGateway) => gw.calls.filter((c) => c.startsWith('APPLY force')).map((c) => c.replace('APPLY force ', ''));

describe('the last (phase, wave) is not waited for when it has no hook (gitops-engine: "successfully synced (all tasks run)")', () => {
  test('a PreSync hook and a Deployment that cannot become healthy: Succeeded, exit 0, nothing failed', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(request(workspace({ 'pre.yaml': cm('pre', { 'argocd.argoproj.io/hook': 'PreSync' }), 'web.yaml': deploy('web') })), deps(gw));
    expect({ code: syncExitCode(report), failures: report.failures }).toEqual({ code: 0, failures: [] });
    expect(report.waves?.map((w) => `${w.phase}/${w.wave}:${w.outcome}`)).toEqual(['PreSync/0:done', 'Sync/0:done']);
  });

  test('a Degraded Deployment in the last wave does not fail the sync either', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(
      request(workspace({ 'a.yaml': cm('first', { 'argocd.argoproj.io/sync-wave': '-1' }), 'web.yaml': deploy('web', {}, true) })),
      deps(gw),
    );
    expect({ code: syncExitCode(report), failures: report.failures }).toEqual({ code: 0, failures: [] });
  });

  test('a wave before the last is still waited for: Degraded fails the sync, and the next wave is not applied', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(
      request(workspace({ 'web.yaml': deploy('web', {}, true), 'late.yaml': cm('late', { 'argocd.argoproj.io/sync-wave': '1' }) })),
      deps(gw),
    );
    expect(syncExitCode(report)).toBe(3);
    expect(report.failures.map((f) => f.message)).toEqual([expect.stringMatching(/^Deployment\/web is Degraded: .* \(wave 0 of Sync\)$/)]);
    expect(gw.find('ConfigMap', 'shop', 'late')).toBeUndefined();
  });

  test('the last wave holding a hook is waited for, its resources too (the sync is multi-step)', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(
      request(
        workspace({
          'pre.yaml': cm('pre', { 'argocd.argoproj.io/hook': 'PreSync' }),
          'seed.yaml': cm('seed', { 'argocd.argoproj.io/hook': 'Sync' }),
          'web.yaml': deploy('web'),
        }),
        { timeoutMs: 600 },
      ),
      deps(gw),
    );
    expect(syncExitCode(report)).toBe(3);
    expect(report.failures.map((f) => f.message)).toEqual([expect.stringMatching(/^Deployment\/web did not become healthy in time/)]);
  });

  test('one (phase, wave) with a hook: only the hook is waited for (gitops-engine tasks.multiStep() is false)', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(
      request(workspace({ 'seed.yaml': cm('seed', { 'argocd.argoproj.io/hook': 'Sync' }), 'web.yaml': deploy('web') }), { timeoutMs: 10_000 }),
      deps(gw),
    );
    expect({ code: syncExitCode(report), failures: report.failures }).toEqual({ code: 0, failures: [] });
    expect(report.hooks.map((h) => `${h.name}:${h.outcome}`)).toEqual(['seed:Succeeded']);
  });
});

describe('what a wave waits for, as gitops-engine reads a running task (Sync: a resource; getOperationPhase: a hook)', () => {
  const paused = (name: string, a: Record<string, string> = {}) =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, generation: 1, ${ann(a)}}\nspec: {paused: true, replicas: 1, selector: {matchLabels: {app: ${name}}}, template: {metadata: {labels: {app: ${name}}}, spec: {containers: [{name: c, image: nginx}]}}}\n`;

  test('a Suspended (paused) Deployment in a wave before the last is waited for, not done: the time limit fails the sync and the next wave is not applied', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(
      request(workspace({ 'web.yaml': paused('web'), 'late.yaml': cm('late', { 'argocd.argoproj.io/sync-wave': '1' }) }), { timeoutMs: 600 }),
      deps(gw),
    );
    expect(syncExitCode(report)).toBe(3);
    expect(report.failures.map((f) => f.message)).toEqual(['Deployment/web did not become healthy in time (Suspended): Deployment is paused (wave 0 of Sync)']);
    expect(gw.find('ConfigMap', 'shop', 'late')).toBeUndefined();
  });

  test('a paused Deployment in the last wave is not waited for (the sync succeeds, as before)', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(
      request(workspace({ 'a.yaml': cm('first', { 'argocd.argoproj.io/sync-wave': '-1' }), 'web.yaml': paused('web') }), { timeoutMs: 10_000 }),
      deps(gw),
    );
    expect({ code: syncExitCode(report), failures: report.failures }).toEqual({ code: 0, failures: [] });
  });

  test('a hook whose health is Unknown has failed (a resource would be waited for): the sync fails at once', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(
      request(workspace({ 'pre.yaml': pod('lost', 'Unknown', { 'argocd.argoproj.io/hook': 'PreSync' }), 'app.yaml': cm('app') }), { timeoutMs: 5000 }),
      deps(gw),
    );
    expect(syncExitCode(report)).toBe(3);
    expect(report.hooks.map((h) => `${h.phase} ${h.name}:${h.outcome}`)).toEqual(['PreSync lost:Failed']);
    expect(report.failures.map((f) => f.message)).toEqual([expect.stringMatching(/^PreSync hook Pod\/lost failed/)]);
    expect(gw.find('ConfigMap', 'shop', 'app')).toBeUndefined();
  });
});

describe('delete policies are applied once the operation is over (hooksPendingDeletionSuccessful / Failed)', () => {
  test('a HookSucceeded ServiceAccount hook stays until the Pod hook of a later wave that uses it is created; deleted once the sync succeeded', async () => {
    const gw = new FakeGateway({ objects: [NS] });
    const report = await syncApp(
      request(
        workspace({
          'sa.yaml': sa('runner', { 'helm.sh/hook': 'pre-install', 'helm.sh/hook-weight': '-5', 'helm.sh/hook-delete-policy': 'hook-succeeded' }),
          'job.yaml': pod('migrate', 'Succeeded', { 'helm.sh/hook': 'pre-install', 'helm.sh/hook-delete-policy': 'hook-succeeded' }),
          'app.yaml': cm('app'),
        }),
      ),
      deps(gw),
    );
    expect(syncExitCode(report)).toBe(0);
    const podAt = gw.calls.indexOf('APPLY force Pod shop/migrate');
    const saGone = gw.calls.indexOf('DELETE ServiceAccount shop/runner background');
    expect(podAt).toBeGreaterThanOrEqual(0);
    expect(saGone).toBeGreaterThan(podAt);
    expect(saGone).toBeGreaterThan(gw.calls.indexOf('APPLY force ConfigMap shop/app'));
    expect(gw.find('ServiceAccount', 'shop', 'runner')).toBeUndefined();
    expect(gw.find('Pod', 'shop', 'migrate')).toBeUndefined();
  });

  test('the sync fails: HookSucceeded hooks are kept, a HookFailed hook is deleted even though it succeeded', async () => {
    const gw = new FakeGateway({
      objects: [NS],
      failApply: (o, a) => (o.metadata.name === 'app' && !a.dryRun ? apiError('applying ConfigMap app', 422, 'refused') : undefined),
    });
    const report = await syncApp(
      request(
        workspace({
          'keep.yaml': cm('keep', { 'argocd.argoproj.io/hook': 'PreSync', 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' }),
          'drop.yaml': cm('drop', { 'argocd.argoproj.io/hook': 'PreSync', 'argocd.argoproj.io/hook-delete-policy': 'HookFailed' }),
          'app.yaml': cm('app'),
        }),
      ),
      deps(gw),
    );
    expect(syncExitCode(report)).toBe(3);
    expect(gw.find('ConfigMap', 'shop', 'keep')).toBeDefined();
    expect(gw.find('ConfigMap', 'shop', 'drop')).toBeUndefined();
  });
});

test('within one wave hooks and resources are created by kind order, then name (syncTasks.Less), not hooks first', async () => {
  const gw = new FakeGateway({ objects: [NS] });
  const report = await syncApp(
    request(
      workspace({
        'seed.yaml': pod('seed', 'Succeeded', { 'argocd.argoproj.io/hook': 'Sync' }),
        'b.yaml': cm('b-settings'),
        'a.yaml': cm('a-settings', { 'argocd.argoproj.io/hook': 'Sync' }),
        'sa.yaml': sa('runner'),
      }),
    ),
    deps(gw),
  );
  expect(syncExitCode(report)).toBe(0);
  expect(applied(gw)).toEqual(['ServiceAccount shop/runner', 'ConfigMap shop/a-settings', 'ConfigMap shop/b-settings', 'Pod shop/seed']);
});

test("Argo CD's wave delay comes between a wave's apply and the first read of its health", async () => {
  class Timed extends FakeGateway {
    at = new Map<string, number>();
    override async apply(type: ResourceType, obj: KubeObject, o: Parameters<FakeGateway['apply']>[2]): Promise<KubeObject> {
      if (!o.dryRun) this.at.set(`apply ${obj.metadata.name}`, Date.now());
      return super.apply(type, obj, o);
    }
    override async get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined> {
      if (!this.at.has(`get ${name}`)) this.at.set(`get ${name}`, Date.now());
      return super.get(type, namespace, name);
    }
  }
  const gw = new Timed({ objects: [NS] });
  const report = await syncApp(
    request(workspace({ 'a.yaml': cm('first', { 'argocd.argoproj.io/sync-wave': '-1' }), 'b.yaml': cm('second') }), { timeoutMs: 5000 }),
    deps(gw, '1'),
  );
  expect(syncExitCode(report)).toBe(0);
  const read = gw.at.get('get first') ?? 0;
  expect(read - (gw.at.get('apply first') ?? 0)).toBeGreaterThanOrEqual(900);
  expect((gw.at.get('apply second') ?? 0) - read).toBeLessThan(900);
});

test('a one-wave sync with a SyncFail hook runs it when an apply fails', async () => {
  const gw = new FakeGateway({
    objects: [NS],
    failApply: (o, a) => (o.metadata.name === 'app' && !a.dryRun ? apiError('applying ConfigMap app', 422, 'refused') : undefined),
  });
  const report = await syncApp(request(workspace({ 'app.yaml': cm('app'), 'fail.yaml': cm('on-fail', { 'argocd.argoproj.io/hook': 'SyncFail' }) })), deps(gw));
  expect(syncExitCode(report)).toBe(3);
  expect(report.hooks.map((h) => `${h.phase} ${h.name}:${h.outcome}`)).toEqual(['SyncFail on-fail:Succeeded']);
  expect(gw.find('ConfigMap', 'shop', 'on-fail')).toBeDefined();
});

test('SyncFail hooks of several waves are all created at once, then waited for together (gitops-engine setOperationFailed)', async () => {
  const gw = new FakeGateway({
    objects: [NS],
    failApply: (o, a) => (o.metadata.name === 'app' && !a.dryRun ? apiError('applying ConfigMap app', 422, 'refused') : undefined),
  });
  const report = await syncApp(
    request(
      workspace({
        'app.yaml': cm('app'),
        'slow.yaml': pod('slow', 'Pending', { 'argocd.argoproj.io/hook': 'SyncFail' }),
        'second.yaml': cm('second', { 'argocd.argoproj.io/hook': 'SyncFail', 'argocd.argoproj.io/sync-wave': '1' }),
      }),
      { timeoutMs: 600 },
    ),
    deps(gw),
  );
  expect(syncExitCode(report)).toBe(3);
  // The wave-1 hook is created before the wave-0 one's result is read at all (wave by wave, it waited for the Pod's time limit).
  const createdSecond = gw.calls.indexOf('APPLY force ConfigMap shop/second');
  const firstRead = gw.calls.indexOf('GET Pod shop/slow', gw.calls.indexOf('APPLY force Pod shop/slow'));
  expect(createdSecond).toBeGreaterThan(-1);
  expect(createdSecond).toBeLessThan(firstRead);
  expect(report.hooks.map((h) => `${h.phase}/${h.wave} ${h.name}:${h.outcome}`).sort()).toEqual(['SyncFail/0 slow:Running', 'SyncFail/1 second:Succeeded']);
  expect(report.waves?.filter((w) => w.phase === 'SyncFail').map((w) => `${w.wave}:${w.outcome}`)).toEqual(['0:failed', '1:failed']);
});

test('helm.sh/hook: crd-install is applied as an ordinary resource in the Sync phase (no hook)', async () => {
  const gw = new FakeGateway({ objects: [NS] });
  const report = await syncApp(request(workspace({ 'c.yaml': cm('crd-like', { 'helm.sh/hook': 'crd-install' }) })), deps(gw));
  expect(syncExitCode(report)).toBe(0);
  expect(report.hooks).toEqual([]);
  expect(report.steps.map((s) => `${s.name}:${s.outcome}`)).toEqual(['crd-like:applied']);
  expect(gw.find('ConfigMap', 'shop', 'crd-like')?.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe('shop:/ConfigMap:shop/crd-like');
});

test("Replace=true on the live object only (put there by hand) is not read: the object is applied, not replaced (applyObject reads the desired object's annotation)", async () => {
  const live: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'app',
      namespace: 'shop',
      labels: { byhand: 'yes' },
      annotations: { 'argocd.argoproj.io/sync-options': 'Replace=true', 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/app' },
    },
    data: { a: '1', extra: 'keep' },
  };
  const gw = new FakeGateway({ objects: [NS, live] });
  const report = await syncApp(request(workspace({ 'app.yaml': cm('app') })), deps(gw));
  expect(syncExitCode(report)).toBe(0);
  expect(gw.calls.filter((c) => /^(REPLACE|CREATE|APPLY force|DELETE)/.test(c))).toEqual(['APPLY force ConfigMap shop/app']);
  expect(gw.find('ConfigMap', 'shop', 'app')?.metadata.labels).toEqual({ byhand: 'yes' });
});
