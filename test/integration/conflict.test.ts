// The conflict preview on the real API server: `diff --server-side` names each field another manager owns
// without failing and without forcing; a sync without force leaves the object alone and exits 3.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, getJson, kubeconfigPath, kubectlOk, runPlugin } from './support/index.js';
import type { KubeObject } from '../../src/model/object.js';
import { applicationYaml, inCluster } from '../support/application.js';

const IMAGE = 'spec.template.spec.containers[name=web].image';
let ns: string;
let args: string[];

beforeAll(async () => {
  ns = await createTestNamespace('conflict');
  const root = tempDir('kgitops-conflict');
  const dir = join(root, 'desired');
  writeFileSync(join(root, 'app.yaml'), applicationYaml({ name: 'web', spec: { destination: inCluster(ns) } }));
  await import('node:fs').then((fs) => fs.mkdirSync(dir));
  writeFileSync(
    join(dir, 'web.yaml'),
    `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "registry.local/web:1"}]
`,
  );
  args = ['-f', join(root, 'app.yaml'), '--desired', dir];
  const first = await runPlugin(['sync', ...args, '-o', 'kv']);
  expect(first.stdout).toBe('APPLIED=1\nPHASE=Succeeded\n');
  await kubectlOk(['set', 'image', 'deployment/web', 'web=registry.local/web:2-manual', '-n', ns]);
});

afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

test('diff --server-side previews the conflict: field, manager, live and desired values; nothing is changed', async () => {
  const before = await getJson('deployment', 'web', ns);
  const res = await runPlugin(['diff', ...args, '--server-side', '-o', 'json']);
  expect(res.code).toBe(1);
  const report = JSON.parse(res.stdout) as {
    serverSide: boolean;
    conflicts: { path: string; field: string; manager: string; live: unknown; desired: unknown }[];
  };
  expect(report.serverSide).toBe(true);
  expect(report.conflicts).toEqual([
    {
      key: { group: 'apps', kind: 'Deployment', namespace: ns, name: 'web' },
      path: IMAGE,
      field: '.spec.template.spec.containers[name="web"].image',
      manager: 'kubectl-set',
      live: 'registry.local/web:2-manual',
      desired: 'registry.local/web:1',
    },
  ]);
  const kv = await runPlugin(['diff', ...args, '--server-side', '-o', 'kv']);
  expect(kv.stdout).toContain(`CONFLICT=Deployment/web ${IMAGE} kubectl-set`);
  const table = await runPlugin(['diff', ...args, '--server-side', '--color', 'never']);
  expect(table.stdout).toMatch(/Conflict preview \(server-side apply dry-run, not forced\): 1 field\(s\) owned by kubectl-set/);
  // The spec was not written (status updates by the deployment controller do not bump the generation).
  const after = await getJson('deployment', 'web', ns);
  expect(after.metadata.generation).toBe(before.metadata.generation);
  expect(after.metadata.managedFields?.find((m) => m.manager === 'argocd-controller')).toEqual(
    before.metadata.managedFields?.find((m) => m.manager === 'argocd-controller'),
  );
});

test('sync --no-force-conflicts does not apply the conflicting object, names the field and manager, exits 3; sync takes it back', async () => {
  const res = await runPlugin(['sync', ...args, '--no-force-conflicts', '-o', 'kv']);
  expect(res.code).toBe(3);
  const why = 'the server-side dry-run found 1 field(s) owned by kubectl-set, and fields are not taken back (--no-force-conflicts)';
  expect(res.stdout).toBe(
    `APPLIED=0\nCONFLICT=Deployment/web ${IMAGE} kubectl-set\nSTOPPED=${why}\nNEXT_COMMAND=kubectl gitops sync ${args.join(' ')} -o kv --kubeconfig ${kubeconfigPath()}\nPHASE=Failed\n`,
  );
  const live = await getJson<KubeObject & { spec: { template: { spec: { containers: { image: string }[] } } } }>('deployment', 'web', ns);
  expect(live.spec.template.spec.containers[0]!.image).toBe('registry.local/web:2-manual');
  // A sync takes it back by default (as Argo CD's) and says from whom.
  const forced = await runPlugin(['sync', ...args, '-o', 'kv']);
  expect(forced.code).toBe(0);
  expect(forced.stdout).toBe(`APPLIED=1\nHEALED=Deployment/web ${IMAGE} kubectl-set\nPHASE=Succeeded\n`);
});
