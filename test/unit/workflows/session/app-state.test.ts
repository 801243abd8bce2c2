// loadAppState against the fake gateway: namespace defaulting, LIST-vs-GET, discovery errors, prune candidates and warnings.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMON_TYPES, FakeGateway } from '../../../support/fake-gateway.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { loadAppState } from '../../../../src/workflows/session/app-state.js';
import { prefetchRules } from '../../../../src/workflows/session/rules.js';
import { ClusterSnapshot } from '../../../../src/kube/snapshot.js';
import { liveDiff } from '../../../../src/workflows/diff/live-diff.js';
import { runStatus } from '../../../../src/workflows/status/status.js';
import { renderLiveDiff } from '../../../../src/render/live-diff.js';
import { paint } from '../../../../src/render/colour.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import type { KubeObject } from '../../../../src/model/object.js';
import type { PrunePlan } from '../../../../src/prune/plan.js';
import { appWorkspace, localSource, type AppWorkspace } from '../../../support/app-workspace.js';

/** A GET the app's own reads make (not the reads of argocd-cm and argocd-cmd-params-cm, which every load makes once). */
const isAppGet = (c: string): boolean => c.startsWith('GET') && c !== 'GET ConfigMap argocd/argocd-cm' && c !== 'GET ConfigMap argocd/argocd-cmd-params-cm';
const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

function workspace(desired: Record<string, string>, app = 'shop'): AppWorkspace {
  return appWorkspace({
    prefix: 'appstate',
    name: app,
    manifests: desired,
    spec: (root) => ({ source: localSource(root), destination: { namespace: 'shop' }, syncPolicy: { automated: { prune: true } } }),
  });
}

const cm = (name: string, ns: string, annotations?: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, ...(annotations ? { annotations } : {}), ...extra },
});

test('two declarations that are one object once namespaces are defaulted are refused, naming both places (exit 2)', async () => {
  const twice = (files: Record<string, string>) => {
    const { appFile, dir } = workspace(files);
    return loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: new FakeGateway() }, { extras: false }).catch(
      (e: unknown) => e as Error & { code?: number },
    );
  };
  const ns = await twice({
    'g1.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gamma}\n',
    'g2.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gamma, namespace: shop}\ndata: {k: other}\n',
  });
  expect(ns).toMatchObject({ code: 2, message: expect.stringMatching(/^ConfigMap shop\/gamma is declared twice: at .*g1\.yaml:1 and at .*g2\.yaml:1$/) });
  const clusterScoped = await twice({
    'r1.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\n',
    'r2.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader, namespace: shop}\n',
  });
  expect(clusterScoped).toMatchObject({ code: 2, message: expect.stringMatching(/^rbac\.authorization\.k8s\.io\/ClusterRole reader is declared twice: /) });
});

test('desired objects get the destination namespace; several of one kind are read with one LIST, a single one with a GET', async () => {
  const { appFile, dir } = workspace({
    'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
    'd.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: orders}\nspec: {}\n',
    'r.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader, namespace: ignored}\n',
  });
  const gw = new FakeGateway({ objects: [cm('a', 'shop', { x: 'y' })] });
  const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: false });
  expect(state.desired.map((d) => `${d.key.kind}/${d.key.namespace}/${d.key.name}`)).toEqual([
    'ConfigMap/shop/a',
    'ConfigMap/shop/b',
    'Deployment/shop/orders',
    'ClusterRole//reader',
  ]);
  expect(state.live.get('/ConfigMap/shop/a')?.metadata.annotations).toEqual({ x: 'y' });
  expect(state.live.has('/ConfigMap/shop/b')).toBe(false);
  expect(gw.calls.filter((c) => c.startsWith('LIST') || isAppGet(c)).sort()).toEqual([
    'GET ClusterRole /reader',
    'GET Deployment shop/orders',
    'LIST ConfigMap shop',
  ]);
  expect(state.appInstance).toBe('shop');
  expect(state.namespaces).toEqual(['shop']);
});

test('live: false (prune) reads no live twins: only the metadata-only candidate scan touches the cluster', async () => {
  const { appFile, dir } = workspace({
    'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
  });
  const gw = new FakeGateway({ objects: [cm('a', 'shop'), cm('old', 'shop', { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/old' })] });
  const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true, live: false });
  expect(state.live.size).toBe(0);
  expect(gw.calls.filter((c) => isAppGet(c) || (c.startsWith('LIST') && !c.endsWith(' meta')))).toEqual([]);
  expect(state.prune?.candidates.map((c) => c.key.name)).toEqual(['old']);
});

test('the candidate scan: a kind the app declares that cannot be listed is an error (exit 3); any other kind is a warning', async () => {
  const { appFile, dir } = workspace({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' });
  const deps = (forbidden: string[]) => ({ io: memoryIo().io, opts, gateway: new FakeGateway({ forbidden }) });
  const err = await loadAppState({ appFile, desired: dir }, deps(['list configmaps']), { extras: true, live: false }).catch((e: unknown) => e as Error);
  expect((err as { code?: number }).code).toBe(3);
  const state = await loadAppState({ appFile, desired: dir }, deps(['list secrets']), { extras: true, live: false });
  expect(state.warnings.some((w) => /cannot list secrets in namespace shop/.test(w))).toBe(true);
});

test('-n overrides the destination namespace', async () => {
  const { appFile, dir } = workspace({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' });
  const state = await loadAppState(
    { appFile, desired: dir },
    { io: memoryIo().io, opts: { ...opts, namespace: 'other' }, gateway: new FakeGateway() },
    { extras: false },
  );
  expect(state.desired[0]?.key.namespace).toBe('other');
});

test('a kind the cluster does not serve is an input error naming the file and line', async () => {
  const { appFile, dir } = workspace({
    'x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n',
  });
  const err = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: new FakeGateway() }, { extras: false }).catch(
    (e: unknown) => e as Error,
  );
  expect((err as { code?: number }).code).toBe(2);
  expect((err as Error).message).toMatch(new RegExp(`${join(dir, 'x.yaml')}:5: the cluster does not serve Widget in example.com/v1`));
});

test('an object annotated hook: Skip of a kind the cluster does not serve is left out, not refused (no task, no discovery check in Argo CD)', async () => {
  const { appFile, dir } = workspace({
    'x.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations: {argocd.argoproj.io/hook: Skip}\n',
  });
  const gw = new FakeGateway({ objects: [cm('a', 'shop')] });
  const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: false });
  expect(state.desired.map((d) => `${d.key.kind}/${d.key.name}`)).toEqual(['ConfigMap/a']);
  expect(state.hooks).toEqual([]);
  const status = await runStatus({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw });
  expect(status.report.resources.map((r) => `${r.kind}/${r.name}`)).not.toContain('Widget/w');
  // A PreSync hook of that kind (it would be applied) is still refused.
  const hook = workspace({ 'x.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations: {argocd.argoproj.io/hook: PreSync}\n' });
  const err = await loadAppState({ appFile: hook.appFile, desired: hook.dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: false }).catch(
    (e: unknown) => e as Error,
  );
  expect((err as Error).message).toMatch(/the cluster does not serve Widget in example\.com\/v1/);
  // With SkipDryRunOnMissingResource=true as well, in an Application without a destination namespace: still left out
  // (it was taken for an object to apply, namespaced until the cluster says otherwise, and refused for want of a namespace).
  const noNs = appWorkspace({
    prefix: 'appstate',
    name: 'shop',
    manifests: {
      'x.yaml':
        'apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations: {argocd.argoproj.io/hook: Skip, argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true}\n',
    },
    spec: (root) => ({ source: localSource(root), destination: {} }),
  });
  const skipped = await loadAppState({ appFile: noNs.appFile, desired: noNs.dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: false });
  expect(skipped.desired.map((d) => `${d.key.kind}/${d.key.name}`)).toEqual(['Namespace/shop']);
});

test('a custom resource whose CRD is declared alongside it resolves from that CRD', async () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions: [{name: v1, served: true, storage: true}]
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
`;
  const { appFile, dir } = workspace({ 'x.yaml': crd });
  const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: new FakeGateway() }, { extras: false });
  const w = state.desired.find((d) => d.key.kind === 'Widget');
  expect(w?.pendingCrd).toBe(true);
  expect(w?.type.resource).toBe('widgets');
  expect(w?.key.namespace).toBe('shop');
});

test('extras: only self-referencing marks of this app on root objects that are not desired; Prune=false kept as skipped; unlistable kinds warn', async () => {
  const { appFile, dir } = workspace({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' });
  const mark = (n: string, app = 'shop') => ({ 'argocd.argoproj.io/tracking-id': `${app}:/ConfigMap:shop/${n}` });
  const gw = new FakeGateway({
    objects: [
      cm('a', 'shop', mark('a')),
      cm('stale', 'shop', mark('stale')),
      cm('keep', 'shop', { ...mark('keep'), 'argocd.argoproj.io/sync-options': 'Prune=false' }),
      cm('plain', 'shop'),
      cm('kube-root-ca.crt', 'shop'),
      cm('theirs', 'shop', mark('theirs', 'other')),
      cm('copy', 'shop', mark('stale')),
      cm('elsewhere', 'other-ns', { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:other-ns/elsewhere' }),
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: {
          name: 'orders-1',
          namespace: 'shop',
          annotations: { 'argocd.argoproj.io/tracking-id': 'shop:apps/ReplicaSet:shop/orders-1' },
          ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'orders', uid: 'u' }],
        },
      },
    ],
    forbidden: ['list secrets'],
  });
  const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
  expect(state.prune?.candidates.map((c) => [c.key.name, c.skip ?? ''])).toEqual([
    ['stale', ''],
    ['keep', 'annotated argocd.argoproj.io/sync-options: Prune=false'],
  ]);
  expect(state.prune?.notOwned.map((n) => [n.key.name, n.reason.code])).toEqual([
    ['copy', 'not-self'],
    ['theirs', 'other-app'],
    ['orders-1', 'has-owner'],
  ]);
  expect(state.warnings.some((w) => w.startsWith('cannot list secrets in namespace shop'))).toBe(true);
  expect(gw.calls).toContain('LIST ConfigMap shop meta');
  expect(gw.calls.some((c) => c.startsWith('LIST ConfigMap other-ns'))).toBe(false);
});

describe('the candidate scan reuses the live reads’ whole-scope LISTs', () => {
  const DESIRED = {
    'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
    'other.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: other}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: d, namespace: other}\n',
    'deploy.yaml':
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec: {}\n',
    'roles.yaml':
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r1}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r2}\n',
    // One Secret: read with a GET, so its kind is still listed (metadata-only) by the scan.
    'secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n',
  };
  const TID = 'argocd.argoproj.io/tracking-id';
  const obj = (
    apiVersion: string,
    kind: string,
    name: string,
    ns: string | undefined,
    annotations?: Record<string, string>,
    extra: Partial<KubeObject['metadata']> = {},
  ): KubeObject => ({
    apiVersion,
    kind,
    metadata: { name, ...(ns ? { namespace: ns } : {}), ...(annotations ? { annotations } : {}), ...extra },
    ...(kind === 'ConfigMap' ? { data: { big: 'x'.repeat(100) } } : {}),
  });
  const mark = (group: string, kind: string, ns: string, name: string, app = 'shop') => ({ [TID]: `${app}:${group}/${kind}:${ns}/${name}` });
  function cluster(forbidden: string[] = []): FakeGateway {
    return new FakeGateway({
      forbidden,
      objects: [
        obj('v1', 'ConfigMap', 'a', 'shop', mark('', 'ConfigMap', 'shop', 'a')),
        obj('v1', 'ConfigMap', 'stale', 'shop', mark('', 'ConfigMap', 'shop', 'stale')),
        obj('v1', 'ConfigMap', 'keep', 'shop', { ...mark('', 'ConfigMap', 'shop', 'keep'), 'argocd.argoproj.io/sync-options': 'Prune=false' }),
        obj('v1', 'ConfigMap', 'going', 'shop', mark('', 'ConfigMap', 'shop', 'going'), { deletionTimestamp: '2026-01-01T00:00:00Z' }),
        obj('v1', 'ConfigMap', 'theirs', 'shop', mark('', 'ConfigMap', 'shop', 'theirs', 'other')),
        obj('v1', 'ConfigMap', 'copy', 'shop', mark('', 'ConfigMap', 'shop', 'stale')),
        obj('v1', 'ConfigMap', 'child', 'shop', mark('', 'ConfigMap', 'shop', 'child'), {
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'x' }],
        }),
        obj('v1', 'ConfigMap', 'plain', 'shop'),
        obj('v1', 'ConfigMap', 'c', 'other', mark('', 'ConfigMap', 'other', 'c')),
        obj('v1', 'ConfigMap', 'old-other', 'other', mark('', 'ConfigMap', 'other', 'old-other')),
        obj('v1', 'ConfigMap', 'not-ours', 'third', mark('', 'ConfigMap', 'third', 'not-ours')),
        obj('apps/v1', 'Deployment', 'web', 'shop', mark('apps', 'Deployment', 'shop', 'web')),
        obj('apps/v1', 'Deployment', 'old-web', 'shop', mark('apps', 'Deployment', 'shop', 'old-web')),
        obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'r1', undefined, mark('rbac.authorization.k8s.io', 'ClusterRole', '', 'r1')),
        obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'old-role', undefined, mark('rbac.authorization.k8s.io', 'ClusterRole', '', 'old-role')),
        obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'system', undefined),
        obj('v1', 'Secret', 's', 'shop', mark('', 'Secret', 'shop', 's')),
        obj('v1', 'Secret', 'old-secret', 'shop', mark('', 'Secret', 'shop', 'old-secret')),
        obj('v1', 'Service', 'old-svc', 'other', mark('', 'Service', 'other', 'old-svc')),
      ],
    });
  }
  const lists = (gw: FakeGateway) => gw.calls.filter((c) => c.startsWith('LIST')).sort();
  /** A plan as a scan that lists everything metadata-only makes it: without the whole objects a full LIST gave. */
  const withoutWhole = (plan: PrunePlan | undefined) => plan && { ...plan, candidates: plan.candidates.map(({ whole: _whole, ...c }) => c) };

  test('no metadata-only LIST of a type and scope the live reads listed in full; the prune plan is the one a full scan gives', async () => {
    const { appFile, dir } = workspace(DESIRED);
    const gw = cluster();
    const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
    expect(state.namespaces).toEqual(['other', 'shop']);
    // The live reads: one full LIST per type+scope holding several desired objects, a GET for the single Secret.
    expect(gw.calls.filter((c) => isAppGet(c))).toEqual(['GET Secret shop/s']);
    const full = lists(gw).filter((c) => !c.endsWith(' meta'));
    expect(full).toEqual(['LIST ClusterRole *', 'LIST ConfigMap other', 'LIST ConfigMap shop', 'LIST Deployment shop']);
    // The scan: every listable type in both namespaces and at cluster scope, except those four.
    const meta = lists(gw).filter((c) => c.endsWith(' meta'));
    for (const f of full) expect(meta).not.toContain(`${f} meta`);
    expect(meta).toContain('LIST Secret shop meta');
    expect(meta).toContain('LIST Deployment other meta');
    expect(meta).toContain('LIST Namespace * meta');
    // 8 namespaced types × 2 namespaces (Event is always excluded, as in Argo CD) + 3 cluster-scoped = 19 scope
    // LISTs, of which 4 are taken from the live reads.
    expect(meta).toHaveLength(19 - 4);

    // The same plan, objects included, as the scan without live reads (every scope listed metadata-only, as before).
    const baseline = cluster();
    const scanned = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: baseline }, { extras: true, live: false });
    expect(lists(baseline).filter((c) => c.endsWith(' meta'))).toHaveLength(19);
    expect(withoutWhole(state.prune)).toEqual(scanned.prune);
    // A candidate taken from a full LIST keeps the whole object too (status reads its health from it, without a GET).
    expect(state.prune?.candidates.find((c) => c.key.name === 'old-web')?.whole).toMatchObject({ kind: 'Deployment', metadata: { name: 'old-web' } });
    expect(state.prune?.candidates.find((c) => c.key.name === 'old-secret')?.whole).toBeUndefined();
    expect(state.warnings).toEqual(scanned.warnings);
    expect(state.prune?.candidates.map((c) => [`${c.key.kind}/${c.key.namespace}/${c.key.name}`, c.skip ?? ''])).toEqual(
      scanned.prune?.candidates.map((c) => [`${c.key.kind}/${c.key.namespace}/${c.key.name}`, c.skip ?? '']),
    );
    expect(new Set(state.prune?.candidates.map((c) => `${c.key.kind}/${c.key.namespace}/${c.key.name}`))).toEqual(
      new Set([
        'ConfigMap/shop/stale',
        'ConfigMap/shop/keep',
        'ConfigMap/shop/going',
        'ConfigMap/other/old-other',
        'Deployment/shop/old-web',
        'ClusterRole//old-role',
        'Secret/shop/old-secret',
        'Service/other/old-svc',
      ]),
    );
    expect(state.prune?.notOwned.map((n) => [n.key.name, n.reason.code])).toEqual([
      ['child', 'has-owner'],
      ['copy', 'not-self'],
      ['theirs', 'other-app'],
    ]);
    // A reused candidate carries only what a metadata-only list returns (and its uid and resourceVersion for the preconditions).
    const stale = state.prune?.candidates.find((c) => c.key.name === 'stale');
    expect(stale?.object).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: expect.objectContaining({ name: 'stale', uid: expect.any(String), resourceVersion: expect.any(String) }),
    });
    expect(Object.keys(stale?.object ?? {})).toEqual(['apiVersion', 'kind', 'metadata']);
    // Fewer requests, by exactly the four duplicate LISTs.
    expect(state.requests).toBe(baseline.stats().requests + 5 - 4);
  });

  test('diff: the same EXTRA lines with four LISTs fewer', async () => {
    const { appFile, dir } = workspace(DESIRED);
    const gw = cluster();
    const report = await liveDiff({ appFile, desired: dir, serverSide: false }, { io: memoryIo().io, opts, gateway: gw });
    const extra = renderLiveDiff(report, 'kv', paint(false))
      .split('\n')
      .filter((l) => l.startsWith('EXTRA='));
    // In key order (group/kind/namespace/name).
    expect(extra).toEqual([
      'EXTRA=ConfigMap/old-other',
      'EXTRA=ConfigMap/going',
      'EXTRA=ConfigMap/keep',
      'EXTRA=ConfigMap/stale',
      'EXTRA=Secret/old-secret',
      'EXTRA=Service/old-svc',
      'EXTRA=Deployment/old-web',
      'EXTRA=ClusterRole/old-role',
    ]);
    expect(gw.calls.filter((c) => /^LIST (ConfigMap (shop|other)|Deployment shop|ClusterRole \*) meta$/.test(c))).toEqual([]);
    // discovery + 4 full LISTs + 2 GETs (argocd-cm and argocd-cmd-params-cm) + 17 metadata-only LISTs (was 21).
    expect(gw.stats().requests).toBe(1 + 4 + 2 + 17);
  });

  test('status: the same rows, without the duplicate LISTs', async () => {
    const { appFile, dir } = workspace(DESIRED);
    const gw = cluster();
    const result = await runStatus({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw });
    const rows = result.report.resources.filter((r) => r.requiresPruning).map((r) => `${r.kind}/${r.namespace}/${r.name}`);
    expect(rows).toEqual([
      'ConfigMap/other/old-other',
      'ConfigMap/shop/going',
      'ConfigMap/shop/keep',
      'ConfigMap/shop/stale',
      'Secret/shop/old-secret',
      'Service/other/old-svc',
      'Deployment/shop/old-web',
      'ClusterRole//old-role',
    ]);
    expect(gw.calls.filter((c) => /^LIST (ConfigMap (shop|other)|Deployment shop|ClusterRole \*) meta$/.test(c))).toEqual([]);
    // The extra Deployment's health comes from the full LIST that held it: no GET of it; the extra Service was
    // listed metadata-only, so it is read by a GET.
    expect(gw.calls.filter((c) => isAppGet(c)).sort()).toEqual(['GET Secret shop/s', 'GET Service other/old-svc']);
    expect(result.report.resources.find((r) => r.name === 'old-web')?.health).toBeDefined();
  });

  test('a desired kind whose shared LIST fails is still an error (exit 3), for diff and status as for prune', async () => {
    const { appFile, dir } = workspace(DESIRED);
    for (const forbidden of ['list configmaps', 'list clusterroles.rbac.authorization.k8s.io']) {
      const deps = { io: memoryIo().io, opts, gateway: cluster([forbidden]) };
      const err = await loadAppState({ appFile, desired: dir }, deps, { extras: true }).catch((e: unknown) => e as Error);
      expect((err as { code?: number }).code).toBe(3);
      const viaStatus = await runStatus({ appFile, desired: dir }, { ...deps, gateway: cluster([forbidden]) }).catch((e: unknown) => e as Error);
      expect((viaStatus as { code?: number }).code).toBe(3);
      const viaPrune = await loadAppState({ appFile, desired: dir }, { ...deps, gateway: cluster([forbidden]) }, { extras: true, live: false }).catch(
        (e: unknown) => e as Error,
      );
      expect((viaPrune as { code?: number }).code).toBe(3);
    }
  });

  test('prune (live: false) still lists every scope itself', async () => {
    const { appFile, dir } = workspace(DESIRED);
    const gw = cluster();
    await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true, live: false });
    expect(lists(gw).every((c) => c.endsWith(' meta'))).toBe(true);
    expect(lists(gw)).toContain('LIST ConfigMap shop meta');
    expect(lists(gw)).toContain('LIST ClusterRole * meta');
    expect(lists(gw)).toHaveLength(19); // every listable kind but Event, which Argo CD always excludes
  });

  describe('a scope crowded with other objects', () => {
    // Three desired ConfigMaps: `a` in the first page of 500, `b` and `c` after 1,200 unrelated ones (and a stale one of the app's at the very end).
    const crowded = (unrelated: number, forbidden: string[] = []) =>
      new FakeGateway({
        forbidden,
        objects: [
          obj('v1', 'ConfigMap', 'a', 'shop', mark('', 'ConfigMap', 'shop', 'a')),
          ...Array.from({ length: unrelated }, (_, i) => obj('v1', 'ConfigMap', `u-${i}`, 'shop')),
          obj('v1', 'ConfigMap', 'b', 'shop', mark('', 'ConfigMap', 'shop', 'b')),
          obj('v1', 'ConfigMap', 'c', 'shop', { [TID]: 'shop:/ConfigMap:shop/c', note: 'changed' }),
          obj('v1', 'ConfigMap', 'stale', 'shop', mark('', 'ConfigMap', 'shop', 'stale')),
        ],
      });
    const THREE = { 'cm.yaml': ['a', 'b', 'c'].map((n) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${n}}\n`).join('---\n') };

    test('is read by its first page and GETs of the twins it did not hold; the scan lists that scope itself and finds the extra', async () => {
      const { appFile, dir } = workspace(THREE);
      const gw = crowded(1200);
      const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
      expect(gw.calls.filter((c) => /ConfigMap shop/.test(c)).sort()).toEqual([
        'GET ConfigMap shop/b',
        'GET ConfigMap shop/c',
        'LIST ConfigMap shop',
        'LIST ConfigMap shop meta',
      ]);
      expect([...state.live.keys()].sort()).toEqual(['/ConfigMap/shop/a', '/ConfigMap/shop/b', '/ConfigMap/shop/c']);
      expect(state.live.get('/ConfigMap/shop/c')?.metadata.annotations?.note).toBe('changed');
      expect(state.live.get('/ConfigMap/shop/c')?.kind).toBe('ConfigMap');
      // Only the desired twins are taken from the first page, never the unrelated objects.
      expect(state.live.size).toBe(3);
      // The partial read is not taken for the scope's contents: the stale object past the first page is found.
      expect(state.prune?.candidates.map((c) => c.key.name)).toEqual(['stale']);
    });

    test('the same live twins and prune plan as reading the whole scope', async () => {
      const { appFile, dir } = workspace(THREE);
      const viaGets = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: crowded(1200) }, { extras: true });
      const gw = crowded(1200);
      const list = gw.list.bind(gw);
      gw.list = (type, o = {}) => list(type, { ...o, maxPages: undefined }); // a server that does not page: the whole scope in one LIST
      const viaList = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
      expect(gw.calls.filter((c) => isAppGet(c))).toEqual([]);
      expect([...viaGets.live.entries()].sort()).toEqual([...viaList.live.entries()].sort());
      expect(viaGets.prune).toEqual(withoutWhole(viaList.prune));
    });

    test('not crowded enough (fewer than ten others per missing twin): the rest is listed and the scan reuses it', async () => {
      const { appFile, dir } = workspace(THREE);
      const gw = crowded(510); // 14 left after the first page, 2 twins missing
      const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
      expect(gw.calls.filter((c) => /ConfigMap shop/.test(c))).toEqual(['LIST ConfigMap shop', 'LIST ConfigMap shop']);
      expect(state.live.size).toBe(3);
      expect(state.prune?.candidates.map((c) => c.key.name)).toEqual(['stale']);
    });

    test('allowed to list but not to get: the rest of the LIST is read after all', async () => {
      const { appFile, dir } = workspace(THREE);
      const gw = crowded(1200, ['get configmaps']);
      const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
      expect(gw.calls.filter((c) => /ConfigMap shop/.test(c)).sort()).toEqual([
        'GET ConfigMap shop/b',
        'GET ConfigMap shop/c',
        'LIST ConfigMap shop',
        'LIST ConfigMap shop',
        'LIST ConfigMap shop meta',
      ]);
      expect([...state.live.keys()].sort()).toEqual(['/ConfigMap/shop/a', '/ConfigMap/shop/b', '/ConfigMap/shop/c']);
      expect(state.prune?.candidates.map((c) => c.key.name)).toEqual(['stale']);
    });

    test('a GET that fails fails the read (exit 3), as a failed LIST does', async () => {
      const { appFile, dir } = workspace(THREE);
      const gw = crowded(1200);
      const get = gw.get.bind(gw);
      gw.get = async (type, ns, name) =>
        name === 'c' ? Promise.reject(Object.assign(new Error('getting ConfigMap shop/c: 500'), { code: 3 })) : get(type, ns, name);
      const err = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true }).catch((e: unknown) => e as Error);
      expect((err as { code?: number }).code).toBe(3);
    });
  });

  test('a LIST of another version than the preferred one is not reused', async () => {
    const widget = (version: string) => ({
      group: 'example.com',
      version,
      kind: 'Widget',
      resource: 'widgets',
      namespaced: true,
      verbs: ['get', 'list', 'watch', 'patch', 'delete'],
    });
    const gw = new FakeGateway({
      types: [...COMMON_TYPES, widget('v2'), widget('v1')],
      objects: [
        { apiVersion: 'example.com/v2', kind: 'Widget', metadata: { name: 'w1', namespace: 'shop' } },
        {
          apiVersion: 'example.com/v2',
          kind: 'Widget',
          metadata: { name: 'old', namespace: 'shop', annotations: mark('example.com', 'Widget', 'shop', 'old') },
        },
      ],
    });
    // v2 is the preferred version; the app declares v1.
    const discover = gw.discover.bind(gw);
    gw.discover = async () => {
      const d = await discover();
      return { ...d, preferred: d.preferred.filter((t) => !(t.kind === 'Widget' && t.version === 'v1')) };
    };
    const { appFile, dir } = workspace({
      'w.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\n',
    });
    const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
    expect(gw.calls).toContain('LIST Widget shop');
    expect(gw.calls).toContain('LIST Widget shop meta');
    expect(state.prune?.candidates.map((c) => c.key.name)).toEqual(['old']);
  });

  test('a type that can be listed but not watched (componentstatuses) is never scanned, as Argo CD caches only watchable types', async () => {
    const status = { group: '', version: 'v1', kind: 'ComponentStatus', resource: 'componentstatuses', namespaced: false, verbs: ['get', 'list'] };
    const gw = new FakeGateway({
      types: [...COMMON_TYPES, status],
      objects: [{ apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name: 'etcd-0', annotations: mark('', 'ComponentStatus', '', 'etcd-0') } }],
    });
    const { appFile, dir } = workspace({ 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' });
    const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
    expect(gw.calls.filter((c) => c.includes('ComponentStatus'))).toEqual([]);
    expect(gw.calls.filter((c) => c.startsWith('LIST Namespace'))).not.toEqual([]);
    expect(state.prune?.candidates).toEqual([]);
  });
});

describe('server-side diff (argocd-cmd-params-cm controller.diff.server.side)', () => {
  const params = (dir: string) => {
    const file = join(dir, 'cmd-params.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cmd-params-cm}\ndata: {controller.diff.server.side: "true"}\n');
    return file;
  };
  test('status predicts each live object with a forced dry-run apply; an object not live is compared as it is', async () => {
    const ws = workspace({
      'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: "1"}\n',
      'b.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
    });
    const gw = new FakeGateway({
      objects: [{ ...cm('a', 'shop', { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/a' }), data: { v: '1' } } as KubeObject],
    });
    const r = await runStatus({ appFile: ws.appFile, desired: ws.dir, argocdCmdParamsCm: params(ws.root) }, { io: memoryIo().io, opts, gateway: gw });
    expect(gw.calls.filter((c) => c.startsWith('APPLY'))).toEqual(['APPLY dry force ConfigMap shop/a']);
    expect(r.report.resources.map((x) => `${x.name} ${x.status}`)).toEqual(['a Synced', 'b OutOfSync']);
  });
  test('a dry-run that fails leaves the object compared client-side, and status says so among its warnings', async () => {
    const ws = workspace({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: "1"}\n' });
    const gw = new FakeGateway({
      objects: [{ ...cm('a', 'shop', { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/a' }), data: { v: '1' } } as KubeObject],
      failApply: () => new Error('a webhook said no'),
    });
    const r = await runStatus({ appFile: ws.appFile, desired: ws.dir, argocdCmdParamsCm: params(ws.root) }, { io: memoryIo().io, opts, gateway: gw });
    expect(r.warnings).toContain('ConfigMap/a: server-side diff failed, compared client-side: a webhook said no');
    expect(r.report.sync.status).toBe('Synced');
  });
});

test('prefetchRules: the settings every app reads are asked for at once as GETs (not files given), and the AppProjects listed', async () => {
  const project: KubeObject = { apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { namespace: 'ops', name: 'default' }, spec: {} };
  const projects = {
    group: 'argoproj.io',
    version: 'v1alpha1',
    kind: 'AppProject',
    resource: 'appprojects',
    namespaced: true,
    verbs: ['get', 'list', 'watch'],
  };
  const inner = new FakeGateway({ types: [...COMMON_TYPES, projects], objects: [project, cm('argocd-cm', 'ops')] });
  const snap = new ClusterSnapshot(inner);
  await prefetchRules(snap, { argocdNamespace: 'ops' });
  expect(inner.calls.filter((c) => !c.startsWith('DISCOVER'))).toEqual([
    'GET ConfigMap ops/argocd-cm',
    'GET ConfigMap ops/argocd-cmd-params-cm',
    'LIST AppProject *',
  ]);
  // What the apps then read is answered by those reads.
  expect((await snap.get(COMMON_TYPES.find((t) => t.kind === 'ConfigMap')!, 'ops', 'argocd-cm'))?.metadata.name).toBe('argocd-cm');
  expect(inner.calls.filter((c) => !c.startsWith('DISCOVER'))).toHaveLength(3);

  const files = new FakeGateway({ objects: [] });
  await prefetchRules(new ClusterSnapshot(files), { argocdCm: 'cm.yaml', argocdCmdParamsCm: 'params.yaml', projectFile: 'project.yaml' });
  expect(files.calls.filter((c) => !c.startsWith('DISCOVER'))).toEqual([]);
});

describe('what the scan covers beyond the desired objects', () => {
  const TID = 'argocd.argoproj.io/tracking-id';

  test('a namespace only status.resources records is scanned: an object left there by the last sync is a candidate (a child Application in argocd)', async () => {
    const { appFile, dir } = workspace({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' });
    const status = '\nstatus:\n  resources:\n  - {kind: ConfigMap, namespace: shop, name: a}\n  - {kind: ConfigMap, namespace: gone-from-git, name: left}\n';
    writeFileSync(appFile, `${readFileSync(appFile, 'utf8').trimEnd()}${status}`);
    const gw = new FakeGateway({
      objects: [cm('a', 'shop', { [TID]: 'shop:/ConfigMap:shop/a' }), cm('left', 'gone-from-git', { [TID]: 'shop:/ConfigMap:gone-from-git/left' })],
    });
    const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
    expect(state.namespaces).toEqual(['gone-from-git', 'shop']);
    expect(state.prune?.candidates.map((c) => `${c.key.namespace}/${c.key.name}`)).toEqual(['gone-from-git/left']);
    expect(gw.calls).toContain('LIST ConfigMap gone-from-git meta');
  });

  test("managedNamespaceMetadata: the destination namespace carrying the app's mark is compared with it as a desired object, never a prune candidate", async () => {
    const managed = { labels: { team: 'shop' }, annotations: { owner: 'platform' } };
    const { appFile, dir } = appWorkspace({
      prefix: 'appstate',
      name: 'shop',
      manifests: { 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n' },
      spec: (root) => ({
        source: localSource(root),
        destination: { namespace: 'shop' },
        syncPolicy: { automated: { prune: true }, syncOptions: ['CreateNamespace=true'], managedNamespaceMetadata: managed },
      }),
    });
    const ns = (labels: Record<string, string>): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'shop', labels, annotations: { [TID]: 'shop:/Namespace:shop/shop', owner: 'platform' } },
    });
    const load = (gw: FakeGateway) => loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true });
    const drifted = await load(new FakeGateway({ objects: [cm('a', 'shop', { [TID]: 'shop:/ConfigMap:shop/a' }), ns({ team: 'web' })] }));
    expect(drifted.prune?.candidates).toEqual([]);
    const target = drifted.desired.find((d) => d.key.kind === 'Namespace');
    expect(target?.object.metadata).toEqual({
      name: 'shop',
      labels: { team: 'shop' },
      annotations: { owner: 'platform', 'argocd.argoproj.io/sync-options': 'ServerSideApply=true' },
    });
    expect(target?.source.file).toBe('spec.syncPolicy.managedNamespaceMetadata');
    expect(drifted.live.get('/Namespace//shop')?.metadata.labels).toEqual({ team: 'web' });
    // Without the app's mark the namespace is not the app's: neither compared nor a candidate.
    const unmarked = await load(
      new FakeGateway({ objects: [cm('a', 'shop', { [TID]: 'shop:/ConfigMap:shop/a' }), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }] }),
    );
    expect([unmarked.desired.map((d) => d.key.kind), unmarked.prune?.candidates]).toEqual([['ConfigMap'], []]);
  });
});

test('a source with no Git commit to verify, for a project with signatureKeys: a Helm chart, any oci:// repoURL (a chart beside it or not); Git sources none', async () => {
  const { unverifiableSource } = await import('../../../../src/workflows/session/app-state.js');
  const src = (repoURL: string, chart?: string) => ({ repoURL, targetRevision: '1.0.0', ...(chart ? { options: { chart } } : {}) });
  expect(unverifiableSource({ source: src('https://git.example.com/shop.git') })).toBeUndefined();
  expect(unverifiableSource({ source: src('https://charts.example.com', 'web') })).toBe('a Helm chart source');
  expect(unverifiableSource({ source: src('registry.example.com/charts', 'web') })).toBe('a Helm chart source');
  expect(unverifiableSource({ source: src('oci://registry.example.com/charts/web', 'web') })).toBe('an OCI source');
  expect(unverifiableSource({ source: src('oci://registry.example.com/manifests') })).toBe('an OCI source');
  // spec.sources wins over spec.source (which then holds the first entry).
  const git = src('https://git.example.com/shop.git');
  expect(unverifiableSource({ source: git, sources: [git, src('oci://registry.example.com/manifests')] })).toBe('an OCI source');
  expect(unverifiableSource({ source: git, sources: [git, { ...git, ref: 'values' }] })).toBeUndefined();
});
