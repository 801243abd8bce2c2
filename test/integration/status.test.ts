// `kubectl gitops status` on the local control plane: apps applied by `sync`, pods on kwok nodes,
// the two axes kept apart, the scheduler's message as the reason, the live tree and --wait.
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin, waitFor, type RunResult } from './support/index.js';
import { inCluster } from '../support/application.js';
import { appWorkspace } from '../support/app-workspace.js';

interface AppFiles {
  name: string;
  namespace: string;
  appFile: string;
  desired: string;
}

/** An Application file (driving the loop without an Argo CD controller) and its desired manifests. */
function appFiles(name: string, namespace: string, manifests: string, automated: Record<string, unknown> = { prune: true }): AppFiles {
  const ws = appWorkspace({
    prefix: `status-${name}`,
    name,
    manifests,
    spec: () => ({
      source: { repoURL: 'https://git.example.com/shop.git', path: 'deploy', targetRevision: 'main' },
      destination: inCluster(namespace),
      syncPolicy: { automated },
    }),
  });
  return { name, namespace, appFile: ws.appFile, desired: ws.dir };
}

function deployment(name: string, nodeSelector?: Record<string, string>): string {
  const selector = nodeSelector ? `\n      nodeSelector: ${JSON.stringify(nodeSelector)}` : '';
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:${selector}
      containers: [{name: ${name}, image: registry.local/${name}:1.0.0}]
`;
}

const configMap = (name: string) => `apiVersion: v1
kind: ConfigMap
metadata: {name: ${name}}
data: {mode: fast}
`;

function status(app: AppFiles, ...extra: string[]): Promise<RunResult> {
  return runPlugin(['status', '-f', app.appFile, '--desired', app.desired, ...extra]);
}

function kv(out: string): Record<string, string> {
  return Object.fromEntries(
    out
      .trimEnd()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

async function sync(app: AppFiles): Promise<void> {
  const res = await runPlugin(['sync', '-f', app.appFile, '--desired', app.desired]);
  if (res.code !== 0) throw new Error(`kubectl gitops sync exited ${res.code}: ${res.stderr}${res.stdout}`);
}

/** Per test and hook: the integration project's testTimeout does not reach hooks when a single file is run. */
const TEST_TIMEOUT_MS = 150_000;

const SCHEDULER = /0\/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector/;

describe('kubectl gitops status', () => {
  let healthy: AppFiles;
  let broken: AppFiles;
  const namespaces: string[] = [];

  beforeAll(async () => {
    const hns = await createTestNamespace('status-healthy');
    const bns = await createTestNamespace('status-broken');
    namespaces.push(hns, bns);
    healthy = appFiles(`${hns}-app`, hns, [deployment('web'), configMap('settings')].join('---\n'));
    broken = appFiles(`${bns}-app`, bns, [deployment('broken', { disktype: 'nvme' }), configMap('settings')].join('---\n'), { prune: true, allowEmpty: true });
    await sync(healthy);
    await sync(broken);
  }, 120_000);

  afterAll(async () => {
    for (const ns of namespaces) await deleteNamespace(ns);
  }, 60_000);

  it(
    'a healthy app becomes Synced and Healthy once its pod runs on a kwok node (--wait exits 0)',
    async () => {
      const res = await status(healthy, '-o', 'kv', '--wait', '--timeout', '90s');
      expect(res.stderr).not.toMatch(/timed out/);
      expect(res.code).toBe(0);
      expect(kv(res.stdout)).toEqual({
        SYNC: 'Synced',
        HEALTH: 'Healthy',
        REASON: '',
        PRUNE: 'true',
        ALLOW_EMPTY: 'false',
        RESOURCE: 'Deployment/web Synced Healthy',
      });
      const pods = JSON.parse(await kubectlOk(['get', 'pods', '-n', healthy.namespace, '-l', 'app=web', '-o', 'json'])) as {
        items: { spec: { nodeName?: string }; status: { phase?: string } }[];
      };
      expect(pods.items.map((p) => [p.status.phase, p.spec.nodeName?.startsWith('kwok-node-')])).toEqual([['Running', true]]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "shows a Deployment that no node accepts as Synced, Progressing, with the scheduler's message as REASON",
    async () => {
      const res = await waitFor(
        async () => {
          const r = await status(broken, '-o', 'kv');
          return SCHEDULER.test(r.stdout) ? r : undefined;
        },
        { what: "the scheduler's message in REASON", timeoutMs: 60_000 },
      );
      expect(res.code).toBe(0);
      const lines = kv(res.stdout);
      expect(Object.keys(lines)).toEqual(['SYNC', 'HEALTH', 'REASON', 'PRUNE', 'ALLOW_EMPTY', 'RESOURCE']);
      expect(lines.RESOURCE).toBe('Deployment/broken Synced Progressing');
      expect(lines.SYNC).toBe('Synced');
      expect(lines.HEALTH).toBe('Progressing');
      expect(lines.REASON).toMatch(/^Pod\/broken-[a-z0-9]+-[a-z0-9]+: Unschedulable: 0\/2 nodes are available/);
      expect(lines.PRUNE).toBe('true');
      expect(lines.ALLOW_EMPTY).toBe('true');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "--tree draws Deployment → ReplicaSet → Pod with each node's health",
    async () => {
      const res = await status(broken, '--tree');
      expect(res.code).toBe(0);
      const lines = res.stdout.split('\n');
      const d = lines.findIndex((l) =>
        /^Deployment\/broken\s+Synced\s+Progressing\s+Waiting for rollout to finish: 0 of 1 updated replicas are available\.\.\./.test(l),
      );
      expect(d).toBeGreaterThan(0);
      expect(lines[d + 1]).toMatch(/^└─ ReplicaSet\/broken-[a-z0-9]+\s+Progressing\s/);
      expect(lines[d + 2]).toMatch(/^ {3}└─ Pod\/broken-[a-z0-9]+-[a-z0-9]+\s+Progressing\s+Unschedulable: 0\/2 nodes are available/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    '--wait gives up at the timeout with exit 1 and prints the reason',
    async () => {
      const started = Date.now();
      const res = await status(broken, '--wait', '--timeout', '4s', '-o', 'kv');
      expect(res.code).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4000);
      expect(res.stderr).toMatch(/timed out after 4s waiting for Synced, Healthy and no operation running: health is Progressing: Pod\/broken-/);
      expect(res.stderr).toMatch(/^waiting: sync Synced, health Progressing: Pod\/broken-/m);
      expect(res.stderr).toMatch(SCHEDULER);
      expect(kv(res.stdout).HEALTH).toBe('Progressing');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    '-o json carries the whole report with a schemaVersion',
    async () => {
      const res = await status(broken, '-o', 'json');
      const report = JSON.parse(res.stdout) as {
        schemaVersion: number;
        sync: { status: string };
        health: { status: string; reason: string; cause: { source: string } };
        resources: { kind: string; status: string; health?: { status: string } }[];
        trees: { kind: string; children: { kind: string; children: { kind: string }[] }[] }[];
      };
      expect(report.schemaVersion).toBe(1);
      expect(report.health.cause.source).toBe('PodUnschedulable');
      expect(report.resources.map((r) => `${r.kind} ${r.status} ${r.health?.status ?? '-'}`)).toEqual(['ConfigMap Synced -', 'Deployment Synced Progressing']);
      const tree = report.trees.find((t) => t.kind === 'Deployment');
      expect(tree?.children[0]?.kind).toBe('ReplicaSet');
      expect(tree?.children[0]?.children[0]?.kind).toBe('Pod');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a drifted object makes the app OutOfSync while its health stays as it is',
    async () => {
      await kubectlOk(['patch', 'configmap', 'settings', '-n', healthy.namespace, '-p', '{"data":{"mode":"slow"}}']);
      const res = await status(healthy, '-o', 'json');
      const report = JSON.parse(res.stdout) as {
        sync: { status: string };
        health: { status: string };
        resources: { kind: string; status: string; syncReason?: string }[];
      };
      expect(report.sync.status).toBe('OutOfSync');
      expect(report.health.status).toBe('Healthy');
      expect(report.resources.find((r) => r.kind === 'ConfigMap')).toMatchObject({ status: 'OutOfSync', syncReason: 'drifted' });
      expect(report.resources.find((r) => r.kind === 'Deployment')).toMatchObject({ status: 'Synced' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a prune candidate (tracked by the app, no longer desired) makes the app OutOfSync',
    async () => {
      const ns = broken.namespace;
      await kubectlOk(['create', 'configmap', 'leftover', '-n', ns, '--from-literal=a=b']);
      await kubectlOk(['annotate', 'configmap', 'leftover', '-n', ns, `argocd.argoproj.io/tracking-id=${broken.name}:/ConfigMap:${ns}/leftover`]);
      const table = await status(broken);
      expect(table.stdout).toMatch(/^Sync Status:\s+OutOfSync \(1 OutOfSync, 1 requiring pruning\)$/m);
      expect(table.stdout).toMatch(/^-\s+ConfigMap\s+\S+\s+leftover\s+OutOfSync\s+-\s+requires pruning$/m);
      expect(kv((await status(broken, '-o', 'kv')).stdout)).toMatchObject({ SYNC: 'OutOfSync', HEALTH: 'Progressing' });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'extras of kinds with a health check are read in full (their health and tree), the others as listed, in a stable order',
    async () => {
      const ns = await createTestNamespace('status-extras');
      namespaces.push(ns);
      const app = appFiles(`${ns}-app`, ns, configMap('settings'));
      await sync(app);
      // Three objects carrying this app's mark that Git no longer declares: two Deployments (health from their status) and a ConfigMap.
      for (const name of ['old-api', 'old-web']) {
        await kubectlOk(['create', 'deployment', name, '-n', ns, `--image=registry.local/${name}:1.0.0`]);
        await kubectlOk(['annotate', 'deployment', name, '-n', ns, `argocd.argoproj.io/tracking-id=${app.name}:apps/Deployment:${ns}/${name}`]);
      }
      await kubectlOk(['create', 'configmap', 'old-settings', '-n', ns, '--from-literal=a=b']);
      await kubectlOk(['annotate', 'configmap', 'old-settings', '-n', ns, `argocd.argoproj.io/tracking-id=${app.name}:/ConfigMap:${ns}/old-settings`]);
      type Report = {
        sync: { status: string; requiresPruning: number };
        resources: { kind: string; name: string; status: string; requiresPruning: boolean; health?: { status: string } }[];
        trees: { kind: string; name: string; children: { kind: string }[] }[];
      };
      const report = await waitFor(
        async () => {
          const r = JSON.parse((await status(app, '-o', 'json')).stdout) as Report;
          return r.resources.filter((x) => x.kind === 'Deployment' && x.health?.status === 'Healthy').length === 2 ? r : undefined;
        },
        { what: 'both extra Deployments Healthy in status', timeoutMs: 90_000 },
      );
      expect(report.sync).toMatchObject({ status: 'OutOfSync', requiresPruning: 3 });
      expect(report.resources.map((r) => `${r.kind}/${r.name} ${r.status} ${r.requiresPruning} ${r.health?.status ?? '-'}`)).toEqual([
        'ConfigMap/old-settings OutOfSync true -',
        'ConfigMap/settings Synced false -',
        'Deployment/old-api OutOfSync true Healthy',
        'Deployment/old-web OutOfSync true Healthy',
      ]);
      for (const name of ['old-api', 'old-web'])
        expect(report.trees.find((t) => t.kind === 'Deployment' && t.name === name)?.children.map((c) => c.kind)).toEqual(['ReplicaSet']);
    },
    TEST_TIMEOUT_MS,
  );
});
