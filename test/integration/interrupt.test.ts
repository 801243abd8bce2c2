// A sync stopped by a signal (workflows/sync/operation.ts): SIGTERM while a wave waits for health finishes the step in
// progress, starts nothing after it, records the operation as Argo CD records a terminated one, prints a closing line
// and exits 143; a second signal forces the stop at once.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, startPlugin, waitFor } from './support/index.js';

const TIMEOUT = 180_000;

/** Wave 0: a Deployment whose pod kwok keeps in ImagePullBackOff (never Healthy); wave 1: a ConfigMap. */
function manifests(name: string): Record<string, string> {
  return {
    'web.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}-web
  annotations: {argocd.argoproj.io/sync-wave: "0"}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}-web}}
  template:
    metadata: {labels: {app: ${name}-web, kgitops.test/kwok-fate: image-pull}}
    spec:
      containers: [{name: main, image: registry.example/never:1}]
`,
    'after.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-after
  annotations: {argocd.argoproj.io/sync-wave: "1"}
data: {wave: "1"}
`,
  };
}

interface Recorded {
  status?: { operationState?: { phase: string; message: string }; history?: unknown[] };
}

describe('a sync stopped by a signal', () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    for (const app of ['term', 'forced']) for (const [file, text] of Object.entries(manifests(app))) fx.write(`apps/${app}/${file}`, text);
    fx.commit('two waves');
    ns = await createTestNamespace('interrupt');
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  const start = async (name: string) => {
    await applyYaml(
      applicationYaml({
        name,
        namespace: ns,
        spec: { source: { repoURL: fx.repo, path: `apps/${name}`, targetRevision: 'main' }, destination: inCluster(ns) },
      }),
    );
    const { child, out, exited } = startPlugin(['sync', name, '--app-namespace', ns, '-o', 'kv', '--timeout', '2m']);
    // The sync is waiting on wave 0's health once its Deployment exists.
    await waitFor(async () => ((await kubectl(['get', 'deployment', `${name}-web`, '-n', ns])).code === 0 ? true : undefined), {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: `${name}-web to be applied`,
    });
    return { child, out, exited };
  };
  const operation = async (name: string) =>
    (JSON.parse(await kubectlOk(['get', 'application', name, '-n', ns, '-o', 'json'])) as Recorded).status?.operationState;

  test(
    'SIGTERM: the waiting wave ends, wave 1 never starts, exit 143, a closing line, recorded as Argo CD records a terminated operation',
    async () => {
      const { child, out, exited } = await start('term');
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(out.stderr).toContain('sync: SIGTERM: stopping after the step in progress (again to force)');
      expect(out.stderr).toMatch(
        /^sync interrupted by SIGTERM: stopped while Sync wave 0 waited for health \(its objects are applied; nothing after it was started\)$/m,
      );
      expect(out.stdout).toMatch(/^INTERRUPTED=/m);
      // Wave 1 was never started.
      expect((await kubectl(['get', 'configmap', 'term-after', '-n', ns])).code).not.toBe(0);
      const op = await operation('term');
      expect(op?.phase).toBe('Failed');
      expect(op?.message).toMatch(/^Operation terminated: /);
    },
    TIMEOUT,
  );

  test(
    'a second SIGINT forces the stop at once: exit 130, the forced closing line, the operation recorded as terminated',
    async () => {
      const { child, out, exited } = await start('forced');
      child.kill('SIGINT');
      await waitFor(() => (out.stderr.includes('again to force') ? true : undefined), {
        timeoutMs: 10_000,
        intervalMs: 50,
        what: 'the first signal to be taken',
      });
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(out.stderr).toMatch(/^sync interrupted: a second SIGINT forced the stop /m);
      expect((await kubectl(['get', 'configmap', 'forced-after', '-n', ns])).code).not.toBe(0);
      const op = await operation('forced');
      expect(op?.phase).toBe('Failed');
      expect(op?.message).toMatch(/^Operation terminated: /);
    },
    TIMEOUT,
  );
});
