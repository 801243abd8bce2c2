// Rollback as Argo CD's: a Helm chart in Git and a chart from a Helm repository go back to the chart version, commit
// and helm parameters/values a history entry recorded, with no hook run (Argo CD's rollback uses the apply strategy);
// a multi-source Application goes back with every source at its own recorded revision (checked on the cluster), and
// its syncs (sync --watch too) record one revision per source. A sync that cannot run (render error, refused,
// unreachable destination) is recorded as an operation in phase Error with the SyncError condition. `status -A`/`-l`
// list Applications by label.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { parse } from 'yaml';
import { serveFiles } from './support/serve-files.js';
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
  run,
  runPlugin,
  waitFor,
  type RunResult,
} from './support/index.js';

const TIMEOUT = 240_000;
const helmBin = () => join(clusterBin(), 'helm');

interface AppStatus {
  sync?: { status?: string; revision?: string; revisions?: string[] };
  operationState?: {
    phase: string;
    message: string;
    operation: { initiatedBy: { username?: string } };
    syncResult: { revision?: string; revisions?: string[]; resources?: unknown[] };
  };
  history?: { id: number; revision?: string; revisions?: string[]; source?: Record<string, unknown>; sources?: Record<string, unknown>[] }[];
  conditions?: { type: string; message: string }[];
}

/** The chart `web` in two versions, packaged with helm and indexed (helm repo index) in `into`. */
async function helmRepository(work: string, into: string): Promise<void> {
  for (const v of ['1.0.0', '2.0.0']) {
    const src = join(work, 'src', v);
    mkdirSync(join(src, 'templates'), { recursive: true });
    writeFileSync(join(src, 'Chart.yaml'), `apiVersion: v2\nname: web\nversion: ${v}\n`);
    writeFileSync(join(src, 'values.yaml'), 'color: red\n');
    writeFileSync(
      join(src, 'templates', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-web\ndata:\n  version: {{ .Chart.Version | quote }}\n  color: {{ .Values.color | quote }}\n',
    );
    const pkg = await run(helmBin(), ['package', src, '--destination', into]);
    expect(pkg.code).toBe(0);
  }
  expect((await run(helmBin(), ['repo', 'index', into])).code).toBe(0);
}

describe('rollback of Helm and multi-source Applications, as Argo CD rolls back', () => {
  let work: string;
  let server: Server;
  let helmRepo: string;
  let charts: GitFixture;
  let values: GitFixture;
  let ns: string;
  const plugin = (args: string[]): Promise<RunResult> => runPlugin([...args, '--app-namespace', ns], { env: { XDG_CACHE_HOME: join(work, 'cache') } });
  const getStatus = async (name: string) =>
    (JSON.parse(await kubectlOk(['get', 'application', name, '-n', ns, '-o', 'json'])) as { status?: AppStatus }).status ?? {};
  const data = async (name: string) =>
    (JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'json'])) as { data: Record<string, string> }).data;
  /** Applies an Application of the suite's namespace; `spec` is its source(s), as YAML (`  source: ...`). */
  const application = (name: string, spec: string) =>
    applyYaml(applicationYaml({ name, namespace: ns, spec: { project: 'default', ...(parse(spec) as Record<string, unknown>), destination: inCluster(ns) } }));
  const patchSpec = (name: string, spec: unknown) => kubectlOk(['patch', 'application', name, '-n', ns, '--type', 'merge', '-p', JSON.stringify({ spec })]);
  const ok = (res: RunResult) => expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'kgitops-rollback-'));
    const served = join(work, 'served');
    await helmRepository(work, served);
    ({ server, url: helmRepo } = await serveFiles(served));
    charts = new GitFixture();
    values = new GitFixture();
    ns = await createTestNamespace('app-rollback');
  }, TIMEOUT);

  afterAll(async () => {
    server?.close();
    charts?.cleanup();
    values?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'a chart in Git: rollback syncs the recorded commit with the recorded helm parameters and values',
    async () => {
      charts.write('charts/app/Chart.yaml', 'apiVersion: v2\nname: app\nversion: 0.1.0\n');
      charts.write('charts/app/values.yaml', 'color: red\nsize: small\n');
      charts.write(
        'charts/app/templates/cm.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  template: one\n  color: {{ .Values.color | quote }}\n  size: {{ .Values.size | quote }}\n',
      );
      const hook = (n: string) =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations: {argocd.argoproj.io/hook: PostSync}\ndata:\n  run: ${n}\n`;
      charts.write('charts/app/templates/hook.yaml', hook('one'));
      const first = charts.commit('one');
      await application(
        'gitchart',
        `  source:\n    repoURL: ${charts.repo}\n    path: charts/app\n    targetRevision: main\n    helm:\n      parameters: [{name: color, value: green}]\n      values: "size: large"\n`,
      );
      ok(await plugin(['sync', 'gitchart', '-o', 'kv']));
      expect(await data('gitchart-config')).toEqual({ template: 'one', color: 'green', size: 'large' });

      charts.write(
        'charts/app/templates/cm.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  template: two\n  color: {{ .Values.color | quote }}\n  size: {{ .Values.size | quote }}\n',
      );
      charts.write('charts/app/templates/hook.yaml', hook('two'));
      const second = charts.commit('two');
      await patchSpec('gitchart', {
        source: {
          repoURL: charts.repo,
          path: 'charts/app',
          targetRevision: 'main',
          helm: { parameters: [{ name: 'color', value: 'blue' }], values: 'size: medium' },
        },
      });
      ok(await plugin(['sync', 'gitchart', '-o', 'kv']));
      expect(await data('gitchart-config')).toEqual({ template: 'two', color: 'blue', size: 'medium' });
      expect(await data('gitchart-hook')).toEqual({ run: 'two' });

      const res = await plugin(['rollback', 'gitchart', '-o', 'json']);
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ revision: first, failures: [], hooks: [] });
      // Argo CD's rollback syncs with the apply strategy: no hook runs (the PostSync hook is still the second sync's).
      expect(await data('gitchart-hook')).toEqual({ run: 'two' });
      // The first commit's template, with the first entry's parameter and values: not the spec's (blue, medium).
      expect(await data('gitchart-config')).toEqual({ template: 'one', color: 'green', size: 'large' });
      const s = await getStatus('gitchart');
      expect(s.history?.map((h) => [h.id, h.revision, (h.source?.helm as { parameters: { value: string }[] }).parameters[0]!.value])).toEqual([
        [0, first, 'green'],
        [1, second, 'blue'],
        [2, first, 'green'],
      ]);
      expect(s.operationState).toMatchObject({ phase: 'Succeeded', syncResult: { revision: first } });
      expect(s.sync?.status).toBe('OutOfSync');
    },
    TIMEOUT,
  );

  test(
    'a chart from a Helm repository: rollback syncs the recorded chart version with the recorded values',
    async () => {
      await application(
        'repochart',
        `  source:\n    repoURL: ${helmRepo}\n    chart: web\n    targetRevision: 1.0.0\n    helm:\n      valuesObject: {color: green}\n`,
      );
      ok(await plugin(['sync', 'repochart', '-o', 'kv']));
      expect(await data('repochart-web')).toEqual({ version: '1.0.0', color: 'green' });
      await patchSpec('repochart', { source: { repoURL: helmRepo, chart: 'web', targetRevision: '2.*', helm: { valuesObject: { color: 'blue' } } } });
      ok(await plugin(['sync', 'repochart', '-o', 'kv']));
      expect(await data('repochart-web')).toEqual({ version: '2.0.0', color: 'blue' });
      expect((await getStatus('repochart')).history?.map((h) => [h.revision, h.source?.targetRevision])).toEqual([
        ['1.0.0', '1.0.0'],
        ['2.0.0', '2.*'],
      ]);

      const dry = await plugin(['rollback', 'repochart', '0', '--dry-run', '-o', 'json']);
      expect(dry.code).toBe(0);
      expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, revision: '1.0.0' });
      expect(await data('repochart-web')).toEqual({ version: '2.0.0', color: 'blue' });
      const res = await plugin(['rollback', 'repochart', '0', '-o', 'kv']);
      expect(res.code).toBe(0);
      expect([kvValues(res.stdout).PHASE, kvValues(res.stdout).REVISION]).toEqual([['Succeeded'], ['1.0.0']]);
      expect(res.stderr).toContain('rolled back Application');
      expect(await data('repochart-web')).toEqual({ version: '1.0.0', color: 'green' });
      expect((await getStatus('repochart')).history?.map((h) => h.revision)).toEqual(['1.0.0', '2.0.0', '1.0.0']);
    },
    TIMEOUT,
  );

  test(
    'multi-source (a chart from the Helm repository, its values from Git): every source back at its recorded revision',
    async () => {
      values.write('web/prod.yaml', 'color: purple\n');
      const v1 = values.commit('purple');
      const sources = (version: string) => [
        { repoURL: helmRepo, chart: 'web', targetRevision: version, helm: { releaseName: 'multi', valueFiles: ['$values/web/prod.yaml'] } },
        { repoURL: values.repo, targetRevision: 'main', ref: 'values' },
      ];
      await application('multi', `  sources: ${JSON.stringify(sources('1.0.0'))}\n`);
      ok(await plugin(['sync', 'multi', '-o', 'kv']));
      expect(await data('multi-web')).toEqual({ version: '1.0.0', color: 'purple' });
      let s = await getStatus('multi');
      expect(s.sync).toMatchObject({ status: 'Synced', revisions: ['1.0.0', v1] });
      expect(s.history?.[0]).toMatchObject({ id: 0, revisions: ['1.0.0', v1], sources: sources('1.0.0') });

      values.write('web/prod.yaml', 'color: orange\n');
      const v2 = values.commit('orange');
      await patchSpec('multi', { sources: sources('2.0.0') });
      const synced = await plugin(['sync', 'multi', '-o', 'kv']);
      ok(synced);
      // sync -o kv ends with the operation's phase and each source's revision, as recorded.
      expect(synced.stdout.trimEnd().split('\n').slice(-2)).toEqual(['PHASE=Succeeded', `REVISION=2.0.0,${v2}`]);
      expect(await data('multi-web')).toEqual({ version: '2.0.0', color: 'orange' });
      expect((await getStatus('multi')).history?.map((h) => h.revisions)).toEqual([
        ['1.0.0', v1],
        ['2.0.0', v2],
      ]);

      const history = await plugin(['history', 'multi', '-o', 'kv']);
      expect(history.stdout).toMatch(new RegExp(`^HISTORY=0 \\S+ 1\\.0\\.0,${v1} `, 'm'));
      const res = await plugin(['rollback', 'multi', '-o', 'json']);
      expect(res.code).toBe(0);
      expect(res.stderr).toContain(`to history ID 0 (revision 1.0.0,${v1})`);
      expect(JSON.parse(res.stdout)).toMatchObject({ schemaVersion: 1, phase: 'Succeeded', revisions: ['1.0.0', v1] });
      // The chart at 1.0.0 and the values file at the first commit (purple), though main now says orange.
      expect(await data('multi-web')).toEqual({ version: '1.0.0', color: 'purple' });
      s = await getStatus('multi');
      expect(s.history?.map((h) => h.revisions)).toEqual([
        ['1.0.0', v1],
        ['2.0.0', v2],
        ['1.0.0', v1],
      ]);
      expect(s.history?.[2]?.sources).toEqual(sources('1.0.0'));
      expect(s.operationState).toMatchObject({ phase: 'Succeeded', syncResult: { revisions: ['1.0.0', v1] } });
      expect(s.sync).toMatchObject({ status: 'OutOfSync', revisions: ['2.0.0', v2] });
    },
    TIMEOUT,
  );
});

describe('sync --watch of a multi-source Application', () => {
  let values: GitFixture;
  let ns: string;

  beforeAll(async () => {
    values = new GitFixture();
    values.write('a/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-a}\ndata: {x: "1"}\n');
    values.write('b/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-b}\ndata: {x: "1"}\n');
    values.commit('one');
    ns = await createTestNamespace('watch-multi');
  }, TIMEOUT);

  afterAll(async () => {
    values?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'records one revision per source for its automated sync',
    async () => {
      const other = new GitFixture();
      try {
        other.write('c/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-c}\ndata: {x: "1"}\n');
        const c = other.commit('c');
        const a = values.git(['rev-parse', 'HEAD']);
        await applyYaml(
          applicationYaml({
            name: 'watched',
            namespace: ns,
            spec: {
              sources: [
                { repoURL: values.repo, path: 'a', targetRevision: 'main' },
                { repoURL: other.repo, path: 'c', targetRevision: 'main' },
              ],
              destination: inCluster(ns),
              syncPolicy: { automated: {} },
            },
          }),
        );
        const child = spawn(pluginPath, ['sync', 'watched', '--app-namespace', ns, '--watch', '--interval', '2s', '-o', 'json'], {
          env: childEnv(),
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        try {
          const s = await waitFor(
            async () => {
              const st = (JSON.parse(await kubectlOk(['get', 'application', 'watched', '-n', ns, '-o', 'json'])) as { status?: AppStatus }).status;
              return st?.history?.length === 1 ? st : undefined;
            },
            { timeoutMs: 60_000, intervalMs: 500, what: 'the watch loop to record its sync' },
          );
          expect(s.history?.[0]).toMatchObject({ id: 0, revisions: [a, c] });
          expect(s.operationState).toMatchObject({ phase: 'Succeeded', syncResult: { revisions: [a, c] } });
        } finally {
          child.kill('SIGTERM');
          await new Promise((r) => child.once('exit', r));
        }
        expect(err).toBe('');
      } finally {
        other.cleanup();
      }
    },
    TIMEOUT,
  );
});

describe('a sync that cannot run is recorded as an operation in phase Error, with the SyncError condition', () => {
  let fx: GitFixture;
  let ns: string;
  let work: string;
  const plugin = (args: string[]): Promise<RunResult> => runPlugin([...args, '--app-namespace', ns]);
  const getStatus = async (name: string) =>
    (JSON.parse(await kubectlOk(['get', 'application', name, '-n', ns, '-o', 'json'])) as { status?: AppStatus }).status ?? {};
  /** Applies an Application of the suite's namespace; `source` (a flow mapping) and `extra` (more of the spec) are YAML. */
  const application = (name: string, source: string, extra = '', server = 'https://kubernetes.default.svc') =>
    applyYaml(
      applicationYaml({
        name,
        namespace: ns,
        spec: {
          project: 'default',
          source: parse(source) as unknown,
          destination: { server, namespace: ns },
          ...((parse(extra) ?? {}) as Record<string, unknown>),
        },
      }),
    );
  const expectError = async (name: string, message: RegExp) => {
    const s = await getStatus(name);
    expect(s.operationState).toMatchObject({ phase: 'Error', operation: { initiatedBy: { username: expect.any(String) as string } } });
    expect(s.operationState!.message).toMatch(message);
    expect(s.operationState!.syncResult.resources).toBeUndefined();
    expect(s.conditions?.filter((c) => c.type === 'SyncError').map((c) => c.message)).toEqual([s.operationState!.message]);
    expect(s.history).toBeUndefined();
  };

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('chart/Chart.yaml', 'apiVersion: v2\nname: c\nversion: 0.1.0\n');
    fx.write('chart/templates/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: from-chart}\ndata: {x: "1"}\n');
    fx.write('plain/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {x: "1"}\n');
    fx.commit('one');
    work = mkdtempSync(join(tmpdir(), 'kgitops-record-errors-'));
    ns = await createTestNamespace('app-record-errors');
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'a source that does not render: exit 2, nothing applied, operationState Error with the message, then a good sync clears SyncError',
    async () => {
      await application('broken', `{repoURL: ${fx.repo}, path: chart, targetRevision: main, helm: {valueFiles: [missing.yaml]}}`);
      const res = await plugin(['sync', 'broken', '-o', 'kv']);
      expect(res.code).toBe(2);
      expect(res.stderr).not.toMatch(/^warning:/m);
      expect((await kubectlOk(['get', 'configmaps', '-n', ns, '-o', 'name'])).split('\n')).not.toContain('configmap/from-chart');
      await expectError('broken', /missing\.yaml/);
      // --no-record and --dry-run leave the record alone.
      const before = JSON.parse(await kubectlOk(['get', 'application', 'broken', '-n', ns, '-o', 'json'])) as { metadata: { resourceVersion: string } };
      for (const flag of ['--no-record', '--dry-run']) expect((await plugin(['sync', 'broken', flag])).code).toBe(2);
      expect(
        (JSON.parse(await kubectlOk(['get', 'application', 'broken', '-n', ns, '-o', 'json'])) as { metadata: { resourceVersion: string } }).metadata
          .resourceVersion,
      ).toBe(before.metadata.resourceVersion);
      await kubectlOk(['patch', 'application', 'broken', '-n', ns, '--type', 'json', '-p', '[{"op":"remove","path":"/spec/source/helm"}]']);
      expect((await plugin(['sync', 'broken', '-o', 'kv'])).code).toBe(0);
      const s = await getStatus('broken');
      expect(s.operationState?.phase).toBe('Succeeded');
      expect(s.conditions?.some((c) => c.type === 'SyncError') ?? false).toBe(false);
      expect(s.history).toHaveLength(1);
    },
    TIMEOUT,
  );

  test(
    'an object the app no longer declares is recorded as Argo CD lists it: OutOfSync, requiresPruning',
    async () => {
      // `broken` was synced from the chart above (from-chart); now it declares the plain folder instead.
      await kubectlOk(['patch', 'application', 'broken', '-n', ns, '--type', 'merge', '-p', '{"spec":{"source":{"path":"plain"}}}']);
      expect((await plugin(['status', 'broken', '-o', 'kv'])).code).toBe(0);
      const s = (
        JSON.parse(await kubectlOk(['get', 'application', 'broken', '-n', ns, '-o', 'json'])) as {
          status: { sync: { status: string }; resources: { kind: string; name: string; status?: string; requiresPruning?: boolean }[] };
        }
      ).status;
      expect(s.sync.status).toBe('OutOfSync');
      expect(s.resources.map((r) => [r.kind, r.name, r.status, r.requiresPruning ?? false])).toEqual([
        ['ConfigMap', 'from-chart', 'OutOfSync', true],
        ['ConfigMap', 'plain', 'OutOfSync', false],
      ]);
      expect(await kubectlOk(['get', 'applications', 'broken', '-n', ns])).toMatch(/^broken\s+OutOfSync\s/m);
    },
    TIMEOUT,
  );

  test(
    'sync --all records each app that cannot run as its own Error operation, the others as usual',
    async () => {
      const label = `kgitops-all-errors=${ns}`;
      await application('all-bad', `{repoURL: ${fx.repo}, path: chart, targetRevision: main, helm: {valueFiles: [gone.yaml]}}`);
      await application('all-good', `{repoURL: ${fx.repo}, path: plain, targetRevision: main}`);
      for (const name of ['all-bad', 'all-good']) await kubectlOk(['label', 'application', name, '-n', ns, label]);
      const res = await plugin(['sync', '--all', '-l', label, '-o', 'json']);
      const report = JSON.parse(res.stdout) as { apps: { name: string; exitCode: number; error?: string }[] };
      expect(report.apps.map((a) => [a.name, a.exitCode])).toEqual([
        ['all-bad', 2],
        ['all-good', 0],
      ]);
      expect(res.code).toBe(2);
      await expectError('all-bad', /gone\.yaml/);
      expect((await getStatus('all-good')).operationState?.phase).toBe('Succeeded');
    },
    TIMEOUT,
  );

  test(
    'a sync the project refuses (exit 4): operationState Error with the refusal',
    async () => {
      await application('noproject', `{repoURL: ${fx.repo}, path: plain, targetRevision: main}`);
      await kubectlOk(['patch', 'application', 'noproject', '-n', ns, '--type', 'merge', '-p', '{"spec":{"project":"no-such-project"}}']);
      const res = await plugin(['sync', 'noproject', '-o', 'kv']);
      expect(res.code).toBe(4);
      await expectError('noproject', /no-such-project/);
    },
    TIMEOUT,
  );

  test(
    "a sync the project refuses over one object's kind (exit 4): recorded as gitops-engine's task validation ends it, phase Failed, the task SyncFailed",
    async () => {
      const project = `records-${ns}`;
      await applyYaml(
        `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: ${project}, namespace: argocd}\nspec:\n  sourceRepos: ['*']\n  sourceNamespaces: [${ns}]\n  destinations: [{server: '*', namespace: '*'}]\n  namespaceResourceBlacklist: [{group: '', kind: ConfigMap}]\n`,
      );
      try {
        await application('blacklisted', `{repoURL: ${fx.repo}, path: plain, targetRevision: main}`, `{project: ${project}}`);
        // Another app of this suite may have made the ConfigMap: the refusal leaves it as it is, or absent.
        const liveCm = () => kubectl(['get', 'configmap', 'plain', '-n', ns, '-o', 'jsonpath={.metadata.resourceVersion}']);
        const before = await liveCm();
        const res = await plugin(['sync', 'blacklisted', '-o', 'kv']);
        expect(res.code).toBe(4);
        expect(res.stdout.trimEnd().split('\n')).toContain('PHASE=Failed');
        const s = await getStatus('blacklisted');
        expect(s.operationState).toMatchObject({ phase: 'Failed', message: 'one or more synchronization tasks are not valid' });
        expect(s.operationState!.syncResult.resources).toEqual([
          {
            group: '',
            version: 'v1',
            kind: 'ConfigMap',
            namespace: ns,
            name: 'plain',
            status: 'SyncFailed',
            message: `resource :ConfigMap is not permitted in project ${project}`,
            syncPhase: 'Sync',
          },
        ]);
        expect(s.history).toBeUndefined();
        const after = await liveCm();
        expect([after.code, after.stdout]).toEqual([before.code, before.stdout]);
      } finally {
        await kubectl(['delete', 'appproject', project, '-n', 'argocd']);
      }
    },
    TIMEOUT,
  );

  test(
    'a destination no kubeconfig context reaches (refused, exit 4) and one that does not answer (exit 3): both recorded',
    async () => {
      await application('nowhere', `{repoURL: ${fx.repo}, path: plain, targetRevision: main}`, '', 'https://192.0.2.1:6443');
      const refused = await plugin(['sync', 'nowhere', '-o', 'kv']);
      expect(refused.code).toBe(4);
      expect(refused.stderr).toMatch(/refusing to act on Application nowhere/);
      await expectError('nowhere', /refusing to act on Application nowhere/);

      // A kubeconfig with one more context, for a server where nothing listens.
      const kubeconfig = join(work, 'kubeconfig');
      copyFileSync(kubeconfigPath(), kubeconfig);
      const kc = (args: string[]) => run(join(clusterBin(), 'kubectl'), ['config', '--kubeconfig', kubeconfig, ...args]);
      const user = (await kc(['view', '-o', 'jsonpath={.contexts[0].context.user}'])).stdout.trim();
      expect((await kc(['set-cluster', 'dead', '--server', 'https://127.0.0.1:9', '--insecure-skip-tls-verify'])).code).toBe(0);
      expect((await kc(['set-context', 'dead', '--cluster', 'dead', '--user', user])).code).toBe(0);
      await application('dead', `{repoURL: ${fx.repo}, path: plain, targetRevision: main}`, '', 'https://127.0.0.1:9');
      const res = await run(pluginPath, ['sync', 'dead', '--app-namespace', ns, '--kubeconfig', kubeconfig, '--request-timeout', '5s', '-o', 'kv']);
      expect(res.code).toBe(3);
      await expectError('dead', /127\.0\.0\.1:9/);
    },
    TIMEOUT,
  );
});

describe('status -A and -l: the Applications of one or every namespace, by label, in every output mode', () => {
  let fx: GitFixture;
  let ns: string;
  let ns2: string;
  const label = () => `kgitops-status-l=${ns}`;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('a/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: "1"}\n');
    fx.commit('one');
    [ns, ns2] = await Promise.all([createTestNamespace('status-l'), createTestNamespace('status-l2')]);
    const app = (name: string, namespace: string, labelled: boolean) =>
      applicationYaml({
        name,
        namespace,
        ...(labelled ? { labels: { 'kgitops-status-l': ns } } : {}),
        spec: { source: { repoURL: fx.repo, path: 'a', targetRevision: 'main' }, destination: inCluster(namespace) },
      });
    await applyYaml([app('one', ns, true), app('other', ns, false), app('two', ns2, true)].join('---\n'));
    expect((await runPlugin(['sync', 'one', '--app-namespace', ns, '-o', 'kv'])).code).toBe(0);
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    await Promise.all([ns, ns2].filter(Boolean).map((n) => deleteNamespace(n)));
  }, TIMEOUT);

  test(
    'status -A -l: the labelled Applications of both namespaces, compared live, in table, kv, env, json and yaml',
    async () => {
      const json = await runPlugin(['status', '-A', '-l', label(), '-o', 'json']);
      expect({ code: json.code, stderr: json.stderr }).toEqual({ code: 0, stderr: '' });
      const apps = JSON.parse(json.stdout) as {
        selector: string;
        namespace?: string;
        apps: { namespace: string; name: string; sync: string; health: string }[];
      };
      expect(apps.selector).toBe(label());
      expect(apps.namespace).toBeUndefined();
      expect(apps.apps.map((a) => [a.namespace, a.name, a.sync, a.health])).toEqual([
        [ns, 'one', 'Synced', 'Healthy'],
        [ns2, 'two', 'OutOfSync', 'Healthy'],
      ]);
      const table = await runPlugin(['status', '--all-namespaces', '--selector', label()]);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^NAME\s+NAMESPACE\s+PROJECT\s+SYNC\s+HEALTH\s+REVISION\s+DESTINATION\s+LAST SYNC\n/);
      expect(table.stdout).toMatch(new RegExp(`^one\\s+${ns}\\s+default\\s+Synced\\s+Healthy\\s`, 'm'));
      expect(table.stdout).toMatch(new RegExp(`^two\\s+${ns2}\\s+default\\s+OutOfSync\\s+Healthy\\s`, 'm'));
      expect(table.stdout).not.toMatch(/^other\s/m);
      const kv = kvValues((await runPlugin(['status', '-A', '-l', label(), '-o', 'kv'])).stdout);
      expect(kv.APPS).toEqual(['2']);
      expect(kv.APP?.map((v) => v.split(' ').slice(0, 3).join(' '))).toEqual([`${ns}/one Synced Healthy`, `${ns2}/two OutOfSync Healthy`]);
      const env = await runPlugin(['status', '-A', '-l', label(), '-o', 'env']);
      expect(env.code).toBe(0);
      expect(env.stdout).toMatch(/^APPS='2'$/m);
      const yaml = await runPlugin(['status', '-A', '-l', label(), '-o', 'yaml']);
      expect(yaml.stdout).toMatch(/^apps:\n/m);
      expect(yaml.stdout).toMatch(/^ {2}- name: two\n {4}namespace: /m);
    },
    TIMEOUT,
  );

  test(
    'status -l without -A: the labelled Applications of --app-namespace only; list -l the same; with APP it is exit 2',
    async () => {
      for (const command of ['status', 'list']) {
        const res = await runPlugin([command, '-l', label(), '--app-namespace', ns2, '-o', 'json']);
        expect({ command, code: res.code }).toEqual({ command, code: 0 });
        const r = JSON.parse(res.stdout) as { namespace: string; apps: { name: string }[] };
        expect({ command, namespace: r.namespace, names: r.apps.map((a) => a.name) }).toEqual({ command, namespace: ns2, names: ['two'] });
      }
      const none = await runPlugin(['status', '-l', 'kgitops-status-l=nobody', '--app-namespace', ns]);
      expect(none.code).toBe(0);
      expect(none.stdout).toBe(`No Applications found in namespace ${ns} matching kgitops-status-l=nobody.\n`);
      const both = await runPlugin(['status', 'one', '-l', label(), '--app-namespace', ns]);
      expect(both.code).toBe(2);
      expect(both.stderr).toContain('-l/--selector does not go with APP: it lists Applications');
    },
    TIMEOUT,
  );
});
