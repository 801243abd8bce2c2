// The one comparison (src/diff/comparison.ts): ignored fields left to their owners, server-side conflicts replacing the
// core's guesses, IgnoreExtraneous extras, a failed object, and a jq rule that takes out a whole list element.
import { createRequire } from 'node:module';
import { appSync, compareApp, compareObject, firstFailure, reportedDiff } from '../../../src/diff/comparison.js';
import { JqRunner } from '../../../src/jq/runner.js';
import type { IgnoreDifference } from '../../../src/app/types.js';
import type { JsonValue, KubeObject } from '../../../src/model/object.js';
import { parseServerField, renderPath } from '../../../src/model/field-path.js';

const require = createRequire(import.meta.url);
const factorySource = (require('jq-wasm/dist/build/jq.js') as { toString(): string }).toString();
const jq = new JqRunner(factorySource, 2000);
afterAll(() => jq.close());
const rule = (r: Partial<IgnoreDifference>): IgnoreDifference => ({
  group: '',
  kind: '',
  jsonPointers: [],
  jqPathExpressions: [],
  managedFieldsManagers: [],
  ...r,
});
const key = { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'orders' };
const FM = 'argocd-controller';

const deployment = (containers: { name: string; image: string }[], extra: Partial<KubeObject['metadata']> = {}, replicas?: number): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'orders', namespace: 'shop', ...extra },
  spec: { ...(replicas !== undefined ? { replicas } : {}), template: { spec: { containers } } },
});

const scaled: KubeObject = deployment(
  [{ name: 'orders', image: 'orders:1' }],
  {
    managedFields: [
      {
        manager: FM,
        operation: 'Apply',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"orders"}': { '.': {}, 'f:name': {}, 'f:image': {} } } } } } },
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
  5,
);

test('an ignored field another manager owns is listed (never counted) even when the object is in sync; its live value is kept for RespectIgnoreDifferences', async () => {
  const desired = deployment([{ name: 'orders', image: 'orders:1' }]);
  const c = await compareObject(
    { key, applied: desired, live: scaled },
    { rules: [rule({ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] })], fieldManager: FM },
  );
  expect(c.status).toBe('in-sync');
  expect(c.fields.map((f) => `${renderPath(f.path)} ${f.verdict} ${f.owners.map((o) => o.manager).join(',')}`)).toEqual(['spec.replicas ignored kubectl']);
  expect(c.ignoredLive.live.map((f) => [renderPath(f.path), f.live])).toEqual([['spec.replicas', 5]]);
  // The report form carries none of the working data.
  expect(Object.keys(reportedDiff(c)).sort()).toEqual(['apiVersion', 'fields', 'key', 'status']);
});

test('server-side: the dry-run decides which fields conflict, not the managedFields guess', async () => {
  const live = deployment([{ name: 'orders', image: 'nginx:2' }], {
    managedFields: [
      {
        manager: 'kubectl-set',
        operation: 'Update',
        apiVersion: 'apps/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"orders"}': { 'f:image': {} } } } } } },
      },
    ],
  });
  const desired = deployment([{ name: 'orders', image: 'orders:1' }]);
  const path = 'spec.template.spec.containers[name=orders].image';
  expect((await compareObject({ key, applied: desired, live }, { rules: [], fieldManager: FM })).fields.map((f) => f.verdict)).toEqual(['conflict']);
  const at = parseServerField('.spec.template.spec.containers[name="orders"].image', live as unknown as JsonValue)!;
  const refused = await compareObject({ key, applied: desired, live, server: { predicted: desired, conflicts: [{ at }] } }, { rules: [], fieldManager: FM });
  expect(refused.fields.map((f) => `${renderPath(f.path)} ${f.verdict}`)).toEqual([`${path} conflict`]);
  const accepted = await compareObject({ key, applied: desired, live, server: { predicted: desired, conflicts: [] } }, { rules: [], fieldManager: FM });
  expect(accepted.fields.map((f) => `${renderPath(f.path)} ${f.verdict}`)).toEqual([`${path} drift`]);
});

test('server-side: a refused label whose key has dots matches its diff row (the server spells it without brackets)', async () => {
  const labelled = (v: string, managedFields?: unknown[]) =>
    ({
      ...deployment([{ name: 'orders', image: 'orders:1' }]),
      metadata: { name: 'orders', namespace: 'shop', labels: { 'app.kubernetes.io/name': v }, ...(managedFields ? { managedFields } : {}) },
    }) as KubeObject;
  const live = labelled('old', [
    {
      manager: 'helm',
      operation: 'Update',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app.kubernetes.io/name': {} } } },
    },
  ]);
  const desired = labelled('orders');
  const at = parseServerField('.metadata.labels.app.kubernetes.io/name', live as unknown as JsonValue)!;
  expect(renderPath(at)).toBe('metadata.labels[app.kubernetes.io/name]');
  const refused = await compareObject({ key, applied: desired, live, server: { predicted: desired, conflicts: [{ at }] } }, { rules: [], fieldManager: FM });
  expect(refused.fields.map((f) => `${renderPath(f.path)} ${f.verdict}`)).toEqual(['metadata.labels[app.kubernetes.io/name] conflict']);
});

test('the app verdict: extras count unless IgnoreExtraneous; a missing object or one that could not be compared is OutOfSync', async () => {
  const inSync = deployment([{ name: 'orders', image: 'orders:1' }]);
  const extra = (name: string, opts?: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'shop', ...(opts ? { annotations: { 'argocd.argoproj.io/compare-options': opts } } : {}) },
  });
  const quiet = await compareApp({
    desired: [{ key, applied: inSync, live: inSync }],
    extras: [{ key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'b' }, object: extra('b', 'IgnoreExtraneous') }],
    rules: [],
    fieldManager: FM,
  });
  expect(quiet.sync).toBe('Synced');
  expect(quiet.extras.map((e) => e.counts)).toEqual([false]);
  const loud = await compareApp({
    desired: [{ key, applied: inSync, live: inSync }],
    extras: [{ key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'a' }, object: extra('a') }],
    rules: [],
    fieldManager: FM,
  });
  expect(loud.sync).toBe('OutOfSync');
  expect((await compareApp({ desired: [{ key, applied: inSync }], rules: [], fieldManager: FM })).objects[0]!.status).toBe('missing');
  expect(appSync([{ status: 'in-sync', failure: new Error('x') }], [])).toBe('OutOfSync');

  // A jq error is a warning on that object; jq that cannot even start is a failure of that object only, and the diff
  // commands fail with it (status makes that resource Unknown).
  const jqRule = [rule({ group: 'apps', kind: 'Deployment', jqPathExpressions: ['error("boom")'] })];
  const drifted = deployment([{ name: 'orders', image: 'orders:2' }]);
  const warned = await compareApp({ desired: [{ key, applied: drifted, live: inSync }], rules: jqRule, fieldManager: FM, jq: async () => jq });
  expect(warned.objects[0]!.failure).toBeUndefined();
  const quoted = JSON.stringify('error("boom")');
  expect(warned.warnings).toEqual([
    `Deployment/orders: ignoreDifferences[0] jq ${quoted} on desired: boom`,
    `Deployment/orders: ignoreDifferences[0] jq ${quoted} on live: boom`,
  ]);
  const cm: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' }, data: { a: '1' } };
  const broken = await compareApp({
    desired: [
      { key, applied: drifted, live: inSync },
      { key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'c' }, applied: cm, live: cm },
    ],
    rules: jqRule,
    fieldManager: FM,
    jq: async () => {
      throw new Error('jq did not start');
    },
  });
  expect(broken.objects.map((o) => [o.status, o.failure?.message])).toEqual([
    ['drifted', 'jq did not start'],
    ['in-sync', undefined],
  ]);
  expect(broken.sync).toBe('OutOfSync');
  const f = firstFailure(broken);
  expect([f?.message, (f?.cause as Error).message]).toEqual(['diffing Deployment/orders', 'jq did not start']);
});

test('a jq rule that takes out a whole live element before a declared one: the declared element keeps its own drift row, by name', async () => {
  const desired = deployment([{ name: 'api', image: 'api:2' }]);
  const live = deployment([
    { name: 'istio-proxy', image: 'proxy:1' },
    { name: 'api', image: 'api:1' },
  ]);
  const c = await compareObject(
    { key, applied: desired, live },
    {
      rules: [rule({ group: 'apps', kind: 'Deployment', jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == "istio-proxy")'] })],
      fieldManager: FM,
      jq: async () => jq,
    },
  );
  expect(c.status).toBe('drifted');
  expect(
    c.fields.filter((f) => f.verdict !== 'ignored').map((f) => `${renderPath(f.path)} ${JSON.stringify(f.desired)} ${JSON.stringify(f.live)} ${f.verdict}`),
  ).toEqual(['spec.template.spec.containers[name=api].image "api:2" "api:1" drift']);
});

test("a Secret's annotations argocd-cm names (resource.sensitive.mask.annotations) are masked in its drift rows, as its data is", async () => {
  const secret = (token: string, team: string): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'db', namespace: 'shop', annotations: { token, team } },
    data: { password: 'c2VjcmV0' },
  });
  const live: KubeObject = {
    ...secret('SECRETVAL', 'a'),
    metadata: {
      ...secret('SECRETVAL', 'a').metadata,
      managedFields: [
        {
          manager: FM,
          operation: 'Apply',
          apiVersion: 'v1',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:annotations': { 'f:token': {}, 'f:team': {} } }, 'f:data': { 'f:password': {} } },
        },
      ],
    },
  };
  const entry = { key: { group: '', kind: 'Secret', namespace: 'shop', name: 'db' }, applied: secret('NEWSECRETVAL', 'b'), live };
  const rows = async (sensitive?: ReadonlySet<string>) =>
    (await compareObject(entry, { rules: [], fieldManager: FM, ...(sensitive ? { sensitiveAnnotations: sensitive } : {}) })).fields.map(
      (f) => `${renderPath(f.path)} ${JSON.stringify(f.desired)} ${JSON.stringify(f.live)}`,
    );
  expect(await rows(new Set(['token']))).toEqual(['metadata.annotations.token "++++++++" "++++++++++++"', 'metadata.annotations.team "b" "a"']);
  // Without the setting an annotation is not a Secret value: shown, as Argo CD shows it.
  expect(await rows()).toEqual(['metadata.annotations.token "NEWSECRETVAL" "SECRETVAL"', 'metadata.annotations.team "b" "a"']);
});
