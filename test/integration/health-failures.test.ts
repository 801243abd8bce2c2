// Failures the real controllers react to, read by `status` and `sync`: kwok's pod stages of this project
// (test/cluster/manifests/kwok-stages.yaml) fail a pod labelled kgitops.test/kwok-fate=fail (Failed, exit code 1) and
// keep one labelled kgitops.test/kwok-fate=image-pull Pending in ImagePullBackOff; the Job and Deployment controllers
// of kube-controller-manager do the rest; a paused Deployment (no controller needed) holds a wave. A cluster started
// before those stages gets them when test/cluster/up reuses it (it restarts kwok alone); the first test checks that
// the stages are there rather than waiting for nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin, waitFor } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 240_000;
const FATE = 'kgitops.test/kwok-fate';
let ns: string;
let root: string;

interface Health {
  status: string;
  message?: string;
}
interface Report {
  health: Health & { reason?: unknown };
  resources: { kind: string; name: string; health?: Health }[];
}

function writeApp(name: string, files: Record<string, string>): { appFile: string; desired: string } {
  const desired = join(root, name);
  mkdirSync(desired, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(desired, f), text);
  const appFile = join(root, `${name}-app.yaml`);
  writeFileSync(appFile, applicationYaml({ name, spec: { destination: inCluster(ns) } }));
  return { appFile, desired };
}

const job = (name: string, fate: string | undefined, annotations: Record<string, string> = {}) => `apiVersion: batch/v1
kind: Job
metadata: {name: ${name}, annotations: ${JSON.stringify(annotations)}}
spec:
  backoffLimit: 0
  template:
    metadata: {labels: ${JSON.stringify(fate ? { [FATE]: fate } : {})}}
    spec: {restartPolicy: Never, containers: [{name: run, image: registry.local/job:1}]}
`;

const deployment = (name: string, progressDeadlineSeconds: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  progressDeadlineSeconds: ${progressDeadlineSeconds}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}, ${FATE}: image-pull}}
    spec: {containers: [{name: web, image: registry.local/${name}:missing}]}
`;

async function status(appFile: string, desired: string): Promise<{ report: Report; kv: Record<string, string[]> }> {
  const json = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'json']);
  expect(json.code).toBe(0);
  const kv = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'kv']);
  expect(kv.code).toBe(0);
  return { report: JSON.parse(json.stdout) as Report, kv: kvValues(kv.stdout) };
}

const healthOf = (r: Report, kind: string, name: string) => r.resources.find((x) => x.kind === kind && x.name === name)?.health;

beforeAll(async () => {
  ns = await createTestNamespace('health-failures');
  root = tempDir('health-failures');
}, TIMEOUT);
afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

test(
  "the local control plane's kwok runs this project's pod stages (a pod with the fate label fails, one without runs)",
  async () => {
    const pod = (name: string, fate?: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, labels: ${JSON.stringify(fate ? { [FATE]: fate } : {})}}\nspec: {restartPolicy: Never, containers: [{name: c, image: registry.local/x:1}]}\n`;
    await kubectlOk(['apply', '-n', ns, '-f', '-'], { stdin: [pod('plain'), pod('doomed', 'fail'), pod('unpullable', 'image-pull')].join('---\n') });
    const phases = await waitFor(
      async () => {
        const out = await kubectlOk([
          'get',
          'pods',
          '-n',
          ns,
          '-o',
          'jsonpath={range .items[*]}{.metadata.name}={.status.phase}/{.status.containerStatuses[0].state}{"\\n"}{end}',
        ]);
        const lines = out.trim().split('\n').sort();
        return lines.length === 3 && lines.every((l) => !l.endsWith('/')) ? lines : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1000, what: "kwok's stages to act on the three pods (restart the cluster, test/cluster/up, if kwok runs without them)" },
    );
    expect(phases[0]).toMatch(/^doomed=Failed\/\{"terminated":\{.*"exitCode":1,.*"reason":"Error"/);
    expect(phases[1]).toMatch(/^plain=Running\/\{"running":/);
    expect(phases[2]).toBe('unpullable=Pending/{"waiting":{"message":"Back-off pulling image \\"registry.local/x:1\\"","reason":"ImagePullBackOff"}}');
    await kubectlOk(['delete', 'pods', '--all', '-n', ns, '--wait=false']);
  },
  TIMEOUT,
);

test(
  "a Job whose pod fails is Degraded with the Job controller's message, and status names the failed Job",
  async () => {
    const { appFile, desired } = writeApp('failing-job', { 'job.yaml': job('migrate', 'fail'), 'ok.yaml': job('seed', undefined) });
    const synced = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect({ code: synced.code, out: synced.stdout }).toEqual({ code: 0, out: 'APPLIED=2\nPHASE=Succeeded\n' });
    const { report, kv } = await waitFor(
      async () => {
        const s = await status(appFile, desired);
        return healthOf(s.report, 'Job', 'migrate')?.status === 'Degraded' && healthOf(s.report, 'Job', 'seed')?.status === 'Healthy' ? s : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 2000, what: 'the Job controller to fail migrate and complete seed' },
    );
    // Argo CD's Job check: a Failed condition is Degraded, with that condition's message.
    expect(healthOf(report, 'Job', 'migrate')).toEqual({ status: 'Degraded', message: 'Job has reached the specified backoff limit' });
    expect(report.health.status).toBe('Degraded');
    expect(kv.HEALTH).toEqual(['Degraded']);
    expect(kv.SYNC).toEqual(['Synced']);
    // The reason: the failed Job's condition (ranked above its pod's terminated container).
    expect(kv.REASON).toEqual(['Job/migrate: BackoffLimitExceeded: Job has reached the specified backoff limit']);
  },
  TIMEOUT,
);

test(
  "a Deployment whose pod cannot pull its image: Progressing with the pod's ImagePullBackOff as the reason, Degraded once its progress deadline passed",
  async () => {
    const { appFile, desired } = writeApp('no-image', { 'waiting.yaml': deployment('waiting', 600), 'stuck.yaml': deployment('stuck', 5) });
    const synced = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect({ code: synced.code, out: synced.stdout }).toEqual({ code: 0, out: 'APPLIED=2\nPHASE=Succeeded\n' });
    const { report, kv } = await waitFor(
      async () => {
        const s = await status(appFile, desired);
        const waiting = healthOf(s.report, 'Deployment', 'waiting');
        return waiting?.message?.includes('0 of 1 updated replicas are available') && healthOf(s.report, 'Deployment', 'stuck')?.status === 'Degraded'
          ? s
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 2000, what: 'the pods in ImagePullBackOff and stuck past its progress deadline' },
    );
    // Argo CD's Deployment check: waiting for available replicas, until the controller says ProgressDeadlineExceeded.
    expect(healthOf(report, 'Deployment', 'waiting')).toEqual({
      status: 'Progressing',
      message: 'Waiting for rollout to finish: 0 of 1 updated replicas are available...',
    });
    expect(healthOf(report, 'Deployment', 'stuck')).toEqual({ status: 'Degraded', message: 'Deployment "stuck" exceeded its progress deadline' });
    expect(kv.HEALTH).toEqual(['Degraded']);
    // Beyond Argo CD: the reason is the pod's container back-off, with the kubelet's message.
    expect(kv.REASON?.[0]).toMatch(
      /^Pod\/(stuck|waiting)-[a-z0-9]+-[a-z0-9]+ container web: ImagePullBackOff: Back-off pulling image "registry\.local\/(stuck|waiting):missing"$/,
    );
  },
  TIMEOUT,
);

test(
  "bare Pods, as Argo CD's Pod check reads them: a failed container's exit code, an image back-off Degraded only under restartPolicy Always",
  async () => {
    const pod = (name: string, fate: string, restartPolicy: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, labels: {${FATE}: ${fate}}}\nspec: {restartPolicy: ${restartPolicy}, containers: [{name: c, image: registry.local/${name}:1}]}\n`;
    const { appFile, desired } = writeApp('bare-pods', {
      'crashed.yaml': pod('crashed', 'fail', 'Never'),
      'unpullable.yaml': pod('unpullable', 'image-pull', 'Always'),
      // Argo CD leaves a back-off of a pod that does not restart (a hook's, typically) Progressing.
      'once.yaml': pod('once', 'image-pull', 'Never'),
    });
    const synced = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect({ code: synced.code, out: synced.stdout }).toEqual({ code: 0, out: 'APPLIED=3\nPHASE=Succeeded\n' });
    const { report, kv } = await waitFor(
      async () => {
        const s = await status(appFile, desired);
        return healthOf(s.report, 'Pod', 'crashed')?.status === 'Degraded' && healthOf(s.report, 'Pod', 'unpullable')?.status === 'Degraded' ? s : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 2000, what: 'kwok to fail the pods' },
    );
    expect(healthOf(report, 'Pod', 'crashed')).toEqual({ status: 'Degraded', message: 'container "c" failed with exit code 1' });
    expect(healthOf(report, 'Pod', 'unpullable')).toEqual({ status: 'Degraded', message: 'Back-off pulling image "registry.local/unpullable:1"' });
    expect(healthOf(report, 'Pod', 'once')?.status).toBe('Progressing');
    expect(kv.HEALTH).toEqual(['Degraded']);
  },
  TIMEOUT,
);

test(
  'a PreSync hook Job whose pod fails fails the sync: the hook Failed, nothing of the Sync phase applied, exit 3',
  async () => {
    const { appFile, desired } = writeApp('failing-hook', {
      'pre.yaml': job('pre-migrate', 'fail', { 'argocd.argoproj.io/hook': 'PreSync' }),
      'app.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hooked-app}\ndata: {a: "1"}\n`,
    });
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '2m'], { timeoutMs: 200_000 });
    expect(res.code).toBe(3);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toContain('HOOK=PreSync Job/pre-migrate Failed');
    expect(lines.filter((l) => l.startsWith('WAVE='))).toEqual(['WAVE=PreSync 0 failed', 'WAVE=Sync 0 not-run']);
    expect(lines.filter((l) => l.startsWith('FAILED='))).toEqual([
      'FAILED=Sync/failing-hook operation: PreSync hook Job/pre-migrate failed: Job has reached the specified backoff limit',
    ]);
    expect(lines[0]).toBe('APPLIED=0');
    expect(lines.at(-1)).toBe('PHASE=Failed');
    const cm = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect(kvValues(cm.stdout).SYNC).toEqual(['OutOfSync']);
    expect(kvValues(cm.stdout).HOOK).toEqual(['PreSync Job/pre-migrate Failed']);
  },
  TIMEOUT,
);

test(
  'a paused Deployment in a wave before the last holds the sync until --timeout (Suspended is waited for, as gitops-engine does); the next wave is not applied, exit 3',
  async () => {
    const { appFile, desired } = writeApp('paused-wave', {
      'web.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: paused-web}
spec:
  paused: true
  selector: {matchLabels: {app: paused-web}}
  template:
    metadata: {labels: {app: paused-web}}
    spec: {containers: [{name: web, image: registry.local/web:1}]}
`,
      'late.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: after-paused, annotations: {argocd.argoproj.io/sync-wave: "1"}}\ndata: {a: "1"}\n`,
    });
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '6s'], { timeoutMs: 60_000 });
    expect(res.code).toBe(3);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('WAVE='))).toEqual(['WAVE=Sync 0 failed', 'WAVE=Sync 1 not-run']);
    expect(lines.filter((l) => l.startsWith('FAILED='))).toEqual([
      'FAILED=Sync/paused-wave operation: Deployment/paused-web did not become healthy in time (Suspended): Deployment is paused (wave 0 of Sync)',
    ]);
    // The API server has the paused Deployment and not the next wave's ConfigMap.
    expect((await kubectlOk(['get', 'deployment', 'paused-web', '-n', ns, '-o', 'jsonpath={.spec.paused}'])).trim()).toBe('true');
    const late = await kubectl(['get', 'configmap', 'after-paused', '-n', ns]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('NotFound');
  },
  TIMEOUT,
);
