// One executor for `sync` and `sync --watch` (issue #31): each way the watch loop's own copy used to differ from `sync`,
// driven on the local control plane, and shown to behave as `sync` now: no prune on a partial scan, the permission
// preflight, a CRD of a brand-new API group with its resource in one sync, an unserved kind with
// SkipDryRunOnMissingResource, and the revision that stands in for a commit (generated hook names).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { stringify } from 'yaml';
import {
  applyYaml,
  childEnv,
  createTestNamespace,
  deleteNamespace,
  kubeconfigPath,
  kubectl,
  kubectlOk,
  kvValues,
  pluginPath,
  run,
  runPlugin,
  waitFor,
  type RunResult,
} from './support/index.js';
import { configMap, serviceAccountKubeconfig, tempDir, writeApp, writeDesired } from './hardening/support.js';

const TIMEOUT = 180_000;

interface WatchLine {
  action: string;
  object?: string;
  result?: string;
  revision?: string;
  message?: string;
}

/** A running `kubectl-gitops sync --watch -o json` whose lines are parsed as they come. */
class Watch {
  readonly lines: WatchLine[] = [];
  stderr = '';
  private readonly child;
  private readonly exited: Promise<number | null>;

  constructor(args: string[], kubeconfig: string) {
    this.child = spawn(pluginPath, ['sync', ...args, '--watch', '--interval', '2s', '-o', 'json', '--kubeconfig', kubeconfig], {
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buf = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (c: string) => {
      buf += c;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line !== '') this.lines.push(JSON.parse(line) as WatchLine);
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (c: string) => (this.stderr += c));
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  async line(pred: (l: WatchLine) => boolean, what: string, timeoutMs = 60_000): Promise<WatchLine> {
    try {
      return await waitFor(() => this.lines.find(pred), { what, timeoutMs, intervalMs: 100 });
    } catch (e) {
      throw new Error(`${(e as Error).message}\nstdout:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${this.stderr}`);
    }
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode === null) this.child.kill('SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

let ns: string;
let work: ReturnType<typeof tempDir>;
const watches: Watch[] = [];
const crds: string[] = [];

const watch = (args: string[], kubeconfig = kubeconfigPath()): Watch => {
  const w = new Watch(args, kubeconfig);
  watches.push(w);
  return w;
};
const exists = async (kind: string, name: string): Promise<boolean> => (await kubectl(['get', kind, name, '-n', ns, '-o', 'name'])).code === 0;
const asUser = (user: string, args: string[]): Promise<RunResult> => run(pluginPath, [...args, '--kubeconfig', user]);

/** A ServiceAccount that may read every kind but Secrets (RBAC cannot say "all but one": every group is named), plus `rules` in the namespace. */
async function user(name: string, rules: object[]): Promise<string> {
  const core = (await kubectlOk(['api-resources', '--api-group=', '--verbs=list', '-o', 'name']))
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s && s !== 'secrets');
  const groups = [
    ...new Set(
      (await kubectlOk(['api-versions']))
        .split('\n')
        .map((s) => s.trim())
        .filter((s) => s.includes('/'))
        .map((s) => s.split('/')[0]!),
    ),
  ];
  const read = [
    { apiGroups: [''], resources: core, verbs: ['get', 'list', 'watch'] },
    { apiGroups: groups, resources: ['*'], verbs: ['get', 'list', 'watch'] },
  ];
  const role = `${ns}-${name}`;
  await applyYaml(
    [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: role }, rules: read },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
      },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: ns }, rules },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
      },
    ]
      .map((o) => stringify(o))
      .join('---\n'),
  );
  return serviceAccountKubeconfig(name, ns, work.dir);
}

beforeAll(async () => {
  ns = await createTestNamespace('executor');
  work = tempDir('executor');
}, TIMEOUT);

afterEach(async () => {
  for (const w of watches.splice(0)) await w.stop();
}, 60_000);

afterAll(async () => {
  for (const w of watches.splice(0)) await w.stop();
  for (const c of crds) await kubectl(['delete', 'customresourcedefinition', c, '--ignore-not-found', '--wait=false']);
  await kubectl(['delete', 'clusterrole,clusterrolebinding', `${ns}-partial`, `${ns}-nopatch`, '--ignore-not-found']);
  work?.cleanup();
  if (ns) await deleteNamespace(ns);
}, 60_000);

test(
  'a partial prune scan (a user who may not list Secrets): sync --prune exits 3 and the watch loop prunes nothing either, and says why',
  async () => {
    const kubeconfig = await user('partial', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'update', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create', 'patch', 'update', 'delete'] },
    ]);
    const app = writeApp(work.dir, { name: 'partial', destinationNamespace: ns, prune: true, selfHeal: true });
    const baseline = writeDesired(work.dir, 'partial-1', [configMap('p-keep'), configMap('p-old')]);
    expect((await runPlugin(['sync', '-f', app, '--desired', baseline])).code).toBe(0);
    const next = writeDesired(work.dir, 'partial-2', [configMap('p-keep')]);

    const sync = await asUser(kubeconfig, ['sync', '-f', app, '--desired', next, '--prune', '-o', 'kv']);
    expect(sync.code).toBe(3);
    expect(kvValues(sync.stdout).PRUNE_FAILED).toEqual(['ConfigMap/p-old not pruned: the prune scan is partial']);
    expect(kvValues(sync.stdout).PRUNE_BLOCKED?.[0]).toMatch(new RegExp(`^the prune scan is partial: cannot list .*secrets in namespace ${ns}`));

    const w = watch(['-f', app, '--desired', next, '--prune'], kubeconfig);
    const line = await w.line((l) => l.action === 'prune' && l.object === 'ConfigMap/p-old', "the loop's prune of p-old");
    expect(line).toMatchObject({ result: 'failed', message: 'not pruned: the prune scan is partial' });
    // Another round (the retry) does not prune it either.
    await w.line((l) => l.action === 'prune' && l.object === 'ConfigMap/p-old' && l !== line, 'a second prune round', 30_000);
    expect(await exists('configmap', 'p-old')).toBe(true);
    expect(w.lines.filter((l) => l.action === 'prune' && l.result === 'deleted')).toEqual([]);
  },
  TIMEOUT,
);

test(
  'the permission preflight: a user who may not patch Services: sync and the watch loop both apply nothing of the set and name the permission',
  async () => {
    const kubeconfig = await user('nopatch', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'update'] }]);
    const app = writeApp(work.dir, { name: 'nopatch', destinationNamespace: ns, prune: false, selfHeal: true });
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'np-svc' }, spec: { selector: { app: 'np' }, ports: [{ port: 80 }] } };
    const d = writeDesired(work.dir, 'nopatch', [configMap('np-cm'), svc]);
    const permission = new RegExp(`cannot (create|patch) services in namespace "${ns}" \\(needed to apply Service ${ns}/np-svc\\)`);

    const sync = await asUser(kubeconfig, ['sync', '-f', app, '--desired', d, '-o', 'kv']);
    expect(sync.code).toBe(3);
    expect(kvValues(sync.stdout).APPLIED).toEqual(['0']);
    expect(kvValues(sync.stdout).FAILED?.join('\n')).toMatch(permission);
    expect(await exists('configmap', 'np-cm')).toBe(false);

    const w = watch(['-f', app, '--desired', d], kubeconfig);
    const cm = await w.line((l) => l.action === 'sync' && l.object === 'ConfigMap/np-cm', "the loop's result for np-cm");
    expect(cm.result).toBe('not-applied');
    expect(cm.message).toMatch(permission);
    await w.line((l) => l.action === 'sync' && l.result === 'failed' && permission.test(l.message ?? ''), 'the loop naming the permission');
    expect(await exists('configmap', 'np-cm')).toBe(false);
    expect(await exists('service', 'np-svc')).toBe(false);
  },
  TIMEOUT,
);

/** A CRD of a group no other test creates, and one resource of it. */
function newGroup(prefix: string, kind: string, plural: string): { group: string; crd: object; cr: (annotations?: Record<string, string>) => object } {
  const group = `${prefix}${randomBytes(3).toString('hex')}.exec.kgitops.test`;
  crds.push(`${plural}.${group}`);
  return {
    group,
    crd: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural, singular: kind.toLowerCase(), kind },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    },
    cr: (annotations = {}) => ({ apiVersion: `${group}/v1`, kind, metadata: { name: 'site', annotations }, spec: { size: 1 } }),
  };
}

test(
  'a CRD of an API group the server never served and its resource in one sync: APPLIED=2, exit 0; the watch loop the same',
  async () => {
    const one = newGroup('sync', 'Certificate', 'certificates');
    const app = writeApp(work.dir, { name: 'newgroup', destinationNamespace: ns, prune: false });
    const res = await runPlugin(['sync', '-f', app, '--desired', writeDesired(work.dir, 'newgroup', [one.crd, one.cr()]), '-o', 'kv']);
    expect({ code: res.code, stdout: res.stdout }).toEqual({ code: 0, stdout: 'APPLIED=2\nPHASE=Succeeded\n' });
    expect(JSON.parse(await kubectlOk(['get', `certificates.${one.group}`, 'site', '-n', ns, '-o', 'json'])).spec).toEqual({ size: 1 });

    const two = newGroup('loop', 'Certificate', 'certificates');
    const loopApp = writeApp(work.dir, { name: 'newgroup-loop', destinationNamespace: ns, prune: false });
    const w = watch(['-f', loopApp, '--desired', writeDesired(work.dir, 'newgroup-loop', [two.crd, two.cr()])]);
    const line = await w.line((l) => l.action === 'sync' && l.object === 'Certificate/site', 'the loop applying the Certificate');
    expect(line).toMatchObject({ result: 'applied' });
    await w.line((l) => l.action === 'in-sync', 'the app in sync');
    expect(w.lines.filter((l) => l.result === 'failed')).toEqual([]);
    expect(JSON.parse(await kubectlOk(['get', `certificates.${two.group}`, 'site', '-n', ns, '-o', 'json'])).spec).toEqual({ size: 1 });
  },
  TIMEOUT,
);

test(
  "SkipDryRunOnMissingResource, the kind unserved: the loop fails that object with sync's words, then applies it once a CRD serves it",
  async () => {
    const g = newGroup('skip', 'Sprocket', 'sprockets');
    const app = writeApp(work.dir, { name: 'unserved', destinationNamespace: ns, prune: false });
    const d = writeDesired(work.dir, 'unserved', [configMap('u-cm'), g.cr({ 'argocd.argoproj.io/sync-options': 'SkipDryRunOnMissingResource=true' })]);
    const why = `not applied: the cluster does not serve Sprocket in ${g.group}/v1 and no CustomResourceDefinition defines it (SkipDryRunOnMissingResource skipped its dry-run)`;

    const sync = await runPlugin(['sync', '-f', app, '--desired', d, '-o', 'kv']);
    expect(sync.code).toBe(3);
    expect(kvValues(sync.stdout).FAILED).toEqual([`Sprocket/site apply: ${why}`]);

    const w = watch(['-f', app, '--desired', d]);
    const failed = await w.line((l) => l.action === 'sync' && l.object === 'Sprocket/site', "the loop's result for the Sprocket");
    expect(failed).toMatchObject({ result: 'failed', message: why });
    await applyYaml(stringify(g.crd));
    await kubectlOk(['wait', '--for=condition=Established', `customresourcedefinition/sprockets.${g.group}`, '--timeout=60s']);
    await w.line((l) => l.action === 'sync' && l.object === 'Sprocket/site' && l.result === 'applied', 'the loop applying the Sprocket once served');
    await w.line((l) => l.action === 'in-sync', 'the app in sync (the loop sees the new kind served)');
    expect(JSON.parse(await kubectlOk(['get', `sprockets.${g.group}`, 'site', '-n', ns, '-o', 'json'])).spec).toEqual({ size: 1 });
  },
  TIMEOUT,
);

test(
  "no commit (--desired): the loop's revision and its generated hook names are the digest sync uses",
  async () => {
    const app = writeApp(work.dir, { name: 'digest', destinationNamespace: ns, prune: false });
    const hook = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'pre-', annotations: { 'argocd.argoproj.io/hook': 'PreSync' } },
      data: { k: 'v' },
    };
    const d = writeDesired(work.dir, 'digest', [configMap('dg-cm'), hook]);
    const plan = JSON.parse((await runPlugin(['sync', '-f', app, '--desired', d, '--dry-run', '-o', 'json'])).stdout) as { hooks: { name: string }[] };
    const planned = /^pre-([0-9a-f]{7})-presync-\d+$/.exec(plan.hooks[0]?.name ?? '');
    expect(planned).not.toBeNull();
    const digest = planned![1]!;

    const w = watch(['-f', app, '--desired', d]);
    expect((await w.line((l) => l.action === 'revision', 'the revision line')).revision).toBe(digest);
    await w.line((l) => l.action === 'in-sync', 'the app in sync');
    const made = (await kubectlOk(['get', 'configmaps', '-n', ns, '-o', 'name'])).split('\n').filter((n) => n.startsWith('configmap/pre-'));
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(new RegExp(`^configmap/pre-${digest}-presync-\\d+$`));
  },
  TIMEOUT,
);
