// Per-run sync overrides on the local control plane, as argocd app sync takes them: --strategy apply runs no hook;
// --sync-option Replace=true replaces (a label another manager added is gone, as after kubectl replace);
// --apply-out-of-sync-only applies only what drifted (and records a result for it alone); each recorded in the operation
// as Argo CD records it.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin } from './support/index.js';

const T = 180_000;

const cm = (name: string, annotations: Record<string, string> = {}) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations: ${JSON.stringify(annotations)}\ndata: {v: "1"}\n`;

interface Stored {
  status?: {
    operationState?: {
      operation?: { sync?: { syncOptions?: string[]; syncStrategy?: unknown } };
      phase?: string;
      syncResult?: { resources?: { kind: string; name: string; status?: string }[] };
    };
  };
}

describe('per-run sync overrides', () => {
  let fx: GitFixture;
  let ns: string;
  const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
  const stored = async () => (JSON.parse(await kubectlOk(['get', 'application', 'runs', '-n', ns, '-o', 'json'])) as Stored).status?.operationState;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/a.yaml', cm('alpha'));
    fx.write('app/b.yaml', cm('beta'));
    fx.write('app/pre.yaml', cm('pre-hook', { 'argocd.argoproj.io/hook': 'PreSync' }));
    fx.commit('v1');
    ns = await createTestNamespace('overrides');
    await applyYaml(
      applicationYaml({ name: 'runs', namespace: ns, spec: { source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) } }),
    );
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  test(
    '--strategy apply runs no hook and is recorded as syncStrategy apply',
    async () => {
      const res = await plugin(['sync', 'runs', '--strategy', 'apply', '-o', 'kv']);
      expect(res.code).toBe(0);
      const kv = kvValues(res.stdout);
      expect([kv.APPLIED, kv.HOOK, kv.STRATEGY]).toEqual([['2'], undefined, ['apply']]);
      expect((await kubectl(['get', 'configmap', 'pre-hook', '-n', ns])).code).not.toBe(0);
      expect((await stored())?.operation?.sync?.syncStrategy).toEqual({ apply: {} });
    },
    T,
  );

  test(
    '--sync-option Replace=true replaces: a label another manager added is gone (a server-side apply keeps it); recorded as syncOptions',
    async () => {
      await kubectlOk(['label', 'configmap', 'alpha', '-n', ns, 'added-by=hand']);
      expect((await plugin(['sync', 'runs', '-o', 'kv'])).code).toBe(0);
      const labels = async () =>
        (JSON.parse(await kubectlOk(['get', 'configmap', 'alpha', '-n', ns, '-o', 'json'])) as { metadata: { labels?: Record<string, string> } }).metadata
          .labels;
      expect(await labels()).toEqual({ 'added-by': 'hand' });
      const res = await plugin(['sync', 'runs', '--sync-option', 'Replace=true', '-o', 'kv']);
      expect(res.code).toBe(0);
      expect(kvValues(res.stdout).SYNC_OPTIONS).toEqual(['Replace=true']);
      expect(await labels()).toBeUndefined();
      expect((await stored())?.operation?.sync?.syncOptions).toEqual(['Replace=true']);
    },
    T,
  );

  test(
    "--apply-out-of-sync-only applies only the object that drifted; the flag becomes the operation's ApplyOutOfSyncOnly=true",
    async () => {
      await kubectlOk(['patch', 'configmap', 'beta', '-n', ns, '--type', 'merge', '-p', '{"data":{"v":"by hand"}}']);
      const res = await plugin(['sync', 'runs', '--apply-out-of-sync-only', '--strategy', 'apply', '-o', 'kv']);
      expect(res.code).toBe(0);
      expect(kvValues(res.stdout).APPLIED).toEqual(['1']);
      expect(kvValues(res.stdout).SYNC_OPTIONS).toEqual(['ApplyOutOfSyncOnly=true']);
      expect((JSON.parse(await kubectlOk(['get', 'configmap', 'beta', '-n', ns, '-o', 'json'])) as { data: Record<string, string> }).data).toEqual({ v: '1' });
      const op = await stored();
      expect(op?.operation?.sync?.syncOptions).toEqual(['ApplyOutOfSyncOnly=true']);
      // gitops-engine's filterOutOfSyncTasks drops the in-sync object before the first pass: no result for alpha.
      expect(op?.syncResult?.resources?.map((r) => `${r.kind}/${r.name}=${r.status}`)).toEqual(['ConfigMap/beta=Synced']);
    },
    T,
  );

  test(
    'a malformed --sync-option or one with --watch is an input error, nothing changed',
    async () => {
      const bad = await plugin(['sync', 'runs', '--sync-option', 'Turbo=true', '-o', 'kv']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--sync-option Turbo=true: Turbo is not a sync option Argo CD knows/);
      const watch = await plugin(['sync', 'runs', '--watch', '--replace']);
      expect(watch.code).toBe(2);
      expect(watch.stderr).toMatch(/no per-run overrides/);
    },
    T,
  );
});
