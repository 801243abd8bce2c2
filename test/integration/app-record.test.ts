// The Application as the shared record: sync and status write its status (Argo CD's shape, so `kubectl get applications`
// shows SYNC STATUS and HEALTH STATUS), each sync adds a history entry capped by revisionHistoryLimit, concurrent writers
// both land, a read-only user gets a warning, and an Application an Argo CD controller keeps is left alone.
import { spawn } from 'node:child_process';
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, childEnv, createTestNamespace, deleteNamespace, kubectlOk, pluginPath, runPlugin, waitFor } from './support/index.js';

const TIMEOUT = 180_000;
const APPS = ['shop', 'capped', 'ro', 'kept', 'back', 'auto'];

function configMap(name: string, color: string): string {
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  color: ${color}\n`;
}

function deployment(name: string, image: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers: [{name: main, image: ${image}}]
`;
}

interface AppObject {
  metadata: { resourceVersion: string; managedFields?: { manager: string }[] };
  spec: Record<string, unknown>;
  status?: {
    sync?: { status?: string; revision?: string; comparedTo?: { source?: { repoURL?: string; path?: string }; destination?: { namespace?: string } } };
    health?: { status?: string; lastTransitionTime?: string };
    resources?: {
      group: string;
      version: string;
      kind: string;
      namespace: string;
      name: string;
      status?: string;
      health?: { status: string };
      requiresPruning?: boolean;
    }[];
    summary?: { images?: string[] };
    operationState?: {
      phase: string;
      message: string;
      startedAt: string;
      finishedAt: string;
      operation: { initiatedBy: { username?: string } };
      syncResult: { revision?: string; resources: { kind: string; name: string; status: string }[] };
    };
    history?: {
      id: number;
      revision?: string;
      deployedAt: string;
      deployStartedAt?: string;
      source?: { path?: string };
      initiatedBy?: { username?: string };
    }[];
    reconciledAt?: string;
    sourceType?: string;
  };
}

describe('the Application as the shared record', () => {
  let fx: GitFixture;
  let ns: string;
  let v1: string;
  let v2: string;

  /** An app of this suite's repository (apps/<name> at main, into the suite's namespace), with more of its spec. */
  const application = (
    name: string,
    o: { spec?: Record<string, unknown>; namespace?: string; labels?: Record<string, string>; path?: string; targetRevision?: string } = {},
  ) =>
    applicationYaml({
      name,
      namespace: o.namespace ?? ns,
      ...(o.labels ? { labels: o.labels } : {}),
      spec: {
        source: { repoURL: fx.repo, path: o.path ?? `apps/${name}`, targetRevision: o.targetRevision ?? 'main' },
        destination: inCluster(o.namespace ?? ns),
        ...o.spec,
      },
    });
  const getApp = async (name: string) => JSON.parse(await kubectlOk(['get', 'application', name, '-n', ns, '-o', 'json'])) as AppObject;
  const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);

  beforeAll(async () => {
    fx = new GitFixture();
    // One folder per Application, so that no two of them share an object.
    const write = (version: string) => {
      for (const app of APPS) {
        fx.write(`apps/${app}/a.yaml`, configMap(app === 'shop' ? 'a' : `${app}-a`, version));
        fx.write(`apps/${app}/web.yaml`, deployment(app === 'shop' ? 'web' : `${app}-web`, `registry.example/web:${version.slice(1)}`));
      }
    };
    write('v1');
    v1 = fx.commit('v1');
    write('v2');
    v2 = fx.commit('v2');
    ns = await createTestNamespace('app-record');
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'after sync the Application has Argo CD status fields and kubectl get applications shows Synced/Healthy',
    async () => {
      await applyYaml(application('shop'));
      const before = await getApp('shop');
      const res = await plugin(['sync', 'shop', '-o', 'json']);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
      let app = await getApp('shop');
      expect(app.spec).toEqual(before.spec);
      // Right after a one-pass sync the Deployment may still be rolling out, and the record says Progressing (as Argo
      // CD's would); status --wait records again once it is Healthy.
      if (app.status?.health?.status !== 'Healthy') {
        expect(app.status?.health?.status).toBe('Progressing');
        expect((await plugin(['status', 'shop', '--wait', '--timeout', '60s'])).code).toBe(0);
        app = await getApp('shop');
      }
      const s = app.status!;
      expect(s.sync).toMatchObject({
        status: 'Synced',
        revision: v2,
        comparedTo: { source: { repoURL: fx.repo, path: 'apps/shop' }, destination: { namespace: ns } },
      });
      expect(s.health?.status).toBe('Healthy');
      expect(s.sourceType).toBe('Directory');
      expect(typeof s.reconciledAt).toBe('string');
      expect(s.summary?.images).toEqual(['registry.example/web:2']);
      const byName = Object.fromEntries((s.resources ?? []).map((r) => [`${r.kind}/${r.name}`, r]));
      expect(byName['ConfigMap/a']).toMatchObject({ version: 'v1', kind: 'ConfigMap', namespace: ns, name: 'a', status: 'Synced' });
      // A core kind has no group, as Argo CD's ResourceStatus leaves an empty one out (omitempty).
      expect(byName['ConfigMap/a']).not.toHaveProperty('group');
      expect(byName['Deployment/web']).toMatchObject({ group: 'apps', version: 'v1', status: 'Synced', health: { status: 'Healthy' } });
      expect(s.operationState).toMatchObject({ phase: 'Succeeded', message: 'successfully synced (all tasks run)', syncResult: { revision: v2 } });
      expect(s.operationState!.syncResult.resources.map((r) => `${r.kind}/${r.name}=${r.status}`).sort()).toEqual([
        'ConfigMap/a=Synced',
        'Deployment/web=Synced',
      ]);
      expect(Date.parse(s.operationState!.finishedAt)).toBeGreaterThanOrEqual(Date.parse(s.operationState!.startedAt));
      expect(s.history).toHaveLength(1);
      expect(s.history![0]).toMatchObject({ id: 0, revision: v2, source: { path: 'apps/shop' }, initiatedBy: { username: expect.any(String) as string } });
      const managers = JSON.parse(await kubectlOk(['get', 'application', 'shop', '-n', ns, '-o', 'json', '--show-managed-fields'])) as AppObject;
      expect(managers.metadata.managedFields?.map((m) => m.manager)).toContain('kubectl-gitops');
      const table = await kubectlOk(['get', 'applications', 'shop', '-n', ns]);
      expect(table).toMatch(/NAME\s+SYNC STATUS\s+HEALTH STATUS/);
      expect(table).toMatch(/shop\s+Synced\s+Healthy/);
    },
    TIMEOUT,
  );

  test(
    'a manual change shows OutOfSync after status; --no-record and --desired leave the record alone',
    async () => {
      await kubectlOk(['patch', 'configmap', 'a', '-n', ns, '--type', 'merge', '-p', '{"data":{"color":"by-hand"}}']);
      const before = await getApp('shop');
      const res = await plugin(['status', 'shop', '--no-record', '-o', 'json']);
      expect(res.code).toBe(0);
      expect((await getApp('shop')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      // Compared with local files (--desired), not with the Application's source: nothing is recorded either.
      expect((await plugin(['status', 'shop', '--desired', `${fx.repo}/apps/shop`, '-o', 'json'])).code).toBe(0);
      expect((await getApp('shop')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
      const rec = await plugin(['status', 'shop', '-o', 'json']);
      expect(rec.code).toBe(0);
      const app = await getApp('shop');
      expect(app.status?.sync?.status).toBe('OutOfSync');
      expect(app.status?.resources?.find((r) => r.name === 'a')?.status).toBe('OutOfSync');
      expect(app.status?.history).toHaveLength(1);
      expect(await kubectlOk(['get', 'applications', 'shop', '-n', ns])).toMatch(/shop\s+OutOfSync\s+Healthy/);
    },
    TIMEOUT,
  );

  test(
    'history grows by one per sync, capped by revisionHistoryLimit; concurrent writers both land',
    async () => {
      await applyYaml(application('capped', { spec: { revisionHistoryLimit: 3 } }));
      for (let i = 0; i < 2; i++) expect((await plugin(['sync', 'capped', '-o', 'kv'])).code).toBe(0);
      expect((await getApp('capped')).status?.history?.map((h) => h.id)).toEqual([0, 1]);
      // Two processes at once: their writes conflict on resourceVersion and are tried again; both entries land.
      const [a, b] = await Promise.all([plugin(['sync', 'capped', '-o', 'kv', '-v']), plugin(['sync', 'capped', '-o', 'kv', '-v'])]);
      expect([a.code, b.code]).toEqual([0, 0]);
      const writes = [a, b].map((r) => /^sync: recorded in the Application's status \((\d+) writes?/m.exec(r.stderr)?.[1]);
      expect(writes.every((w) => w !== undefined)).toBe(true);
      expect(`${a.stderr}${b.stderr}`).not.toMatch(/^(warning|error):/m);
      const h = (await getApp('capped')).status?.history ?? [];
      expect(h.map((e) => e.id)).toEqual([1, 2, 3]);
      expect(h.every((e) => e.revision === v2)).toBe(true);
    },
    TIMEOUT,
  );

  test(
    'a user who may not update Applications gets a warning and the sync result unchanged',
    async () => {
      await applyYaml(application('ro'));
      const sa = 'app-reader';
      await applyYaml(`apiVersion: v1
kind: ServiceAccount
metadata: {name: ${sa}, namespace: ${ns}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: ${ns}-read}
rules: [{apiGroups: ['*'], resources: ['*'], verbs: [get, list, watch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ${ns}-read}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ${ns}-read}
subjects: [{kind: ServiceAccount, name: ${sa}, namespace: ${ns}}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: writer, namespace: ${ns}}
rules:
- {apiGroups: [''], resources: [configmaps], verbs: [create, patch]}
- {apiGroups: [apps], resources: [deployments], verbs: [create, patch]}
- {apiGroups: [authorization.k8s.io], resources: [selfsubjectaccessreviews], verbs: [create]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: writer, namespace: ${ns}}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: writer}
subjects: [{kind: ServiceAccount, name: ${sa}, namespace: ${ns}}]
`);
      const before = await getApp('ro');
      const res = await plugin(['sync', 'ro', '-o', 'json', '--as', `system:serviceaccount:${ns}:${sa}`]);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ app: 'ro', failures: [], conflicts: [], applied: 2, revision: v2 });
      // The sync itself went through: both objects are live as declared.
      expect(JSON.parse(await kubectlOk(['get', 'configmap', 'ro-a', '-n', ns, '-o', 'json'])).data.color).toBe('v2');
      expect(JSON.parse(await kubectlOk(['get', 'deployment', 'ro-web', '-n', ns, '-o', 'json'])).spec.template.spec.containers[0].image).toBe(
        'registry.example/web:2',
      );
      expect(res.stderr.split('\n').filter((l) => l.startsWith('warning: ') || l.startsWith('error: '))).toHaveLength(1);
      expect(res.stderr).toMatch(/^warning: not allowed to update Application \S+\/ro, so its status was not recorded/m);
      expect((await getApp('ro')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    },
    TIMEOUT,
  );

  test(
    'an Application an Argo CD controller wrote recently is not written, said once',
    async () => {
      await applyYaml(application('kept'));
      const now = new Date().toISOString();
      await kubectlOk([
        'patch',
        'application',
        'kept',
        '-n',
        ns,
        '--type',
        'merge',
        '--field-manager',
        'argocd-application-controller',
        '-p',
        JSON.stringify({ status: { reconciledAt: now, sync: { status: 'Synced' } } }),
      ]);
      const before = await getApp('kept');
      const res = await plugin(['sync', 'kept', '-o', 'kv']);
      expect(res.code).toBe(0);
      const lines = res.stderr.split('\n').filter((l) => l.includes('kept by an Argo CD controller'));
      expect(lines).toHaveLength(1);
      expect((await getApp('kept')).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    },
    TIMEOUT,
  );

  test(
    'a mistyped Application name: exit 2, nothing changed, and the names close to it (one LIST, on this path only)',
    async () => {
      await applyYaml(application('shop'));
      const res = await plugin(['status', 'shpo']);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(
        new RegExp(
          `^error: Application "shpo" not found in namespace "${ns}" \\(use --app-namespace, or -f/--app-file\\)\\n\\nDid you mean this\\?\\n\\tshop\\n`,
          'm',
        ),
      );
      const far = await plugin(['history', 'zzzzzzzz']);
      expect(far.code).toBe(2);
      expect(far.stderr).not.toContain('Did you mean');
    },
    TIMEOUT,
  );

  test(
    'sync --watch records each round: the automated sync with its history entry, then the drift it sees',
    async () => {
      await applyYaml(application('auto', { spec: { syncPolicy: { automated: { prune: true } } } }));
      const child = spawn(pluginPath, ['sync', 'auto', '--app-namespace', ns, '--watch', '--interval', '2s', '-o', 'json'], {
        env: childEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      try {
        const synced = await waitFor(
          async () => {
            const s = (await getApp('auto')).status;
            return s?.history?.length === 1 && s.sync?.status === 'Synced' ? s : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 500, what: 'the watch loop to record its first sync' },
        );
        expect(synced.operationState).toMatchObject({ phase: 'Succeeded', operation: { initiatedBy: { automated: true } }, syncResult: { revision: v2 } });
        expect(synced.history![0]).toMatchObject({ id: 0, revision: v2, initiatedBy: { automated: true } });
        // No selfHeal: the loop leaves the drift alone and records it.
        await kubectlOk(['patch', 'configmap', 'auto-a', '-n', ns, '--type', 'merge', '-p', '{"data":{"color":"by-hand"}}']);
        await waitFor(async () => ((await getApp('auto')).status?.sync?.status === 'OutOfSync' ? true : undefined), {
          timeoutMs: 60_000,
          intervalMs: 500,
          what: 'the drift to be recorded',
        });
        expect((await getApp('auto')).status?.history).toHaveLength(1);
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      expect(err).toBe('');
    },
    TIMEOUT,
  );

  test(
    'history in every output mode; rollback returns to the previous revision (checked on the cluster), recorded as its own entry',
    async () => {
      await applyYaml(application('back', { targetRevision: v1 }));
      expect((await plugin(['sync', 'back', '-o', 'kv'])).code).toBe(0);
      await kubectlOk(['patch', 'application', 'back', '-n', ns, '--type', 'merge', '-p', '{"spec":{"source":{"targetRevision":"main"}}}']);
      expect((await plugin(['sync', 'back', '-o', 'kv'])).code).toBe(0);
      const color = async () => JSON.parse(await kubectlOk(['get', 'configmap', 'back-a', '-n', ns, '-o', 'json'])).data.color as string;
      expect(await color()).toBe('v2');

      const json = JSON.parse((await plugin(['history', 'back', '-o', 'json'])).stdout) as {
        limit: number;
        entries: { id: number; revision: string; source: { targetRevision: string } }[];
      };
      expect(json.limit).toBe(10);
      expect(json.entries.map((e) => [e.id, e.revision, e.source.targetRevision])).toEqual([
        [0, v1, v1],
        [1, v2, 'main'],
      ]);
      const table = await plugin(['history', 'back']);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^ID\s+DATE\s+REVISION\s+SOURCE\s+INITIATED BY\n0\s+\S+\s+[0-9a-f]{40}\s+\S+ apps\/back@[0-9a-f]{40}\s+\S+\n1\s+/);
      const kv = await plugin(['history', 'back', '-o', 'kv']);
      expect(kv.stdout).toContain(`HISTORY=1 `);
      expect(kv.stdout).toMatch(new RegExp(`^HISTORY=0 \\S+ ${v1} \\S+$`, 'm'));
      const yaml = (await plugin(['history', 'back', '-o', 'yaml'])).stdout;
      expect(yaml).toMatch(/^entries:\n {2}- /m);
      expect(yaml).toMatch(/^ {4}id: 1$/m);
      expect((await plugin(['history', 'back', '-o', 'env'])).stdout).toMatch(/^HISTORY_LIMIT='10'$/m);

      const dry = await plugin(['rollback', 'back', '--dry-run', '-o', 'json']);
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, revision: v1 });
      expect(await color()).toBe('v2');
      expect((await getApp('back')).status?.history).toHaveLength(2);

      const res = await plugin(['rollback', 'back', '-o', 'json']);
      expect(res.code).toBe(0);
      expect(res.stderr).toContain('rolled back Application');
      expect(JSON.parse(res.stdout)).toMatchObject({ dryRun: false, revision: v1, failures: [] });
      expect(await color()).toBe('v1');
      const app = await getApp('back');
      expect(app.spec).toMatchObject({ source: { targetRevision: 'main' } });
      expect(app.status?.history?.map((h) => [h.id, h.revision])).toEqual([
        [0, v1],
        [1, v2],
        [2, v1],
      ]);
      // The Application still says main: compared with it, the rolled-back app is OutOfSync, as Argo CD shows it.
      expect(app.status?.sync?.status).toBe('OutOfSync');

      expect((await plugin(['rollback', 'back', '7'])).code).toBe(2);
      const auto = await plugin(['rollback', 'auto', '0']);
      expect(auto.code).toBe(4);
      expect(auto.stderr).toContain('rollback cannot be initiated when auto-sync is enabled');
    },
    TIMEOUT,
  );

  test(
    'list shows every app of two namespaces, compared live; -A with -l, status -A, kv',
    async () => {
      const ns2 = await createTestNamespace('app-record-list');
      try {
        const label = `list-${ns}`;
        await applyYaml(application('other', { namespace: ns2, labels: { 'kgitops-list': label }, path: 'apps/shop' }));
        await kubectlOk(['label', 'application', 'shop', '-n', ns, `kgitops-list=${label}`]);
        type Row = {
          name: string;
          namespace: string;
          project: string;
          sync: string;
          health: string;
          revision?: string;
          destination: { namespace?: string };
          lastSync?: string;
          error?: string;
        };
        const one = await plugin(['list', '-o', 'json']);
        expect(one.code).toBe(0);
        const rows = (JSON.parse(one.stdout) as { apps: Row[] }).apps;
        expect(rows.map((r) => r.name)).toEqual(['auto', 'back', 'capped', 'kept', 'ro', 'shop']);
        const shop = rows.find((r) => r.name === 'shop')!;
        // Computed live: the hand-made change of an earlier test, never synced away.
        expect(shop).toMatchObject({ namespace: ns, project: 'default', sync: 'OutOfSync', health: 'Healthy', revision: v2, destination: { namespace: ns } });
        expect(typeof shop.lastSync).toBe('string');
        expect(rows.find((r) => r.name === 'capped')).toMatchObject({ sync: 'Synced', health: 'Healthy' });
        expect(rows.every((r) => r.error === undefined)).toBe(true);

        const both = await runPlugin(['list', '-A', '-l', `kgitops-list=${label}`, '-o', 'json']);
        expect(both.code).toBe(0);
        const selected = (JSON.parse(both.stdout) as { apps: Row[] }).apps;
        expect(selected.map((r) => [r.namespace, r.name, r.sync, r.health]).sort()).toEqual(
          [
            [ns, 'shop', 'OutOfSync', 'Healthy'],
            [ns2, 'other', 'OutOfSync', 'Missing'],
          ].sort(),
        );
        const all = await runPlugin(['status', '-A', '-o', 'json']);
        expect(all.code).toBe(0);
        const names = (JSON.parse(all.stdout) as { apps: Row[] }).apps.map((r) => `${r.namespace}/${r.name}`);
        expect(names).toEqual(expect.arrayContaining([`${ns}/shop`, `${ns2}/other`, `${ns}/back`]));
        const table = await runPlugin(['list', '-A', '-l', `kgitops-list=${label}`]);
        expect(table.stdout).toMatch(/^NAME\s+NAMESPACE\s+PROJECT\s+SYNC\s+HEALTH\s+REVISION\s+DESTINATION\s+LAST SYNC\n/);
        expect(table.stdout).toMatch(
          new RegExp(`^other\\s+${ns2}\\s+default\\s+OutOfSync\\s+Missing\\s+${v2.slice(0, 7)}\\s+https://kubernetes.default.svc ${ns2}\\s+-$`, 'm'),
        );
        const kv = await runPlugin(['list', '-A', '-l', `kgitops-list=${label}`, '-o', 'kv']);
        expect(kv.stdout).toContain(`APP=${ns}/shop OutOfSync Healthy ${v2} `);
        expect(kv.stdout).toMatch(/^APPS=2$/m);
      } finally {
        await deleteNamespace(ns2);
      }
    },
    TIMEOUT,
  );

  test(
    'sync --all -l syncs the labelled Applications in turn, recorded, with one summary',
    async () => {
      const label = `all-${ns}`;
      for (const name of ['back', 'capped']) await kubectlOk(['label', 'application', name, '-n', ns, `kgitops-all=${label}`]);
      const res = await plugin(['sync', '--all', '-l', `kgitops-all=${label}`, '-o', 'json']);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
      const report = JSON.parse(res.stdout) as {
        dryRun: boolean;
        apps: { name: string; namespace: string; exitCode: number; report?: { revision?: string } }[];
      };
      expect(report.apps.map((a) => [a.namespace, a.name, a.exitCode, a.report?.revision])).toEqual([
        [ns, 'back', 0, v2],
        [ns, 'capped', 0, v2],
      ]);
      // back was rolled back to v1: --all syncs it as it declares itself (main).
      expect(JSON.parse(await kubectlOk(['get', 'configmap', 'back-a', '-n', ns, '-o', 'json'])).data.color).toBe('v2');
      expect((await getApp('back')).status?.history?.map((h) => h.id)).toEqual([0, 1, 2, 3]);
      expect((await getApp('capped')).status?.history?.map((h) => h.id)).toEqual([2, 3, 4]);
      const table = await plugin(['sync', '--all', '-l', `kgitops-all=${label}`, '--dry-run']);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^NAME\s+NAMESPACE\s+RESULT\s+APPLIED\s+PRUNED\s+REVISION\s+MESSAGE\n/);
      expect(table.stdout).toMatch(/^2 Applications: 2 planned$/m);
      expect((await plugin(['sync', '--all', 'shop'])).code).toBe(2);
      expect((await plugin(['sync', 'shop', '-A'])).code).toBe(2);
    },
    TIMEOUT,
  );

  test(
    "sync --revision records the revision it deployed in the history, and the comparison against the Application's own targetRevision",
    async () => {
      // --force-conflicts: data.color of `a` was set by hand (kubectl patch) in an earlier test.
      const res = await plugin(['sync', 'shop', '--revision', v1, '--force-conflicts', '-o', 'kv']);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(await kubectlOk(['get', 'configmap', 'a', '-n', ns, '-o', 'json'])).data.color).toBe('v1');
      const s = (await getApp('shop')).status!;
      expect(s.history?.[s.history.length - 1]).toMatchObject({ revision: v1 });
      expect(s.operationState).toMatchObject({ phase: 'Succeeded', syncResult: { revision: v1 } });
      // The Application says main (v2): compared with it, the app is OutOfSync, as Argo CD's next refresh says.
      expect(s.sync).toMatchObject({ status: 'OutOfSync', revision: v2 });
    },
    TIMEOUT,
  );
});
