// The one executor against the fake gateway: a new API group's CRD and its custom resource in one sync (the discovery
// wait, the 404 retried), the interruption hook (SyncDeps.signal, SyncReport.interrupted), the wait for pruned objects
// to be gone, the one revision digest.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../support/temp-dir.js';
import { FakeGateway } from '../../../support/fake-gateway.js';
import { apiError } from '../../../../src/kube/errors.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { syncApp, syncExitCode, type SyncRequest } from '../../../../src/workflows/sync/sync.js';
import { syncRevision, type SyncDeps } from '../../../../src/workflows/sync/execute.js';
import { loadAppState } from '../../../../src/workflows/session/app-state.js';
import { renderSyncKv } from '../../../../src/render/sync.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import type { KubeObject } from '../../../../src/model/object.js';
import type { ApplyOptions } from '../../../../src/kube/gateway.js';
import type { ResourceType } from '../../../../src/model/resource-type.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };
const NS = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

function workspace(desired: Record<string, string>, policy = ''): { appFile: string; dir: string } {
  const root = tempDir('execute');
  const dir = join(root, 'desired');
  mkdirSync(dir);
  for (const [f, text] of Object.entries(desired)) writeFileSync(join(dir, f), text);
  const appFile = join(root, 'app.yaml');
  writeFileSync(
    appFile,
    `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: argocd}\nspec:\n  source: {repoURL: ${root}, path: desired}\n  destination: {namespace: shop}\n  ${policy}\n`,
  );
  return { appFile, dir };
}

function request(ws: { appFile: string; dir: string }, flags: Partial<SyncRequest> = {}): SyncRequest {
  return { appFile: ws.appFile, desired: ws.dir, dryRun: false, prune: false, forceConflicts: true, timeoutMs: 20_000, ...flags };
}

const deps = (gw: FakeGateway, more: Partial<SyncDeps> = {}): SyncDeps => ({
  io: memoryIo({ env: { ARGOCD_SYNC_WAVE_DELAY: '0' } }).io,
  opts,
  gateway: gw,
  ...more,
});

describe('a CRD of an API group the server never served, and one custom resource of it, in one sync', () => {
  const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.brand-new.example}
spec:
  group: brand-new.example
  scope: Namespaced
  names: {kind: Gadget, plural: gadgets}
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}]
`;
  const GADGET = 'apiVersion: brand-new.example/v1\nkind: Gadget\nmetadata: {name: site}\nspec: {size: 1}\n';
  const gadgets: ResourceType = {
    group: 'brand-new.example',
    version: 'v1',
    kind: 'Gadget',
    resource: 'gadgets',
    namespaced: true,
    verbs: ['get', 'list', 'create', 'patch', 'delete'],
  };

  /** The CRD is Established as soon as it is stored; the group is served only from the third discovery read, and the first write of a Gadget answers 404 all the same. */
  class NewGroupCluster extends FakeGateway {
    reads = 0;
    gadgetWrites = 0;
    constructor() {
      super({
        objects: [NS('shop')],
        servedLater: [gadgets],
        failApply: (o, a) =>
          o.kind === 'Gadget' && !a.dryRun && this.gadgetWrites++ === 0 ? apiError('applying Gadget shop/site', 404, '404 page not found') : undefined,
      });
    }
    override async apply(type: ResourceType, obj: KubeObject, o: ApplyOptions): Promise<KubeObject> {
      const out = await super.apply(type, obj, o);
      if (obj.kind === 'CustomResourceDefinition' && !o.dryRun)
        return this.put({ ...out, status: { conditions: [{ type: 'Established', status: 'True' }] } } as KubeObject);
      return out;
    }
    override async servedTypes(group: string, version: string): Promise<ResourceType[] | undefined> {
      if (group === 'brand-new.example' && ++this.reads < 3) {
        this.calls.push(`DISCOVER ${group}/${version}`);
        return undefined;
      }
      return super.servedTypes(group, version);
    }
  }

  test('waits until discovery serves the group, retries the 404, and applies both: exit 0, APPLIED=2', async () => {
    const gw = new NewGroupCluster();
    const report = await syncApp(request(workspace({ 'crd.yaml': CRD, 'gadget.yaml': GADGET })), deps(gw));
    expect({ code: syncExitCode(report), failures: report.failures }).toEqual({ code: 0, failures: [] });
    expect(renderSyncKv(report)).toBe('APPLIED=2\n');
    expect(gw.find('Gadget', 'shop', 'site')?.spec).toEqual({ size: 1 });
    // The group was looked up again until served (past the cached discovery), and the Gadget sent twice.
    expect(gw.calls.filter((c) => c === 'DISCOVER brand-new.example/v1').length).toBeGreaterThanOrEqual(3);
    expect(gw.calls.filter((c) => c.startsWith('APPLY') && c.includes('Gadget'))).toEqual(['APPLY force Gadget shop/site', 'APPLY force Gadget shop/site']);
    const crdAt = gw.calls.indexOf('APPLY force CustomResourceDefinition /gadgets.brand-new.example');
    // The third read is the first that finds the group served.
    const servedAt = gw.calls.map((c, i) => (c === 'DISCOVER brand-new.example/v1' ? i : -1)).filter((i) => i >= 0)[2]!;
    expect(crdAt).toBeGreaterThanOrEqual(0);
    expect(servedAt).toBeGreaterThan(crdAt);
    expect(gw.calls.indexOf('APPLY force Gadget shop/site')).toBeGreaterThan(servedAt);
  });

  test('a group never served within the sync timeout fails that step with the reason, exit 3', async () => {
    const gw = new (class extends NewGroupCluster {
      override async servedTypes(): Promise<ResourceType[] | undefined> {
        return undefined;
      }
    })();
    const report = await syncApp(request(workspace({ 'crd.yaml': CRD, 'gadget.yaml': GADGET }), { timeoutMs: 600 }), deps(gw));
    expect(syncExitCode(report)).toBe(3);
    expect(report.failures.map((f) => `${f.kind}/${f.name}: ${f.message}`)).toEqual([
      'Gadget/site: not applied: the API server did not serve Gadget in brand-new.example/v1 in time',
    ]);
    expect(gw.find('Gadget', 'shop', 'site')).toBeUndefined();
  });
});

describe('SyncDeps.signal: once aborted, the step in progress ends and nothing new starts', () => {
  const cm = (name: string, wave: number) =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, annotations: {argocd.argoproj.io/sync-wave: "${wave}"}}\ndata: {a: "1"}\n`;

  test('between waves: wave 0 applied, wave 1 not, no prune; interrupted says where; exit 3', async () => {
    const stale: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stale', namespace: 'shop', annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/stale' } },
    };
    const gw = new FakeGateway({ objects: [NS('shop'), stale] });
    const stop = new AbortController();
    const report = await syncApp(
      request(workspace({ 'a.yaml': cm('first', 0), 'b.yaml': cm('second', 1) }), { prune: true }),
      deps(gw, {
        signal: stop.signal,
        onEvent: (e) => {
          if (e.key.name === 'first' && e.status === 'Synced') stop.abort();
        },
      }),
    );
    expect(report.interrupted).toEqual({ phase: 'Sync', wave: 1, message: 'interrupted: stopped before Sync wave 1, after the step in progress' });
    expect(syncExitCode(report)).toBe(3);
    expect(report.steps.map((s) => `${s.name}:${s.outcome}`)).toEqual(['first:applied', 'second:skipped']);
    expect(report.waves?.map((w) => `${w.wave}:${w.outcome}`)).toEqual(['0:done', '1:not-run']);
    expect(gw.find('ConfigMap', 'shop', 'first')).toBeDefined();
    expect(gw.find('ConfigMap', 'shop', 'second')).toBeUndefined();
    expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
    expect(renderSyncKv(report)).toContain('INTERRUPTED=interrupted: stopped before Sync wave 1, after the step in progress');
  });

  test('before the first write of a one-pass sync: nothing written, the report says so', async () => {
    const gw = new FakeGateway({ objects: [NS('shop')] });
    const stop = new AbortController();
    stop.abort();
    const report = await syncApp(request(workspace({ 'a.yaml': cm('first', 0) })), deps(gw, { signal: stop.signal }));
    expect(report.interrupted?.phase).toBe('Sync');
    expect(report.stoppedBeforeWriting).toBe('interrupted before the first write');
    expect(report.applied).toBe(0);
    expect(gw.calls.filter((c) => c.startsWith('APPLY') && !c.startsWith('APPLY dry'))).toEqual([]);
  });

  test('after the applies of a one-pass sync: the prune does not start', async () => {
    const stale: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stale', namespace: 'shop', annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/stale' } },
    };
    const gw = new FakeGateway({ objects: [NS('shop'), stale] });
    const stop = new AbortController();
    const report = await syncApp(
      request(workspace({ 'a.yaml': cm('first', 0) }), { prune: true }),
      deps(gw, { signal: stop.signal, onEvent: () => stop.abort() }),
    );
    expect(report.applied).toBe(1);
    expect(report.interrupted).toEqual({ phase: 'Prune', wave: null, message: 'interrupted: stopped before the prune, after the step in progress' });
    expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
    expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
  });
});

describe('the prune waits until each pruned object is gone, as gitops-engine does (prunedTasksPendingDelete)', () => {
  const stale: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'stale', namespace: 'shop', annotations: { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/stale' } },
  };
  const desired = { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: first}\ndata: {a: "1"}\n' };

  test('an object Terminating for two reads after its delete: the sync ends after it is gone, Succeeded', async () => {
    const gw = new FakeGateway({ objects: [NS('shop'), stale], lingerAfterDelete: (kind, _ns, name) => (kind === 'ConfigMap' && name === 'stale' ? 2 : 0) });
    const report = await syncApp(request(workspace(desired), { prune: true }), deps(gw));
    expect(syncExitCode(report)).toBe(0);
    expect(report.prune.results.map((r) => `${r.name}:${r.outcome}`)).toEqual(['stale:pruned']);
    const deleteAt = gw.calls.indexOf('DELETE ConfigMap shop/stale foreground');
    expect(deleteAt).toBeGreaterThanOrEqual(0);
    // Read until the read that finds it gone: two while Terminating, the third finds nothing.
    expect(gw.calls.slice(deleteAt + 1).filter((c) => c === 'GET ConfigMap shop/stale')).toHaveLength(3);
    expect(gw.find('ConfigMap', 'shop', 'stale')).toBeUndefined();
  });

  test('one still there at the time limit: the sync fails on it (exit 3), saying it was deleted and what holds it', async () => {
    const held: KubeObject = { ...stale, metadata: { ...stale.metadata, finalizers: ['example.com/hold'] } };
    const gw = new FakeGateway({ objects: [NS('shop'), held], lingerAfterDelete: (kind) => (kind === 'ConfigMap' ? 1_000_000 : 0) });
    const report = await syncApp(request(workspace(desired), { prune: true, timeoutMs: 600 }), deps(gw));
    expect(syncExitCode(report)).toBe(3);
    const message = 'deleted, but still there at the time limit (its finalizers example.com/hold or its dependents)';
    expect(report.prune.results).toEqual([expect.objectContaining({ name: 'stale', outcome: 'pruned', message })]);
    expect(report.failures).toEqual([expect.objectContaining({ kind: 'ConfigMap', name: 'stale', phase: 'prune', message })]);
    expect(gw.find('ConfigMap', 'shop', 'stale')?.metadata.deletionTimestamp).toBeDefined();
  });
});

describe('the prune goes wave by wave, highest first, PruneLast after every other wave (gitops-engine: one wave a pass)', () => {
  const marked = (name: string, annotations: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'shop', annotations: { 'argocd.argoproj.io/tracking-id': `shop:/ConfigMap:shop/${name}`, ...annotations } },
  });
  const objects = () => [
    NS('shop'),
    marked('app', { 'argocd.argoproj.io/sync-wave': '1' }),
    marked('db'),
    marked('last', { 'argocd.argoproj.io/sync-options': 'PruneLast=true' }),
  ];
  const desired = { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep}\n' };

  test('a failed delete in wave 1: wave 0 and the PruneLast object are not deleted, said so; exit 3', async () => {
    const refused = apiError('deleting ConfigMap shop/app', 422, '{"kind":"Status","reason":"Invalid","message":"denied by policy"}');
    const gw = new FakeGateway({ objects: objects(), failDelete: (_t, _ns, name) => (name === 'app' ? refused : undefined) });
    const report = await syncApp(request(workspace(desired), { prune: true }), deps(gw));
    expect(syncExitCode(report)).toBe(3);
    expect(report.prune.results.map((r) => `${r.name}:${r.outcome}`)).toEqual(['app:failed', 'db:skipped', 'last:skipped']);
    expect(report.prune.results[1]?.message).toBe(
      'not pruned: the prune of wave 1 failed or is not gone yet, and a later wave is pruned only after it (as gitops-engine)',
    );
    expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual(['DELETE ConfigMap shop/app foreground']);
    expect([gw.find('ConfigMap', 'shop', 'db'), gw.find('ConfigMap', 'shop', 'last')].every((o) => o !== undefined)).toBe(true);
  });

  test("wave 1's object Terminating for three reads: wave 0 is deleted only once it is gone, then the PruneLast one", async () => {
    const gw = new FakeGateway({ objects: objects(), lingerAfterDelete: (_k, _ns, name) => (name === 'app' ? 3 : 0) });
    const report = await syncApp(request(workspace(desired), { prune: true }), deps(gw));
    expect(syncExitCode(report)).toBe(0);
    expect(report.prune.results.map((r) => `${r.name}:${r.outcome}`)).toEqual(['app:pruned', 'db:pruned', 'last:pruned']);
    const calls = gw.calls.filter((c) => c.startsWith('DELETE') || c === 'GET ConfigMap shop/app');
    // Read until gone (three Terminating reads, the fourth finds nothing) before wave 0's delete.
    expect(calls).toEqual([
      'DELETE ConfigMap shop/app foreground',
      'GET ConfigMap shop/app',
      'GET ConfigMap shop/app',
      'GET ConfigMap shop/app',
      'GET ConfigMap shop/app',
      'DELETE ConfigMap shop/db foreground',
      'DELETE ConfigMap shop/last foreground',
    ]);
  });
});

test('one revision stands in for a commit: the same digest of the desired objects and hooks, the commit when there is one', async () => {
  const ws = workspace({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' });
  const gw = new FakeGateway({ objects: [NS('shop')] });
  const state = await loadAppState({ appFile: ws.appFile, desired: ws.dir }, deps(gw), { extras: false });
  expect(syncRevision(state)).toMatch(/^[0-9a-f]{7}$/);
  expect(syncRevision(state)).toBe(syncRevision({ ...state }));
  expect(syncRevision({ ...state, revision: 'abc1234def' })).toBe('abc1234def');
  const other = await loadAppState(
    { appFile: ws.appFile, desired: workspace({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n' }).dir },
    deps(gw),
    { extras: false },
  );
  expect(syncRevision(other)).not.toBe(syncRevision(state));
});
