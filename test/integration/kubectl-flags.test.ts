// kubectl's connection flags against the local control plane: impersonation (--as, --as-group) under
// RBAC, a ServiceAccount token from `kubectl create token` with --server and --certificate-authority over
// a kubeconfig that has neither the right server nor a CA nor credentials, --insecure-skip-tls-verify,
// --tls-server-name, --user and --cluster. The flags change the context the command acts on (the one the
// Application's in-cluster destination resolves to: the current context). With no kubeconfig at all, --server,
// --certificate-authority and --token make the context, and the destination must be that server.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { applyYaml, createTestNamespace, deleteNamespace, kubectlOk, kubeconfigPath, pluginPath, run, runPlugin } from './support/index.js';
import { configMap, tempDir, writeApp, writeDesired } from './hardening/support.js';

let ns: string;
let work: ReturnType<typeof tempDir>;
let app: string;
let desired: string;
let server: string;
let caFile: string;
let token: string;
/** A kubeconfig whose one context has a server that is not there, no CA and no credentials: the flags say the rest. */
let bare: string;

beforeAll(async () => {
  ns = await createTestNamespace('kubectl-flags');
  work = tempDir('flags');
  const admin = parse(readFileSync(kubeconfigPath(), 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
  server = admin.clusters[0]!.cluster.server!;
  caFile = join(work.dir, 'ca.crt');
  writeFileSync(caFile, Buffer.from(admin.clusters[0]!.cluster['certificate-authority-data']!, 'base64'));
  const reader = `${ns}-reader`;
  await applyYaml(
    [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'reader', namespace: ns } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: reader },
        rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['get', 'list', 'watch'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: reader },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: ns }],
      },
    ]
      .map((o) => stringify(o))
      .join('---\n'),
  );
  token = (await kubectlOk(['create', 'token', 'reader', '-n', ns, '--duration=1h'])).trim();
  bare = join(work.dir, 'bare.kubeconfig');
  writeFileSync(
    bare,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'nowhere', cluster: { server: 'https://127.0.0.1:1' } }],
      users: [{ name: 'nobody', user: {} }],
      contexts: [{ name: 'bare', context: { cluster: 'nowhere', user: 'nobody' } }],
      'current-context': 'bare',
    }),
  );
  app = writeApp(work.dir, { name: `flags-${ns}`, destinationNamespace: ns });
  desired = writeDesired(work.dir, 'desired', [configMap('alpha')]);
  expect((await runPlugin(['sync', '-f', app, '--desired', desired])).code).toBe(0);
});

afterAll(async () => {
  work?.cleanup();
  if (ns) {
    await kubectlOk(['delete', 'clusterrole,clusterrolebinding', `${ns}-reader`, '--ignore-not-found']);
    await kubectlOk(['delete', 'clusterrolebinding', `${ns}-admin`, '--ignore-not-found']);
    await kubectlOk(['delete', 'applications.argoproj.io', `flags-${ns}`, '-n', 'argocd', '--ignore-not-found']);
    await deleteNamespace(ns);
  }
});

const diffArgs = () => ['diff', '-f', app, '--desired', desired, '-okv'];

describe('impersonation', () => {
  it('--as a ServiceAccount that may read: diff works; sync is refused for want of permissions', async () => {
    const as = `--as=system:serviceaccount:${ns}:reader`;
    const diff = await runPlugin([...diffArgs(), as]);
    expect(diff.stderr).toBe('');
    expect(diff.stdout).toBe('SYNC=Synced\n');
    expect(diff.code).toBe(0);
    const sync = await runPlugin(['sync', '-f', app, '--desired', writeDesired(work.dir, 'more', [configMap('alpha'), configMap('beta')]), as]);
    expect(sync.code).toBe(3);
    expect(sync.stdout + sync.stderr).toMatch(/permission|forbidden/i);
    expect(await kubectl404('beta')).toBe(true);
  });

  it('--as a user with no permissions: forbidden (exit 3); --as-group system:masters gives them back', async () => {
    const denied = await runPlugin([...diffArgs(), '--as', 'nobody']);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toMatch(/forbidden \(403\)/);
    const masters = await runPlugin([...diffArgs(), '--as', 'nobody', '--as-group', 'system:masters', '--as-group=system:authenticated']);
    expect(masters.stderr).toBe('');
    expect(masters.stdout).toBe('SYNC=Synced\n');
  });
});

async function kubectl404(name: string): Promise<boolean> {
  const out = await kubectlOk(['get', 'configmap', name, '-n', ns, '--ignore-not-found', '-o', 'name']);
  return out.trim() === '';
}

describe('a token from `kubectl create token`, the server and the CA as flags', () => {
  it('--server (-s) with --certificate-authority and --token', async () => {
    for (const serverFlag of [['--server', server], [`-s${server}`], [`--server=${server}`]]) {
      const r = await run(pluginPath, [...diffArgs(), ...serverFlag, '--certificate-authority', caFile, '--token', token], { env: { KUBECONFIG: bare } });
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe('SYNC=Synced\n');
      expect(r.code).toBe(0);
    }
  });

  it("the server's certificate is checked: another CA fails (exit 3), --insecure-skip-tls-verify skips the check", async () => {
    const otherCa = join(process.cwd(), 'test', 'fixtures', 'tls', 'server.crt');
    const bad = await run(pluginPath, [...diffArgs(), '--server', server, '--certificate-authority', otherCa, '--token', token], { env: { KUBECONFIG: bare } });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed/);
    const skip = await run(pluginPath, [...diffArgs(), '--server', server, '--insecure-skip-tls-verify', '--token', token], { env: { KUBECONFIG: bare } });
    expect(skip.stdout).toBe('SYNC=Synced\n');
  });

  it('--tls-server-name names the certificate the server must show', async () => {
    const base = [...diffArgs(), '--server', server, '--certificate-authority', caFile, '--token', token];
    const good = await run(pluginPath, [...base, '--tls-server-name', 'kubernetes.default'], { env: { KUBECONFIG: bare } });
    expect(good.stdout).toBe('SYNC=Synced\n');
    const bad = await run(pluginPath, [...base, '--tls-server-name', 'not-the-apiserver.example'], { env: { KUBECONFIG: bare } });
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/TLS handshake .* failed/);
  });

  it('a wrong token is rejected (401, exit 3)', async () => {
    const r = await run(pluginPath, [...diffArgs(), '--server', server, '--certificate-authority', caFile, '--token', 'not-a-token'], {
      env: { KUBECONFIG: bare },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/unauthorized \(401\)/);
  });

  it('--username/--password are sent as basic authentication, which kube-apiserver ignores (the request is anonymous: 403, exit 3); with --token they are a usage error', async () => {
    const base = [...diffArgs(), '--server', server, '--certificate-authority', caFile];
    const r = await run(pluginPath, [...base, '--username', 'admin', '--password=secret-pw'], { env: { KUBECONFIG: bare } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/forbidden \(403\).*system:anonymous/);
    expect(r.stderr).not.toContain('secret-pw');
    const both = await run(pluginPath, [...base, '--username', 'admin', '--password', 'secret-pw', '--token', token], { env: { KUBECONFIG: bare } });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('a bearer token and basic authentication (--username/--password) cannot both be used');
  });
});

describe('--user and --cluster pick other kubeconfig entries', () => {
  it("the context's admin user is replaced by --user reader, its cluster by --cluster", async () => {
    const admin = parse(readFileSync(kubeconfigPath(), 'utf8')) as Record<string, unknown[]>;
    const file = join(work.dir, 'two-users.kubeconfig');
    writeFileSync(
      file,
      stringify({
        ...admin,
        clusters: [...admin.clusters!, { name: 'nowhere', cluster: { server: 'https://127.0.0.1:1' } }],
        users: [...admin.users!, { name: 'reader', user: { token } }],
      }),
    );
    const asReader = await run(pluginPath, [...diffArgs(), '--kubeconfig', file, '--user', 'reader']);
    expect(asReader.stdout).toBe('SYNC=Synced\n');
    const sync = await run(pluginPath, [
      'sync',
      '-f',
      app,
      '--desired',
      writeDesired(work.dir, 'more2', [configMap('alpha'), configMap('gamma')]),
      '--kubeconfig',
      file,
      '--user',
      'reader',
    ]);
    expect(sync.code).toBe(3);
    expect(await kubectl404('gamma')).toBe(true);
    const nowhere = await run(pluginPath, [...diffArgs(), '--kubeconfig', file, '--cluster', 'nowhere']);
    expect(nowhere.code).toBe(3);
    expect(nowhere.stderr).toMatch(/https:\/\/127\.0\.0\.1:1\b/);
    const unknown = await run(pluginPath, [...diffArgs(), '--kubeconfig', file, '--user', 'ghost']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/user "ghost" \(--user\) is not in the kubeconfig \(users: .*reader\)/);
  });
});

describe('--server, --certificate-authority and --token with no kubeconfig at all', () => {
  /** KUBECONFIG names a file that is not there and HOME has no .kube/config: kubectl builds the config from the flags alone. */
  let env: Record<string, string>;
  let flags: string[];

  beforeAll(async () => {
    await applyYaml(
      [
        { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'admin', namespace: ns } },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `${ns}-admin` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
          subjects: [{ kind: 'ServiceAccount', name: 'admin', namespace: ns }],
        },
      ]
        .map((o) => stringify(o))
        .join('---\n'),
    );
    const adminToken = (await kubectlOk(['create', 'token', 'admin', '-n', ns, '--duration=1h'])).trim();
    env = { KUBECONFIG: join(work.dir, 'no-such.kubeconfig'), HOME: join(work.dir, 'empty-home') };
    flags = ['--server', server, '--certificate-authority', caFile, '--token', adminToken];
  });

  it('without the flags there is nothing to connect to (exit 2, nothing changed)', async () => {
    const r = await run(pluginPath, ['diff', '-f', app, '--desired', desired], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no current-context is set/);
  });

  it('an in-cluster Application file: sync acts on the --server cluster, and diff, status and prune read it', async () => {
    const more = writeDesired(work.dir, 'no-kubeconfig', [configMap('alpha'), configMap('delta')]);
    const sync = await run(pluginPath, ['sync', '-f', app, '--desired', more, ...flags, '-o', 'json'], { env });
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout)).toMatchObject({ context: '(command-line flags)', server, applied: 2 });
    expect(await kubectl404('delta')).toBe(false);
    const diff = await run(pluginPath, ['diff', '-f', app, '--desired', more, ...flags, '-okv'], { env });
    expect(diff.stdout).toBe('SYNC=Synced\n');
    const status = await run(pluginPath, ['status', '-f', app, '--desired', more, ...flags], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^Context:\\s+\\(command-line flags\\) \\(${server.replace(/[.]/g, '\\.')}\\)$`, 'm'));
    const prune = await run(pluginPath, ['prune', '-f', app, '--desired', desired, ...flags, '-okv'], { env });
    expect(prune.stdout).toMatch(/^PRUNE=ConfigMap\/delta$/m);
    expect(await kubectl404('delta')).toBe(false); // listed, not deleted without --confirm
  });

  it('an Application read from the cluster whose destination is the same server URL: diff, status and windows act there', async () => {
    const name = `flags-${ns}`;
    await applyYaml(
      stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name, namespace: 'argocd' },
        spec: { destination: { server: `${server}/`, namespace: ns }, source: { repoURL: 'file:///unused', path: '.' } },
      }),
    );
    const more = writeDesired(work.dir, 'no-kubeconfig-app', [configMap('alpha'), configMap('delta')]);
    const diff = await run(pluginPath, ['diff', name, '--desired', more, ...flags, '-o', 'json'], { env });
    expect(diff.stderr).toBe('');
    expect(JSON.parse(diff.stdout)).toMatchObject({ sync: 'Synced', context: '(command-line flags)', server });
    const status = await run(pluginPath, ['status', name, '--desired', more, ...flags, '-okv'], { env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^SYNC=Synced$/m);
    const windows = await run(pluginPath, ['windows', name, ...flags, '-okv'], { env });
    expect(windows.code).toBe(0);
    expect(windows.stdout).toMatch(/^MANUAL_SYNC=/m);
  });

  it('a destination on another server is refused (exit 4) naming --server; nothing changes', async () => {
    const elsewhere = join(work.dir, 'elsewhere-app.yaml');
    const doc = parse(readFileSync(app, 'utf8')) as { spec: { destination: Record<string, string> } };
    doc.spec.destination.server = 'https://127.0.0.1:1';
    writeFileSync(elsewhere, stringify(doc));
    const r = await run(pluginPath, ['sync', '-f', elsewhere, '--desired', writeDesired(work.dir, 'elsewhere', [configMap('epsilon')]), ...flags], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      `spec.destination (server https://127.0.0.1:1): no kubeconfig context reaches it (the kubeconfig has no contexts), and --server ${server} names another cluster; nothing was changed`,
    );
    expect(r.stdout).toBe('');
    expect(await kubectl404('epsilon')).toBe(true);
  });
});
