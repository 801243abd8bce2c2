// A sync's prune waits until each pruned object is gone, on the real API server, as gitops-engine's sync does
// (`prunedTasksPendingDelete`): a Deployment deleted in the foreground (the default PrunePropagationPolicy) stays
// Terminating until the garbage collector has deleted its ReplicaSet, and the sync returns only after that; an owner
// whose dependent a finalizer holds keeps the sync waiting until the test lets the dependent go (the case that tells a
// sync that waits from one that does not: the garbage collector alone is often done before a read after the sync); an
// object whose finalizer nobody removes fails the sync at its --timeout, said per object (exit 3).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 180_000;
const TID = 'argocd.argoproj.io/tracking-id';
let ns: string;
let root: string;

beforeAll(async () => {
  ns = await createTestNamespace('prune-wait');
  root = tempDir('prune-wait');
});

afterAll(async () => {
  if (ns) await deleteNamespace(ns);
});

function writeApp(name: string): string {
  const file = join(root, `${name}.yaml`);
  writeFileSync(file, applicationYaml({ name, spec: { destination: inCluster(ns) } }));
  return file;
}

function writeDesired(dir: string, files: Record<string, string>): string {
  const path = join(root, dir);
  mkdirSync(path, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(path, f), text);
  return path;
}

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {k: v}\n`;

async function names(kind: string, selector?: string): Promise<string[]> {
  const out = await kubectlOk(['get', kind, '-n', ns, '-o', 'name', ...(selector ? ['-l', selector] : [])]);
  return out.split('\n').filter((l) => l.trim() !== '');
}

test(
  'a Deployment pruned in the foreground: when the sync returns, it and its ReplicaSet are gone',
  async () => {
    const app = writeApp('fg');
    const deployment = `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: fg-web, labels: {app: fg-web}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: fg-web}}\n  template:\n    metadata: {labels: {app: fg-web}}\n    spec: {containers: [{name: c, image: registry.local/web:1}]}\n`;
    const first = await runPlugin(['sync', '-f', app, '--desired', writeDesired('fg-1', { 'keep.yaml': configMap('fg-keep'), 'web.yaml': deployment })]);
    expect(first.code).toBe(0);
    // The controller made the Deployment's ReplicaSet (a dependent the foreground delete must wait for).
    for (let i = 0; i < 60 && (await names('replicasets', 'app=fg-web')).length === 0; i++) await new Promise((r) => setTimeout(r, 500));
    expect(await names('replicasets', 'app=fg-web')).toHaveLength(1);

    const pruned = await runPlugin(['sync', '-f', app, '--desired', writeDesired('fg-2', { 'keep.yaml': configMap('fg-keep') }), '--prune', '-o', 'kv']);
    expect(pruned.code).toBe(0);
    expect(kvValues(pruned.stdout).PRUNED).toEqual(['Deployment/fg-web']);
    // Read right after the sync returned: nothing Terminating is left behind.
    expect(await names('deployments', 'app=fg-web')).toEqual([]);
    expect(await names('replicasets', 'app=fg-web')).toEqual([]);
    expect(await names('configmaps')).toContain('configmap/fg-keep');
  },
  TIMEOUT,
);

test(
  'an owner whose dependent a finalizer holds: the sync waits while the owner is Terminating, and ends once it is gone',
  async () => {
    const app = writeApp('owner');
    const first = await runPlugin([
      'sync',
      '-f',
      app,
      '--desired',
      writeDesired('owner-1', { 'keep.yaml': configMap('owner-keep'), 'owner.yaml': configMap('owner-cm') }),
    ]);
    expect(first.code).toBe(0);
    const owner = JSON.parse(await kubectlOk(['get', 'configmap', 'owner-cm', '-n', ns, '-o', 'json'])) as { metadata: { uid: string } };
    // A dependent with blockOwnerDeletion and a finalizer of its own: the foreground delete of the owner cannot end
    // before the test lets the dependent go.
    await kubectlOk(['apply', '-n', ns, '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'owner-dependent',
          finalizers: ['example.com/hold'],
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner-cm', uid: owner.metadata.uid, blockOwnerDeletion: true }],
        },
      }),
    });
    let ended = false;
    const sync = runPlugin(['sync', '-f', app, '--desired', writeDesired('owner-2', { 'keep.yaml': configMap('owner-keep') }), '--prune', '-o', 'kv']).finally(
      () => {
        ended = true;
      },
    );
    try {
      const terminating = async () => {
        const out = await kubectl(['get', 'configmap', 'owner-cm', '-n', ns, '-o', 'json']);
        return out.code === 0 && (JSON.parse(out.stdout) as { metadata: { deletionTimestamp?: string } }).metadata.deletionTimestamp !== undefined;
      };
      for (let i = 0; i < 60 && !(await terminating()); i++) await new Promise((r) => setTimeout(r, 250));
      expect(await terminating()).toBe(true);
      await new Promise((r) => setTimeout(r, 2_000));
      // Deleted two seconds ago and still Terminating: the sync has not returned.
      expect({ ended, terminating: await terminating() }).toEqual({ ended: false, terminating: true });
    } finally {
      await kubectl(['patch', 'configmap', 'owner-dependent', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    }
    const done = await sync;
    expect(done.code).toBe(0);
    expect(kvValues(done.stdout).PRUNED).toEqual(['ConfigMap/owner-cm']);
    expect((await names('configmaps')).filter((n) => n.startsWith('configmap/owner-'))).toEqual(['configmap/owner-keep']);
  },
  TIMEOUT,
);

test(
  'an object a finalizer holds: deleted, still there at --timeout, the sync fails on it (exit 3) and says why',
  async () => {
    const app = writeApp('held');
    expect((await runPlugin(['sync', '-f', app, '--desired', writeDesired('held-1', { 'keep.yaml': configMap('held-keep') })])).code).toBe(0);
    await kubectlOk(['apply', '-n', ns, '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'held-extra', finalizers: ['example.com/hold'], annotations: { [TID]: `held:/ConfigMap:${ns}/held-extra` } },
        data: { k: 'v' },
      }),
    });
    try {
      const started = Date.now();
      const sync = await runPlugin(['sync', '-f', app, '--desired', join(root, 'held-1'), '--prune', '--timeout', '3s', '-o', 'kv']);
      expect(sync.code).toBe(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
      const message = 'deleted, but still there at the time limit (its finalizers example.com/hold or its dependents)';
      expect(kvValues(sync.stdout).FAILED).toEqual([`ConfigMap/held-extra prune: ${message}`]);
      const live = JSON.parse(await kubectlOk(['get', 'configmap', 'held-extra', '-n', ns, '-o', 'json'])) as { metadata: { deletionTimestamp?: string } };
      expect(live.metadata.deletionTimestamp).toBeDefined();
    } finally {
      await kubectl(['patch', 'configmap', 'held-extra', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
    }
  },
  TIMEOUT,
);
