// A sync's prune waits until each pruned object is gone, on the real API server, as gitops-engine's sync does
// (`prunedTasksPendingDelete`): a Deployment deleted in the foreground (the default PrunePropagationPolicy) stays
// Terminating until the garbage collector has deleted its ReplicaSet, and the sync returns only after that; an owner
// whose dependent a finalizer holds keeps the sync waiting until the test lets the dependent go (the case that tells a
// sync that waits from one that does not: the garbage collector alone is often done before a read after the sync); an
// object whose finalizer nobody removes fails the sync at its --timeout, said per object (exit 3). `prune --confirm`
// waits the same way (kubectl delete's --wait): a held object is PRUNE_TERMINATING at its --timeout (exit 3), and
// --wait=false returns with it still Terminating; SIGINT during the wait ends it with the report printed (exit 130).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin, startPlugin, waitFor } from './support/index.js';
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

/** A ConfigMap with this app's mark (so a prune candidate of `app`) that a finalizer holds once deleted. */
const heldExtra = (app: string, name: string) =>
  kubectlOk(['apply', '-n', ns, '-f', '-'], {
    stdin: JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, finalizers: ['example.com/hold'], annotations: { [TID]: `${app}:/ConfigMap:${ns}/${name}` } },
      data: { k: 'v' },
    }),
  });
const release = (name: string) => kubectl(['patch', 'configmap', name, '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
/** Whether the ConfigMap was deleted and is still there (Terminating: its finalizer holds it). */
const terminating = async (name: string) =>
  (JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'json'])) as { metadata: { deletionTimestamp?: string } }).metadata
    .deletionTimestamp !== undefined;

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
      await release('owner-dependent');
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
    await heldExtra('held', 'held-extra');
    try {
      const started = Date.now();
      const sync = await runPlugin(['sync', '-f', app, '--desired', join(root, 'held-1'), '--prune', '--timeout', '3s', '-o', 'kv']);
      expect(sync.code).toBe(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
      const message = 'deleted, but still there at the time limit (its finalizers example.com/hold or its dependents)';
      expect(kvValues(sync.stdout).FAILED).toEqual([`ConfigMap/held-extra prune: ${message}`]);
      expect(await terminating('held-extra')).toBe(true);
    } finally {
      await release('held-extra');
    }
  },
  TIMEOUT,
);

test(
  'prune --confirm waits for what it deleted: an object a finalizer holds is PRUNE_TERMINATING at --timeout (exit 3); --wait=false returns at once',
  async () => {
    const app = writeApp('cut');
    expect((await runPlugin(['sync', '-f', app, '--desired', writeDesired('cut-1', { 'keep.yaml': configMap('cut-keep') })])).code).toBe(0);
    await heldExtra('cut', 'cut-held');
    try {
      const started = Date.now();
      const waited = await runPlugin(['prune', '-f', app, '--desired', join(root, 'cut-1'), '--confirm', '--timeout', '3s', '-o', 'kv']);
      expect(waited.code).toBe(3);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
      expect(kvValues(waited.stdout).PRUNE_TERMINATING).toEqual([
        'ConfigMap/cut-held deleted, but still there at the time limit (its finalizers example.com/hold or its dependents)',
      ]);
      expect(await terminating('cut-held')).toBe(true);
    } finally {
      await release('cut-held');
    }
    await heldExtra('cut', 'cut-later');
    try {
      const sent = await runPlugin(['prune', '-f', app, '--desired', join(root, 'cut-1'), '--confirm', '--wait=false', '-o', 'kv']);
      expect(sent.code).toBe(0);
      expect(kvValues(sent.stdout).PRUNED).toEqual(['ConfigMap/cut-later']);
      expect(await terminating('cut-later')).toBe(true);
    } finally {
      await release('cut-later');
    }
    expect((await names('configmaps')).filter((n) => n.startsWith('configmap/cut-'))).toEqual(['configmap/cut-keep']);
  },
  TIMEOUT,
);

/** Runs the plugin, sends SIGINT once `held` is Terminating (deleted, held by its finalizer), and returns how it ended. */
async function interruptedWhileHeld(args: string[], held: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { child, out, exited } = startPlugin(args);
  await waitFor(async () => ((await terminating(held)) ? true : undefined), { timeoutMs: 60_000, intervalMs: 200, what: `${held} to be deleted` });
  child.kill('SIGINT');
  return { code: await exited, ...out };
}

test(
  'prune --confirm stopped by SIGINT while it waits: the report is printed (PRUNED=, INTERRUPTED=), exit 130, the object stays deleted',
  async () => {
    const app = writeApp('sig');
    expect((await runPlugin(['sync', '-f', app, '--desired', writeDesired('sig-1', { 'keep.yaml': configMap('sig-keep') })])).code).toBe(0);
    await heldExtra('sig', 'sig-held');
    try {
      const out = await interruptedWhileHeld(['prune', '-f', app, '--desired', join(root, 'sig-1'), '--confirm', '--timeout', '2m', '-o', 'kv'], 'sig-held');
      expect(out.code).toBe(130);
      expect(out.stderr).toContain('prune: SIGINT: stopping after the step in progress (again to force)');
      expect(out.stderr).toMatch(/^prune interrupted by SIGINT: stopped while waiting for the deleted objects to be gone: they stay deleted$/m);
      // Still Terminating (its finalizer holds it): the kv line says so, as -o json does.
      expect(kvValues(out.stdout).PRUNED).toEqual(['ConfigMap/sig-held deleted; still Terminating when the wait was stopped']);
      expect(kvValues(out.stdout).INTERRUPTED).toEqual(['while waiting for the deleted objects to be gone: they stay deleted']);
    } finally {
      await release('sig-held');
    }
  },
  TIMEOUT,
);

test(
  'sync --prune stopped by SIGINT while it waits for a pruned object: the wait ends at once, the report says where, exit 130',
  async () => {
    const app = writeApp('ssig');
    expect((await runPlugin(['sync', '-f', app, '--desired', writeDesired('ssig-1', { 'keep.yaml': configMap('ssig-keep') })])).code).toBe(0);
    await heldExtra('ssig', 'ssig-held');
    try {
      const started = Date.now();
      const out = await interruptedWhileHeld(['sync', '-f', app, '--desired', join(root, 'ssig-1'), '--prune', '--timeout', '2m', '-o', 'kv'], 'ssig-held');
      expect(out.code).toBe(130);
      // Well before the 2m time limit: the first SIGINT cut the wait short.
      expect(Date.now() - started).toBeLessThan(60_000);
      expect(out.stderr).toMatch(/^sync interrupted by SIGINT: stopped while the prune waited for the pruned objects to be gone \(they stay deleted\)$/m);
      expect(kvValues(out.stdout).PRUNED).toEqual(['ConfigMap/ssig-held pruned; still Terminating when the wait was stopped']);
    } finally {
      await release('ssig-held');
    }
  },
  TIMEOUT,
);
