// pruneApp: a scan that could not list a kind deletes nothing (--confirm is exit 3); listing still shows what it saw.
import { restrictedProjectFile } from '../../../support/app-project.js';
import { FakeGateway } from '../../../support/fake-gateway.js';
import { apiError } from '../../../../src/kube/errors.js';
import type { ListOptions, ListResult } from '../../../../src/kube/gateway.js';
import type { ResourceType } from '../../../../src/model/resource-type.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { pruneApp, pruneExitCode } from '../../../../src/workflows/prune/prune.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import type { KubeObject } from '../../../../src/model/object.js';
import { appWorkspace, type AppWorkspace } from '../../../support/app-workspace.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

function workspace(): AppWorkspace {
  return appWorkspace({ prefix: 'prune', manifests: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' } });
}

const marked = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', annotations: { 'argocd.argoproj.io/tracking-id': `shop:/ConfigMap:shop/${name}` } },
});

test('a kind the scan may not list: listing shows the candidates seen and warns; --confirm deletes nothing, exit 3', async () => {
  const ws = workspace();
  const gw = new FakeGateway({ objects: [marked('a'), marked('stale')], forbidden: ['list secrets'] });
  const deps = { io: memoryIo().io, opts, gateway: gw };
  const listed = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: false }, deps);
  expect(listed.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['stale candidate']);
  expect(listed.warnings).toEqual([expect.stringMatching(/^cannot list secrets in namespace shop, so its prune candidates are unknown: /)]);
  expect(pruneExitCode(listed)).toBe(0);
  const err = (await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, deps).catch((e: unknown) => e)) as Error & { code?: number };
  expect(err.code).toBe(3);
  expect(err.message).toBe(
    "pruning shop: nothing was deleted: the prune scan is partial: cannot list secrets in namespace shop, so this app's objects there are unknown, and a prune never runs on a partial scan",
  );
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
  expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
});

test('a type gone since discovery (404) is a warning but no gap: the prune goes on', async () => {
  class GoneSecrets extends FakeGateway {
    override async list(type: ResourceType, o: ListOptions = {}): Promise<ListResult> {
      if (type.resource === 'secrets') throw apiError('listing Secret', 404, '{"kind":"Status","reason":"NotFound","message":"not found"}');
      return super.list(type, o);
    }
  }
  const ws = workspace();
  const gw = new GoneSecrets({ objects: [marked('a'), marked('stale')] });
  const report = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, { io: memoryIo().io, opts, gateway: gw });
  expect(report.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['stale deleted']);
  expect(report.warnings).toEqual([expect.stringMatching(/^cannot list secrets in namespace shop/)]);
});

test('a kind excluded in argocd-cm resource.exclusions is never listed, so a user who may not list it leaves no gap', async () => {
  const ws = workspace();
  const cm: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'argocd-cm', namespace: 'argocd' },
    data: { 'resource.exclusions': '- apiGroups: [""]\n  kinds: [Secret]\n  clusters: ["*"]\n' },
  };
  const gw = new FakeGateway({ objects: [cm, marked('a'), marked('stale')], forbidden: ['list secrets'] });
  const report = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, { io: memoryIo().io, opts, gateway: gw });
  expect(report.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['stale deleted']);
  expect(report.warnings).toEqual([]);
  expect(gw.calls.some((c) => c.startsWith('LIST Secret'))).toBe(false);
});

test('--confirm waits until the deleted objects are gone; one still there at the time limit is terminating (exit 3); --wait=false does not wait', async () => {
  const ws = workspace();
  const held = { ...marked('held'), metadata: { ...marked('held').metadata, finalizers: ['example.com/hold'] } };
  // `slow` stays Terminating for three reads after its delete (its dependents), `held` for far longer than the wait.
  const linger = (_kind: string, _ns: string, name: string) => (name === 'slow' ? 3 : name === 'held' ? 1_000_000 : 0);
  const gw = new FakeGateway({ objects: [marked('a'), marked('slow'), held], lingerAfterDelete: linger });
  const deps = { io: memoryIo().io, opts, gateway: gw };
  const waited = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true, waitMs: 1_500 }, deps);
  expect(waited.entries.map((e) => `${e.name} ${e.outcome}${e.message ? `: ${e.message}` : ''}`)).toEqual([
    'slow deleted',
    'held terminating: deleted, but still there at the time limit (its finalizers example.com/hold or its dependents)',
  ]);
  expect(pruneExitCode(waited)).toBe(3);
  // Read until gone: `slow` went after its lingering reads; `held` was read until the time limit.
  expect(gw.find('ConfigMap', 'shop', 'slow')).toBeUndefined();
  expect(gw.calls.filter((c) => c.startsWith('GET') && c.includes('/slow')).length).toBeGreaterThanOrEqual(3);

  const gw2 = new FakeGateway({ objects: [marked('a'), marked('slow')], lingerAfterDelete: linger });
  const noWait = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, { ...deps, gateway: gw2 });
  expect(noWait.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['slow deleted']);
  expect(pruneExitCode(noWait)).toBe(0);
  expect(gw2.calls.filter((c) => c.startsWith('GET') && c.includes('/slow'))).toEqual([]);
  expect(gw2.find('ConfigMap', 'shop', 'slow')?.metadata.deletionTimestamp).toBeDefined();
});

test('--confirm whose wait cannot read the deleted objects: the deletions are reported whole, the wait error said, exit 3', async () => {
  const ws = workspace();
  class Unreadable extends FakeGateway {
    override async get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined> {
      if (name === 'stale') throw apiError(`getting ConfigMap ${namespace}/${name}`, 503, '{"kind":"Status","message":"the server is shutting down"}');
      return super.get(type, namespace, name);
    }
  }
  const gw = new Unreadable({ objects: [marked('a'), marked('stale')] });
  const report = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true, waitMs: 1_000 }, { io: memoryIo().io, opts, gateway: gw });
  expect(report.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['stale deleted']);
  expect(report.waitError).toMatch(/^the deleted objects could not be read again to see them go: .*503|shutting down/);
  expect(report.warnings).toContain(report.waitError);
  expect(pruneExitCode(report)).toBe(3);
  expect(gw.find('ConfigMap', 'shop', 'stale')).toBeUndefined();
});

test('a stop asked for: between deletes, the one in flight finished and none started after it; during the wait, what is left stays deleted', async () => {
  const ws = workspace();
  const stop = new AbortController();
  class StopAfterFirstDelete extends FakeGateway {
    override async delete(...args: Parameters<FakeGateway['delete']>): ReturnType<FakeGateway['delete']> {
      const out = await super.delete(...args);
      stop.abort();
      return out;
    }
  }
  const gw = new StopAfterFirstDelete({ objects: [marked('a'), marked('x1'), marked('x2'), marked('x3')] });
  const deps = { io: memoryIo().io, opts, gateway: gw, signal: stop.signal };
  const report = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true, waitMs: 60_000 }, deps);
  // In the candidates' order: the first deleted, the other two not reached; the cluster agrees, object by object.
  expect(report.entries.map((e) => `${e.outcome}${e.message ? `: ${e.message}` : ''}`)).toEqual([
    'deleted',
    'skipped: not deleted: the prune was stopped before its turn',
    'skipped: not deleted: the prune was stopped before its turn',
  ]);
  expect(report.interrupted).toBe('during the deletions: the one in flight was finished, no other was started');
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toHaveLength(1);
  for (const e of report.entries)
    expect({ name: e.name, live: gw.find('ConfigMap', 'shop', e.name) !== undefined }).toEqual({ name: e.name, live: e.outcome !== 'deleted' });

  // Stopped while waiting for an object a finalizer holds: deleted, said still Terminating, no time-limit verdict.
  const wait = new AbortController();
  class StopWhileWaiting extends FakeGateway {
    override async get(...args: Parameters<FakeGateway['get']>): ReturnType<FakeGateway['get']> {
      const out = await super.get(...args);
      if (out?.metadata.deletionTimestamp) wait.abort();
      return out;
    }
  }
  const gw2 = new StopWhileWaiting({ objects: [marked('a'), marked('held')], lingerAfterDelete: () => 1_000_000 });
  const waited = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true, waitMs: 60_000 }, { ...deps, gateway: gw2, signal: wait.signal });
  expect(waited.entries.map((e) => `${e.name} ${e.outcome}: ${e.message}`)).toEqual(['held deleted: deleted; still Terminating when the wait was stopped']);
  expect(waited.interrupted).toBe('while waiting for the deleted objects to be gone: they stay deleted');
});

test('an empty desired set deletes nothing: --confirm is refused (exit 4), listing warns; with allowEmpty the prune goes on', async () => {
  const ws = appWorkspace({ prefix: 'prune-empty', manifests: {} });
  const gw = new FakeGateway({ objects: [marked('a'), marked('b')] });
  const deps = { io: memoryIo().io, opts, gateway: gw };
  const listed = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: false }, deps);
  expect(listed.entries.map((e) => `${e.name} ${e.outcome}`).sort()).toEqual(['a candidate', 'b candidate']);
  expect(listed.warnings).toEqual([
    'the desired set of shop is empty and allowEmpty is not true: all 2 live object(s) of the app would be deleted: prune --confirm refuses it',
  ]);
  const err = (await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, deps).catch((e: unknown) => e)) as Error & { code?: number };
  expect(err.code).toBe(4);
  expect(err.message).toBe(
    'pruning shop: nothing was deleted: the desired set of shop is empty and allowEmpty is not true: all 2 live object(s) of the app would be deleted',
  );
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
  const allowing = appWorkspace({
    prefix: 'prune-empty-allowed',
    manifests: {},
    spec: (root) => ({ source: { repoURL: root, path: 'desired' }, destination: { namespace: 'shop' }, syncPolicy: { automated: { allowEmpty: true } } }),
  });
  const report = await pruneApp({ appFile: allowing.appFile, desired: allowing.dir, confirm: true }, deps);
  expect(report.entries.map((e) => `${e.name} ${e.outcome}`).sort()).toEqual(['a deleted', 'b deleted']);
});

test('a renamed object whose new name the API server refuses: --confirm deletes nothing (exit 3), as sync --prune stops at its dry-run', async () => {
  // `a` was renamed to `b` in Git; the server refuses `b` (a 422), so deleting `a` would leave neither.
  const ws = appWorkspace({ prefix: 'prune-rename', manifests: { 'b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n' } });
  const refuse = (obj: KubeObject) =>
    obj.metadata.name === 'b'
      ? apiError('applying ConfigMap shop/b', 422, '{"kind":"Status","reason":"Invalid","message":"ConfigMap \\"b\\" is invalid: data: Invalid value"}')
      : undefined;
  const gw = new FakeGateway({ objects: [marked('a')], failApply: refuse });
  const deps = { io: memoryIo().io, opts, gateway: gw };
  // Listing makes no dry-run.
  const listed = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: false }, deps);
  expect(listed.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['a candidate']);
  expect(gw.calls.filter((c) => c.startsWith('APPLY'))).toEqual([]);
  const err = (await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, deps).catch((e: unknown) => e)) as Error & { code?: number };
  expect(err.code).toBe(3);
  expect(err.message).toMatch(
    /^pruning shop: nothing was deleted: the server-side dry-run refused 1 declared object\(s\) not yet in the cluster \(ConfigMap\/b in shop: .*Invalid value\); a sync would stop there/,
  );
  expect(gw.calls.filter((c) => c.startsWith('APPLY'))).toEqual(['APPLY dry force ConfigMap shop/b']);
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
  expect(gw.find('ConfigMap', 'shop', 'a')).toBeDefined();
  expect(gw.find('ConfigMap', 'shop', 'b')).toBeUndefined();
});

test('the dry-run before a prune: only declared objects without a live mark, never those in a namespace the sync creates; forbidden is a warning', async () => {
  const ws = appWorkspace({
    prefix: 'prune-new',
    manifests: {
      'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n',
      'b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
      'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: fresh}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: fresh}\n',
    },
  });
  const gw = new FakeGateway({ objects: [marked('a'), marked('stale')] });
  const deps = { io: memoryIo().io, opts, gateway: gw };
  const report = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, deps);
  expect(report.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['stale deleted']);
  // `a` is live with its mark; `c` is in a namespace the set declares (created first by a sync, which skips its dry-run).
  expect(gw.calls.filter((c) => c.startsWith('APPLY')).sort()).toEqual(['APPLY dry force ConfigMap shop/b', 'APPLY dry force Namespace /fresh']);
  expect(gw.find('ConfigMap', 'shop', 'b')).toBeUndefined();
  expect(report.warnings).toEqual([]);

  const gw2 = new FakeGateway({ objects: [marked('a'), marked('stale')], forbidden: ['patch configmaps'] });
  const warned = await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, { ...deps, gateway: gw2 });
  expect(warned.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual(['stale deleted']);
  expect(warned.warnings).toEqual([
    'the server-side dry-run of 1 declared object(s) not yet in the cluster was forbidden (ConfigMap/b): whether a sync could create them was not checked',
  ]);
});

test('live objects the AppProject does not permit are never candidates (Argo CD drops them before it plans): reported as not owned', async () => {
  const ws = appWorkspace({
    prefix: 'prune-project',
    manifests: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' },
    spec: (root) => ({ project: 'restricted', source: { repoURL: root, path: 'desired' }, destination: { namespace: 'shop' } }),
  });
  const projectFile = restrictedProjectFile(ws.root, 'Secret');
  const mark = (o: KubeObject, ns: string): KubeObject => ({
    ...o,
    metadata: {
      ...o.metadata,
      annotations: {
        'argocd.argoproj.io/tracking-id': `shop:${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}/${o.kind}:${ns}/${o.metadata.name}`,
      },
    },
  });
  const objects = [
    marked('a'),
    marked('stale'),
    mark({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }, 'shop'),
    mark({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'reader' } }, 'shop'),
    mark({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token', namespace: 'shop' } }, 'shop'),
  ];
  const gw = new FakeGateway({ objects });
  const report = await pruneApp({ appFile: ws.appFile, projectFile, desired: ws.dir, confirm: true }, { io: memoryIo().io, opts, gateway: gw });
  expect(report.entries.map((e) => `${e.kind}/${e.name} ${e.outcome}`)).toEqual(['ConfigMap/stale deleted']);
  expect(report.notOwned.map((n) => `${n.kind}/${n.name}: ${n.reason}`).sort()).toEqual([
    'ClusterRole/reader: not permitted in project restricted: clusterResourceWhitelist is empty (no cluster-scoped kind is allowed)',
    'Namespace/shop: not permitted in project restricted: clusterResourceWhitelist is empty (no cluster-scoped kind is allowed)',
    'Secret/token: not permitted in project restricted: namespaceResourceBlacklist lists /Secret (/Secret)',
  ]);
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual(['DELETE ConfigMap shop/stale foreground']);
});

test('a dry-run refused with a 403 that is not RBAC (a quota, an admission webhook) is a refusal, not a warning', async () => {
  const ws = appWorkspace({ prefix: 'prune-quota', manifests: { 'b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n' } });
  const quota = apiError(
    'applying ConfigMap shop/b',
    403,
    '{"kind":"Status","reason":"Forbidden","message":"configmaps \\"b\\" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=3, limited: count/configmaps=3"}',
  );
  const gw = new FakeGateway({ objects: [marked('a')], failApply: (o) => (o.metadata.name === 'b' ? quota : undefined) });
  const err = (await pruneApp({ appFile: ws.appFile, desired: ws.dir, confirm: true }, { io: memoryIo().io, opts, gateway: gw }).catch(
    (e: unknown) => e,
  )) as Error & {
    code?: number;
  };
  expect(err.code).toBe(3);
  expect(err.message).toMatch(/server-side dry-run refused 1 declared object\(s\).*exceeded quota/);
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
});
