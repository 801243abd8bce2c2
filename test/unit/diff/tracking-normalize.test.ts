// Argo CD's tracking normalization before the diff (v3.2.11 util/argo/resource_tracking.go Normalize, called by
// util/argo/diff/diff.go preDiffNormalize): under annotation or annotation+label tracking, a live object carrying the
// instance label with a value (not a CRD) is compared as carrying the desired tracking-id, and without the label when
// the desired object has none. For the comparison only: the live object itself is not changed.
import { compareObject } from '../../../src/diff/comparison.js';
import { normalizeTracking, type Tracking } from '../../../src/tracking/method.js';
import { asApplied } from '../../../src/tracking/tracking-id.js';
import type { KubeObject } from '../../../src/model/object.js';

const TID = 'argocd.argoproj.io/tracking-id';
const LABEL = 'app.kubernetes.io/instance';
const FM = 'argocd-controller';
const tracking = (method: Tracking['method'], labelKey = LABEL): Tracking => ({ method, labelKey, installationID: '' });
const key = { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'c' };
const declared: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shop' }, data: { a: '1' } };
/** What label tracking left live: the instance label, applied by our manager, and no tracking-id. */
const labelled = (annotations?: Record<string, string>, labelKey = LABEL): KubeObject => ({
  ...declared,
  metadata: {
    ...declared.metadata,
    labels: { [labelKey]: 'shop' },
    ...(annotations ? { annotations } : {}),
    managedFields: [
      {
        manager: FM,
        operation: 'Apply',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { [`f:${labelKey}`]: {} } }, 'f:data': { 'f:a': {} } },
      },
    ],
  },
});
const compare = (t: Tracking, live: KubeObject, desired: KubeObject = declared) =>
  compareObject({ key, applied: asApplied(desired, 'shop', 'shop', t), declared: desired, live }, { rules: [], fieldManager: FM, tracking: t });
const rows = (c: Awaited<ReturnType<typeof compare>>) => c.fields.map((f) => `${f.pointer} ${f.verdict}`);

test('the instance label live and no tracking-id (a switch from label tracking): Synced under annotation tracking', async () => {
  const live = labelled();
  const before = JSON.stringify(live);
  const c = await compare(tracking('annotation'), live);
  expect(rows(c)).toEqual([]);
  expect(c.status).toBe('in-sync');
  expect(JSON.stringify(live)).toBe(before);
  // Without the tracking method the comparison takes live as it is: the missing mark and the label our manager applied.
  const plain = await compareObject(
    { key, applied: asApplied(declared, 'shop', 'shop', tracking('annotation')), declared, live },
    { rules: [], fieldManager: FM },
  );
  expect(rows(plain)).toEqual(['/metadata/annotations drift', '/metadata/labels removed']);
});

test("the instance label and another app's tracking-id: no drift on the tracking-id or the label", async () => {
  const c = await compare(tracking('annotation'), labelled({ [TID]: 'other:/ConfigMap:shop/c' }));
  expect(rows(c)).toEqual([]);
  // Other drift is still drift.
  const drifted = await compare(tracking('annotation'), { ...labelled({ [TID]: 'other:/ConfigMap:shop/c' }), data: { a: '2' } });
  expect(rows(drifted)).toEqual(['/data/a drift']);
});

test("another app's tracking-id without the instance label is drift: Normalize needs the label", async () => {
  const live: KubeObject = { ...declared, metadata: { ...declared.metadata, annotations: { [TID]: 'other:/ConfigMap:shop/c' } } };
  expect(rows(await compare(tracking('annotation'), live))).toEqual([`/metadata/annotations/${TID.replace('/', '~1')} drift`]);
  expect(normalizeTracking(declared, live, tracking('annotation'))).toBe(live);
  const empty: KubeObject = { ...live, metadata: { ...live.metadata, labels: { [LABEL]: '' } } };
  expect(normalizeTracking(declared, empty, tracking('annotation'))).toBe(empty);
});

test('label tracking: no normalization', async () => {
  const live = labelled({ [TID]: 'other:/ConfigMap:shop/c' });
  expect(normalizeTracking(asApplied(declared, 'shop', 'shop', tracking('label')), live, tracking('label'))).toBe(live);
  const other: KubeObject = { ...declared, metadata: { ...declared.metadata, labels: { [LABEL]: 'other' } } };
  expect(rows(await compare(tracking('label'), other))).toEqual([`/metadata/labels/${LABEL.replace('/', '~1')} drift`]);
});

test('a CustomResourceDefinition is not normalized', () => {
  const crd: KubeObject = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', labels: { [LABEL]: 'shop' } },
  };
  const desired: KubeObject = {
    ...crd,
    metadata: { name: 'widgets.example.com', annotations: { [TID]: 'shop:apiextensions.k8s.io/CustomResourceDefinition:shop/widgets.example.com' } },
  };
  expect(normalizeTracking(desired, crd, tracking('annotation'))).toBe(crd);
  // A kind of that name in another group is normalized.
  const lookalike: KubeObject = { ...crd, apiVersion: 'example.com/v1' };
  expect(normalizeTracking(desired, lookalike, tracking('annotation')).metadata).toEqual({
    name: 'widgets.example.com',
    annotations: { [TID]: 'shop:apiextensions.k8s.io/CustomResourceDefinition:shop/widgets.example.com' },
  });
});

test('annotation+label: the desired object carries the label, so the live label is kept (and compared)', async () => {
  const t = tracking('annotation+label');
  const live = labelled();
  const applied = asApplied(declared, 'shop', 'shop', t);
  expect(normalizeTracking(applied, live, t).metadata.labels).toEqual({ [LABEL]: 'shop' });
  expect(normalizeTracking(applied, live, t).metadata.annotations).toEqual({ [TID]: 'shop:/ConfigMap:shop/c' });
  expect(rows(await compare(t, live))).toEqual([]);
  // The label names another app: still drift, as in Argo CD (only the tracking-id is taken from desired).
  const other = labelled();
  other.metadata.labels = { [LABEL]: 'other' };
  expect(rows(await compare(t, other))).toEqual([`/metadata/labels/${LABEL.replace('/', '~1')} drift`]);
});

test('application.instanceLabelKey: the configured key is the one read and removed; the last label gone takes the map with it', () => {
  const t = tracking('annotation', 'team/app');
  const live: KubeObject = { ...declared, metadata: { ...declared.metadata, labels: { 'team/app': 'shop' } } };
  const out = normalizeTracking(asApplied(declared, 'shop', 'shop', t), live, t);
  expect(out.metadata).toEqual({ name: 'c', namespace: 'shop', annotations: { [TID]: 'shop:/ConfigMap:shop/c' } });
  expect(live.metadata.labels).toEqual({ 'team/app': 'shop' });
  const defaultKey: KubeObject = { ...declared, metadata: { ...declared.metadata, labels: { [LABEL]: 'shop' } } };
  expect(normalizeTracking(declared, defaultKey, t)).toBe(defaultKey);
});
