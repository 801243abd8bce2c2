// A conflict on a label whose key has dots, on the real API server. The server names the field
// `.metadata.labels.app.kubernetes.io/part-of`; the diff names it `metadata.labels[app.kubernetes.io/part-of]`. The field
// is read against the live object (model/field-path.ts parseServerField), so the refused field and the diff row are one
// field: the row's verdict is `conflict` in `diff --server-side`, and every output names it the same way.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const LABEL = 'metadata.labels[app.kubernetes.io/part-of]';
let ns: string;
let args: string[];

beforeAll(async () => {
  ns = await createTestNamespace('conflict-labels');
  const root = tempDir('kgitops-conflict-labels');
  const dir = join(root, 'desired');
  mkdirSync(dir);
  writeFileSync(join(root, 'app.yaml'), applicationYaml({ name: 'shop', spec: { destination: inCluster(ns) } }));
  writeFileSync(
    join(dir, 'settings.yaml'),
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels: {app.kubernetes.io/part-of: shop, app.kubernetes.io/name: settings}\ndata: {mode: fast}\n`,
  );
  args = ['-f', join(root, 'app.yaml'), '--desired', dir];
  const first = await runPlugin(['sync', ...args, '-o', 'kv']);
  expect(first.stdout).toBe('APPLIED=1\nPHASE=Succeeded\n');
  await kubectlOk(['label', '--overwrite', 'configmap/settings', 'app.kubernetes.io/part-of=billing', '-n', ns]);
});

afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

test('diff --server-side: the refused label is the diff row, a conflict, named the same in json and kv', async () => {
  const res = await runPlugin(['diff', ...args, '--server-side', '-o', 'json']);
  expect(res.code).toBe(1);
  const report = JSON.parse(res.stdout) as {
    conflicts: { path: string; field: string; manager: string }[];
    objects: { fields: { path: string; verdict: string; owners: { manager: string }[] }[] }[];
  };
  expect(report.conflicts.map((c) => [c.path, c.field, c.manager])).toEqual([[LABEL, '.metadata.labels.app.kubernetes.io/part-of', 'kubectl-label']]);
  expect(report.objects.flatMap((o) => o.fields.map((f) => [f.path, f.verdict]))).toEqual([[LABEL, 'conflict']]);
  const kv = await runPlugin(['diff', ...args, '--server-side', '-o', 'kv']);
  expect(kv.stdout).toContain(`CONFLICT=ConfigMap/settings ${LABEL} kubectl-label`);
});

test('sync --no-force-conflicts names the label the same way and writes nothing; a sync takes it back', async () => {
  const res = await runPlugin(['sync', ...args, '--no-force-conflicts', '-o', 'kv']);
  expect(res.code).toBe(3);
  expect(res.stdout).toMatch(new RegExp(`^APPLIED=0\nCONFLICT=ConfigMap/settings ${LABEL.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} kubectl-label\n`));
  expect(res.stdout).toMatch(/^STOPPED=/m);
  const forced = await runPlugin(['sync', ...args, '-o', 'kv']);
  expect(forced.code).toBe(0);
  expect(forced.stdout).toBe(`APPLIED=1\nHEALED=ConfigMap/settings ${LABEL} kubectl-label\nPHASE=Succeeded\n`);
});
