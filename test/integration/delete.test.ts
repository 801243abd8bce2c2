// `delete` on the local control plane, as Argo CD's controller finalizes an Application: the PreDelete hook runs first,
// the objects go highest wave first (seen by a watch on the API server), Delete=false, Helm's keep and an unmarked
// bystander keep their uid, the PostDelete hook runs after the last object, the hooks are cleaned up by their policy,
// and the finalizer and the Application are gone; --dry-run and --cascade orphan delete nothing; an answer of no, Ctrl-D or Ctrl-C on a
// terminal changes nothing; an Application a `kubectl delete` left Terminating is finished.
import { spawn } from 'node:child_process';
import { GitFixture } from '../support/git-source.js';
import { WatchProcess } from './support/watch-process.js';
import { applicationYaml, inCluster } from '../support/application.js';
import {
  applyYaml,
  childEnv,
  clusterBin,
  createTestNamespace,
  deleteNamespace,
  kubeconfigPath,
  kubectl,
  kubectlOk,
  kvValues,
  pluginPath,
  runPlugin,
  startPlugin,
  waitFor,
} from './support/index.js';

const T = 240_000;
const FINALIZER = 'resources-finalizer.argocd.argoproj.io';

const cm = (name: string, annotations: Record<string, string> = {}) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations: ${JSON.stringify(annotations)}\ndata:\n  k: v\n`;
const wave = (n: number) => ({ 'argocd.argoproj.io/sync-wave': String(n) });
const job = (name: string, annotations: Record<string, string>) => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
  annotations: ${JSON.stringify(annotations)}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers: [{name: run, image: busybox}]
`;
const deployment = (name: string, w: number) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}, annotations: {argocd.argoproj.io/sync-wave: "${w}"}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec: {containers: [{name: app, image: registry.local/${name}:1}]}
`;

interface Obj {
  metadata: { name: string; uid: string; creationTimestamp: string; deletionTimestamp?: string; finalizers?: string[]; annotations?: Record<string, string> };
  status?: { completionTime?: string };
}

describe('delete', () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/pre.yaml', job('pre', { 'argocd.argoproj.io/hook': 'PreDelete', 'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation' }));
    fx.write('app/post.yaml', job('post', { 'argocd.argoproj.io/hook': 'PostDelete', 'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation' }));
    fx.write('app/post-note.yaml', cm('post-note', { 'helm.sh/hook': 'post-delete' }));
    fx.write('app/base.yaml', cm('base', wave(0)));
    fx.write('app/web.yaml', deployment('web', 1));
    fx.write('app/top.yaml', cm('top', wave(2)));
    fx.write('app/stay.yaml', cm('stay', { 'argocd.argoproj.io/sync-options': 'Delete=false' }));
    fx.write('app/helm-keep.yaml', cm('helm-keep', { 'helm.sh/resource-policy': 'keep' }));
    fx.write('plain/a.yaml', cm('plain-a'));
    fx.write('plain/b.yaml', cm('plain-b', wave(3)));
    fx.write('kid/cm.yaml', cm('kid-cm'));
    fx.write('watched/cm.yaml', cm('watched-cm'));
    fx.write('tree/leaf/cm.yaml', cm('leaf-cm'));
    fx.write('tree/mid/cm.yaml', cm('mid-cm'));
    fx.write('tree/top/cm.yaml', cm('top-cm'));
    fx.write('confirm/a.yaml', cm('confirm-a'));
    fx.write('confirm/careful.yaml', cm('confirm-careful', { 'argocd.argoproj.io/sync-options': 'Delete=confirm' }));
    fx.write('stuck/a.yaml', cm('stuck-a'));
    fx.write('stuck/b.yaml', cm('stuck-b', wave(1)));
    fx.commit('v1');
    ns = await createTestNamespace('delete');
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
  const get = async (kind: string, name: string): Promise<Obj | undefined> => {
    const r = await kubectl(['get', kind, name, '-n', ns, '-o', 'json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as Obj) : undefined;
  };
  const uid = async (kind: string, name: string) => (await get(kind, name))?.metadata.uid;
  /** Each object is gone (named in the failure when one is left). */
  const expectGone = async (objects: readonly (readonly [string, string])[]) => {
    for (const [kind, name] of objects) expect(`${kind}/${name} ${(await get(kind, name)) === undefined ? 'gone' : 'left'}`).toBe(`${kind}/${name} gone`);
  };
  const makeApp = async (name: string, path: string) => {
    await applyYaml(
      applicationYaml({
        name,
        namespace: ns,
        finalizers: [FINALIZER],
        spec: { source: { repoURL: fx.repo, path, targetRevision: 'main' }, destination: inCluster(ns) },
      }),
    );
    const synced = await plugin(['sync', name, '-o', 'kv']);
    expect(synced.stderr).toBe('');
    expect(synced.code).toBe(0);
  };

  test(
    'PreDelete hook, then the objects highest wave first, then PostDelete; kept objects and a bystander keep their uid; the Application goes',
    async () => {
      await makeApp('wipe', 'app');
      await kubectlOk(['create', 'configmap', 'bystander', '-n', ns, '--from-literal=k=v']);
      const before = {
        stay: await uid('configmap', 'stay'),
        keep: await uid('configmap', 'helm-keep'),
        bystander: await uid('configmap', 'bystander'),
        top: await uid('configmap', 'top'),
      };
      expect(Object.values(before).every((u) => typeof u === 'string')).toBe(true);
      // No delete hook is run by a sync.
      expect([await get('job', 'pre'), await get('job', 'post'), await get('configmap', 'post-note')]).toEqual([undefined, undefined, undefined]);

      const dry = await plugin(['delete', 'wipe', '--dry-run', '-o', 'json']);
      expect(dry.code).toBe(0);
      const plan = JSON.parse(dry.stdout) as {
        phase: string;
        application: string;
        entries: { name: string; outcome: string; wave?: number }[];
        hooks: { name: string; phase: string; outcome: string }[];
      };
      expect([plan.phase, plan.application]).toEqual(['DryRun', 'would-delete']);
      expect(plan.entries.map((e) => `${e.name} ${e.outcome}`)).toEqual([
        'top would-delete',
        'web would-delete',
        'base would-delete',
        'helm-keep kept',
        'stay kept',
      ]);
      expect(plan.hooks.map((h) => `${h.phase} ${h.name} ${h.outcome}`).sort()).toEqual([
        'PostDelete post would-run',
        'PostDelete post-note would-run',
        'PreDelete pre would-run',
      ]);
      expect(await uid('configmap', 'top')).toBe(before.top);
      expect(await get('application', 'wipe')).toBeDefined();

      // Watches on the API server see the deletions in the order they happen (kubectl watches one type per process).
      const seen: { at: number; name: string }[] = [];
      const watches = ['configmaps', 'deployments'].map((kind) => {
        const w = spawn(
          `${clusterBin()}/kubectl`,
          [
            '--kubeconfig',
            kubeconfigPath(),
            'get',
            kind,
            '-n',
            ns,
            '--watch-only',
            '--output-watch-events',
            '-o',
            'jsonpath={.type} {.object.metadata.name}{"\\n"}',
          ],
          { env: childEnv() },
        );
        w.stdout.on('data', (d: Buffer) => {
          for (const line of d.toString().split('\n'))
            if (line.startsWith('DELETED ')) seen.push({ at: performance.now(), name: line.slice('DELETED '.length) });
        });
        return w;
      });
      await new Promise((r) => setTimeout(r, 2000));
      const started = Date.now();
      const done = await plugin(['delete', 'wipe', '--yes', '-o', 'kv']);
      await new Promise((r) => setTimeout(r, 1000));
      for (const w of watches) w.kill();
      expect(done.code).toBe(0);
      const kv = kvValues(done.stdout);
      expect(kv.DELETED).toEqual(['ConfigMap/top', 'Deployment/web', 'ConfigMap/base']);
      expect(kv.DELETE_KEPT?.sort()).toEqual([
        'ConfigMap/helm-keep annotated helm.sh/resource-policy: keep',
        'ConfigMap/stay annotated argocd.argoproj.io/sync-options: Delete=false',
      ]);
      expect(kv.HOOK?.sort()).toEqual([
        'PostDelete ConfigMap/post-note Succeeded removed',
        'PostDelete Job/post Succeeded kept',
        'PreDelete Job/pre Succeeded kept',
      ]);
      expect([kv.CASCADE, kv.APPLICATION, kv.PHASE]).toEqual([['foreground'], ['deleted'], ['Succeeded']]);
      const deletedOrder = seen
        .filter((e) => ['top', 'web', 'base'].includes(e.name))
        .sort((a, b) => a.at - b.at)
        .map((e) => e.name);
      expect(deletedOrder).toEqual(['top', 'web', 'base']);

      // The hooks ran in order, by the server's clocks: PreDelete finished before PostDelete was created.
      const pre = await get('job', 'pre');
      const post = await get('job', 'post');
      expect(pre?.status?.completionTime).toBeDefined();
      expect(Date.parse(pre!.metadata.creationTimestamp)).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000 - 1000);
      expect(Date.parse(post!.metadata.creationTimestamp)).toBeGreaterThanOrEqual(Date.parse(pre!.status!.completionTime!));
      expect(await get('configmap', 'post-note')).toBeUndefined();
      expect([await get('configmap', 'top'), await get('deployment', 'web'), await get('configmap', 'base')]).toEqual([undefined, undefined, undefined]);
      expect([await uid('configmap', 'stay'), await uid('configmap', 'helm-keep'), await uid('configmap', 'bystander')]).toEqual([
        before.stay,
        before.keep,
        before.bystander,
      ]);
      expect(await get('application', 'wipe')).toBeUndefined();
    },
    T,
  );

  /** `delete NAME` on a terminal (`script` gives it one), `answer` typed at its question: its exit code and what it wrote. */
  const deleteOnTerminal = (name: string, answer: string) => {
    const cmd = [pluginPath, 'delete', name, '--app-namespace', ns, '--kubeconfig', kubeconfigPath()].map((a) => `'${a}'`).join(' ');
    return new Promise<{ code: number | null; out: string }>((resolve) => {
      const p = spawn('script', ['-qec', cmd, '/dev/null'], { env: childEnv() });
      let out = '';
      let answered = false;
      // The terminal may be gone by the time a late write arrives: an EPIPE on it is no failure of the command.
      p.stdin.on('error', () => undefined);
      p.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        // Answered once: the output keeps the question, and later chunks must not write again.
        if (!answered && out.includes('[y/N]')) {
          answered = true;
          p.stdin.write(answer);
        }
      });
      p.on('close', (code) => resolve({ code, out }));
    });
  };

  test(
    'on a terminal an answer of no, or Ctrl-D, changes nothing (exit 4), nor does Ctrl-C (exit 130); --cascade orphan removes only the Application, its objects keep their mark',
    async () => {
      await makeApp('leave', 'plain');
      const before = [await uid('configmap', 'plain-a'), await uid('configmap', 'plain-b')];
      const unchanged = async () => {
        expect([await uid('configmap', 'plain-a'), await uid('configmap', 'plain-b')]).toEqual(before);
        expect((await get('application', 'leave'))?.metadata.deletionTimestamp).toBeUndefined();
      };
      const no = await deleteOnTerminal('leave', 'n\n');
      expect(no.out).toMatch(/Delete Application leave and the objects listed\? \[y\/N\]/);
      expect(no.out).toMatch(/ConfigMap\/plain-b\s+\S+\s+would-delete/);
      expect(no.out).toMatch(/Application leave: kept; .*Declined/);
      expect(no.code).toBe(4);
      await unchanged();
      // Ctrl-D, the end of input, is no answer: the default, no.
      const eof = await deleteOnTerminal('leave', '\x04');
      expect(eof.out).toMatch(/Application leave: kept; .*Declined/);
      expect(eof.code).toBe(4);
      await unchanged();
      // Ctrl-C stops the command as a shell counts it (128 + 2), saying so.
      const interrupted = await deleteOnTerminal('leave', '\x03');
      expect(interrupted.out).toContain('error: stopped by Ctrl-C at the question: nothing was changed');
      expect(interrupted.code).toBe(130);
      await unchanged();

      const orphan = await plugin(['delete', 'leave', '--cascade', 'orphan', '--yes', '-o', 'kv']);
      expect(orphan.code).toBe(0);
      expect(kvValues(orphan.stdout).APPLICATION).toEqual(['deleted']);
      expect(kvValues(orphan.stdout).DELETED).toBeUndefined();
      expect(await get('application', 'leave')).toBeUndefined();
      expect([await uid('configmap', 'plain-a'), await uid('configmap', 'plain-b')]).toEqual(before);
      expect((await get('configmap', 'plain-a'))?.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe(`${ns}_leave:/ConfigMap:${ns}/plain-a`);
      await kubectlOk(['delete', 'configmap', 'plain-a', 'plain-b', '-n', ns]);
    },
    T,
  );

  test(
    'Delete=confirm unapproved deletes nothing (exit 3); the approving command it names keeps --app-namespace and the kubeconfig, and deletes',
    async () => {
      await makeApp('careful', 'confirm');
      const held = await plugin(['delete', 'careful', '--yes', '-o', 'kv']);
      expect(held.code).toBe(3);
      const kv = kvValues(held.stdout);
      expect(kv.PHASE).toEqual(['Waiting']);
      const next = kv.NEXT_COMMAND?.[0] ?? '';
      // Not `kubectl gitops delete careful --confirm-delete`, which names an Application in another namespace.
      expect(next).toBe(`kubectl gitops delete careful --yes -o kv --app-namespace ${ns} --kubeconfig ${kubeconfigPath()} --confirm-delete`);
      expect([(await get('application', 'careful'))?.metadata.deletionTimestamp, await uid('configmap', 'confirm-careful')]).toEqual([
        undefined,
        expect.any(String),
      ]);
      // The command as named, word for word (runPlugin adds the kubeconfig itself).
      const words = next.split(' ').slice(2);
      const at = words.indexOf('--kubeconfig');
      words.splice(at, 2);
      const approved = await runPlugin(words);
      expect(approved.code).toBe(0);
      expect(kvValues(approved.stdout).DELETED?.sort()).toEqual(['ConfigMap/confirm-a', 'ConfigMap/confirm-careful']);
      await waitFor(async () => (await get('application', 'careful')) === undefined, { timeoutMs: 10_000, what: 'the Application gone' });
    },
    T,
  );

  test(
    'an Application that kubectl delete left Terminating (its resources finalizer) is finished by delete',
    async () => {
      await makeApp('stuck', 'stuck');
      await kubectlOk(['delete', 'application', 'stuck', '-n', ns, '--wait=false']);
      const terminating = await get('application', 'stuck');
      expect(terminating?.metadata.deletionTimestamp).toBeDefined();
      expect(terminating?.metadata.finalizers).toEqual([FINALIZER]);
      const done = await plugin(['delete', 'stuck', '--yes', '-o', 'kv']);
      expect(done.code).toBe(0);
      const kv = kvValues(done.stdout);
      expect(kv.DELETED).toEqual(['ConfigMap/stuck-b', 'ConfigMap/stuck-a']);
      expect([kv.CASCADE, kv.APPLICATION]).toEqual([['foreground'], ['deleted']]);
      await waitFor(async () => (await get('application', 'stuck')) === undefined, { timeoutMs: 10_000, what: 'the Application gone' });
      expect([await get('configmap', 'stuck-a'), await get('configmap', 'stuck-b')]).toEqual([undefined, undefined]);
    },
    T,
  );

  test(
    "app-of-apps: a child Application the parent's prune deletes is finished as delete would (its objects, then its finalizer), never left Terminating",
    async () => {
      fx.write(
        'parent/kid.yaml',
        applicationYaml({
          name: 'kid',
          namespace: ns,
          finalizers: [FINALIZER],
          spec: { source: { repoURL: fx.repo, path: 'kid', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      fx.write('parent/note.yaml', cm('parent-note'));
      fx.commit('parent with a child');
      await applyYaml(
        applicationYaml({
          name: 'parent',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'parent', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      const first = await plugin(['sync', 'parent', '--recursive', '-o', 'json']);
      expect(first.code).toBe(0);
      expect(await uid('configmap', 'kid-cm')).toBeDefined();
      expect((await get('application', 'kid'))?.metadata.finalizers).toEqual([FINALIZER]);

      fx.remove('parent/kid.yaml');
      fx.commit('the child goes');
      const pruned = await plugin(['sync', 'parent', '--prune', '-o', 'json']);
      expect(pruned.code).toBe(0);
      const report = JSON.parse(pruned.stdout) as { prune: { results: { kind: string; name: string; outcome: string; message?: string }[] } };
      expect(report.prune.results).toEqual([
        {
          group: 'argoproj.io',
          kind: 'Application',
          namespace: ns,
          name: 'kid',
          outcome: 'pruned',
          message: 'its deletion finished as delete would: 1 object(s) deleted (cascade foreground), the Application deleted',
        },
      ]);
      expect(await get('application', 'kid')).toBeUndefined();
      expect(await get('configmap', 'kid-cm')).toBeUndefined();
      expect(await uid('configmap', 'parent-note')).toBeDefined();
    },
    T,
  );

  test(
    'sync --watch, which owns the loop, finishes an Application that kubectl delete left Terminating, and stops',
    async () => {
      await applyYaml(
        applicationYaml({
          name: 'watched',
          namespace: ns,
          finalizers: [FINALIZER],
          spec: { source: { repoURL: fx.repo, path: 'watched', targetRevision: 'main' }, destination: inCluster(ns), syncPolicy: { automated: {} } },
        }),
      );
      const w = new WatchProcess(['watched', '--app-namespace', ns, '--interval', '2s'], kubeconfigPath());
      try {
        await w.line((l) => l.action === 'in-sync' || (l.action === 'sync' && l.result === 'applied'), 'the first sync');
        expect(await uid('configmap', 'watched-cm')).toBeDefined();
        await kubectlOk(['delete', 'application', 'watched', '-n', ns, '--wait=false']);
        const deleted = await w.line((l) => l.action === 'app' && l.result === 'deleted', 'the loop finishing the deletion', 0, 60_000);
        expect(deleted.message).toBe('the Application is being deleted: 1 object(s) deleted (cascade foreground), the Application deleted');
        const exit = await w.exited;
        expect(exit.code).toBe(0);
        expect(await get('configmap', 'watched-cm')).toBeUndefined();
        expect(await get('application', 'watched')).toBeUndefined();
      } finally {
        await w.stop();
      }
    },
    T,
  );

  test(
    'app-of-apps to any depth: --dry-run --recursive lists what each child deletion deletes and changes nothing; delete finishes every level',
    async () => {
      const appAt = (name: string, path: string) =>
        applicationYaml({
          name,
          namespace: ns,
          finalizers: [FINALIZER],
          spec: { source: { repoURL: fx.repo, path, targetRevision: 'main' }, destination: inCluster(ns) },
        });
      fx.write('tree/top/mid.yaml', appAt('mid', 'tree/mid'));
      fx.write('tree/mid/leaf.yaml', appAt('leaf', 'tree/leaf'));
      fx.commit('three levels');
      await applyYaml(appAt('top', 'tree/top'));
      const synced = await plugin(['sync', 'top', '--recursive', '-o', 'json']);
      expect(synced.code).toBe(0);
      const before = [await uid('configmap', 'top-cm'), await uid('configmap', 'mid-cm'), await uid('configmap', 'leaf-cm')];
      expect(before.every((u) => typeof u === 'string')).toBe(true);

      const dry = await plugin(['delete', 'top', '--dry-run', '--recursive', '-o', 'kv']);
      expect(dry.code).toBe(0);
      const kv = kvValues(dry.stdout);
      expect(kv.DELETE?.sort()).toEqual(['Application/mid', 'ConfigMap/top-cm']);
      expect(kv.CHILD_DELETE?.sort()).toEqual([`${ns}/leaf ConfigMap/leaf-cm`, `${ns}/mid Application/leaf`, `${ns}/mid ConfigMap/mid-cm`]);
      expect([await uid('configmap', 'top-cm'), await uid('configmap', 'mid-cm'), await uid('configmap', 'leaf-cm')]).toEqual(before);

      const done = await plugin(['delete', 'top', '--yes', '-o', 'kv']);
      expect(done.code).toBe(0);
      expect(kvValues(done.stdout).APPLICATION).toEqual(['deleted']);
      await expectGone([
        ['configmap', 'top-cm'],
        ['configmap', 'mid-cm'],
        ['configmap', 'leaf-cm'],
        ['application', 'top'],
        ['application', 'mid'],
        ['application', 'leaf'],
      ]);
    },
    T,
  );

  test(
    'SIGINT while a wave waits for an object a finalizer holds: the report is printed (INTERRUPTED=), exit 130, the later wave untouched, the Application Terminating; delete again finishes',
    async () => {
      fx.write('sigdel/first.yaml', cm('sigdel-first', wave(1)));
      fx.write('sigdel/later.yaml', cm('sigdel-later', wave(0)));
      fx.commit('sigdel');
      await makeApp('sigdel', 'sigdel');
      await kubectlOk(['patch', 'configmap', 'sigdel-first', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":["example.com/hold"]}}']);
      try {
        const { child, out, exited } = startPlugin(['delete', 'sigdel', '--app-namespace', ns, '--yes', '--timeout', '2m', '-o', 'kv']);
        await waitFor(async () => ((await get('configmap', 'sigdel-first'))?.metadata.deletionTimestamp ? true : undefined), {
          timeoutMs: 60_000,
          intervalMs: 200,
          what: 'sigdel-first to be deleted',
        });
        child.kill('SIGINT');
        expect(await exited).toBe(130);
        expect(out.stderr).toContain('delete: SIGINT: stopping after the step in progress (again to force)');
        const kv = kvValues(out.stdout);
        expect(kv.INTERRUPTED).toEqual(['during wave 1 (the delete in flight was finished, no other was started; what was deleted stays deleted)']);
        expect([kv.APPLICATION, kv.PHASE]).toEqual([['terminating'], ['Failed']]);
        // Wave 0 was never started; the Application waits, Terminating, for a delete to finish it.
        expect((await get('configmap', 'sigdel-later'))?.metadata.deletionTimestamp).toBeUndefined();
        expect((await get('application', 'sigdel'))?.metadata.deletionTimestamp).toBeDefined();
      } finally {
        await kubectl(['patch', 'configmap', 'sigdel-first', '-n', ns, '--type=merge', '-p', '{"metadata":{"finalizers":null}}']);
      }
      const again = await plugin(['delete', 'sigdel', '--yes', '-o', 'kv']);
      expect(again.code).toBe(0);
      expect(kvValues(again.stdout).APPLICATION).toEqual(['deleted']);
      await expectGone([
        ['configmap', 'sigdel-first'],
        ['configmap', 'sigdel-later'],
        ['application', 'sigdel'],
      ]);
    },
    T,
  );
});
