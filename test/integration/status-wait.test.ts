// `status --wait` and its modes, as argocd app wait, on the local control plane: --degraded fails fast on a Deployment
// past its progress deadline (kwok keeps a pod labelled kgitops.test/kwok-fate=image-pull in ImagePullBackOff, and
// the Deployment controller marks the rollout ProgressDeadlineExceeded), --health, --sync, --operation, --suspended and
// --resource each once. The Applications are files (-f) but for --operation, whose operationState lives in the cluster.
import { applicationYaml, inCluster } from '../support/application.js';
import { appWorkspace } from '../support/app-workspace.js';
import { spawn } from 'node:child_process';
import { stringify } from 'yaml';
import { tempDir } from '../support/temp-dir.js';
import { serviceAccountKubeconfig } from './hardening/support.js';
import {
  applyYaml,
  childEnv,
  createTestNamespace,
  deleteNamespace,
  kubectl,
  kubectlOk,
  kvValues,
  pluginPath,
  repoRoot,
  runPlugin,
  type RunResult,
} from './support/index.js';

const TIMEOUT = 240_000;
const FATE = 'kgitops.test/kwok-fate';
let ns: string;

interface AppFiles {
  name: string;
  appFile: string;
  desired: string;
}

function appFiles(name: string, manifests: Record<string, string>): AppFiles {
  const ws = appWorkspace({
    prefix: `status-wait-${name}`,
    name,
    manifests,
    spec: () => ({ source: { repoURL: 'https://git.example.com/shop.git', path: name }, destination: inCluster(ns) }),
  });
  return { name, appFile: ws.appFile, desired: ws.dir };
}

/** A Deployment whose pod runs (kwok), or whose pod never pulls its image (`stuck`), with its progress deadline. */
function deployment(name: string, o: { stuck?: boolean; progressDeadlineSeconds?: number } = {}): string {
  const labels = { app: name, ...(o.stuck ? { [FATE]: 'image-pull' } : {}) };
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  progressDeadlineSeconds: ${o.progressDeadlineSeconds ?? 600}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: ${JSON.stringify(labels)}}
    spec: {containers: [{name: web, image: registry.local/${name}:${o.stuck ? 'missing' : '1.0.0'}}]}
`;
}

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {mode: fast}\n`;

/** A Deployment created paused (spec.paused): Suspended, as gitops-engine's Deployment check says. */
const pausedDeployment = (name: string) => deployment(name).replace('spec:\n  replicas: 1', 'spec:\n  paused: true\n  replicas: 1');

async function sync(app: AppFiles): Promise<void> {
  const res = await runPlugin(['sync', '-f', app.appFile, '--desired', app.desired]);
  if (res.code !== 0) throw new Error(`kubectl gitops sync exited ${res.code}: ${res.stderr}${res.stdout}`);
}

/** `status -f APP --desired DIR` with more flags, and how long it took. */
async function status(app: AppFiles, ...extra: string[]): Promise<RunResult & { ms: number }> {
  const started = Date.now();
  const res = await runPlugin(['status', '-f', app.appFile, '--desired', app.desired, ...extra], { timeoutMs: 200_000 });
  return { ...res, ms: Date.now() - started };
}

beforeAll(async () => {
  ns = await createTestNamespace('status-wait');
}, TIMEOUT);
afterAll(async () => {
  if (ns) await kubectl(['delete', 'role,rolebinding', `${ns}-waiter`, '-n', 'argocd', '--ignore-not-found']);
  if (ns) await deleteNamespace(ns);
});

test(
  '--degraded: a Deployment past its progress deadline ends the wait with exit 3 and the reason within seconds, not at the timeout',
  async () => {
    const app = appFiles('doomed', { 'stuck.yaml': deployment('stuck', { stuck: true, progressDeadlineSeconds: 1 }), 'cm.yaml': configMap('doomed-settings') });
    await sync(app);
    // Right after the sync the Deployment is Progressing; the controller marks it ProgressDeadlineExceeded a second or
    // so later, and the wait ends at the first poll that sees it, far before the timeout.
    const res = await status(app, '--degraded', '--timeout', '120s', '-o', 'kv');
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 3, stderr: expect.stringMatching(/^error: status --degraded: the app is Degraded: /m) });
    expect(res.ms).toBeLessThan(90_000);
    // The report is the usual one, unchanged in shape.
    expect(kvValues(res.stdout).HEALTH).toEqual(['Degraded']);
    expect(kvValues(res.stdout).SYNC).toEqual(['Synced']);
    // A named resource: its own words.
    const named = await status(app, '--wait', '--degraded', '--resource', 'apps:Deployment:stuck', '--timeout', '120s', '-o', 'json');
    expect(named.code).toBe(3);
    expect(named.stderr).toContain('error: status --degraded: Deployment/stuck is Degraded: Deployment "stuck" exceeded its progress deadline');
    expect(named.ms).toBeLessThan(90_000);
    expect((JSON.parse(named.stdout) as { schemaVersion: number; health: { status: string } }).health.status).toBe('Degraded');
    // Without --degraded the same app waits to the timeout (exit 1) and says what was not met.
    const plain = await status(app, '--wait', '--timeout', '3s', '-o', 'kv');
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(/error: timed out after 3s waiting for Synced, Healthy and no operation running: health is Degraded: /);
    expect(plain.ms).toBeGreaterThanOrEqual(3000);
  },
  TIMEOUT,
);

test(
  '--health waits for Healthy only (a drifted ConfigMap does not hold it); --sync times out on the drift, exit 1, naming it',
  async () => {
    const app = appFiles('healthy', { 'web.yaml': deployment('healthy-web'), 'cm.yaml': configMap('healthy-settings') });
    await sync(app);
    await kubectlOk(['patch', 'configmap', 'healthy-settings', '-n', ns, '-p', '{"data":{"mode":"slow"}}']);
    const res = await status(app, '--health', '--timeout', '120s', '-o', 'kv');
    expect({ code: res.code, stderr: res.stderr.replace(/^waiting: .*\n/gm, '') }).toEqual({ code: 0, stderr: '' });
    expect(kvValues(res.stdout)).toMatchObject({ SYNC: ['OutOfSync'], HEALTH: ['Healthy'] });
    const synced = await status(app, '--sync', '--timeout', '3s', '-o', 'kv');
    expect(synced.code).toBe(1);
    expect(synced.stderr).toContain('error: timed out after 3s waiting for Synced: sync is OutOfSync');
  },
  TIMEOUT,
);

test(
  '--sync waits for Synced only (a Deployment still Progressing does not hold it); --resource waits on the named resources only',
  async () => {
    const app = appFiles('rolling', { 'web.yaml': deployment('rolling-web', { stuck: true }), 'cm.yaml': configMap('rolling-settings') });
    await sync(app);
    const res = await status(app, '--sync', '--timeout', '60s', '-o', 'kv');
    expect(res.code).toBe(0);
    expect(kvValues(res.stdout)).toMatchObject({ SYNC: ['Synced'], HEALTH: ['Progressing'] });
    // The default conditions (Synced, Healthy, no operation), on the ConfigMap alone (the core group is empty).
    const cm = await status(app, '--wait', '--resource', ':ConfigMap:rolling-settings', '--timeout', '60s', '-o', 'kv');
    expect(cm.code).toBe(0);
    expect(kvValues(cm.stdout).HEALTH).toEqual(['Progressing']);
    // ... and on the Deployment, which is not Healthy: exit 1 at the timeout, naming it.
    const web = await status(app, '--wait', '--resource', `apps:Deployment:${ns}/rolling-web`, '--timeout', '3s', '-o', 'kv');
    expect(web.code).toBe(1);
    expect(web.stderr).toMatch(
      new RegExp(`^waiting: Deployment/rolling-web health is Progressing: Waiting for rollout to finish: 0 of 1 updated replicas are available\\.\\.\\.$`, 'm'),
    );
    expect(web.stderr).toContain(
      `error: timed out after 3s waiting for Synced, Healthy and no operation running (--resource apps:Deployment:${ns}/rolling-web): Deployment/rolling-web health is Progressing`,
    );
    // A --resource that names nothing of the app is bad input (exit 2), said at once.
    const none = await status(app, '--wait', '--resource', 'apps:Deployment:nothing', '--timeout', '60s');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('error: --resource apps:Deployment:nothing names no resource of the Application');
    // Without --wait or a mode, --resource is refused: it only narrows a wait.
    const alone = await status(app, '--resource', ':ConfigMap:rolling-settings');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--resource narrows the wait/);
  },
  TIMEOUT,
);

test(
  '--suspended: a paused Deployment is Suspended, and so is the app; the default wait would not end',
  async () => {
    // Not a CronJob with suspend: true: Argo CD v3.2.11's bundled CronJob check (which status runs, as Argo CD does)
    // says Healthy for it, "CronJob is Suspended" (argo-cd#24428).
    const app = appFiles('paused', { 'web.yaml': pausedDeployment('paused-web'), 'cm.yaml': configMap('paused-settings') });
    await sync(app);
    const res = await status(app, '--suspended', '--timeout', '60s', '-o', 'kv');
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
    expect(kvValues(res.stdout).HEALTH).toEqual(['Suspended']);
    const both = await status(app, '--health', '--suspended', '--timeout', '60s', '-o', 'kv');
    expect(both.code).toBe(0);
    const healthy = await status(app, '--wait', '--timeout', '2s', '-o', 'kv');
    expect(healthy.code).toBe(1);
    expect(healthy.stderr).toContain('error: timed out after 2s waiting for Synced, Healthy and no operation running: health is Suspended');
  },
  TIMEOUT,
);

test(
  "--operation waits while the Application's recorded operation is Running, and ends when it has finished",
  async () => {
    const desired = appFiles('operated', { 'cm.yaml': configMap('operated-settings') }).desired;
    const plugin = (args: string[], timeoutMs = 120_000) => runPlugin([...args, '--app-namespace', ns, '--no-record'], { timeoutMs });
    const application = (status: Record<string, unknown>) =>
      applicationYaml({
        name: 'operated',
        namespace: ns,
        spec: { source: { repoURL: 'https://git.example.com/shop.git', path: 'operated' }, destination: inCluster(ns) },
        status,
      });
    await applyYaml(application({}));
    expect((await plugin(['sync', 'operated', '--desired', desired])).code).toBe(0);
    const running = {
      phase: 'Running',
      message: 'Waiting for pruning confirmation of v1/ConfigMap/old',
      startedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      operation: { sync: {} },
    };
    await applyYaml(application({ operationState: running }));
    const timedOut = await plugin(['status', 'operated', '--desired', desired, '--operation', '--timeout', '3s', '-o', 'kv']);
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toContain(
      'error: timed out after 3s waiting for no operation running: the operation is Running: Waiting for pruning confirmation of v1/ConfigMap/old',
    );
    // The app is Synced and Healthy all along: the default wait includes the operation, as argocd app wait's.
    expect(kvValues(timedOut.stdout)).toMatchObject({ SYNC: ['Synced'], HEALTH: ['Healthy'] });
    expect((await plugin(['status', 'operated', '--desired', desired, '--wait', '--timeout', '2s'])).code).toBe(1);
    expect((await plugin(['status', 'operated', '--desired', desired, '--health', '--timeout', '30s'])).code).toBe(0);
    // The operation finishes while a wait polls: the wait ends then.
    const started = Date.now();
    const waiting = plugin(['status', 'operated', '--desired', desired, '--operation', '--timeout', '120s', '-o', 'kv'], 150_000);
    await new Promise((r) => setTimeout(r, 3000));
    const finishedAt = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await kubectlOk([
      'patch',
      'application',
      'operated',
      '-n',
      ns,
      '--type',
      'merge',
      '-p',
      JSON.stringify({ status: { operationState: { phase: 'Succeeded', message: 'successfully synced (all tasks run)', finishedAt } } }),
    ]);
    const res = await waiting;
    expect(res.code).toBe(0);
    expect(res.stderr).toContain('waiting: sync Synced, health Healthy; the operation is Running: Waiting for pruning confirmation of v1/ConfigMap/old');
    expect(Date.now() - started).toBeLessThan(90_000);
  },
  TIMEOUT,
);

test(
  'a wait whose user loses its rights while it polls ends at the next poll with the 403, exit 3, not at the timeout',
  async () => {
    const app = appFiles('revoked', { 'web.yaml': deployment('revoked-web', { stuck: true }) });
    await sync(app);
    // The waiter reads what status reads of this app and no more: the Deployment and its ReplicaSets and Pods here, the
    // AppProject and the two settings ConfigMaps in argocd. Its rights in the namespace go away during the wait.
    const rbac = [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'waiter', namespace: ns } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'waiter', namespace: ns },
        rules: [
          { apiGroups: ['apps'], resources: ['deployments', 'replicasets'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] },
        ],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: `${ns}-waiter`, namespace: 'argocd' },
        rules: [
          { apiGroups: ['argoproj.io'], resources: ['appprojects'], resourceNames: ['default'], verbs: ['get'] },
          { apiGroups: [''], resources: ['configmaps'], resourceNames: ['argocd-cm', 'argocd-cmd-params-cm'], verbs: ['get'] },
        ],
      },
      ...[
        ['waiter', ns],
        [`${ns}-waiter`, 'argocd'],
      ].map(([name, namespace]) => ({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name, namespace },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
        subjects: [{ kind: 'ServiceAccount', name: 'waiter', namespace: ns }],
      })),
    ];
    await applyYaml(rbac.map((o) => stringify(o)).join('---\n'));
    const kubeconfig = await serviceAccountKubeconfig('waiter', ns, tempDir('status-wait-revoked'));

    const child = spawn(
      pluginPath,
      ['status', '-f', app.appFile, '--desired', app.desired, '--wait', '--timeout', '150s', '-o', 'kv', '--kubeconfig', kubeconfig],
      {
        cwd: repoRoot,
        env: childEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString('utf8');
    });
    const polled = new Promise<void>((resolve) => {
      child.stderr.on('data', (b: Buffer) => {
        stderr += b.toString('utf8');
        if (/^waiting: /m.test(stderr)) resolve();
      });
    });
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // The first poll read everything and found the app Progressing (its pod never pulls its image).
    const first = await Promise.race([polled.then(() => 'polled'), closed.then((code) => `exited ${code}: ${stderr}`)]);
    expect(first).toBe('polled');
    const revokedAt = Date.now();
    await kubectlOk(['delete', 'rolebinding', 'waiter', '-n', ns]);
    const code = await closed;
    const afterRevoke = Date.now() - revokedAt;
    // Exit 3 (a cluster error, README's exit codes) at the next poll, naming what the user may no longer do: a poll reads
    // the Deployment and lists its kind at once, and the refusal of whichever answers first ends it. Every line before
    // it is a poll that found the app Progressing.
    const lines = stderr.trimEnd().split('\n');
    expect(code).toBe(3);
    expect([
      `error: getting Deployment ${ns}/revoked-web: forbidden (403): cannot get deployments.apps in namespace "${ns}"`,
      `error: listing deployments.apps in namespace ${ns}: forbidden (403): cannot list deployments.apps in namespace "${ns}"`,
    ]).toContain(lines.at(-1));
    expect(lines.slice(0, -1).filter((l) => !l.startsWith('waiting: sync Synced, health Progressing: Pod/revoked-web-'))).toEqual([]);
    expect(afterRevoke).toBeLessThan(30_000);
    // An error ends the wait without a report (the polls before it printed none either).
    expect(stdout).toBe('');
  },
  TIMEOUT,
);
