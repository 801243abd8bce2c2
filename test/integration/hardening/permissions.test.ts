// Permissions, under realistic RBAC (each user reads its namespace, the kinds at cluster scope and the Argo CD settings, nothing else): with a read-only user diff and status work and sync/prune refuse before changing anything, naming the missing permission (exit 3, forbidden); with a user that may apply but not delete, sync applies and the prune is reported as forbidden.
import { jest } from '@jest/globals';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { applyYaml, clusterBin, createTestNamespace, kubectlOk, kubeconfigPath, pluginPath, run, runPlugin, type RunResult } from '../support/index.js';
import { configMap, serviceAccountKubeconfig, snapshot, snapshotChanges, tempDir, writeApp, writeDesired } from './support.js';

jest.setTimeout(300_000);

let ns: string;
let work: ReturnType<typeof tempDir>;
let app: string;
let baseline: string;
let changed: string;
let fewer: string;
const kubeconfigs: Record<'reader' | 'applier' | 'cmDeleter', string> = { reader: '', applier: '', cmDeleter: '' };

/** Runs the plugin as a given user (its own --kubeconfig; the admin one is not appended). */
function runAs(user: keyof typeof kubeconfigs, args: string[]): Promise<RunResult> {
  return run(pluginPath, [...args, '--kubeconfig', kubeconfigs[user]]);
}

const snap = () => snapshot(ns);

beforeAll(async () => {
  ns = await createTestNamespace('hardening-perm');
  work = tempDir('perm');
  // What every user here may read, and no more: everything in the app's namespace (the prune scan lists every kind
  // there, and diff reads the Secret), the kinds at cluster scope by name (the scan lists those too; RBAC cannot say
  // "cluster-scoped only", so they are spelled out), and in argocd only the AppProject and the two settings
  // ConfigMaps the tool reads. No user reads Secrets or anything else in other namespaces.
  const subjects = ['reader', 'applier', 'cm-deleter'].map((name) => ({ kind: 'ServiceAccount', name, namespace: ns }));
  const bind = (kind: 'Role' | 'ClusterRole', name: string, namespace?: string) => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: namespace ? { name, namespace } : { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name },
    subjects,
  });
  const clusterScoped = new Map<string, string[]>();
  for (const line of (await kubectlOk(['api-resources', '--namespaced=false', '--verbs=list', '-o', 'name'])).split('\n')) {
    const s = line.trim();
    if (!s) continue;
    const dot = s.indexOf('.');
    const [resource, group] = dot < 0 ? [s, ''] : [s.slice(0, dot), s.slice(dot + 1)];
    clusterScoped.set(group, [...(clusterScoped.get(group) ?? []), resource]);
  }
  expect(clusterScoped.get('')).toContain('namespaces');
  const rbac = (name: string, rules: object[]) => [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } },
    ...(rules.length === 0 ? [] : roleFor(name, rules)),
  ];
  const roleFor = (name: string, rules: object[]) => [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns }, rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace: ns },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
    },
  ];
  const objects = [
    ...rbac('reader', []),
    ...rbac('applier', [{ apiGroups: [''], resources: ['configmaps', 'secrets', 'services'], verbs: ['patch', 'create'] }]),
    ...rbac('cm-deleter', [
      { apiGroups: [''], resources: ['configmaps', 'secrets', 'services'], verbs: ['patch', 'create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] },
    ]),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'read', namespace: ns },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }],
    },
    bind('Role', 'read', ns),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: `${ns}-settings`, namespace: 'argocd' },
      rules: [
        { apiGroups: ['argoproj.io'], resources: ['appprojects'], resourceNames: ['default'], verbs: ['get'] },
        { apiGroups: [''], resources: ['configmaps'], resourceNames: ['argocd-cm', 'argocd-cmd-params-cm'], verbs: ['get'] },
      ],
    },
    bind('Role', `${ns}-settings`, 'argocd'),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `${ns}-read` },
      rules: [...clusterScoped].map(([group, resources]) => ({ apiGroups: [group], resources, verbs: ['get', 'list', 'watch'] })),
    },
    bind('ClusterRole', `${ns}-read`),
  ];
  await applyYaml(objects.map((o) => stringify(o)).join('---\n'));
  kubeconfigs.reader = await serviceAccountKubeconfig('reader', ns, work.dir);
  kubeconfigs.applier = await serviceAccountKubeconfig('applier', ns, work.dir);
  kubeconfigs.cmDeleter = await serviceAccountKubeconfig('cm-deleter', ns, work.dir);

  app = writeApp(work.dir, { name: `perm-${ns}`, destinationNamespace: ns, prune: true });
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, type: 'Opaque', stringData: { user: 'app' } };
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
  baseline = writeDesired(work.dir, 'baseline', [configMap('alpha'), configMap('beta'), secret, service]);
  // alpha changes, beta is no longer declared (a prune candidate), delta is new.
  changed = writeDesired(work.dir, 'changed', [configMap('alpha', { k: 'changed' }), configMap('delta'), secret, service]);
  // Only ConfigMaps remain: beta (ConfigMap), creds (Secret) and web (Service) become prune candidates.
  fewer = writeDesired(work.dir, 'fewer', [configMap('alpha'), configMap('delta')]);
  const res = await runPlugin(['sync', '-f', app, '--desired', baseline]);
  expect(res.code).toBe(0);
});

afterAll(async () => {
  work?.cleanup();
  if (ns) await kubectlOk(['delete', 'clusterrole', `${ns}-read`, '--ignore-not-found']);
  if (ns) await kubectlOk(['delete', 'clusterrolebinding', `${ns}-read`, '--ignore-not-found']);
  if (ns) await kubectlOk(['delete', 'role,rolebinding', `${ns}-settings`, '-n', 'argocd', '--ignore-not-found']);
});

describe('a read-only user', () => {
  it('can see its rights: the token works, reads its namespace, cannot patch, cannot read Secrets elsewhere', async () => {
    const canI = async (...args: string[]) =>
      (await run(join(clusterBin(), 'kubectl'), ['auth', 'can-i', ...args, '--kubeconfig', kubeconfigs.reader])).stdout.trim();
    expect(await canI('list', 'secrets', '-n', ns)).toBe('yes');
    expect(await canI('list', 'clusterroles')).toBe('yes');
    expect(await canI('patch', 'configmaps', '-n', ns)).toBe('no');
    expect(await canI('list', 'secrets', '-n', 'kube-system')).toBe('no');
    expect(await canI('get', 'secrets', '-n', 'argocd')).toBe('no');
  });

  it('status works', async () => {
    const res = await runAs('reader', ['status', '-f', app, '--desired', changed, '-o', 'json']);
    // status exits 0 whenever it produced its report (README, exit codes); the report is the drift diff shows.
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    const report = JSON.parse(res.stdout) as {
      sync: { status: string; outOfSync: number; requiresPruning: number };
      resources: { kind: string; name: string; status: string; requiresPruning: boolean }[];
    };
    expect(report.sync).toEqual({ status: 'OutOfSync', outOfSync: 3, requiresPruning: 1 });
    expect(report.resources.map((r) => `${r.kind}/${r.name} ${r.status}${r.requiresPruning ? ' requiresPruning' : ''}`).sort()).toEqual([
      'ConfigMap/alpha OutOfSync',
      'ConfigMap/beta OutOfSync requiresPruning',
      'ConfigMap/delta OutOfSync',
      'Secret/creds Synced',
      'Service/web Synced',
    ]);
  });

  it('diff works and shows the drift', async () => {
    const res = await runAs('reader', ['diff', '-f', app, '--desired', changed]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/alpha/);
  });

  it('sync refuses before changing anything, naming the missing permission (exit 3)', async () => {
    const before = await snap();
    const res = await runAs('reader', ['sync', '-f', app, '--desired', changed]);
    expect(snapshotChanges(before, await snap())).toEqual([]);
    expect(res.code).toBe(3); // forbidden is a cluster/API error (README, exit codes), not a safety rule (4)
    expect(res.stdout + res.stderr).toMatch(/cannot (patch|create) configmaps in namespace "?[\w-]+"?/);
    expect(res.stdout + res.stderr).toMatch(/nothing was applied or deleted/);
  });

  it('prune --confirm refuses before deleting anything, naming the missing permission (exit 3)', async () => {
    const before = await snap();
    const res = await runAs('reader', ['prune', '--confirm', '-f', app, '--desired', changed]);
    expect(snapshotChanges(before, await snap())).toEqual([]);
    expect(res.code).toBe(3); // forbidden is a cluster/API error (README, exit codes), not a safety rule (4)
    expect(res.stdout + res.stderr).toMatch(/cannot delete configmaps in namespace "?[\w-]+"?/);
  });
});

describe('other kinds of credentials, against the real API server', () => {
  /** The admin kubeconfig with its user stanza changed (the cluster and its CA kept). */
  function variant(name: string, user: (admin: Record<string, unknown>) => Record<string, unknown>): string {
    const cfg = parse(readFileSync(kubeconfigPath(), 'utf8')) as { users: { user: Record<string, unknown> }[] };
    cfg.users[0]!.user = user(cfg.users[0]!.user);
    const file = join(work.dir, `${name}.kubeconfig`);
    writeFileSync(file, stringify(cfg));
    return file;
  }
  const readerToken = () => (parse(readFileSync(kubeconfigs.reader, 'utf8')) as { users: { user: { token: string } }[] }).users[0]!.user.token;

  it('a token file (relative to the kubeconfig) works like the token', async () => {
    writeFileSync(join(work.dir, 'reader.token'), `${readerToken()}\n`);
    const cfg = variant('token-file', () => ({ 'token-file': 'reader.token' }));
    const res = await run(pluginPath, ['diff', '-f', app, '--desired', changed, '--kubeconfig', cfg]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(1);
    const refused = await run(pluginPath, ['sync', '-f', app, '--desired', changed, '--kubeconfig', cfg]);
    expect(refused.code).toBe(3);
    expect(refused.stdout + refused.stderr).toMatch(/cannot (patch|create) configmaps/);
  });

  it('an exec credential plugin (through client-node) works like the token', async () => {
    const plugin = join(work.dir, 'exec-plugin.sh');
    writeFileSync(
      plugin,
      `#!/bin/sh\nprintf '%s' '${JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: readerToken() } })}'\n`,
    );
    chmodSync(plugin, 0o755);
    const cfg = variant('exec', () => ({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } }));
    const res = await run(pluginPath, ['diff', '-f', app, '--desired', changed, '--kubeconfig', cfg]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(1);
    expect(res.stdout).toMatch(/alpha/);
  });

  it('impersonation (as, as-groups) is sent: the admin acting as the reader is refused, with system:masters it is not', async () => {
    const asReader = variant('as-reader', (admin) => ({ ...admin, as: `system:serviceaccount:${ns}:reader` }));
    const before = await snap();
    const refused = await run(pluginPath, ['sync', '-f', app, '--desired', changed, '--kubeconfig', asReader]);
    expect(refused.code).toBe(3);
    expect(refused.stdout + refused.stderr).toMatch(/cannot (patch|create) configmaps/);
    expect(snapshotChanges(before, await snap())).toEqual([]);
    const nobody = variant('as-nobody', (admin) => ({ ...admin, as: 'nobody' }));
    const forbidden = await run(pluginPath, ['diff', '-f', app, '--desired', changed, '--kubeconfig', nobody]);
    expect(forbidden.code).toBe(3);
    expect(forbidden.stderr).toMatch(/forbidden|cannot (list|get)/i);
    const masters = variant('as-masters', (admin) => ({ ...admin, as: 'nobody', 'as-groups': ['system:masters'] }));
    const allowed = await run(pluginPath, ['diff', '-f', app, '--desired', changed, '--kubeconfig', masters]);
    expect(allowed.stderr).toBe('');
    expect(allowed.code).toBe(1);
  });
});

describe('a user that may apply but not delete', () => {
  test('sync applies, reports the prune as forbidden, and hides nothing', async () => {
    const beforeBeta = await kubectlOk(['get', 'configmap', 'beta', '-n', ns, '-o', 'jsonpath={.metadata.uid}']);
    const res = await runAs('applier', ['sync', '-f', app, '--desired', changed, '--prune', '-o', 'json']);
    const report = JSON.parse(res.stdout) as {
      applied: number;
      steps: { name: string; outcome: string }[];
      prune: { results: { name: string; outcome: string; message?: string }[] };
      failures: { name: string; phase: string; message: string }[];
    };
    // Applied: alpha changed, delta created.
    expect(await kubectlOk(['get', 'configmap', 'alpha', '-n', ns, '-o', 'jsonpath={.data.k}'])).toBe('changed');
    expect(await kubectlOk(['get', 'configmap', 'delta', '-n', ns, '-o', 'name'])).toBe('configmap/delta\n');
    expect(
      report.steps
        .filter((s) => s.outcome === 'applied')
        .map((s) => s.name)
        .sort(),
    ).toEqual(expect.arrayContaining(['alpha', 'delta']));
    // Not deleted, and said so: a failure in the prune phase naming the permission, and exit 3.
    expect(await kubectlOk(['get', 'configmap', 'beta', '-n', ns, '-o', 'jsonpath={.metadata.uid}'])).toBe(beforeBeta);
    const pruneBeta = report.prune.results.find((r) => r.name === 'beta');
    expect(pruneBeta?.outcome).toBe('failed');
    expect(report.failures.find((f) => f.name === 'beta')).toEqual(
      expect.objectContaining({ phase: 'prune', message: expect.stringMatching(/cannot delete configmaps/) }),
    );
    expect(res.code).toBe(3);
  });

  test('in table mode the forbidden prune is printed, not only in JSON', async () => {
    const res = await runAs('applier', ['sync', '-f', app, '--desired', changed, '--prune']);
    expect(res.code).toBe(3);
    expect(res.stdout + res.stderr).toMatch(/beta[\s\S]*cannot delete configmaps/);
  });
});

describe('a user that may delete ConfigMaps but not Secrets or Services', () => {
  it('prune --confirm refuses before deleting anything (access review first), naming every missing permission', async () => {
    const before = await snap();
    const res = await runAs('cmDeleter', ['prune', '--confirm', '-f', app, '--desired', fewer]);
    expect(snapshotChanges(before, await snap())).toEqual([]);
    expect(res.code).toBe(3); // forbidden is a cluster/API error (README, exit codes), not a safety rule (4)
    expect(res.stdout + res.stderr).toMatch(/cannot delete secrets/);
    expect(res.stdout + res.stderr).toMatch(/cannot delete services/);
  });

  it('the refusal is the same with -o json: no report claiming deletions, stderr names the permissions, nothing deleted', async () => {
    const before = await snap();
    const res = await runAs('cmDeleter', ['prune', '--confirm', '-f', app, '--desired', fewer, '-o', 'json']);
    expect(snapshotChanges(before, await snap())).toEqual([]);
    expect(res.code).toBe(3); // forbidden is a cluster/API error (README, exit codes), not a safety rule (4)
    expect(res.stdout).not.toMatch(/"deleted"/);
    expect(res.stderr).toMatch(/nothing was deleted/);
    expect(res.stderr).toMatch(/cannot delete secrets[\s\S]*cannot delete services|cannot delete services[\s\S]*cannot delete secrets/);
  });
});
