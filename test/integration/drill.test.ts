// The drift drill end to end on the real control plane, through the built plugin: sync, drift by hand,
// diff naming field and manager, sync healing it while leaving replicas, prune candidate rules, and the empty-set refusal.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { applyYaml, createTestNamespace, deleteNamespace, getJson, kubectlOk, runPlugin, waitFor } from './support/index.js';
import type { KubeObject } from '../../src/model/object.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TID = 'argocd.argoproj.io/tracking-id';
const IMAGE = 'spec.template.spec.containers[name=orders].image';

let ns: string;
let desiredDir: string;
let emptyDir: string;
let appArgs: string[];

const DESIRED = `apiVersion: apps/v1
kind: Deployment
metadata: {name: orders}
spec:
  selector: {matchLabels: {app: orders}}
  template:
    metadata: {labels: {app: orders}}
    spec:
      containers: [{name: orders, image: "registry.local/orders:1.0.0"}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: orders-config}
data: {LOG_LEVEL: info}
`;

function application(namespace: string): string {
  return applicationYaml({
    namespace,
    spec: {
      project: 'default',
      source: { repoURL: 'https://example.invalid/shop.git', path: 'k8s', targetRevision: 'main' },
      destination: inCluster(namespace),
      ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] }],
      syncPolicy: { automated: { prune: true, selfHeal: true, allowEmpty: false }, syncOptions: ['PruneLast=true', 'ServerSideApply=true'] },
    },
  });
}

function kv(stdout: string): string[] {
  return stdout.trimEnd().split('\n');
}

async function uids(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const kind of ['deployment', 'configmap', 'replicaset']) {
    const list = JSON.parse(await kubectlOk(['get', kind, '-n', ns, '-o', 'json'])) as { items: KubeObject[] };
    for (const o of list.items) out[`${kind}/${o.metadata.name}`] = o.metadata.uid ?? '';
  }
  return out;
}

beforeAll(async () => {
  ns = await createTestNamespace('drill');
  // The Application lives in the test namespace, outside argocd: its tracking-ids start with `<ns>_shop`.
  await applyYaml(application(ns));
  const root = tempDir('kgitops-drill');
  desiredDir = join(root, 'k8s');
  emptyDir = join(root, 'empty');
  mkdirSync(desiredDir);
  mkdirSync(emptyDir);
  writeFileSync(join(desiredDir, 'orders.yaml'), DESIRED);
  appArgs = ['shop', '--app-namespace', ns, '--desired', desiredDir];
});

afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

test('sync applies both objects and marks them with the app instance', async () => {
  const res = await runPlugin(['sync', ...appArgs, '-o', 'kv']);
  expect(res.stderr).toBe('');
  expect(kv(res.stdout)).toEqual(['APPLIED=2', 'PHASE=Succeeded']);
  expect(res.code).toBe(0);
  const deploy = await getJson('deployment', 'orders', ns);
  const cm = await getJson('configmap', 'orders-config', ns);
  expect(deploy.metadata.annotations?.[TID]).toBe(`${ns}_shop:apps/Deployment:${ns}/orders`);
  expect(cm.metadata.annotations?.[TID]).toBe(`${ns}_shop:/ConfigMap:${ns}/orders-config`);
  expect(deploy.metadata.managedFields?.some((m) => m.manager === 'argocd-controller' && m.operation === 'Apply')).toBe(true);
  // Nothing changed since: diff is in sync (ignored fields may still be named, they never count).
  const diff = await runPlugin(['diff', ...appArgs, '-o', 'kv']);
  expect(kv(diff.stdout).filter((l) => !l.startsWith('IGNORED='))).toEqual(['SYNC=Synced']);
  expect(diff.code).toBe(0);
});

test('hand-made drift: diff names the image field and its manager, and the ignored replicas', async () => {
  await kubectlOk(['scale', 'deployment/orders', '--replicas=5', '-n', ns]);
  await kubectlOk(['set', 'image', 'deployment/orders', 'orders=registry.local/orders:2.0.0-hotfix', '-n', ns]);
  const res = await runPlugin(['diff', ...appArgs, '-o', 'kv']);
  expect(res.code).toBe(1);
  const lines = kv(res.stdout);
  expect(lines[0]).toBe('SYNC=OutOfSync');
  expect(lines).toContain(`DRIFT=Deployment/orders ${IMAGE}`);
  expect(lines).toContain(`OWNER=Deployment/orders ${IMAGE} kubectl-set`);
  expect(lines.filter((l) => l.startsWith('IGNORED='))).toEqual(['IGNORED=Deployment/orders spec.replicas -']);
  expect(lines.filter((l) => l.startsWith('DRIFT='))).toEqual([`DRIFT=Deployment/orders ${IMAGE}`]);
  // The `-` above (docs/commands/sync.md): on 1.35 a scale through /scale of a spec.replicas no manager owned (the
  // desired Deployment leaves it out) is recorded by no field manager, so none can be named.
  const scaled = await getJson('deployment', 'orders', ns);
  const ownsReplicas = (f: unknown) => (f as { 'f:spec'?: Record<string, unknown> } | undefined)?.['f:spec']?.['f:replicas'] !== undefined;
  expect(scaled.metadata.managedFields?.filter((m) => ownsReplicas(m.fieldsV1)).map((m) => m.manager)).toEqual([]);

  const json = await runPlugin(['diff', ...appArgs, '-o', 'json']);
  const report = JSON.parse(json.stdout) as {
    schemaVersion: number;
    sync: string;
    objects: { key: { name: string }; fields: { path: string; verdict: string; desired?: unknown; live?: unknown; owners: { manager: string }[] }[] }[];
  };
  expect(report.schemaVersion).toBe(1);
  expect(report.sync).toBe('OutOfSync');
  const fields = report.objects.find((o) => o.key.name === 'orders')!.fields;
  const image = fields.find((f) => f.path === IMAGE)!;
  expect(image).toMatchObject({ desired: 'registry.local/orders:1.0.0', live: 'registry.local/orders:2.0.0-hotfix' });
  expect(image.owners.map((o) => o.manager)).toContain('kubectl-set');
  expect(fields.find((f) => f.path === 'spec.replicas')).toMatchObject({ verdict: 'ignored', live: 5, owners: [] });
});

test('sync heals the image (naming the manager it was taken from) and leaves replicas at 5', async () => {
  const res = await runPlugin(['sync', ...appArgs, '-o', 'kv']);
  expect(res.code).toBe(0);
  const lines = kv(res.stdout);
  expect(lines[0]).toBe('APPLIED=2');
  expect(lines).toContain(`HEALED=Deployment/orders ${IMAGE} kubectl-set`);
  expect(lines.filter((l) => l.startsWith('IGNORED='))).toEqual(['IGNORED=Deployment/orders spec.replicas -']);
  const deploy = await getJson<KubeObject & { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }>(
    'deployment',
    'orders',
    ns,
  );
  expect(deploy.spec.template.spec.containers[0]!.image).toBe('registry.local/orders:1.0.0');
  expect(deploy.spec.replicas).toBe(5);
  expect(deploy.metadata.managedFields?.some((m) => m.manager === 'kubectl-set' && JSON.stringify(m.fieldsV1 ?? {}).includes('f:image'))).toBe(false);
});

test('a mark removed by hand is drift (as Argo CD compares the marked target): diff and status say so, sync puts it back', async () => {
  await kubectlOk(['annotate', 'configmap', 'orders-config', '-n', ns, 'argocd.argoproj.io/tracking-id-']);
  const diff = await runPlugin(['diff', ...appArgs, '-o', 'kv']);
  expect(diff.code).toBe(1);
  expect(kv(diff.stdout)).toContainEqual(expect.stringMatching(/^DRIFT=ConfigMap\/orders-config metadata\.annotations/));
  const status = await runPlugin(['status', ...appArgs, '-o', 'kv']);
  expect(kv(status.stdout)).toContain('SYNC=OutOfSync');
  const sync = await runPlugin(['sync', ...appArgs, '-o', 'kv']);
  expect(sync.code).toBe(0);
  const cm = await getJson<KubeObject>('configmap', 'orders-config', ns);
  expect(cm.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toMatch(/^.*:\/ConfigMap:.*\/orders-config$/);
  expect((await runPlugin(['diff', ...appArgs, '-o', 'kv'])).code).toBe(0);
});

test('prune lists only self-referencing marks of this app on root objects; Prune=false is listed as skipped', async () => {
  const mark = (name: string) => `${ns}_shop:/ConfigMap:${ns}/${name}`;
  const cm = (name: string, annotations: Record<string, string> = {}) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, annotations }, data: { x: '1' } });
  await applyYaml(cm('leftover', { [TID]: mark('leftover') }));
  await applyYaml(cm('by-hand'));
  await applyYaml(cm('billing-config', { [TID]: `billing:/ConfigMap:${ns}/billing-config` }));
  await applyYaml(cm('copied', { [TID]: mark('orders-config') }));
  await applyYaml(cm('keep-me', { [TID]: mark('keep-me'), 'argocd.argoproj.io/sync-options': 'Prune=false' }));
  // The Deployment's ReplicaSet carries a copy of the Deployment's mark and an owner reference.
  const rs = await waitFor(
    async () => {
      const list = JSON.parse(await kubectlOk(['get', 'replicaset', '-n', ns, '-o', 'json'])) as { items: KubeObject[] };
      return list.items.find((r) => r.metadata.ownerReferences?.some((o) => o.kind === 'Deployment' && o.name === 'orders'));
    },
    { what: 'the ReplicaSet of deployment/orders' },
  );
  expect(rs.metadata.annotations?.[TID]).toBe(`${ns}_shop:apps/Deployment:${ns}/orders`);

  const res = await runPlugin(['prune', ...appArgs, '-o', 'kv']);
  expect(res.code).toBe(0);
  expect(kv(res.stdout)).toEqual(['PRUNE=ConfigMap/leftover', 'PRUNE_SKIPPED=ConfigMap/keep-me annotated argocd.argoproj.io/sync-options: Prune=false']);

  const json = JSON.parse((await runPlugin(['prune', ...appArgs, '-o', 'json'])).stdout) as {
    schemaVersion: number;
    entries: { name: string; outcome: string; uid?: string }[];
    notOwned: { kind: string; name: string; reason: string }[];
  };
  expect(json.schemaVersion).toBe(1);
  const reasons = Object.fromEntries(json.notOwned.map((n) => [`${n.kind}/${n.name}`, n.reason]));
  expect(reasons['ConfigMap/billing-config']).toBe('tracked by application billing');
  expect(reasons['ConfigMap/copied']).toMatch(/names another object/);
  expect(reasons[`ReplicaSet/${rs.metadata.name}`]).toMatch(/names another object|has an owner/);
  expect(json.entries.map((e) => e.name).sort()).toEqual(['keep-me', 'leftover']);

  // The diff shows the extras too.
  const diff = await runPlugin(['diff', ...appArgs, '-o', 'kv']);
  expect(diff.code).toBe(1);
  expect(kv(diff.stdout)).toEqual(expect.arrayContaining(['SYNC=OutOfSync', 'EXTRA=ConfigMap/leftover', 'EXTRA=ConfigMap/keep-me']));
  expect(diff.stdout).not.toMatch(/EXTRA=ConfigMap\/(by-hand|billing-config|copied|kube-root-ca\.crt)/);

  // --confirm deletes the one candidate; everything else stays.
  const del = await runPlugin(['prune', ...appArgs, '--confirm', '-o', 'kv']);
  expect(del.code).toBe(0);
  expect(kv(del.stdout)).toEqual(['PRUNED=ConfigMap/leftover', 'PRUNE_SKIPPED=ConfigMap/keep-me annotated argocd.argoproj.io/sync-options: Prune=false']);
  const left = JSON.parse(await kubectlOk(['get', 'configmap', '-n', ns, '-o', 'json'])) as { items: KubeObject[] };
  expect(left.items.map((c) => c.metadata.name).sort()).toEqual(['billing-config', 'by-hand', 'copied', 'keep-me', 'kube-root-ca.crt', 'orders-config']);
});

test('an empty desired directory is refused with exit 4 and every object keeps its uid', async () => {
  const before = await uids();
  const res = await runPlugin(['sync', 'shop', '--app-namespace', ns, '--desired', emptyDir, '-o', 'kv']);
  expect(res.code).toBe(4);
  expect(res.stdout).toMatch(/^REFUSED=the desired set of shop is empty and allowEmpty is not true/);
  // The refusal, then the phase the refused operation is recorded in (Argo CD's Error); a local --desired has no revision.
  expect(kv(res.stdout).slice(1)).toEqual(['PHASE=Error']);
  expect(await uids()).toEqual(before);
  expect(Object.keys(before)).toEqual(expect.arrayContaining(['deployment/orders', 'configmap/orders-config', 'configmap/keep-me']));
});
