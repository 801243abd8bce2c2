// loadAppState against the fake gateway: namespace defaulting, LIST-vs-GET, discovery errors, prune candidates and warnings.
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeGateway } from '../../../src/kube/fake-gateway.js';
import { memoryIo } from '../../../src/cli/io.js';
import { loadAppState } from '../../../src/workflows/app-state.js';
import type { GlobalOptions } from '../../../src/cli/options.js';
import type { KubeObject } from '../../../src/model/object.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

function workspace(desired: Record<string, string>, app = 'shop'): { appFile: string; dir: string } {
  const root = mkdtempSync(join(tmpdir(), 'appstate-'));
  const dir = join(root, 'desired');
  mkdirSync(dir);
  for (const [f, text] of Object.entries(desired)) writeFileSync(join(dir, f), text);
  const appFile = join(root, 'app.yaml');
  writeFileSync(
    appFile,
    `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ${app}, namespace: argocd}
spec:
  source: {repoURL: ${root}, path: desired}
  destination: {namespace: shop}
  syncPolicy:
    automated: {prune: true}
`,
  );
  return { appFile, dir };
}

const cm = (name: string, ns: string, annotations?: Record<string, string>, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, ...(annotations ? { annotations } : {}), ...extra },
});

test('desired objects get the destination namespace; several of one kind are read with one LIST, a single one with a GET', async () => {
  const { appFile, dir } = workspace({
    'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n',
    'd.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: orders}\nspec: {}\n',
    'r.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader, namespace: ignored}\n',
  });
  const gw = new FakeGateway({ objects: [cm('a', 'shop', { x: 'y' })] });
  const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: false });
  expect(state.desired.map((d) => `${d.key.kind}/${d.key.namespace}/${d.key.name}`)).toEqual(['ConfigMap/shop/a', 'ConfigMap/shop/b', 'Deployment/shop/orders', 'ClusterRole//reader']);
  expect(state.live.get('/ConfigMap/shop/a')?.metadata.annotations).toEqual({ x: 'y' });
  expect(state.live.has('/ConfigMap/shop/b')).toBe(false);
  expect(gw.calls.filter((c) => c.startsWith('LIST') || c.startsWith('GET')).sort()).toEqual(['GET ClusterRole /reader', 'GET Deployment shop/orders', 'LIST ConfigMap shop']);
  expect(state.appInstance).toBe('shop');
  expect(state.namespaces).toEqual(['shop']);
});

test('live: false (prune) reads no live twins: only the metadata-only candidate scan touches the cluster', async () => {
  const { appFile, dir } = workspace({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n' });
  const gw = new FakeGateway({ objects: [cm('a', 'shop'), cm('old', 'shop', { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/old' })] });
  const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: gw }, { extras: true, live: false });
  expect(state.live.size).toBe(0);
  expect(gw.calls.filter((c) => c.startsWith('GET') || (c.startsWith('LIST') && !c.endsWith(' meta')))).toEqual([]);
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
  const state = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts: { ...opts, namespace: 'other' }, gateway: new FakeGateway() }, { extras: false });
  expect(state.desired[0]?.key.namespace).toBe('other');
});

test('a kind the cluster does not serve is an input error naming the file and line', async () => {
  const { appFile, dir } = workspace({ 'x.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n' });
  const err = await loadAppState({ appFile, desired: dir }, { io: memoryIo().io, opts, gateway: new FakeGateway() }, { extras: false }).catch((e: unknown) => e as Error);
  expect((err as { code?: number }).code).toBe(2);
  expect((err as Error).message).toMatch(new RegExp(`${join(dir, 'x.yaml')}:5: the cluster does not serve Widget in example.com/v1`));
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
        metadata: { name: 'orders-1', namespace: 'shop', annotations: { 'argocd.argoproj.io/tracking-id': 'shop:apps/ReplicaSet:shop/orders-1' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'orders', uid: 'u' }] },
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
