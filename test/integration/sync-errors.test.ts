// Cluster failures through the built plugin: an unreachable server and a forbidden user give exit 3 and a
// one-line message (403 naming verb, resource and namespace); -v adds the cause chain; --dry-run changes nothing.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { parse, stringify } from 'yaml';
import { createTestNamespace, deleteNamespace, getJson, kubeconfigPath, kubectlOk, pluginPath, run, runPlugin, waitFor } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

let ns: string;
let root: string;
let args: string[];

beforeAll(async () => {
  ns = await createTestNamespace('sync-errors');
  root = tempDir('kgitops-errors');
  mkdirSync(join(root, 'desired'));
  writeFileSync(join(root, 'desired', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "1"}\n');
  writeFileSync(join(root, 'app.yaml'), applicationYaml({ name: 'errs', namespace: null, spec: { destination: inCluster(ns) } }));
  args = ['-f', join(root, 'app.yaml'), '--desired', join(root, 'desired')];
});

afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

/** A copy of the test kubeconfig with one change to its (only) cluster or user. */
function variant(
  name: string,
  change: (doc: { clusters: { cluster: Record<string, unknown> }[]; users: { user: Record<string, unknown> }[] }) => void,
): string {
  const doc = parse(readFileSync(kubeconfigPath(), 'utf8'));
  change(doc);
  const path = join(root, `${name}.kubeconfig`);
  writeFileSync(path, stringify(doc));
  return path;
}

test('an unreachable API server: exit 3, one line; -v shows the cause', async () => {
  const kc = variant('dead', (d) => void (d.clusters[0]!.cluster.server = 'https://127.0.0.1:1'));
  const res = await run(pluginPath, ['sync', ...args, '--kubeconfig', kc, '-o', 'kv']);
  expect(res.code).toBe(3);
  expect(res.stdout).toBe('');
  expect(res.stderr.trimEnd().split('\n')).toEqual([
    expect.stringMatching(/^error: .*cannot reach the API server at https:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)$/),
  ]);
  const verbose = await run(pluginPath, ['sync', ...args, '--kubeconfig', kc, '-v']);
  expect(verbose.stderr).toMatch(/caused by: .*ECONNREFUSED/);
});

test('a user without rights: exit 3 and the 403 names verb, resource and namespace', async () => {
  const kc = variant('nobody', (d) => void (d.users[0]!.user.as = 'kgitops-nobody'));
  const res = await run(pluginPath, ['prune', ...args, '--kubeconfig', kc, '-o', 'kv']);
  expect(res.code).toBe(3);
  expect(res.stderr).toMatch(new RegExp(`forbidden \\(403\\): cannot (get|list) configmaps in namespace "${ns}"`));
  expect(res.stderr.trimEnd().split('\n')).toHaveLength(1);
});

test("a 403 that is no RBAC refusal (an exceeded ResourceQuota) is the API server's own text, not a missing permission", async () => {
  const quotaNs = await createTestNamespace('sync-quota');
  try {
    await kubectlOk(['create', 'quota', 'q', '--hard=count/secrets=0', '-n', quotaNs]);
    // Once the quota controller has counted, the admission plugin refuses with "exceeded quota".
    await waitFor(async () => (await getJson<{ status?: { used?: object } }>('resourcequota', 'q', quotaNs)).status?.used, { what: 'the quota counted' });
    const dir = join(root, 'quota');
    mkdirSync(dir);
    writeFileSync(join(dir, 's.yaml'), 'apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {password: quota-hunter2-value}\n');
    writeFileSync(join(root, 'quota-app.yaml'), applicationYaml({ name: 'quota', namespace: null, spec: { destination: inCluster(quotaNs) } }));
    const res = await runPlugin(['sync', '-f', join(root, 'quota-app.yaml'), '--desired', dir, '-o', 'kv']);
    expect(res.code).toBe(3);
    const out = res.stdout + res.stderr;
    expect(out).toMatch(/forbidden \(403\): secrets "creds" is forbidden: exceeded quota: q/);
    expect(out).not.toMatch(/cannot (patch|create) secrets/);
    expect(out).not.toContain('quota-hunter2-value');
  } finally {
    await deleteNamespace(quotaNs);
  }
});

test('an object annotated hook: Skip of a kind the cluster does not serve is left out: diff, status and sync go on (exit 0)', async () => {
  const skipNs = await createTestNamespace('sync-skip');
  const dir = join(root, 'skip-unserved');
  mkdirSync(dir);
  writeFileSync(join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: "1"}\n');
  writeFileSync(
    join(dir, 'skip.yaml'),
    'apiVersion: unserved.example.com/v1\nkind: Gizmo\nmetadata:\n  name: g\n  annotations: {argocd.argoproj.io/hook: Skip}\n',
  );
  writeFileSync(join(root, 'skip-app.yaml'), applicationYaml({ name: 'skip', namespace: null, spec: { destination: inCluster(skipNs) } }));
  const skipArgs = ['-f', join(root, 'skip-app.yaml'), '--desired', dir];
  try {
    const sync = await runPlugin(['sync', ...skipArgs, '-o', 'kv']);
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    expect(sync.stdout).toMatch(/^PHASE=Succeeded$/m);
    const diff = await runPlugin(['diff', ...skipArgs, '-o', 'kv']);
    expect([diff.code, diff.stdout]).toEqual([0, 'SYNC=Synced\n']);
    const status = await runPlugin(['status', ...skipArgs, '-o', 'kv']);
    expect(status.code).toBe(0);
    expect(status.stdout).not.toContain('Gizmo');
  } finally {
    await deleteNamespace(skipNs);
  }
});

test('--dry-run prints the plan from a server-side dry-run and creates nothing', async () => {
  const res = await runPlugin(['sync', ...args, '--dry-run', '-o', 'kv']);
  expect(res.code).toBe(0);
  expect(res.stdout).toBe('DRY_RUN=true\nAPPLY=ConfigMap/settings create\n');
  expect(await kubectlOk(['get', 'configmap', 'settings', '-n', ns, '--ignore-not-found'])).toBe('');
  const json = JSON.parse((await runPlugin(['sync', ...args, '--dry-run', '-o', 'json'])).stdout) as {
    schemaVersion: number;
    dryRun: boolean;
    steps: { name: string; outcome: string }[];
  };
  expect(json).toMatchObject({ schemaVersion: 1, dryRun: true, steps: [{ name: 'settings', outcome: 'would-apply' }] });
});
