// syncApp against the fake gateway: refusal, stamping, order, dry-run gate, conflicts, healing, ignored fields, prune rules.
import { FakeGateway } from '../../../support/fake-gateway.js';
import * as fakeTypes from '../../../support/fake-gateway.js';
import { apiError } from '../../../../src/kube/errors.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { syncApp, syncExitCode, syncWithRetry, type SyncRequest } from '../../../../src/workflows/sync/sync.js';
import { renderSyncKv } from '../../../../src/render/sync.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import type { KubeObject } from '../../../../src/model/object.js';
import type { SyncEvent } from '../../../../src/workflows/sync/sync-phases.js';
import { parse } from 'yaml';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitFixture } from '../../../support/git-source.js';
import { applicationYaml } from '../../../support/application.js';
import { appWorkspace, localSource, type AppWorkspace } from '../../../support/app-workspace.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };
const TID = 'argocd.argoproj.io/tracking-id';

/** A workspace whose Application ignores the Deployment's replicas; `policy` is more of its spec, as YAML (`syncPolicy: ...`). */
function workspace(desired: Record<string, string>, policy: string): AppWorkspace {
  return appWorkspace({
    prefix: 'sync',
    manifests: desired,
    spec: (root) => ({
      source: localSource(root),
      destination: { namespace: 'shop' },
      ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }],
      ...((parse(policy) ?? {}) as Record<string, unknown>),
    }),
  });
}

const DEPLOY =
  'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: orders}\nspec:\n  template:\n    spec:\n      containers: [{name: orders, image: "orders:1"}]\n';
const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: orders-config}\ndata: {a: "1"}\n';
const NS = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

async function run(ws: { appFile: string; dir: string }, gw: FakeGateway, flags: Partial<SyncRequest> = {}, events?: SyncEvent[]) {
  const report = await syncApp(
    { appFile: ws.appFile, desired: ws.dir, dryRun: false, prune: false, forceConflicts: false, timeoutMs: 60_000, ...flags },
    { io: memoryIo().io, opts, gateway: gw, ...(events ? { onEvent: (e: SyncEvent) => void events.push(e) } : {}) },
  );
  return { report, kv: renderSyncKv(report), code: syncExitCode(report) };
}

test('an empty desired set is refused unless allowEmpty: nothing applied, nothing deleted, exit 4', async () => {
  const ws = workspace({}, 'syncPolicy: {automated: {prune: true}}');
  const stale: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } },
  };
  const gw = new FakeGateway({ objects: [NS('shop'), stale] });
  const { kv, code } = await run(ws, gw, { prune: true });
  expect(kv).toMatch(/^REFUSED=the desired set of shop is empty and allowEmpty is not true.*1 live object\(s\) prune candidates\n$/);
  expect(code).toBe(4);
  expect(gw.calls.filter((c) => c.startsWith('APPLY') || c.startsWith('DELETE'))).toEqual([]);
  expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
});

test('with allowEmpty an empty set prunes what the app owns', async () => {
  const ws = workspace({}, 'syncPolicy: {automated: {prune: true, allowEmpty: true}}');
  const gw = new FakeGateway({
    objects: [
      NS('shop'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } } },
    ],
  });
  const { kv, code } = await run(ws, gw, { prune: true });
  expect(kv).toBe('APPLIED=0\nPRUNED=ConfigMap/stale\n');
  expect(code).toBe(0);
});

test('objects are stamped, namespaced, dry-run as a whole set, then applied in kind order', async () => {
  const ws = workspace({ 'd.yaml': DEPLOY, 'c.yaml': CM }, 'syncPolicy: {syncOptions: [CreateNamespace=true]}');
  const gw = new FakeGateway();
  const { kv, code, report } = await run(ws, gw);
  expect(code).toBe(0);
  expect(kv).toBe('APPLIED=3\n');
  expect(gw.find('Deployment', 'shop', 'orders')?.metadata.annotations?.[TID]).toBe('shop:apps/Deployment:shop/orders');
  expect(gw.find('ConfigMap', 'shop', 'orders-config')?.metadata.annotations?.[TID]).toBe('shop:/ConfigMap:shop/orders-config');
  expect(gw.find('Namespace', '', 'shop')?.metadata.annotations).toBeUndefined();
  // The namespace did not exist: only its own dry-run runs (objects in it cannot), then Namespace, ConfigMap, Deployment in order.
  expect(gw.calls.filter((c) => c.startsWith('APPLY'))).toEqual([
    'APPLY dry Namespace /shop',
    'APPLY Namespace /shop',
    'APPLY ConfigMap shop/orders-config',
    'APPLY Deployment shop/orders',
  ]);
  expect(report.steps.map((s) => `${s.kind}:${s.outcome}`)).toEqual(['Namespace:applied', 'ConfigMap:applied', 'Deployment:applied']);
});

test('managedNamespaceMetadata with CreateNamespace=true: the namespace is applied with its labels and annotations, created or existing', async () => {
  const policy = 'syncPolicy: {syncOptions: [CreateNamespace=true], managedNamespaceMetadata: {labels: {team: shop}, annotations: {owner: me}}}';
  const ws = workspace({ 'c.yaml': CM }, policy);
  const gw = new FakeGateway();
  const { code } = await run(ws, gw);
  expect(code).toBe(0);
  const ns = gw.find('Namespace', '', 'shop');
  expect(ns?.metadata.labels).toEqual({ team: 'shop' });
  // With the sync option Argo CD adds to it (appendSSAAnnotation), and no tracking mark.
  expect(ns?.metadata.annotations).toEqual({ owner: 'me', 'argocd.argoproj.io/sync-options': 'ServerSideApply=true' });
  // The namespace exists: applied again, not skipped, and a changed label lands.
  const changed = workspace({ 'c.yaml': CM }, policy.replace('team: shop', 'team: web'));
  const again = await run(changed, gw);
  expect(again.code).toBe(0);
  expect(again.report.steps.find((s) => s.kind === 'Namespace')).toMatchObject({ action: 'update', outcome: 'applied' });
  expect(gw.find('Namespace', '', 'shop')?.metadata.labels).toEqual({ team: 'web' });
  // Without managedNamespaceMetadata an existing namespace is left alone.
  const plain = await run(workspace({ 'c.yaml': CM }, 'syncPolicy: {syncOptions: [CreateNamespace=true]}'), gw);
  expect(plain.report.steps.find((s) => s.kind === 'Namespace')).toMatchObject({ action: 'skip' });
});

test('a dry-run failure applies nothing and reports every failure', async () => {
  const ws = workspace({ 'd.yaml': DEPLOY, 'c.yaml': CM }, '');
  const gw = new FakeGateway({
    objects: [NS('shop')],
    failApply: (o) =>
      o.kind === 'Deployment'
        ? apiError(
            'applying Deployment shop/orders',
            422,
            JSON.stringify({ kind: 'Status', details: { causes: [{ field: 'spec.selector', message: 'Required value' }] } }),
          )
        : undefined,
  });
  const { kv, code } = await run(ws, gw);
  expect(code).toBe(3);
  expect(kv).toContain('FAILED=Deployment/orders dry-run: applying Deployment shop/orders: invalid (422): spec.selector: Required value');
  expect(gw.calls.filter((c) => c.startsWith('APPLY') && !c.startsWith('APPLY dry'))).toEqual([]);
});

const conflict = (o: KubeObject) =>
  o.kind === 'Deployment'
    ? [{ manager: 'kubectl-set', field: '.spec.template.spec.containers[name="orders"].image', message: 'conflict with "kubectl-set"' }]
    : [];

test('without force (--no-force-conflicts) predicted conflicts stop the sync before any write: nothing applied or pruned, each field named, exit 3', async () => {
  const ws = workspace({ 'd.yaml': DEPLOY, 'c.yaml': CM }, 'syncPolicy: {automated: {prune: true}}');
  const gw = new FakeGateway({
    objects: [
      NS('shop'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } } },
    ],
    conflictsFor: conflict,
  });
  const { kv, code, report } = await run(ws, gw, { prune: true });
  expect(code).toBe(3);
  const why = 'the server-side dry-run found 1 field(s) owned by kubectl-set, and fields are not taken back (--no-force-conflicts)';
  expect(kv).toBe(
    `APPLIED=0\nCONFLICT=Deployment/orders spec.template.spec.containers[name=orders].image kubectl-set\nPRUNE_BLOCKED=${why}: nothing was applied or deleted\nSTOPPED=${why}\n`,
  );
  // The ConfigMap had no conflict, and is not applied either: the whole set or nothing.
  expect(gw.calls.filter((c) => c.startsWith('APPLY') && !c.startsWith('APPLY dry'))).toEqual([]);
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
  expect(report.steps.map((s) => `${s.kind}:${s.outcome}`)).toEqual(['ConfigMap:not-applied', 'Deployment:conflict']);
  expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
  expect(gw.find('ConfigMap', 'shop', 'orders-config')).toBeUndefined();
});

test('with force (the default) every conflicting field is taken back and reported with its manager, selfHeal or not', async () => {
  const ws = workspace({ 'd.yaml': DEPLOY }, '');
  const gw = new FakeGateway({ objects: [NS('shop')], conflictsFor: conflict });
  const { kv, code, report } = await run(ws, gw, { forceConflicts: true });
  expect(code).toBe(0);
  expect(kv).toBe('APPLIED=1\nHEALED=Deployment/orders spec.template.spec.containers[name=orders].image kubectl-set\n');
  expect(report.force).toBe(true);
  expect(report.forceReason).toBe('server-side apply with force, as Argo CD');
  // --no-force-conflicts holds for a selfHeal app too: the user asked for caution.
  const ws2 = workspace({ 'd.yaml': DEPLOY }, 'syncPolicy: {automated: {selfHeal: true}}');
  const second = await run(ws2, new FakeGateway({ objects: [NS('shop')], conflictsFor: conflict }), { forceConflicts: false });
  expect(second.code).toBe(3);
  expect(second.report.applied).toBe(0);
  expect(second.kv).toContain('CONFLICT=Deployment/orders');
});

test('an ignored field another manager owns is reported as IGNORED and, with RespectIgnoreDifferences, keeps its live value', async () => {
  const declared = DEPLOY.replace('spec:\n  template', 'spec:\n  replicas: 2\n  template');
  const live: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'orders',
      namespace: 'shop',
      annotations: { [TID]: 'shop:apps/Deployment:shop/orders' },
      managedFields: [
        {
          manager: 'kubectl',
          operation: 'Update',
          subresource: 'scale',
          apiVersion: 'apps/v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:replicas': {} } },
        },
      ],
    },
    spec: { replicas: 5, template: { spec: { containers: [{ name: 'orders', image: 'orders:1' }] } } },
  };
  const ws = workspace({ 'd.yaml': declared }, 'syncPolicy: {syncOptions: [RespectIgnoreDifferences=true]}');
  const gw = new FakeGateway({ objects: [NS('shop'), live] });
  const { kv } = await run(ws, gw);
  expect(kv).toBe('APPLIED=1\nIGNORED=Deployment/orders spec.replicas kubectl\n');
  expect(gw.find('Deployment', 'shop', 'orders')?.spec).toMatchObject({ replicas: 5 });
});

test('ApplyOutOfSyncOnly skips objects in sync that already carry the mark', async () => {
  const live: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'orders-config', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/orders-config' } },
    data: { a: '1' },
  };
  const ws = workspace({ 'c.yaml': CM, 'd.yaml': DEPLOY }, 'syncPolicy: {syncOptions: [ApplyOutOfSyncOnly=true]}');
  const gw = new FakeGateway({ objects: [NS('shop'), live] });
  const { report } = await run(ws, gw);
  expect(report.steps.map((s) => `${s.kind}:${s.outcome}`)).toEqual(['ConfigMap:skipped', 'Deployment:applied']);
  expect(report.applied).toBe(1);
});

test('--dry-run prints the plan, predicted conflicts and prunes, and changes nothing', async () => {
  const ws = workspace({ 'd.yaml': DEPLOY }, 'syncPolicy: {automated: {prune: true}}');
  const gw = new FakeGateway({
    objects: [
      NS('shop'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } } },
    ],
    conflictsFor: conflict,
  });
  const before = gw.objects();
  const { kv, code } = await run(ws, gw, { dryRun: true, prune: true });
  expect(code).toBe(0);
  expect(kv).toBe(
    'DRY_RUN=true\nAPPLY=Deployment/orders create\nCONFLICT=Deployment/orders spec.template.spec.containers[name=orders].image kubectl-set\nPRUNE=ConfigMap/stale\n',
  );
  expect(gw.objects()).toEqual(before);
});

test('prune runs only when enabled, after the applies, with Prune=false listed as skipped', async () => {
  const mark = (n: string, extra: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: n, namespace: 'shop', annotations: { [TID]: `shop:/ConfigMap:shop/${n}`, ...extra } },
  });
  const objects = [NS('shop'), mark('stale'), mark('keep', { 'argocd.argoproj.io/sync-options': 'Prune=false' })];
  const ws = workspace({ 'c.yaml': CM }, '');
  const off = await run(ws, new FakeGateway({ objects }));
  expect(off.kv).toBe('APPLIED=1\n');
  const gw = new FakeGateway({ objects });
  const on = await run(ws, gw, { prune: true });
  expect(on.kv).toBe('APPLIED=1\nPRUNED=ConfigMap/stale\nPRUNE_SKIPPED=ConfigMap/keep annotated argocd.argoproj.io/sync-options: Prune=false\n');
  expect(gw.calls.filter((c) => c.startsWith('APPLY') || c.startsWith('DELETE')).pop()).toBe('DELETE ConfigMap shop/stale foreground');
});

test('Prune=confirm (app-level or annotated) holds every prune until approved: applied, nothing pruned, exit 3; --confirm-prune or a later deletion-approved annotation prunes', async () => {
  const mark = (n: string, extra: Record<string, string> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: n, namespace: 'shop', annotations: { [TID]: `shop:/ConfigMap:shop/${n}`, ...extra } },
  });
  const objects = [NS('shop'), mark('stale'), mark('other')];
  const deletes = (gw: FakeGateway) => gw.calls.filter((c) => c.startsWith('DELETE'));
  const appLevel = workspace({ 'c.yaml': CM }, 'syncPolicy: {syncOptions: [Prune=confirm]}');
  const held = new FakeGateway({ objects });
  const waiting = await run(appLevel, held, { prune: true });
  expect(waiting.code).toBe(3);
  expect(waiting.kv).toBe(
    [
      'APPLIED=1',
      'PRUNE_SKIPPED=ConfigMap/stale waiting for pruning confirmation (Prune=confirm)',
      'PRUNE_SKIPPED=ConfigMap/other waiting for pruning confirmation (Prune=confirm)',
      'PRUNE_BLOCKED=Waiting for pruning confirmation of v1/ConfigMap/stale and 1 more resources: nothing was pruned',
      'PRUNE_WAITING=Waiting for pruning confirmation of v1/ConfigMap/stale and 1 more resources',
      '',
    ].join('\n'),
  );
  expect(deletes(held)).toEqual([]);
  expect(held.calls).toContain('APPLY ConfigMap shop/orders-config');
  // a dry run says the same, and changes nothing
  const dry = await run(appLevel, new FakeGateway({ objects }), { prune: true, dryRun: true });
  expect(dry.report.prune.waiting).toBe('Waiting for pruning confirmation of v1/ConfigMap/stale and 1 more resources');
  expect(dry.report.prune.results.map((p) => p.message)).toEqual(['needs confirmation (Prune=confirm)', 'needs confirmation (Prune=confirm)']);

  const approved = new FakeGateway({ objects });
  const go = await run(appLevel, approved, { prune: true, confirmPrune: true });
  expect([go.code, go.kv]).toEqual([0, 'APPLIED=1\nPRUNED=ConfigMap/stale\nPRUNED=ConfigMap/other\n']);

  // One annotated object holds the others too (gitops-engine runs no prune task while one waits).
  const annotated = [NS('shop'), mark('stale', { 'argocd.argoproj.io/sync-options': 'Prune=confirm' }), mark('other')];
  const plain = workspace({ 'c.yaml': CM }, '');
  const one = new FakeGateway({ objects: annotated });
  const r = await run(plain, one, { prune: true });
  expect(r.code).toBe(3);
  expect(r.report.prune.results.map((p) => `${p.name} ${p.outcome} ${p.message}`)).toEqual([
    'stale skipped waiting for pruning confirmation (Prune=confirm)',
    'other skipped not pruned: Waiting for pruning confirmation of v1/ConfigMap/stale',
  ]);
  expect(deletes(one)).toEqual([]);
});

test('FailOnSharedResource refuses when a desired object is tracked by another app', async () => {
  const ws = workspace({ 'c.yaml': CM }, 'syncPolicy: {syncOptions: [FailOnSharedResource=true]}');
  const gw = new FakeGateway({
    objects: [
      NS('shop'),
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'orders-config', namespace: 'shop', annotations: { [TID]: 'billing:/ConfigMap:shop/orders-config' } },
      },
    ],
  });
  const { kv, code } = await run(ws, gw);
  expect(code).toBe(4);
  expect(kv).toBe('REFUSED=Shared resource found: ConfigMap/orders-config is part of applications argocd/shop and billing (FailOnSharedResource=true)\n');
});

test('an object already in sync and marked is applied but not dry-run (it cannot conflict)', async () => {
  const live: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'orders-config', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/orders-config' } },
    data: { a: '1' },
  };
  const ws = workspace({ 'c.yaml': CM, 'd.yaml': DEPLOY }, '');
  const gw = new FakeGateway({ objects: [NS('shop'), live] });
  const { report } = await run(ws, gw);
  expect(gw.calls.filter((c) => c.startsWith('APPLY'))).toEqual([
    'APPLY dry Deployment shop/orders',
    'APPLY ConfigMap shop/orders-config',
    'APPLY Deployment shop/orders',
  ]);
  expect(report.applied).toBe(2);
});

test('a delete the user may not do: the applies go on, the prune is reported as forbidden per candidate, exit 3', async () => {
  const ws = workspace({ 'c.yaml': CM }, 'syncPolicy: {automated: {prune: true}}');
  const gw = new FakeGateway({
    objects: [
      NS('shop'),
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } } },
    ],
    forbidden: ['delete configmaps'],
  });
  const { kv, code } = await run(ws, gw, { prune: true });
  expect(code).toBe(3);
  expect(kv).toContain('APPLIED=1');
  expect(kv).toMatch(/stale.*cannot delete configmaps in namespace "shop"/);
  expect(gw.calls.filter((c) => c.startsWith('APPLY') && !c.startsWith('APPLY dry'))).toEqual(['APPLY ConfigMap shop/orders-config']);
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
});

test('a prune scan that could not list a kind: the applies go on, nothing is pruned, exit 3 (a dry run says so too)', async () => {
  const ws = workspace({ 'c.yaml': CM }, '');
  const stale: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } },
  };
  const gw = new FakeGateway({ objects: [NS('shop'), stale], forbidden: ['list secrets'] });
  const { kv, code, report } = await run(ws, gw, { prune: true });
  expect(code).toBe(3);
  expect(report.warnings.some((w) => w.startsWith('cannot list secrets in namespace shop, so its prune candidates are unknown'))).toBe(true);
  expect(kv).toBe(
    'APPLIED=1\n' +
      "FAILED=Sync/shop prune: the prune scan is partial: cannot list secrets in namespace shop, so this app's objects there are unknown, and a prune never runs on a partial scan\n" +
      'PRUNE_FAILED=ConfigMap/stale not pruned: the prune scan is partial\n' +
      "PRUNE_BLOCKED=the prune scan is partial: cannot list secrets in namespace shop, so this app's objects there are unknown, and a prune never runs on a partial scan: nothing was pruned\n",
  );
  expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
  expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
  const dry = await run(ws, gw, { prune: true, dryRun: true });
  expect(dry.code).toBe(3);
  expect(dry.kv).toMatch(/PRUNE_FAILED=ConfigMap\/stale not pruned: the prune scan is partial\nPRUNE_BLOCKED=the prune scan is partial/);
  // Without --prune a partial scan changes nothing: the candidates it saw are listed, the warning says what it missed.
  const off = await run(ws, gw, { dryRun: true });
  expect({ code: off.code, kv: off.kv }).toEqual({ code: 0, kv: 'DRY_RUN=true\nAPPLY=ConfigMap/orders-config update\nPRUNE_CANDIDATE=ConfigMap/stale\n' });
});

describe("pruning follows Argo CD's split: a manual sync prunes only with --prune", () => {
  const stale: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } },
  };

  test('automated.prune does not make a manual sync (or one of a --desired override) prune; it says why', async () => {
    const ws = workspace({ 'c.yaml': CM }, 'syncPolicy: {automated: {prune: true}}');
    const gw = new FakeGateway({ objects: [NS('shop'), stale] });
    const { kv, code, report } = await run(ws, gw);
    expect({ code, failures: report.failures }).toEqual({ code: 0, failures: [] });
    expect(kv).toBe('APPLIED=1\n');
    expect(report.prune.why).toMatch(/a manual sync prunes only with --prune/);
    expect(gw.calls.filter((c) => c.startsWith('DELETE'))).toEqual([]);
    expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
  });

  test('--dry-run lists what --prune would delete, whether or not this sync prunes', async () => {
    const ws = workspace({ 'c.yaml': CM }, '');
    const gw = new FakeGateway({ objects: [NS('shop'), stale] });
    const { kv } = await run(ws, gw, { dryRun: true });
    expect(kv).toBe('DRY_RUN=true\nAPPLY=ConfigMap/orders-config create\nPRUNE_CANDIDATE=ConfigMap/stale\n');
    expect((await run(ws, gw, { dryRun: true, prune: true })).kv).toBe('DRY_RUN=true\nAPPLY=ConfigMap/orders-config create\nPRUNE=ConfigMap/stale\n');
  });

  test('--resource syncs only what it names and never prunes; --prune with it is an input error', async () => {
    const ws = workspace({ 'c.yaml': CM, 'd.yaml': DEPLOY }, 'syncPolicy: {automated: {prune: true}}');
    const gw = new FakeGateway({ objects: [NS('shop'), stale] });
    const { kv, report } = await run(ws, gw, { resources: [':ConfigMap:orders-config'] });
    expect(kv).toBe('APPLIED=1\n');
    expect(report.prune.why).toBe('a partial sync (--resource, -l) never prunes');
    expect(gw.find('Deployment', 'shop', 'orders')).toBeUndefined();
    expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
    await expect(run(ws, gw, { resources: [':ConfigMap:orders-config'], prune: true })).rejects.toThrow(/--prune does not go with --resource or -l/);
    await expect(run(ws, gw, { resources: [':ConfigMap:nope'] })).rejects.toThrow('--resource :ConfigMap:nope names no object of the Application');
  });

  test('-l syncs the desired objects whose labels match', async () => {
    const labelled = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: tagged, labels: {tier: web}}\ndata: {a: "1"}\n';
    const ws = workspace({ 'c.yaml': CM, 't.yaml': labelled }, '');
    const gw = new FakeGateway({ objects: [NS('shop')] });
    expect((await run(ws, gw, { selector: 'tier=web' })).kv).toBe('APPLIED=1\n');
    expect(gw.find('ConfigMap', 'shop', 'tagged')).toBeDefined();
    expect(gw.find('ConfigMap', 'shop', 'orders-config')).toBeUndefined();
  });

  test('a --desired folder holding Jsonnet is refused: REFUSED=, exit 4, nothing applied or deleted', async () => {
    const ws = workspace({ 'c.yaml': CM, 'more.jsonnet': '{}' }, '');
    const gw = new FakeGateway({ objects: [NS('shop'), stale] });
    const { kv, code } = await run(ws, gw, { prune: true });
    expect(code).toBe(4);
    expect(kv).toMatch(/^REFUSED=the source cannot be rendered as Argo CD would.*Jsonnet files \(more\.jsonnet\)/);
    expect(gw.calls.filter((c) => c.startsWith('APPLY') || c.startsWith('DELETE'))).toEqual([]);
  });
});

describe('sync phases: hooks and waves gated on health (a controller stands in for the Job controller)', () => {
  const JOB_TYPE = {
    group: 'batch',
    version: 'v1',
    kind: 'Job',
    resource: 'jobs',
    namespaced: true,
    verbs: ['get', 'list', 'create', 'patch', 'delete', 'watch'],
  };
  const job = (name: string, annotations: string, generate = false) =>
    `apiVersion: batch/v1\nkind: Job\nmetadata:\n  ${generate ? `generateName: ${name}-` : `name: ${name}`}\n  annotations: {${annotations}}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: busybox}]\n`;

  /** A fake gateway whose Jobs finish when the sync waits (`outcome` per name prefix), recording the order of calls. */
  function cluster(outcome: (name: string) => 'Complete' | 'Failed' = () => 'Complete') {
    const { COMMON_TYPES } = fakeTypes;
    const gw = new FakeGateway({ types: [...COMMON_TYPES, JOB_TYPE], objects: [NS('shop')] });
    const finish = () => {
      for (const o of gw.objects()) {
        if (o.kind === 'Job' && !(o as { status?: unknown }).status)
          gw.put({
            ...o,
            status: { conditions: [{ type: outcome(o.metadata.name ?? ''), status: 'True', message: `job ${outcome(o.metadata.name ?? '')}` }] },
          } as KubeObject);
      }
    };
    return { gw, finish };
  }

  test('a selective sync (--resource, -l) runs no hook, as Argo CD: only the named object is applied', async () => {
    const ws = workspace({ 'pre.yaml': job('migrate', '"argocd.argoproj.io/hook": PreSync'), 'c.yaml': CM }, '');
    for (const subset of [{ resources: [':ConfigMap:orders-config'] }, { selector: '!nope' }]) {
      const { gw } = cluster();
      const { report, code } = await run(ws, gw, { timeoutMs: 30_000, ...subset });
      expect(code).toBe(0);
      expect(report.hooks).toEqual([]);
      expect(gw.calls.filter((c) => c.startsWith('APPLY ') && !c.startsWith('APPLY dry'))).toEqual(['APPLY ConfigMap shop/orders-config']);
    }
  });

  test("PreSync hook (replacing the last run's), then the resources, then PostSync; generateName hooks get Argo CD's name; HookSucceeded deletes", async () => {
    const ws = workspace(
      {
        'pre.yaml': job('migrate', '"argocd.argoproj.io/hook": PreSync'),
        'post.yaml': job('smoke', '"argocd.argoproj.io/hook": PostSync, "argocd.argoproj.io/hook-delete-policy": HookSucceeded', true),
        'c.yaml': CM,
      },
      '',
    );
    const { gw, finish } = cluster();
    // The previous run's hook: BeforeHookCreation (the default) replaces it.
    gw.put({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: 'shop', uid: 'old-run' },
      status: { conditions: [{ type: 'Complete', status: 'True' }] },
    } as KubeObject);
    const events: SyncEvent[] = [];
    const pending = run(ws, gw, { timeoutMs: 30_000 }, events);
    // The run polls with real sleeps of up to 1 s: finish the Jobs as a controller would, until the run ends.
    let done = false;
    void pending.finally(() => (done = true));
    while (!done) {
      finish();
      await new Promise((r) => setTimeout(r, 50));
    }
    const { report, kv, code } = await pending;
    expect(code).toBe(0);
    const applies = gw.calls.filter((c) => (c.startsWith('APPLY ') && !c.startsWith('APPLY dry')) || c.startsWith('DELETE'));
    expect(applies[0]).toBe('DELETE Job shop/migrate background');
    expect(applies[1]).toBe('APPLY force Job shop/migrate');
    expect(applies.indexOf('APPLY ConfigMap shop/orders-config')).toBeGreaterThan(1);
    expect(applies.findIndex((c) => /^APPLY force Job shop\/smoke-[0-9a-f]{7}-postsync-\d+$/.test(c))).toBeGreaterThan(
      applies.indexOf('APPLY ConfigMap shop/orders-config'),
    );
    expect(report.hooks.map((h) => [h.phase, h.name.replace(/-[0-9a-f]{7}-postsync-\d+$/, '-…'), h.outcome])).toEqual([
      ['PreSync', 'migrate', 'Succeeded'],
      ['PostSync', 'smoke-…', 'Succeeded'],
    ]);
    expect(kv).toMatch(/^HOOK=PreSync Job\/migrate Succeeded$/m);
    // One WAVE= line per (phase, wave), in the order they ran.
    expect(kv.split('\n').filter((l) => l.startsWith('WAVE='))).toEqual(['WAVE=PreSync 0 done', 'WAVE=Sync 0 done', 'WAVE=PostSync 0 done']);
    expect(report.waves?.map((w) => [w.phase, w.resources, w.hooks])).toEqual([
      ['PreSync', 0, 1],
      ['Sync', 1, 0],
      ['PostSync', 0, 1],
    ]);
    expect(gw.find('Job', 'shop', 'migrate')?.metadata.uid).not.toBe('old-run'); // replaced, and kept (no HookSucceeded)
    expect(gw.objects().filter((o) => o.metadata.name?.startsWith('smoke-'))).toEqual([]); // HookSucceeded
    // Argo CD's hook finalizer: on the hook as created, taken off (a JSON patch) once its result was read, before any delete.
    const smoke = applies.find((c) => /^APPLY force Job shop\/smoke-/.test(c))!.replace('APPLY force Job shop/', '');
    const writes = gw.calls.filter((c) => / Job shop\/(migrate|smoke-)/.test(c) && !c.startsWith('GET') && !c.includes(' dry'));
    expect(writes).toEqual([
      'DELETE Job shop/migrate background',
      'APPLY force Job shop/migrate',
      'PATCH json Job shop/migrate',
      `APPLY force Job shop/${smoke}`,
      `PATCH json Job shop/${smoke}`,
      `DELETE Job shop/${smoke} background`,
    ]);
    expect(gw.find('Job', 'shop', 'migrate')?.metadata.finalizers).toEqual([]);
    // The live table's rows, in the order things happened (a ConfigMap has no health: done once it exists).
    expect(
      events.map((e) => `${e.phase} ${e.wave} ${e.key.kind}/${e.key.name.replace(/-[0-9a-f]{7}-postsync-\d+$/, '-…')}${e.hook ? ' (hook)' : ''} ${e.status}`),
    ).toEqual([
      'PreSync 0 Job/migrate (hook) Running',
      'PreSync 0 Job/migrate (hook) Succeeded',
      'Sync 0 ConfigMap/orders-config Synced',
      'PostSync 0 Job/smoke-… (hook) Running',
      'PostSync 0 Job/smoke-… (hook) Succeeded',
    ]);
  }, 60_000);

  test("a hook gets Argo CD's hook finalizer beside its own; a finalizer left by an earlier run comes off before the hook is replaced", async () => {
    const ws = workspace(
      {
        'pre.yaml': job('migrate', '"argocd.argoproj.io/hook": PreSync').replace('metadata:\n', 'metadata:\n  finalizers: [example.com/keep]\n'),
        'c.yaml': CM,
      },
      '',
    );
    const { gw, finish } = cluster();
    gw.put({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: 'shop', uid: 'old-run', finalizers: ['argocd.argoproj.io/hook-finalizer'] },
    } as KubeObject);
    const applied: KubeObject[] = [];
    const spy = new Proxy(gw, {
      get(target, prop, receiver) {
        if (prop === 'apply') return async (t: never, o: KubeObject, a: never) => (applied.push(structuredClone(o)), target.apply(t, o, a));
        const v = Reflect.get(target, prop, receiver) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const pending = run(ws, spy, { timeoutMs: 30_000 });
    let done = false;
    void pending.finally(() => (done = true));
    while (!done) {
      finish();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await pending).code).toBe(0);
    expect(applied.find((o) => o.kind === 'Job')?.metadata.finalizers).toEqual(['example.com/keep', 'argocd.argoproj.io/hook-finalizer']);
    const writes = gw.calls.filter((c) => c.includes('Job shop/migrate') && !c.startsWith('GET') && !c.includes(' dry'));
    expect(writes).toEqual([
      'PATCH json Job shop/migrate',
      'DELETE Job shop/migrate background',
      'APPLY force Job shop/migrate',
      'PATCH json Job shop/migrate',
    ]);
    expect(gw.find('Job', 'shop', 'migrate')?.metadata.finalizers).toEqual(['example.com/keep']);
  }, 60_000);

  test('a failed PreSync hook stops the sync: nothing else applied, nothing pruned, SyncFail hooks run, exit 3', async () => {
    const stale: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } },
    };
    const ws = workspace(
      { 'pre.yaml': job('migrate', '"argocd.argoproj.io/hook": PreSync'), 'fail.yaml': job('page', '"argocd.argoproj.io/hook": SyncFail'), 'c.yaml': CM },
      '',
    );
    const { gw, finish } = cluster((n) => (n === 'migrate' ? 'Failed' : 'Complete'));
    gw.put(stale);
    const pending = run(ws, gw, { prune: true, timeoutMs: 30_000 });
    let done = false;
    void pending.finally(() => (done = true));
    while (!done) {
      finish();
      await new Promise((r) => setTimeout(r, 50));
    }
    const { report, code } = await pending;
    expect(code).toBe(3);
    expect(report.hooks.map((h) => [h.phase, h.name, h.outcome])).toEqual([
      ['PreSync', 'migrate', 'Failed'],
      ['SyncFail', 'page', 'Succeeded'],
    ]);
    // The failed wave, the one never reached, then SyncFail's.
    expect(report.waves?.map((w) => `${w.phase} ${w.wave} ${w.outcome}`)).toEqual(['PreSync 0 failed', 'Sync 0 not-run', 'SyncFail 0 done']);
    expect(gw.find('ConfigMap', 'shop', 'orders-config')).toBeUndefined();
    expect(gw.find('ConfigMap', 'shop', 'stale')).toBeDefined();
    expect(report.failures.map((f) => f.message)).toContain('PreSync hook Job/migrate failed: job Failed');
  }, 60_000);

  test('--dry-run lists the hooks of every phase with their names, and the phases and waves it would run', async () => {
    const ws = workspace(
      { 'pre.yaml': job('migrate', '"argocd.argoproj.io/hook": PreSync'), 'skip.yaml': job('never', '"argocd.argoproj.io/hook": Skip'), 'c.yaml': CM },
      '',
    );
    const { gw } = cluster();
    const { kv } = await run(ws, gw, { dryRun: true });
    expect(kv).toBe(
      'DRY_RUN=true\nAPPLY=ConfigMap/orders-config create\nHOOK=PreSync Job/migrate would-run\nWAVE=PreSync 0 would-run\nWAVE=Sync 0 would-run\n',
    );
  });
});

describe("syncPolicy.retry: a failed sync is tried again with Argo CD's back-off", () => {
  test('a transient failure: retried after duration × factor^n, and the second attempt succeeds', async () => {
    const ws = workspace({ 'c.yaml': CM }, 'syncPolicy: {retry: {limit: 2, backoff: {duration: 1s, factor: 3, maxDuration: 2s}}}');
    let failures = 1;
    const gw = new FakeGateway({
      objects: [NS('shop')],
      failApply: (_o, o) => (!o.dryRun && failures-- > 0 ? apiError('applying', 503, 'the server is busy') : undefined),
    });
    const waits: number[] = [];
    const said: string[] = [];
    const report = await syncWithRetry(
      { appFile: ws.appFile, desired: ws.dir, dryRun: false, prune: false, forceConflicts: false, timeoutMs: 60_000 },
      { io: memoryIo().io, opts, gateway: gw },
      { notify: (l) => said.push(l), sleep: async (ms) => void waits.push(ms) },
    );
    expect(syncExitCode(report)).toBe(0);
    expect(report.retries).toBe(1);
    expect(waits).toEqual([1000]);
    expect(said[0]).toMatch(/the server is busy\. Retrying attempt #1 at \d{4}-/);
    expect(gw.find('ConfigMap', 'shop', 'orders-config')).toBeDefined();
  });

  test('the limit is kept (and the wait capped by maxDuration); --retry-limit 0 never retries; refusals are never retried', async () => {
    const ws = workspace({ 'c.yaml': CM }, 'syncPolicy: {retry: {limit: 3, backoff: {duration: 1s, factor: 3, maxDuration: 2s}}}');
    const gw = new FakeGateway({ objects: [NS('shop')], failApply: (_o, o) => (!o.dryRun ? apiError('applying', 422, 'never valid') : undefined) });
    const waits: number[] = [];
    const run = (limit?: number) =>
      syncWithRetry(
        { appFile: ws.appFile, desired: ws.dir, dryRun: false, prune: false, forceConflicts: false, timeoutMs: 60_000 },
        { io: memoryIo().io, opts, gateway: gw },
        { ...(limit !== undefined ? { retryLimit: limit } : {}), notify: () => undefined, sleep: async (ms) => void waits.push(ms) },
      );
    const r = await run();
    expect(syncExitCode(r)).toBe(3);
    expect(r.retries).toBe(3);
    expect(waits).toEqual([1000, 2000, 2000]);
    waits.length = 0;
    expect((await run(0)).retries).toBeUndefined();
    expect(waits).toEqual([]);
    const empty = workspace({}, 'syncPolicy: {retry: {limit: 3}}');
    const refused = await syncWithRetry(
      { appFile: empty.appFile, desired: empty.dir, dryRun: false, prune: false, forceConflicts: false, timeoutMs: 60_000 },
      { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: [NS('shop')] }) },
      { notify: () => undefined, sleep: async (ms) => void waits.push(ms) },
    );
    expect(syncExitCode(refused)).toBe(4);
    expect(waits).toEqual([]);
  });
});

test('a retry syncs the commit the first attempt resolved, as Argo CD; retry.refresh reads the branch again', async () => {
  const fx = new GitFixture();
  try {
    const color = (c: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: painted}\ndata: {color: ${c}}\n`;
    for (const refresh of [false, true]) {
      fx.write('app/cm.yaml', color('red'));
      fx.commit(`red ${refresh}`);
      const appFile = join(fx.root, `app-${refresh}.yaml`);
      writeFileSync(
        appFile,
        applicationYaml({
          spec: {
            source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' },
            destination: { namespace: 'shop' },
            syncPolicy: { retry: { limit: 1, ...(refresh ? { refresh: true } : {}), backoff: { duration: '1s' } } },
          },
        }),
      );
      let failures = 1;
      const gw = new FakeGateway({
        objects: [NS('shop')],
        failApply: (_o, o) => (!o.dryRun && failures-- > 0 ? apiError('applying', 503, 'the server is busy') : undefined),
      });
      const report = await syncWithRetry(
        { appFile, dryRun: false, prune: false, forceConflicts: false, timeoutMs: 60_000, hardRefresh: true },
        { io: memoryIo().io, opts, gateway: gw },
        {
          notify: () => undefined,
          // the branch moves while the retry waits
          sleep: async () => {
            fx.write('app/cm.yaml', color('blue'));
            fx.commit(`blue ${refresh}`);
          },
        },
      );
      expect([syncExitCode(report), report.retries]).toEqual([0, 1]);
      expect((gw.find('ConfigMap', 'shop', 'painted') as { data?: { color?: string } } | undefined)?.data?.color).toBe(refresh ? 'blue' : 'red');
    }
  } finally {
    fx.cleanup();
  }
});

test('a stop on predicted conflicts (--no-force-conflicts) is not retried: the conflicts stand until someone acts', async () => {
  const ws = workspace({ 'd.yaml': DEPLOY }, 'syncPolicy: {retry: {limit: 3, backoff: {duration: 1s, factor: 2, maxDuration: 2s}}}');
  const waits: number[] = [];
  const report = await syncWithRetry(
    { appFile: ws.appFile, desired: ws.dir, dryRun: false, prune: false, forceConflicts: false, timeoutMs: 60_000 },
    { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: [NS('shop')], conflictsFor: conflict }) },
    { notify: () => undefined, sleep: async (ms) => void waits.push(ms) },
  );
  expect(syncExitCode(report)).toBe(3);
  expect(report.stoppedBeforeWriting).toBeDefined();
  expect(report.retries).toBeUndefined();
  expect(waits).toEqual([]);
});

describe('SkipDryRunOnMissingResource: a custom resource whose CRD is neither served nor in the sync', () => {
  const WIDGET = (opt: string) =>
    `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1${opt ? `, annotations: {argocd.argoproj.io/sync-options: "${opt}"}` : ''}}\nspec: {size: 3}\n`;
  const crd = (established: boolean): KubeObject =>
    ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets' },
        versions: [{ name: 'v1', served: true, storage: true }],
      },
      status: { conditions: [{ type: 'Established', status: established ? 'True' : 'False' }] },
    }) as KubeObject;

  test('without the option the render is bad input naming the file and the option: exit 2, nothing applied', async () => {
    const ws = workspace({ 'w.yaml': WIDGET(''), 'c.yaml': CM }, '');
    const gw = new FakeGateway({ objects: [NS('shop')] });
    await expect(run(ws, gw)).rejects.toThrow(
      /w\.yaml.*the cluster does not serve Widget in example\.com\/v1 \(Widget\/w1\); no CustomResourceDefinition of this app defines it \(with the sync option SkipDryRunOnMissingResource=true/,
    );
    expect(gw.calls.filter((c) => c.startsWith('APPLY'))).toEqual([]);
  });

  test('with it (on the object) the dry-run is skipped, and the CR is applied with the type of the CRD the cluster has by then', async () => {
    const ws = workspace({ 'w.yaml': WIDGET('SkipDryRunOnMissingResource=true'), 'c.yaml': CM }, '');
    const widgets = {
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      resource: 'widgets',
      namespaced: true,
      verbs: ['get', 'list', 'create', 'patch', 'delete'],
    };
    const gw = new FakeGateway({ objects: [NS('shop'), crd(true)], servedLater: [widgets] });
    expect((await run(ws, gw, { dryRun: true })).kv).toBe('DRY_RUN=true\nAPPLY=ConfigMap/orders-config create\nAPPLY=Widget/w1 create\n');
    const { kv, code, report } = await run(ws, gw);
    expect({ code, failures: report.failures }).toEqual({ code: 0, failures: [] });
    expect(kv).toBe('APPLIED=2\n');
    expect(gw.calls).toContain('APPLY Widget shop/w1');
    expect(gw.calls.some((c) => c.startsWith('APPLY dry') && c.includes('Widget'))).toBe(false);
    expect(gw.find('Widget', 'shop', 'w1')?.spec).toEqual({ size: 3 });
    expect(report.failures).toEqual([]);
  });

  test('with it (app-level syncOptions) and no CRD in the cluster when its wave comes: that step fails with the reason, the rest is applied, exit 3', async () => {
    const ws = workspace({ 'w.yaml': WIDGET(''), 'c.yaml': CM }, 'syncPolicy: {syncOptions: [SkipDryRunOnMissingResource=true]}');
    const gw = new FakeGateway({ objects: [NS('shop')] });
    const { code, report } = await run(ws, gw);
    expect(code).toBe(3);
    expect(report.failures.map((f) => `${f.kind}/${f.name}: ${f.message}`)).toEqual([
      'Widget/w1: not applied: the cluster does not serve Widget in example.com/v1 and no CustomResourceDefinition defines it (SkipDryRunOnMissingResource skipped its dry-run)',
    ]);
    expect(gw.find('ConfigMap', 'shop', 'orders-config')).toBeDefined();
  });
});
