// Health of the kinds whose unit fixtures are hand-written, read by `status -o json` from what the real control plane
// makes of them: PodDisruptionBudgets the disruption controller (kube-controller-manager) has computed, APIServices the
// aggregator's availability controller (kube-apiserver) has looked at, and containers in CrashLoopBackOff as kwok's
// stage kgitops-pod-crash-loops (test/cluster/manifests/kwok-stages.yaml; label kgitops.test/kwok-fate=crash-loop)
// reports them, with the Deployment controller reacting to its pods.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin, waitFor } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 360_000;
const FATE = 'kgitops.test/kwok-fate';
let ns: string;
let root: string;
const apiServices: string[] = [];

interface Health {
  status: string;
  message?: string;
}
interface Report {
  health: Health;
  resources: { kind: string; name: string; health?: Health }[];
}

function writeApp(name: string, manifests: string): { appFile: string; desired: string } {
  const desired = join(root, name);
  mkdirSync(desired, { recursive: true });
  writeFileSync(join(desired, 'all.yaml'), manifests);
  const appFile = join(root, `${name}-app.yaml`);
  writeFileSync(appFile, applicationYaml({ name, spec: { destination: inCluster(ns) } }));
  return { appFile, desired };
}

async function sync(appFile: string, desired: string, applied: number): Promise<void> {
  const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv']);
  expect({ code: res.code, out: res.stdout }).toEqual({ code: 0, out: `APPLIED=${applied}\nPHASE=Succeeded\n` });
}

async function status(appFile: string, desired: string): Promise<Report> {
  const res = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'json']);
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(res.stdout) as Report;
}

const healthOf = (r: Report, kind: string, name: string) => r.resources.find((x) => x.kind === kind && x.name === name)?.health;

beforeAll(async () => {
  ns = await createTestNamespace('health-real');
  root = tempDir('health-real');
}, TIMEOUT);
afterAll(async () => {
  for (const name of apiServices) await kubectl(['delete', 'apiservice', name, '--ignore-not-found', '--wait=false']);
  if (ns) await deleteNamespace(ns);
}, TIMEOUT);

test(
  'PodDisruptionBudgets as the disruption controller computes them: SufficientPods and InsufficientPods Healthy, SyncFailed Degraded',
  async () => {
    const { appFile, desired } = writeApp(
      'pdbs',
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: registry.local/web:1}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: solo}
spec:
  replicas: 1
  selector: {matchLabels: {app: solo}}
  template:
    metadata: {labels: {app: solo}}
    spec: {containers: [{name: solo, image: registry.local/web:1}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: spare}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: exact}
spec: {minAvailable: 2, selector: {matchLabels: {app: solo}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: batch}
spec:
  template:
    metadata: {labels: {app: batch}}
    spec: {restartPolicy: Never, containers: [{name: run, image: registry.local/job:1}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: jobs}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: batch}}}
`,
    );
    await sync(appFile, desired, 6);
    // Settled: both pods of web and solo's one Ready and counted, and the Job's pod seen (a Job has no scale
    // subresource). Each pod matches one PDB: on a pod event the disruption controller recounts only one of the PDBs
    // a pod matches ("matches multiple PodDisruptionBudgets. Chose ... arbitrarily"), so two PDBs over the same pods
    // could leave one counted before the pods were Ready for good (a CI run waited 240 s for it).
    let seen = '';
    const report = await waitFor(
      async () => {
        const r = await status(appFile, desired);
        seen = JSON.stringify(['spare', 'exact', 'jobs'].map((n) => [n, healthOf(r, 'PodDisruptionBudget', n)]));
        // All three computed (on a loaded machine the controller reaches them one after another).
        return healthOf(r, 'PodDisruptionBudget', 'spare')?.message === 'PodDisruptionBudget has SufficientPods' &&
          healthOf(r, 'PodDisruptionBudget', 'exact')?.message === 'PodDisruptionBudget has InsufficientPods' &&
          healthOf(r, 'PodDisruptionBudget', 'jobs')?.status === 'Degraded'
          ? r
          : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 2000, what: 'the disruption controller to count the pods of web and batch' },
    ).catch(async (e: Error) => {
      const live = await kubectl(['get', 'pdb,pods,jobs', '-n', ns, '-o', 'wide']);
      throw new Error(`${e.message}; last seen ${seen}; the cluster:\n${live.stdout}`);
    });
    const pdbs = await kubectlOk([
      'get',
      'pdb',
      '-n',
      ns,
      '-o',
      'jsonpath={range .items[*]}{.metadata.name} {.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}{"\\n"}{end}',
    ]);
    // What the controller wrote, so the verdicts below read the control plane's own conditions.
    expect(pdbs.trim().split('\n').sort()).toEqual([
      'exact False InsufficientPods ',
      'jobs False SyncFailed jobs.batch does not implement the scale subresource',
      'spare True SufficientPods',
    ]);
    expect(healthOf(report, 'PodDisruptionBudget', 'spare')).toEqual({ status: 'Healthy', message: 'PodDisruptionBudget has SufficientPods' });
    // As Argo CD's PodDisruptionBudget check: no disruption allowed can be intended (argo-cd#20171).
    expect(healthOf(report, 'PodDisruptionBudget', 'exact')).toEqual({ status: 'Healthy', message: 'PodDisruptionBudget has InsufficientPods' });
    expect(healthOf(report, 'PodDisruptionBudget', 'jobs')).toEqual({ status: 'Degraded', message: 'PodDisruptionBudget has SyncFailed' });
    expect(report.health.status).toBe('Degraded');
  },
  TIMEOUT,
);

test(
  "APIServices as the aggregator's availability controller sees them: Local Healthy, a missing Service and one without endpoints Progressing",
  async () => {
    const group = `h${randomBytes(3).toString('hex')}.health.kgitops.test`;
    const local = `v1.local-${group}`;
    const remote = `v1.remote-${group}`;
    apiServices.push(local, remote);
    const { appFile, desired } = writeApp(
      'apiservices',
      `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: ${local}}
spec: {group: local-${group}, version: v1, groupPriorityMinimum: 100, versionPriority: 10}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: ${remote}}
spec:
  group: remote-${group}
  version: v1
  groupPriorityMinimum: 100
  versionPriority: 10
  insecureSkipTLSVerify: true
  service: {name: extension, namespace: ${ns}, port: 443}
`,
    );
    try {
      await sync(appFile, desired, 2);
      const before = await waitFor(
        async () => {
          const r = await status(appFile, desired);
          return healthOf(r, 'APIService', local)?.status === 'Healthy' && healthOf(r, 'APIService', remote)?.message?.startsWith('ServiceNotFound')
            ? r
            : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 1000, what: 'the availability controller to look at both APIServices' },
      );
      expect(healthOf(before, 'APIService', local)).toEqual({ status: 'Healthy', message: 'Local: Local APIServices are always available' });
      expect(healthOf(before, 'APIService', remote)).toEqual({
        status: 'Progressing',
        message: `ServiceNotFound: service/extension in "${ns}" is not present`,
      });
      expect(before.health.status).toBe('Progressing');

      // The Service appears, without a selector and with no EndpointSlice anyone wrote: the controller finds no endpoints.
      await kubectlOk(['create', '-n', ns, '-f', '-'], {
        stdin: 'apiVersion: v1\nkind: Service\nmetadata: {name: extension}\nspec: {ports: [{port: 443}]}\n',
      });
      const after = await waitFor(
        async () => {
          const r = await status(appFile, desired);
          return healthOf(r, 'APIService', remote)?.message?.startsWith('ServiceNotFound') ? undefined : r;
        },
        { timeoutMs: 60_000, intervalMs: 1000, what: 'the availability controller to see the Service' },
      );
      expect(healthOf(after, 'APIService', remote)).toEqual({
        status: 'Progressing',
        message: `EndpointsNotFound: cannot find endpointslices for service/extension in "${ns}"`,
      });
    } finally {
      // An unavailable aggregated API is stale discovery for every client of this control plane: gone at once.
      for (const name of [remote, local]) await kubectl(['delete', 'apiservice', name, '--ignore-not-found']);
    }
  },
  TIMEOUT,
);

test(
  "CrashLoopBackOff from kwok's stage: the Pod Degraded with the kubelet's back-off message, its Deployment Progressing, then Degraded past its deadline",
  async () => {
    const deployment = (name: string, deadline: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  progressDeadlineSeconds: ${deadline}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}, ${FATE}: crash-loop}}
    spec: {containers: [{name: web, image: registry.local/${name}:1}]}
`;
    const { appFile, desired } = writeApp(
      'crash-loop',
      [
        `apiVersion: v1\nkind: Pod\nmetadata: {name: crasher, labels: {${FATE}: crash-loop}}\nspec: {containers: [{name: c, image: registry.local/crasher:1}]}\n`,
        deployment('looping', 600),
        deployment('stuck', 5),
      ].join('---\n'),
    );
    await sync(appFile, desired, 3);
    // The pod as kwok's stage leaves it (a kubelet's report of a container that keeps exiting).
    const pod = await waitFor(
      async () => {
        const out = await kubectlOk(['get', 'pod', 'crasher', '-n', ns, '-o', 'json']);
        const p = JSON.parse(out) as { metadata: { uid: string }; status: { phase?: string; containerStatuses?: unknown[] } };
        return p.status.containerStatuses ? p : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 1000, what: "kwok's crash-loop stage to act on the pod (test/cluster/up restarts kwok with new stages)" },
    );
    const backOff = `back-off 2m40s restarting failed container=c pod=crasher_${ns}(${pod.metadata.uid})`;
    expect(pod.status.phase).toBe('Running');
    expect(pod.status.containerStatuses).toEqual([
      expect.objectContaining({
        name: 'c',
        ready: false,
        restartCount: 5,
        state: { waiting: { reason: 'CrashLoopBackOff', message: backOff } },
        lastState: { terminated: expect.objectContaining({ exitCode: 1, reason: 'Error' }) },
      }),
    ]);

    const report = await waitFor(
      async () => {
        const r = await status(appFile, desired);
        return healthOf(r, 'Deployment', 'stuck')?.status === 'Degraded' && healthOf(r, 'Deployment', 'looping')?.message?.includes('0 of 1 updated')
          ? r
          : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 2000, what: 'the Deployment controller to see the pods not ready and stuck past its deadline' },
    );
    // Argo CD's Pod check: a container waiting in a back-off of a pod that restarts is Degraded, with its message.
    expect(healthOf(report, 'Pod', 'crasher')).toEqual({ status: 'Degraded', message: backOff });
    expect(healthOf(report, 'Deployment', 'looping')).toEqual({
      status: 'Progressing',
      message: 'Waiting for rollout to finish: 0 of 1 updated replicas are available...',
    });
    expect(healthOf(report, 'Deployment', 'stuck')).toEqual({ status: 'Degraded', message: 'Deployment "stuck" exceeded its progress deadline' });
    expect(report.health.status).toBe('Degraded');
    const kv = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect(kv.code).toBe(0);
    // The reason names a container in CrashLoopBackOff with the kubelet's message (ours: the bare pod, or a pod of a Deployment).
    // The reason: the first container back-off of the app's tree, the bare pod's (a top-level resource before the
    // Deployments' pods), with the kubelet's message.
    expect(kvValues(kv.stdout).REASON).toEqual([`Pod/crasher container c: CrashLoopBackOff: ${backOff}`]);
  },
  TIMEOUT,
);
