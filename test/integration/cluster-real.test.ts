// Proves the local control plane is the real thing: server-side apply conflicts, managedFields from
// kubectl's imperative commands, the deployment controller, the scheduler and kwok's fake kubelets.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ManagedFieldsEntry } from '../../src/model/object.js';
import { apiRequest } from './support/api.js';
import { applyArgs, applyYaml, createTestNamespace, deleteNamespace, getJson, kubectl, kubectlOk, repoRoot, waitFor } from './support/index.js';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
interface Meta {
  metadata: { name: string; annotations?: Record<string, string>; managedFields?: ManagedFieldsEntry[] };
}
interface Pod extends Meta {
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: Condition[]; podIP?: string; hostIP?: string };
}
interface Deployment extends Meta {
  status?: { availableReplicas?: number; readyReplicas?: number; conditions?: Condition[] };
}

const k8sVersion = /^K8S_VERSION=(\S+)$/m.exec(readFileSync(join(repoRoot, 'test/cluster/versions.env'), 'utf8'))?.[1];

function deployment(name: string, opts: { replicas?: number; image?: string; nodeSelector?: Record<string, string> } = {}): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      ...(opts.replicas === undefined ? {} : { replicas: opts.replicas }),
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          ...(opts.nodeSelector ? { nodeSelector: opts.nodeSelector } : {}),
          containers: [{ name, image: opts.image ?? 'registry.local/orders:1.0.0', ports: [{ containerPort: 8080 }] }],
        },
      },
    },
  });
}

function entriesOf(obj: Meta, manager: string): ManagedFieldsEntry[] {
  return (obj.metadata.managedFields ?? []).filter((e) => e.manager === manager);
}

/** True when the managedFields entry's fieldsV1 contains the nested `f:`/`k:` path. */
function owns(entry: ManagedFieldsEntry | undefined, path: string[]): boolean {
  let node: unknown = entry?.fieldsV1;
  for (const step of path) {
    if (typeof node !== 'object' || node === null || !(step in node)) return false;
    node = (node as Record<string, unknown>)[step];
  }
  return true;
}

let ns: string;
beforeAll(async () => {
  ns = await createTestNamespace('cluster-real');
});
afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

test('kubectl and the API server report the versions built from upstream', async () => {
  const version = JSON.parse(await kubectlOk(['version', '-o', 'json'])) as {
    clientVersion: { gitVersion: string };
    serverVersion: { gitVersion: string };
  };
  expect(k8sVersion).toMatch(/^v1\.\d+\.\d+$/);
  expect(version.serverVersion.gitVersion).toBe(k8sVersion);
  expect(version.clientVersion.gitVersion).toBe(k8sVersion);
});

test('the Application CRD and the argocd namespace are installed', async () => {
  const crd = await getJson<{ spec: { group: string; scope: string; names: { kind: string }; versions: { name: string }[] } }>(
    'crd',
    'applications.argoproj.io',
  );
  expect(crd.spec).toMatchObject({ group: 'argoproj.io', scope: 'Namespaced', names: { kind: 'Application' } });
  expect(crd.spec.versions.map((v) => v.name)).toContain('v1alpha1');
  const argocd = await getJson('namespace', 'argocd');
  expect(argocd.metadata.name).toBe('argocd');
});

test('a server-side apply that changes a field another manager owns fails with 409 naming the manager and the field; force takes it over', async () => {
  await applyYaml(deployment('ssa-conflict', { replicas: 2 }), { namespace: ns, serverSide: true, fieldManager: 'manager-a' });

  // The raw API response: 409 Conflict with one FieldManagerConflict cause per contested field.
  const patch = deployment('ssa-conflict', { replicas: 5 });
  const raw = await apiRequest(
    'PATCH',
    `/apis/apps/v1/namespaces/${ns}/deployments/ssa-conflict?fieldManager=manager-b`,
    patch,
    'application/apply-patch+yaml',
  );
  expect(raw.status).toBe(409);
  const status = raw.body as { reason: string; message: string; details: { causes: { reason: string; message: string; field: string }[] } };
  expect(status.reason).toBe('Conflict');
  expect(status.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "manager-a"', field: '.spec.replicas' }]);
  expect(status.message).toContain('conflict with "manager-a": .spec.replicas');

  // The same through kubectl: non-zero exit and a message naming manager-a and the field.
  const refused = await kubectl(applyArgs({ namespace: ns, serverSide: true, fieldManager: 'manager-b' }), { stdin: patch });
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toMatch(/conflict with "manager-a": \.spec\.replicas/);

  // With force, manager-b takes the field over and manager-a no longer owns it.
  await applyYaml(patch, { namespace: ns, serverSide: true, fieldManager: 'manager-b', forceConflicts: true });
  const live = await getJson<Deployment & { spec: { replicas: number } }>('deployment', 'ssa-conflict', ns);
  expect(live.spec.replicas).toBe(5);
  const [b] = entriesOf(live, 'manager-b');
  expect(b?.operation).toBe('Apply');
  expect(owns(b, ['f:spec', 'f:replicas'])).toBe(true);
  const [a] = entriesOf(live, 'manager-a');
  expect(a?.operation).toBe('Apply');
  expect(owns(a, ['f:spec', 'f:replicas'])).toBe(false);
  expect(owns(a, ['f:spec', 'f:template'])).toBe(true);
});

test('kubectl scale and kubectl set image leave managedFields entries with their own managers', async () => {
  await applyYaml(deployment('imperative', { replicas: 1 }), { namespace: ns, serverSide: true, fieldManager: 'argocd-controller' });
  await kubectlOk(['scale', 'deployment/imperative', '--replicas=3', '-n', ns]);
  await kubectlOk(['set', 'image', 'deployment/imperative', 'imperative=registry.local/orders:2.0.0', '-n', ns]);
  const live = await getJson<Deployment>('deployment', 'imperative', ns);

  // kubectl scale writes through the scale subresource under the plain "kubectl" manager.
  const [scale] = entriesOf(live, 'kubectl');
  expect(scale).toMatchObject({ operation: 'Update', subresource: 'scale' });
  expect(owns(scale, ['f:spec', 'f:replicas'])).toBe(true);

  const [setImage] = entriesOf(live, 'kubectl-set');
  expect(setImage?.operation).toBe('Update');
  expect(owns(setImage, ['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"imperative"}', 'f:image'])).toBe(true);

  // The scale took .spec.replicas from the applier, which keeps everything else.
  const [argo] = entriesOf(live, 'argocd-controller');
  expect(argo?.operation).toBe('Apply');
  expect(owns(argo, ['f:spec', 'f:replicas'])).toBe(false);
  expect(owns(argo, ['f:spec', 'f:selector'])).toBe(true);
});

test('kubectl scale of a Deployment whose replicas nobody owns leaves no managedFields entry (Kubernetes 1.35)', async () => {
  // Like examples/shop's orders: the manifest declares no replicas, so the applier does not own them.
  await applyYaml(deployment('unowned'), { namespace: ns, serverSide: true, fieldManager: 'argocd-controller' });
  await kubectlOk(['scale', 'deployment/unowned', '--replicas=3', '-n', ns]);
  const live = await getJson<Deployment & { spec: { replicas: number } }>('deployment', 'unowned', ns);
  expect(live.spec.replicas).toBe(3);
  const managers = (live.metadata.managedFields ?? []).map((e) => e.manager);
  expect(managers).not.toContain('kubectl');
  expect((live.metadata.managedFields ?? []).filter((e) => owns(e, ['f:spec', 'f:replicas']))).toEqual([]);
});

test("a Deployment's pods are scheduled on kwok nodes, become Running and Ready, and the Deployment is available", async () => {
  await applyYaml(deployment('scheduled', { replicas: 2 }), { namespace: ns, serverSide: true, fieldManager: 'argocd-controller' });
  const available = await waitFor(
    async () => {
      const d = await getJson<Deployment>('deployment', 'scheduled', ns);
      return (d.status?.availableReplicas ?? 0) === 2 ? d : undefined;
    },
    { what: 'deployment/scheduled to have 2 available replicas', timeoutMs: 90_000 },
  );
  expect(available.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');

  const pods = JSON.parse(await kubectlOk(['get', 'pods', '-n', ns, '-l', 'app=scheduled', '-o', 'json'])) as { items: Pod[] };
  expect(pods.items).toHaveLength(2);
  const nodes = JSON.parse(await kubectlOk(['get', 'nodes', '-o', 'json'])) as { items: Meta[] };
  const kwokNodes = nodes.items.filter((n) => n.metadata.annotations?.['kwok.x-k8s.io/node'] === 'fake').map((n) => n.metadata.name);
  expect(kwokNodes.length).toBeGreaterThanOrEqual(2);
  for (const pod of pods.items) {
    expect(kwokNodes).toContain(pod.spec.nodeName);
    expect(pod.status.phase).toBe('Running');
    expect(pod.status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(pod.status.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
    expect(pod.status.podIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  }
});

test('a pod whose nodeSelector matches no node stays Pending: PodScheduled=False, Unschedulable, with the scheduler message', async () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'nowhere' },
    spec: { nodeSelector: { 'kubectl-gitops.test/pool': 'does-not-exist' }, containers: [{ name: 'app', image: 'registry.local/app:1' }] },
  };
  await applyYaml(JSON.stringify(pod), { namespace: ns, serverSide: true, fieldManager: 'test' });
  const scheduled = await waitFor(
    async () => {
      const live = await getJson<Pod>('pod', 'nowhere', ns);
      const c = live.status.conditions?.find((x) => x.type === 'PodScheduled');
      return c ? c : undefined;
    },
    { what: 'pod/nowhere to get a PodScheduled condition', timeoutMs: 60_000 },
  );
  expect(scheduled.status).toBe('False');
  expect(scheduled.reason).toBe('Unschedulable');
  // e.g. "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. ..."
  expect(scheduled.message).toMatch(/^0\/\d+ nodes are available: \d+ node\(s\) didn't match Pod's node affinity\/selector/);

  // It stays that way: no node, still Pending, a few seconds later.
  await new Promise((r) => setTimeout(r, 3000));
  const later = await getJson<Pod>('pod', 'nowhere', ns);
  expect(later.spec.nodeName).toBeUndefined();
  expect(later.status.phase).toBe('Pending');
  const events = await kubectlOk(['get', 'events', '-n', ns, '--field-selector', 'involvedObject.name=nowhere', '-o', 'json']);
  const reasons = (JSON.parse(events) as { items: { reason: string; source?: { component?: string }; reportingComponent?: string }[] }).items.map(
    (e) => e.reason,
  );
  expect(reasons).toContain('FailedScheduling');
});
