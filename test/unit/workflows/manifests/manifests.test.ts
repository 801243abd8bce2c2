// runManifests on the fake gateway: what a sync would send, marked and namespaced, in the order it sends it.
import { FakeGateway } from '../../../support/fake-gateway.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { runManifests } from '../../../../src/workflows/manifests/manifests.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import { appWorkspace } from '../../../support/app-workspace.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'yaml', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

const cm = (name: string, annotations: Record<string, string> = {}) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations: ${JSON.stringify(annotations)}\ndata: {a: "1"}\n`;

test('hooks in their phases, resources wave by wave in kind order, SyncFail and delete hooks last; each marked and namespaced', async () => {
  const ws = appWorkspace({
    prefix: 'manifests',
    manifests: {
      'a.yaml': cm('late', { 'argocd.argoproj.io/sync-wave': '2' }),
      'b.yaml': 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n',
      'c.yaml': cm('early'),
      'd.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata: {name: extra}\n',
      'pre.yaml': cm('pre', { 'argocd.argoproj.io/hook': 'PreSync' }),
      'both.yaml': cm('both', { 'argocd.argoproj.io/hook': 'PreSync,PostSync' }),
      'fail.yaml': cm('on-fail', { 'argocd.argoproj.io/hook': 'SyncFail' }),
      'bye.yaml': cm('bye', { 'argocd.argoproj.io/hook': 'PostDelete' }),
    },
  });
  const r = await runManifests({ appFile: ws.appFile, desired: ws.dir }, { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: [] }) });
  expect(r.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
    'ConfigMap/both',
    'ConfigMap/pre',
    'Namespace/extra',
    'ConfigMap/early',
    'Service/web',
    'ConfigMap/late',
    'ConfigMap/on-fail',
    'ConfigMap/bye',
  ]);
  const early = r.objects.find((o) => o.metadata.name === 'early')!;
  expect(early.metadata.namespace).toBe('shop');
  expect(early.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe('shop:/ConfigMap:shop/early');
  const ns = r.objects.find((o) => o.kind === 'Namespace')!;
  expect(ns.metadata.namespace).toBeUndefined();
  // As Argo CD's SetAppInstance: a cluster-scoped object's mark carries the destination namespace.
  expect(ns.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe('shop:/Namespace:shop/extra');
});

test("hooks no sync runs (Skip, Helm's test, test-success and pre-rollback) are listed last, marked and namespaced, as argocd app manifests lists them", async () => {
  const ws = appWorkspace({
    prefix: 'manifests',
    manifests: {
      'a.yaml': cm('web'),
      'b.yaml': cm('smoke', { 'helm.sh/hook': 'test' }),
      'c.yaml': cm('legacy-test', { 'helm.sh/hook': 'test-success' }),
      'd.yaml': cm('undo', { 'helm.sh/hook': 'pre-rollback' }),
      'e.yaml': cm('skipped', { 'argocd.argoproj.io/hook': 'Skip' }),
      'f.yaml': cm('bye', { 'helm.sh/hook': 'post-delete' }),
      // Of a kind the cluster does not serve: no error (no command applies it), listed as rendered.
      'g.yaml': 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations: {argocd.argoproj.io/hook: Skip}\n',
      'h.yaml': cm('pre', { 'helm.sh/hook': 'pre-install' }),
    },
  });
  const r = await runManifests({ appFile: ws.appFile, desired: ws.dir }, { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: [] }) });
  expect(r.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
    'ConfigMap/pre',
    'ConfigMap/web',
    'ConfigMap/bye',
    'ConfigMap/smoke',
    'ConfigMap/legacy-test',
    'ConfigMap/undo',
    'ConfigMap/skipped',
    'Widget/w',
  ]);
  const smoke = r.objects.find((o) => o.metadata.name === 'smoke')!;
  expect(smoke.metadata.namespace).toBe('shop');
  expect(smoke.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe('shop:/ConfigMap:shop/smoke');
  const widget = r.objects.find((o) => o.kind === 'Widget')!;
  expect(widget.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe('shop:example.com/Widget:shop/w');
  expect(r.warnings).toEqual([]);
});

test('--source-position of a single-source app: 1 is the whole app, anything else an input error', async () => {
  const ws = appWorkspace({ prefix: 'manifests', manifests: { 'c.yaml': cm('early') } });
  const deps = { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: [] }) };
  expect((await runManifests({ appFile: ws.appFile, desired: ws.dir }, deps, { sourcePosition: 1 })).objects.map((o) => o.metadata.name)).toEqual(['early']);
  await expect(runManifests({ appFile: ws.appFile, desired: ws.dir }, deps, { sourcePosition: 2 })).rejects.toThrow(
    '--source-position 2: shop has 1 source (positions count from 1)',
  );
});

test("within a (phase, wave) hooks and resources are printed together by kind order and name, as the sync creates them (gitops-engine's syncTasks.Less)", async () => {
  const ws = appWorkspace({
    prefix: 'manifests',
    manifests: {
      'pod.yaml': `apiVersion: v1\nkind: Pod\nmetadata:\n  name: seed\n  annotations: {argocd.argoproj.io/hook: Sync}\nspec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}\n`,
      'z.yaml': cm('z-settings'),
      'a.yaml': cm('a-settings', { 'argocd.argoproj.io/hook': 'Sync' }),
      'sa.yaml': 'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: runner\n  annotations: {argocd.argoproj.io/hook: Sync}\n',
      'web.yaml': 'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {ports: [{port: 80}]}\n',
    },
  });
  const r = await runManifests({ appFile: ws.appFile, desired: ws.dir }, { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: [] }) });
  expect(r.objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
    'ServiceAccount/runner',
    'ConfigMap/a-settings',
    'ConfigMap/z-settings',
    'Service/web',
    'Pod/seed',
  ]);
});
