// Health of the kinds the real controllers drive, read by `status` from what kube-controller-manager, the scheduler and
// kwok's fake kubelets made of them (not from fixtures): a StatefulSet and a DaemonSet whose pods run, a Job that
// completed, a CronJob, a PersistentVolumeClaim no provisioner binds, a ClusterIP and a LoadBalancer Service, an Ingress
// no controller serves, and an HPA the HPA controller has looked at.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, runPlugin, waitFor } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 240_000;
let ns: string;

const MANIFESTS = `apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: registry.local/db:1, resources: {requests: {cpu: 100m}}}]}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: agent, image: registry.local/agent:1}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: run, image: registry.local/job:1}]}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec: {restartPolicy: Never, containers: [{name: run, image: registry.local/job:1}]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: none-here
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  selector: {app: db}
  ports: [{port: 5432}]
---
apiVersion: v1
kind: Service
metadata: {name: edge}
spec:
  type: LoadBalancer
  selector: {app: db}
  ports: [{port: 80}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  defaultBackend: {service: {name: db, port: {number: 5432}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: db}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
  minReplicas: 1
  maxReplicas: 2
  metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]
`;

interface Report {
  health: { status: string };
  resources: { kind: string; name: string; health?: { status: string; message?: string } }[];
}

beforeAll(async () => {
  ns = await createTestNamespace('health-kinds');
}, TIMEOUT);
afterAll(async () => {
  await deleteNamespace(ns);
});

test(
  'each kind gets the health Argo CD gives it, from the real controllers',
  async () => {
    const root = tempDir('health-kinds');
    const desired = join(root, 'desired');
    mkdirSync(desired);
    writeFileSync(join(desired, 'all.yaml'), MANIFESTS);
    const appFile = join(root, 'app.yaml');
    writeFileSync(appFile, applicationYaml({ name: 'kinds', spec: { destination: inCluster(ns) } }));
    const synced = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect({ code: synced.code, out: synced.stdout }).toEqual({ code: 0, out: 'APPLIED=9\nPHASE=Succeeded\n' });

    const health = (r: Report) => Object.fromEntries(r.resources.map((x) => [`${x.kind}/${x.name}`, x.health?.status ?? '-']));
    // Settled: the workloads' pods ran, the Job completed, and the HPA controller wrote its conditions.
    const report = await waitFor(
      async () => {
        const res = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'json']);
        const r = JSON.parse(res.stdout) as Report;
        const h = health(r);
        const hpa = r.resources.find((x) => x.kind === 'HorizontalPodAutoscaler');
        return h['StatefulSet/db'] === 'Healthy' &&
          h['DaemonSet/agent'] === 'Healthy' &&
          h['Job/once'] === 'Healthy' &&
          hpa?.health?.message !== 'Waiting to Autoscale'
          ? r
          : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 3000, what: 'the workloads healthy and the HPA looked at' },
    );
    expect(health(report)).toEqual({
      'StatefulSet/db': 'Healthy',
      'DaemonSet/agent': 'Healthy',
      'Job/once': 'Healthy',
      'CronJob/nightly': 'Healthy',
      // No provisioner binds it: Pending is Progressing.
      'PersistentVolumeClaim/data': 'Progressing',
      'Service/db': 'Healthy',
      // No load balancer gives it an address.
      'Service/edge': 'Progressing',
      // No ingress controller gives it an address.
      'Ingress/web': 'Progressing',
      // The first condition the HPA controller writes is AbleToScale=True: Argo CD's check stops there (Healthy), even
      // though no metrics server answers (ScalingActive=False comes after it).
      'HorizontalPodAutoscaler/db': 'Healthy',
    });
    // The app takes the worst: Progressing.
    expect(report.health.status).toBe('Progressing');
  },
  TIMEOUT,
);
