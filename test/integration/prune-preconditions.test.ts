// Delete preconditions against the real API server: an object recreated (or changed) between listing
// and deleting survives; the gateway and the delete module are driven directly, since the CLI cannot interleave.
import { createTestNamespace, deleteNamespace, kubeconfigPath, kubectlOk } from './support/index.js';
import { resolveConnection } from '../../src/kube/connect.js';
import { createClientGateway } from '../../src/kube/client-gateway.js';
import type { KubeGateway } from '../../src/kube/gateway.js';
import { deleteCandidates } from '../../src/workflows/prune/prune-delete.js';
import { listAppCandidates } from '../../src/workflows/session/app-state.js';
import { planPrune } from '../../src/prune/plan.js';
import type { KubeObject } from '../../src/model/object.js';

let ns: string;
let gw: KubeGateway;

beforeAll(async () => {
  ns = await createTestNamespace('preconditions');
  gw = await createClientGateway({ connection: await resolveConnection({ kubeconfig: kubeconfigPath(), env: {} }), requestTimeoutMs: 30_000 });
});

afterAll(async () => {
  gw?.close();
  if (ns) await deleteNamespace(ns);
});

function cm(name: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, annotations: { 'argocd.argoproj.io/tracking-id': `gone:/ConfigMap:${ns}/${name}` } },
    data: { v: '1' },
  });
}

async function uidOf(name: string): Promise<string | undefined> {
  const out = await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'json', '--ignore-not-found']);
  return out.trim() ? (JSON.parse(out) as KubeObject).metadata.uid : undefined;
}

test('recreated and changed objects survive; the unchanged one is deleted; every outcome is reported', async () => {
  for (const n of ['recreated', 'changed', 'untouched']) await kubectlOk(['apply', '-f', '-'], { stdin: cm(n) });
  const warnings: string[] = [];
  const live = await listAppCandidates(gw, [ns], warnings);
  const plan = planPrune({ live, appInstance: 'gone', desired: [], appPruneDefault: true });
  expect(plan.candidates.map((c) => c.key.name).sort()).toEqual(['changed', 'recreated', 'untouched']);
  const oldUid = await uidOf('recreated');

  // Between the listing and the deletion: one object is deleted and created again, one is edited.
  await kubectlOk(['delete', 'configmap', 'recreated', '-n', ns]);
  await kubectlOk(['apply', '-f', '-'], { stdin: cm('recreated') });
  await kubectlOk(['patch', 'configmap', 'changed', '-n', ns, '--type=merge', '-p', '{"data":{"v":"2"}}']);
  const newUid = await uidOf('recreated');
  expect(newUid).not.toBe(oldUid);

  const results = await deleteCandidates(gw, plan.candidates, { propagationPolicy: 'foreground' });
  const byName = Object.fromEntries(results.map((r) => [r.candidate.key.name, r.outcome]));
  expect(byName).toEqual({ recreated: 'changed', changed: 'changed', untouched: 'deleted' });
  expect(await uidOf('recreated')).toBe(newUid);
  expect(await uidOf('changed')).toBeDefined();
  expect(await uidOf('untouched')).toBeUndefined();
});
