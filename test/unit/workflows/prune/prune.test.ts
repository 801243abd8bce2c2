// pruneApp: a scan that could not list a kind deletes nothing (--confirm is exit 3); listing still shows what it saw.
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
