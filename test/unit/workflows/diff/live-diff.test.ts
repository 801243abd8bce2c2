// liveDiff against the fake gateway: drift with owners, ignored fields left to their owner, extras, and the server-side conflict preview.
import { restrictedProjectFile } from '../../../support/app-project.js';
import { FakeGateway } from '../../../support/fake-gateway.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { liveDiff } from '../../../../src/workflows/diff/live-diff.js';
import { renderLiveDiff } from '../../../../src/render/live-diff.js';
import { paint } from '../../../../src/render/colour.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import type { KubeObject } from '../../../../src/model/object.js';
import { appWorkspace, type AppWorkspace } from '../../../support/app-workspace.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };
const TID = 'argocd.argoproj.io/tracking-id';

function ws(): AppWorkspace {
  return appWorkspace({
    prefix: 'ldiff',
    namespace: null,
    manifests: {
      'd.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: orders}\nspec:\n  template:\n    spec:\n      containers: [{name: orders, image: "orders:1"}]\n',
    },
    spec: () => ({ destination: { namespace: 'shop' }, ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }] }),
  });
}

const live: KubeObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'orders',
    namespace: 'shop',
    annotations: { [TID]: 'shop:apps/Deployment:shop/orders' },
    managedFields: [
      {
        manager: 'argocd-controller',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:annotations': { [`f:${TID}`]: {} } },
          'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"orders"}': { '.': {}, 'f:name': {} } } } } },
        },
      },
      {
        manager: 'kubectl-set',
        operation: 'Update',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"orders"}': { 'f:image': {} } } } } } },
      },
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
  spec: { replicas: 5, template: { spec: { containers: [{ name: 'orders', image: 'nginx:2' }] } } },
};
const stale: KubeObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'stale', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/stale' } },
};

test('the diff names the drifted image and its manager, the ignored replicas and their manager, and the extra object', async () => {
  const w = ws();
  const gw = new FakeGateway({ objects: [live, stale] });
  const report = await liveDiff({ appFile: w.appFile, desired: w.dir, serverSide: false }, { io: memoryIo().io, opts, gateway: gw });
  expect(report.sync).toBe('OutOfSync');
  expect(renderLiveDiff(report, 'kv', paint(false))).toBe(
    [
      'SYNC=OutOfSync',
      'DRIFT=Deployment/orders spec.template.spec.containers[name=orders].image',
      'EXTRA=ConfigMap/stale',
      'OWNER=Deployment/orders spec.template.spec.containers[name=orders].image kubectl-set',
      'IGNORED=Deployment/orders spec.replicas kubectl',
      '',
    ].join('\n'),
  );
  const table = renderLiveDiff(report, 'table', paint(false));
  expect(report.namespace).toBe('shop');
  expect(table.split('\n')[0]).toMatch(/^Application shop.*, namespace shop$/);
  expect(table).toMatch(/spec\.replicas\s+<absent>\s+5\s+kubectl \(Update\/scale\)\s+ignored \(ignoreDifferences\[0\]\.jsonPointers \/spec\/replicas\)/);
  expect(table.trimEnd().split('\n').pop()).toBe('OUTOFSYNC');
});

test('with -n, the report and its title name the namespace the diff acted on', async () => {
  const w = ws();
  const report = await liveDiff(
    { appFile: w.appFile, desired: w.dir, serverSide: false },
    { io: memoryIo().io, opts: { ...opts, namespace: 'other' }, gateway: new FakeGateway({ objects: [live] }) },
  );
  expect(report.namespace).toBe('other');
  expect(renderLiveDiff(report, 'table', paint(false)).split('\n')[0]).toMatch(/, namespace other$/);
  expect(JSON.parse(renderLiveDiff(report, 'json', paint(false))).namespace).toBe('other');
});

test('--server-side previews each conflicting field with its manager and values, without forcing anything for real', async () => {
  const w = ws();
  const gw = new FakeGateway({
    objects: [live],
    conflictsFor: (o) =>
      o.kind === 'Deployment'
        ? [{ manager: 'kubectl-set', field: '.spec.template.spec.containers[name="orders"].image', message: 'conflict with "kubectl-set" using apps/v1' }]
        : [],
  });
  const before = gw.objects();
  const report = await liveDiff({ appFile: w.appFile, desired: w.dir, serverSide: true }, { io: memoryIo().io, opts, gateway: gw });
  expect(report.conflicts).toEqual([
    {
      key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'orders' },
      path: 'spec.template.spec.containers[name=orders].image',
      field: '.spec.template.spec.containers[name="orders"].image',
      manager: 'kubectl-set',
      desired: 'orders:1',
      live: 'nginx:2',
    },
  ]);
  expect(gw.calls.filter((c) => c.startsWith('APPLY'))).toEqual(['APPLY dry Deployment shop/orders', 'APPLY dry force Deployment shop/orders']);
  expect(gw.objects()).toEqual(before);
  expect(renderLiveDiff(report, 'kv', paint(false))).toContain('CONFLICT=Deployment/orders spec.template.spec.containers[name=orders].image kubectl-set');
  expect(renderLiveDiff(report, 'table', paint(false))).toMatch(
    /Conflict preview \(server-side apply dry-run, not forced\): 1 field\(s\) owned by kubectl-set\n.*\n.*Deployment\/orders\s+spec\.template\.spec\.containers\[name=orders\]\.image\s+kubectl-set\s+"nginx:2"\s+"orders:1"/,
  );
});

test('an object live but of a kind the AppProject refuses is diffed as not live, as Argo CD compares it, and says why', async () => {
  const w = appWorkspace({
    prefix: 'ldiff-project',
    manifests: { 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "1"}\n' },
    spec: () => ({ project: 'restricted', destination: { namespace: 'shop' } }),
  });
  const projectFile = restrictedProjectFile(w.root, 'ConfigMap');
  const cm: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/settings' } },
    data: { a: '1' },
  };
  const report = await liveDiff(
    { appFile: w.appFile, projectFile, desired: w.dir, serverSide: false },
    { io: memoryIo().io, opts, gateway: new FakeGateway({ objects: [cm] }) },
  );
  expect(report.sync).toBe('OutOfSync');
  expect(report.warnings).toContain(
    'ConfigMap/settings: not permitted in project restricted: namespaceResourceBlacklist lists /ConfigMap (/ConfigMap): live, but compared as not live, as Argo CD compares it',
  );
});
