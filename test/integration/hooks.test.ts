// Sync phases on the real API server with kwok's fake kubelets: a PreSync Job (named from generateName) completes
// before any Sync-phase object exists, wave 1 waits for wave 0's Deployment to be Available, PostSync runs last and
// HookSucceeded removes it; a PreSync hook that fails stops the sync: the SyncFail hook runs, nothing else is applied,
// nothing is pruned.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { GitFixture } from '../support/git-source.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, runPlugin, waitFor } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 240_000;
let ns: string;
let root: string;

interface Meta {
  metadata: { name: string; uid: string; creationTimestamp: string; annotations?: Record<string, string> };
  status?: { conditions?: { type: string; status: string; lastTransitionTime?: string }[] };
}

function app(name: string, files: Record<string, string>): { appFile: string; desired: string } {
  const dir = join(root, name);
  const desired = join(dir, 'desired');
  mkdirSync(desired, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(desired, f), text);
  const appFile = join(dir, 'app.yaml');
  writeFileSync(appFile, applicationYaml({ name, spec: { destination: inCluster(ns) } }));
  return { appFile, desired };
}

function job(meta: string, annotations: Record<string, string>, image = 'busybox'): string {
  return `apiVersion: batch/v1
kind: Job
metadata:
  ${meta}
  annotations: ${JSON.stringify(annotations)}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: run, image: ${JSON.stringify(image)}}]
`;
}

const deployment = (name: string, wave: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {argocd.argoproj.io/sync-wave: "${wave}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: app, image: registry.local/${name}:1}]}
`;

const configMap = (name: string, wave: number) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, annotations: {argocd.argoproj.io/sync-wave: "${wave}"}}\ndata: {a: "1"}\n`;

async function list(kind: string): Promise<Meta[]> {
  return (JSON.parse(await kubectlOk(['get', kind, '-n', ns, '-o', 'json'])) as { items: Meta[] }).items;
}

beforeAll(async () => {
  ns = await createTestNamespace('hooks');
  root = tempDir('hooks');
}, TIMEOUT);
afterAll(async () => {
  await deleteNamespace(ns);
});

test(
  'PreSync completes before the Sync phase starts; wave 1 waits for wave 0 to be healthy; PostSync last, removed by HookSucceeded',
  async () => {
    const { appFile, desired } = app('phased', {
      'pre.yaml': job('generateName: migrate-', { 'argocd.argoproj.io/hook': 'PreSync' }),
      'db.yaml': deployment('db', 0),
      'settings.yaml': configMap('settings', 1),
      'post.yaml': job('name: smoke', { 'argocd.argoproj.io/hook': 'PostSync', 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' }),
      'skip.yaml': configMap('skipped', 0).replace('annotations: {', 'annotations: {argocd.argoproj.io/hook: Skip, '),
    });
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '3m'], { timeoutMs: 220_000 });
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const lines = res.stdout.trimEnd().split('\n');
    const pre = lines.find((l) => l.startsWith('HOOK=PreSync '));
    expect(pre).toMatch(/^HOOK=PreSync Job\/migrate-[0-9a-f]{7}-presync-\d+ Succeeded$/);
    expect(lines).toContain('HOOK=PostSync Job/smoke Succeeded');
    expect(lines.filter((l) => l.startsWith('WAVE='))).toEqual(['WAVE=PreSync 0 done', 'WAVE=Sync 0 done', 'WAVE=Sync 1 done', 'WAVE=PostSync 0 done']);

    const jobs = await list('jobs');
    const migrate = jobs.find((j) => j.metadata.name.startsWith('migrate-'));
    expect(migrate).toBeDefined(); // BeforeHookCreation (the default) keeps it until the next sync
    expect(jobs.find((j) => j.metadata.name === 'smoke')).toBeUndefined(); // HookSucceeded
    const migrated = migrate!.status?.conditions?.find((c) => c.type === 'Complete' && c.status === 'True');
    expect(migrated).toBeDefined();
    const db = (await list('deployments')).find((d) => d.metadata.name === 'db')!;
    const settings = (await list('configmaps')).find((c) => c.metadata.name === 'settings')!;
    // Timestamps have one-second resolution: "not before".
    expect(Date.parse(db.metadata.creationTimestamp)).toBeGreaterThanOrEqual(Date.parse(migrated!.lastTransitionTime!));
    const available = db.status?.conditions?.find((c) => c.type === 'Available' && c.status === 'True');
    expect(available).toBeDefined();
    expect(Date.parse(settings.metadata.creationTimestamp)).toBeGreaterThanOrEqual(Date.parse(available!.lastTransitionTime!));
    expect((await list('configmaps')).some((c) => c.metadata.name === 'skipped')).toBe(false);

    // Hooks are not part of the comparison: the app diffs clean, and no hook is a prune candidate.
    const diff = await runPlugin(['diff', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect(diff.stdout).toBe('SYNC=Synced\n');
    const prune = await runPlugin(['prune', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect(prune.stdout).toBe('');
    // status lists the hooks still in the cluster with their result (the PostSync one is gone: HookSucceeded).
    const status = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'json']);
    const hooks = (JSON.parse(status.stdout) as { hooks?: { kind: string; name: string; phases: string[]; result: string }[] }).hooks ?? [];
    expect(hooks.map((h) => [h.kind, h.name, h.phases, h.result])).toEqual([['Job', migrate!.metadata.name, ['PreSync'], 'Succeeded']]);
    const statusKv = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect(statusKv.stdout).toContain(`HOOK=PreSync Job/${migrate!.metadata.name} Succeeded\n`);
    expect(statusKv.stdout).toMatch(/^SYNC=Synced$/m);

    // A second sync replaces the PreSync Job (a new name from the new start time; the old one deleted first only when the name repeats).
    const again = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '3m'], { timeoutMs: 220_000 });
    expect(again.code).toBe(0);
  },
  TIMEOUT,
);

test(
  'a PreSync hook that fails stops the sync: SyncFail runs, nothing else is applied, nothing is pruned, exit 3',
  async () => {
    // What this app once applied and no longer declares: a prune candidate that must survive.
    await applyYaml(
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: leftover, annotations: {argocd.argoproj.io/tracking-id: "failing:/ConfigMap:${ns}/leftover"}}\ndata: {a: "1"}\n`,
      { namespace: ns },
    );
    const before = (await list('configmaps')).find((c) => c.metadata.name === 'leftover')!.metadata.uid;
    const { appFile, desired } = app('failing', {
      // Rejected by the API server (a container needs an image): the hook fails before anything runs.
      'pre.yaml': job('name: broken-migrate', { 'argocd.argoproj.io/hook': 'PreSync' }, ''),
      'fail.yaml': job('name: on-failure', { 'argocd.argoproj.io/hook': 'SyncFail' }),
      'app.yaml': configMap('failing-app', 0),
    });
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '--prune', '-o', 'kv', '--timeout', '2m'], { timeoutMs: 200_000 });
    expect(res.code).toBe(3);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toContain('HOOK=PreSync Job/broken-migrate Failed');
    expect(lines).toContain('HOOK=SyncFail Job/on-failure Succeeded');
    expect(lines.filter((l) => l.startsWith('WAVE='))).toEqual(['WAVE=PreSync 0 failed', 'WAVE=Sync 0 not-run', 'WAVE=SyncFail 0 done']);
    expect(lines.some((l) => l.startsWith('FAILED=Sync/failing operation: PreSync hook Job/broken-migrate could not be created'))).toBe(true);
    expect((await kubectl(['get', 'configmap', 'failing-app', '-n', ns])).code).not.toBe(0);
    expect((await list('configmaps')).find((c) => c.metadata.name === 'leftover')?.metadata.uid).toBe(before);
  },
  TIMEOUT,
);

test(
  "the public sync-waves example's pattern: wave 0's ReplicaSets and Service healthy before wave 1's Sync hook and Service, PostSync generateName Jobs last; Synced and Healthy after",
  async () => {
    const rs = (name: string, tier: string) =>
      `apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: ${name}}\nspec:\n  replicas: 2\n  selector: {matchLabels: {tier: ${tier}}}\n  template:\n    metadata: {labels: {tier: ${tier}}}\n    spec: {containers: [{name: main, image: registry.local/${tier}:1}]}\n`;
    const svc = (name: string, tier: string, wave?: number) =>
      `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}${wave === undefined ? '' : `, annotations: {argocd.argoproj.io/sync-wave: "${wave}"}`}}\nspec:\n  selector: {tier: ${tier}}\n  ports: [{protocol: TCP, port: 8080, targetPort: 8080}]\n`;
    const { appFile, desired } = app('waves', {
      'backend.yaml': rs('backend', 'backend') + '---\n' + svc('backend-svc', 'backend'),
      'frontend.yaml': rs('frontend', 'frontend') + '---\n' + svc('frontend', 'frontend', 1),
      'page-up.yaml': job('generateName: page-up-', { 'argocd.argoproj.io/hook': 'Sync', 'argocd.argoproj.io/sync-wave': '1' }),
      'schema.yaml': job('generateName: upgrade-schema-', { 'argocd.argoproj.io/hook': 'PostSync' }),
      'page-down.yaml': job('generateName: page-down-', { 'argocd.argoproj.io/hook': 'PostSync' }),
    });
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '3m'], { timeoutMs: 220_000 });
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('WAVE='))).toEqual(['WAVE=Sync 0 done', 'WAVE=Sync 1 done', 'WAVE=PostSync 0 done']);
    const hooks = lines.filter((l) => l.startsWith('HOOK=')).map((l) => l.replace(/-[0-9a-f]{7}-(sync|postsync)-\d+ /, '-<rev>-$1-<time> '));
    expect(hooks.sort()).toEqual([
      'HOOK=PostSync Job/page-down-<rev>-postsync-<time> Succeeded',
      'HOOK=PostSync Job/upgrade-schema-<rev>-postsync-<time> Succeeded',
      'HOOK=Sync Job/page-up-<rev>-sync-<time> Succeeded',
    ]);
    // Wave 1 began once wave 0 was healthy: the frontend Service is not older than the moment the backend's last pod became ready.
    const backend = JSON.parse(await kubectlOk(['get', 'replicaset', 'backend', '-n', ns, '-o', 'json'])) as { status: { readyReplicas?: number } };
    expect(backend.status.readyReplicas).toBe(2);
    const pods = JSON.parse(await kubectlOk(['get', 'pods', '-n', ns, '-l', 'tier=backend', '-o', 'json'])) as {
      items: { status: { conditions?: { type: string; lastTransitionTime: string }[] } }[];
    };
    const lastReady = Math.max(...pods.items.map((p) => Date.parse(p.status.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime ?? '')));
    const frontendSvc = (await list('services')).find((x) => x.metadata.name === 'frontend')!;
    expect(Date.parse(frontendSvc.metadata.creationTimestamp)).toBeGreaterThanOrEqual(lastReady);
    // PostSync ran after the Sync hook completed.
    const jobs = await list('jobs');
    const pageUp = jobs.find((j) => j.metadata.name.startsWith('page-up-'))!;
    const upDone = Date.parse(pageUp.status!.conditions!.find((c) => c.type === 'Complete')!.lastTransitionTime!);
    for (const j of jobs.filter((x) => /^(page-down|upgrade-schema)-/.test(x.metadata.name)))
      expect(Date.parse(j.metadata.creationTimestamp)).toBeGreaterThanOrEqual(upDone);
    const status = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect(status.stdout).toMatch(/^SYNC=Synced$/m);
    expect(status.stdout).toMatch(/^HEALTH=Healthy$/m);
  },
  TIMEOUT,
);

test(
  "BeforeHookCreation (the default) replaces the last run's hook of the same name: a new uid each sync, one Job",
  async () => {
    const { appFile, desired } = app('named-hook', {
      'seed.yaml': job('name: seed', { 'argocd.argoproj.io/hook': 'PreSync' }),
      'app.yaml': configMap('named-app', 0),
    });
    const uids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '2m'], { timeoutMs: 200_000 });
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      expect(res.stdout.split('\n')).toContain('HOOK=PreSync Job/seed Succeeded');
      const seeds = (await list('jobs')).filter((j) => j.metadata.name === 'seed');
      expect(seeds).toHaveLength(1);
      uids.push(seeds[0]!.metadata.uid);
    }
    expect(uids[1]).not.toBe(uids[0]);
  },
  TIMEOUT,
);

test(
  "Argo CD's hook finalizer holds a finished hook until its result is read: a Job with ttlSecondsAfterFinished: 0 still counts as Succeeded, then goes",
  async () => {
    // The TTL controller deletes a finished Job at once; without the finalizer the sync would find nothing to read.
    const { appFile, desired } = app('ttl', {
      'pre.yaml': job('name: short-lived', { 'argocd.argoproj.io/hook': 'PreSync' }).replace(
        '  backoffLimit: 0\n',
        '  backoffLimit: 0\n  ttlSecondsAfterFinished: 0\n',
      ),
      'app.yaml': configMap('ttl-app', 0),
    });
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '2m'], { timeoutMs: 200_000 });
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    expect(res.stdout.split('\n')).toContain('HOOK=PreSync Job/short-lived Succeeded');
    // The finalizer came off, so the TTL controller's delete completes.
    for (let i = 0; i < 60 && (await kubectl(['get', 'job', 'short-lived', '-n', ns])).code === 0; i++) await new Promise((r) => setTimeout(r, 500));
    expect((await kubectl(['get', 'job', 'short-lived', '-n', ns])).code).not.toBe(0);
    expect(JSON.parse(await kubectlOk(['get', 'configmap', 'ttl-app', '-n', ns, '-o', 'json'])).data).toEqual({ a: '1' });
  },
  TIMEOUT,
);

test(
  'a hook finalizer an interrupted run left behind: the old Job, held Terminating by it, is let go and the hook replaced; status reads its own health meanwhile',
  async () => {
    const hook = { 'argocd.argoproj.io/hook': 'PreSync' };
    const { appFile, desired } = app('leftover', { 'pre.yaml': job('name: leftover-migrate', hook), 'app.yaml': configMap('leftover-app', 0) });
    // What a run stopped between creating its hook and reading the result leaves: the Job with Argo CD's finalizer and
    // the app's mark; its TTL controller's delete (ttlSecondsAfterFinished: 0) waits on the finalizer for ever.
    const leftover = job('name: leftover-migrate', { ...hook, 'argocd.argoproj.io/tracking-id': `leftover:batch/Job:${ns}/leftover-migrate` })
      .replace('metadata:\n', 'metadata:\n  finalizers: [argocd.argoproj.io/hook-finalizer]\n')
      .replace('  backoffLimit: 0\n', '  backoffLimit: 0\n  ttlSecondsAfterFinished: 0\n');
    await applyYaml(leftover, { namespace: ns });
    const old = await waitFor(
      async () => {
        const j = JSON.parse(await kubectlOk(['get', 'job', 'leftover-migrate', '-n', ns, '-o', 'json'])) as Meta & {
          metadata: { deletionTimestamp?: string; finalizers?: string[] };
        };
        return j.metadata.deletionTimestamp ? j : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500, what: 'the TTL controller to delete the finished leftover Job' },
    );
    expect(old.metadata.finalizers).toEqual(['argocd.argoproj.io/hook-finalizer']);
    // Held by the hook finalizer, a Job being deleted is read for its own health (Succeeded), not "Pending deletion".
    const before = await runPlugin(['status', '-f', appFile, '--desired', desired, '-o', 'kv']);
    expect(before.code).toBe(0);
    expect(before.stdout.split('\n')).toContain('HOOK=PreSync Job/leftover-migrate Succeeded');

    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '2m'], { timeoutMs: 200_000 });
    expect({ code: res.code, hook: res.stdout.split('\n').filter((l) => l.startsWith('HOOK=')) }).toEqual({
      code: 0,
      hook: ['HOOK=PreSync Job/leftover-migrate Succeeded'],
    });
    // The old Job is gone (its finalizer taken off before the delete), the new one ran and kept no hook finalizer.
    const now = JSON.parse(await kubectlOk(['get', 'job', 'leftover-migrate', '-n', ns, '-o', 'json'])) as Meta & {
      metadata: { deletionTimestamp?: string; finalizers?: string[] };
    };
    expect(now.metadata.uid).not.toBe(old.metadata.uid);
    expect({ deleting: now.metadata.deletionTimestamp, finalizers: now.metadata.finalizers }).toEqual({ deleting: undefined, finalizers: undefined });
  },
  TIMEOUT,
);

test(
  "a Helm chart's hook annotations run as gitops-engine maps them: pre-install → PreSync (hook-succeeded deletes it), post-install with its hook-weight → PostSync, test hooks never",
  async () => {
    const fx = new GitFixture();
    try {
      const helmJob = (name: string, hook: string, extra: Record<string, string> = {}) => `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-${name}
  annotations: ${JSON.stringify({ 'helm.sh/hook': hook, ...extra })}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: run, image: busybox}]
`;
      fx.write('chart/Chart.yaml', 'apiVersion: v2\nname: hooked\nversion: 0.1.0\n');
      fx.write('chart/templates/migrate.yaml', helmJob('migrate', 'pre-install,pre-upgrade', { 'helm.sh/hook-delete-policy': 'hook-succeeded' }));
      fx.write('chart/templates/notify.yaml', helmJob('notify', 'post-install,post-upgrade', { 'helm.sh/hook-weight': '5' }));
      fx.write('chart/templates/config.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata: {a: "1"}\n');
      fx.write(
        'chart/templates/test.yaml',
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test\n  annotations: {helm.sh/hook: test}\nspec:\n  containers: [{name: t, image: busybox}]\n',
      );
      fx.commit('a chart with hooks');
      const appFile = join(root, 'helm-hooks.yaml');
      writeFileSync(
        appFile,
        applicationYaml({ name: 'rel', spec: { source: { repoURL: fx.repo, path: 'chart', targetRevision: 'main' }, destination: inCluster(ns) } }),
      );
      const res = await runPlugin(['sync', '-f', appFile, '-o', 'kv', '--timeout', '3m'], {
        timeoutMs: 220_000,
        env: { XDG_CACHE_HOME: join(fx.root, 'cache') },
      });
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines.filter((l) => l.startsWith('HOOK=') || l.startsWith('WAVE='))).toEqual([
        'HOOK=PreSync Job/rel-migrate Succeeded',
        'HOOK=PostSync Job/rel-notify Succeeded',
        'WAVE=PreSync 0 done',
        'WAVE=Sync 0 done',
        'WAVE=PostSync 5 done',
      ]);
      const jobs = (await list('jobs')).map((j) => j.metadata.name);
      expect(jobs).not.toContain('rel-migrate'); // hook-succeeded
      expect(jobs).toContain('rel-notify'); // no delete policy: Helm's default before-hook-creation keeps it until the next run
      expect((await kubectl(['get', 'pod', 'rel-test', '-n', ns])).code).not.toBe(0); // a test hook is never applied
      expect(JSON.parse(await kubectlOk(['get', 'configmap', 'rel-config', '-n', ns, '-o', 'json'])).data).toEqual({ a: '1' });
    } finally {
      fx.cleanup();
    }
  },
  TIMEOUT,
);

test(
  'the last (phase, wave) without a hook is not waited for, as Argo CD: a PreSync hook and a Deployment that cannot be scheduled sync Succeeded (exit 0)',
  async () => {
    // The audit's repro: Argo CD ends this operation "successfully synced (all tasks run)"; the app is Degraded after.
    const unschedulable = `apiVersion: apps/v1
kind: Deployment
metadata: {name: stuck}
spec:
  replicas: 1
  progressDeadlineSeconds: 1
  selector: {matchLabels: {app: stuck}}
  template:
    metadata: {labels: {app: stuck}}
    spec:
      nodeSelector: {nope: x}
      containers: [{name: c, image: registry.local/stuck:1}]
`;
    const { appFile, desired } = app('last-wave', {
      'pre.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: pre-note, annotations: {argocd.argoproj.io/hook: PreSync}}\ndata: {a: "1"}\n',
      'stuck.yaml': unschedulable,
    });
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '10s'], { timeoutMs: 120_000 });
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('FAILED='))).toEqual([]);
    expect(lines).toContain('PHASE=Succeeded');
    expect(lines.filter((l) => l.startsWith('WAVE='))).toEqual(['WAVE=PreSync 0 done', 'WAVE=Sync 0 done']);
  },
  TIMEOUT,
);

test(
  'hook-succeeded deletes a hook once the whole operation succeeded, as Argo CD: a Helm pre-install ServiceAccount (weight -5) is still there when the pre-install Job that runs as it starts',
  async () => {
    // Deleted right after its own result, the ServiceAccount would be gone before the Job's pod is created: the API
    // server refuses a pod whose ServiceAccount does not exist, and the Job would never complete.
    const sa =
      'apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: migrate-sa, annotations: {helm.sh/hook: "pre-install,pre-upgrade", helm.sh/hook-weight: "-5", helm.sh/hook-delete-policy: hook-succeeded}}\n';
    const migrate = `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate-as-sa
  annotations: {helm.sh/hook: "pre-install,pre-upgrade", helm.sh/hook-delete-policy: hook-succeeded}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      serviceAccountName: migrate-sa
      containers: [{name: run, image: busybox}]
`;
    const { appFile, desired } = app('helm-sa', { 'sa.yaml': sa, 'job.yaml': migrate, 'app.yaml': configMap('helm-sa-app', 0) });
    const res = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '90s'], { timeoutMs: 200_000 });
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('HOOK='))).toEqual([
      'HOOK=PreSync ServiceAccount/migrate-sa Succeeded',
      'HOOK=PreSync Job/migrate-as-sa Succeeded',
    ]);
    // Both deleted once the operation succeeded.
    await waitFor(async () => (await kubectl(['get', 'serviceaccount', 'migrate-sa', '-n', ns])).code !== 0, {
      timeoutMs: 30_000,
      what: 'the ServiceAccount hook deleted',
    });
    await waitFor(async () => (await kubectl(['get', 'job', 'migrate-as-sa', '-n', ns])).code !== 0, { timeoutMs: 30_000, what: 'the Job hook deleted' });
  },
  TIMEOUT,
);

test(
  'syncPolicy.retry recovers from a transient failure: the namespace appears while the sync is retried',
  async () => {
    const late = `${ns}-late`;
    try {
      const dir = join(root, 'retry');
      mkdirSync(join(dir, 'desired'), { recursive: true });
      writeFileSync(join(dir, 'desired', 'cm.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late-config, namespace: ${late}}\ndata: {a: "1"}\n`);
      const appFile = join(dir, 'app.yaml');
      writeFileSync(
        appFile,
        applicationYaml({
          name: 'retried',
          spec: { destination: inCluster(late), syncPolicy: { retry: { limit: 6, backoff: { duration: '3s', factor: 1, maxDuration: '3s' } } } },
        }),
      );
      const pending = runPlugin(['sync', '-f', appFile, '--desired', join(dir, 'desired'), '-o', 'json'], { timeoutMs: 120_000 });
      // The first attempt fails (no such namespace; it starts well within 5 s, even on a loaded machine); the namespace
      // is made while the sync waits 3 s between attempts.
      await new Promise((r) => setTimeout(r, 5000));
      await kubectlOk(['create', 'namespace', late]);
      const res = await pending;
      expect(res.code).toBe(0);
      const report = JSON.parse(res.stdout) as { retries?: number; applied: number };
      expect(report.retries).toBeGreaterThanOrEqual(1);
      expect(report.applied).toBe(1);
      expect(res.stderr).toMatch(/Retrying attempt #1/);
      expect(JSON.parse(await kubectlOk(['get', 'configmap', 'late-config', '-n', late, '-o', 'json'])).data).toEqual({ a: '1' });
    } finally {
      await kubectl(['delete', 'namespace', late, '--wait=false', '--ignore-not-found']);
    }
  },
  TIMEOUT,
);

test(
  'a selective sync (--resource, -l) runs no hook, as Argo CD: the PreSync Job is not created; the full sync then runs it',
  async () => {
    const { appFile, desired } = app('selective', {
      'pre.yaml': job('name: selective-pre', { 'argocd.argoproj.io/hook': 'PreSync' }),
      'a.yaml': configMap('selective-a', 0).replace('metadata: {', 'metadata: {labels: {part: a}, '),
      'b.yaml': configMap('selective-b', 0),
    });
    const jobs = async () => (await list('jobs')).map((j) => j.metadata.name).filter((n) => n.startsWith('selective-'));
    const byName = await runPlugin(['sync', '-f', appFile, '--desired', desired, '--resource', `:ConfigMap:${ns}/selective-a`, '-o', 'kv']);
    expect(byName.stderr).toBe('');
    expect([byName.code, byName.stdout]).toEqual([0, 'APPLIED=1\nPHASE=Succeeded\n']);
    expect(await jobs()).toEqual([]);
    const byLabel = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-l', 'part=a', '-o', 'json']);
    expect(byLabel.code).toBe(0);
    expect((JSON.parse(byLabel.stdout) as { hooks?: unknown[] }).hooks ?? []).toEqual([]);
    expect(await jobs()).toEqual([]);
    // the positive control: the same app synced whole creates the hook
    const full = await runPlugin(['sync', '-f', appFile, '--desired', desired, '-o', 'kv', '--timeout', '90s']);
    expect(full.code).toBe(0);
    expect(await jobs()).toEqual(['selective-pre']);
  },
  TIMEOUT,
);
