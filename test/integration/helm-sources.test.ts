// Helm charts in Git rendered as Argo CD renders them, end to end on the local control plane with helm built from
// its Go module: value files, values, valuesObject, parameters and file parameters, releaseName, a dependency chart
// built on demand; what is synced is exactly what `helm template` prints for the same arguments, and then diffs clean;
// a broken template, a missing value file and a value file outside the repository are exit 2 with nothing changed.
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { GitFixture } from '../support/git-source.js';
import { serveFiles } from './support/serve-files.js';
import { clusterBin, contentSnapshot, createTestNamespace, deleteNamespace, kubectl, run, runPlugin, type RunResult } from './support/index.js';
import { startRegistry } from './support/registry.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 180_000;

/** A chart that shows in its output every input Argo CD hands to Helm. */
export const CHART_FILES: Record<string, string> = {
  'charts/shop/Chart.yaml':
    'apiVersion: v2\nname: shop\nversion: 0.1.0\ndependencies:\n  - name: common\n    version: 0.1.0\n    repository: file://../common\n',
  'charts/shop/values.yaml': 'color: red\ngreeting: hello\nsize: small\ntier: web\nmotd: ""\n',
  'charts/shop/values-prod.yaml': 'color: blue\nsize: medium\n',
  'charts/shop/files/motd.txt': 'welcome',
  'charts/shop/templates/config.yaml': [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: {{ .Release.Name }}-config',
    'data:',
    '  color: {{ .Values.color | quote }}',
    '  greeting: {{ .Values.greeting | quote }}',
    '  size: {{ .Values.size | quote }}',
    '  tier: {{ .Values.tier | quote }}',
    '  motd: {{ .Values.motd | quote }}',
    '  namespace: {{ .Release.Namespace | quote }}',
    '  kube: {{ .Capabilities.KubeVersion.Version | quote }}',
    '  hasApplications: {{ .Capabilities.APIVersions.Has "argoproj.io/v1alpha1/Application" | quote }}',
    '',
  ].join('\n'),
  'charts/shop/templates/test.yaml':
    'apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-test\n  annotations: {helm.sh/hook: test}\nspec:\n  containers: [{name: t, image: busybox}]\n',
  'charts/common/Chart.yaml': 'apiVersion: v2\nname: common\nversion: 0.1.0\n',
  'charts/common/templates/common.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-common\ndata:\n  from: common\n',
  'charts/broken/Chart.yaml': 'apiVersion: v2\nname: broken\nversion: 0.1.0\n',
  'charts/broken/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: broken\ndata:\n  x: {{ required "x is required" .Values.x }}\n',
};

/**
 * The cluster's version as Argo CD's controller hands it to Helm (gitops-engine GetServerVersion): /version's
 * `major.minor`, no patch; Helm's `.Capabilities.KubeVersion.Version` is then `v<major>.<minor>`.
 */
async function argoKubeVersion(): Promise<string> {
  const v = (JSON.parse((await kubectl(['version', '-o', 'json'])).stdout) as { serverVersion: { major: string; minor: string } }).serverVersion;
  return `${v.major}.${v.minor}`;
}

/** The suite's Application (no sync policy); `helm` is more of its source, as YAML lines (`    helm: ...`). */
function appYaml(name: string, repoURL: string, namespace: string, path: string, helm: string): string {
  return applicationYaml({
    name,
    spec: {
      project: 'default',
      source: { repoURL, path, targetRevision: 'main', ...((parse(helm) ?? {}) as Record<string, unknown>) },
      destination: inCluster(namespace),
    },
  });
}

interface Obj {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string> };
  data?: Record<string, string>;
}

const helmBin = () => join(clusterBin(), 'helm');

/** What `helm template` prints for the chart with these arguments (in a copy, its dependencies built first). */
async function helmTemplate(repo: string, args: string[]): Promise<Obj[]> {
  const copy = mkdtempSync(join(tmpdir(), 'kgitops-helm-oracle-'));
  try {
    cpSync(join(repo, 'charts'), copy, { recursive: true });
    const chart = join(copy, 'shop');
    const dep = await run(helmBin(), ['dependency', 'build'], { cwd: chart });
    expect(dep.code).toBe(0);
    const res = await run(helmBin(), ['template', '.', ...args], { cwd: chart });
    expect(res.stderr).toBe('');
    return parseAllDocuments(res.stdout)
      .map((d) => d.toJSON() as Obj | null)
      .filter((o): o is Obj => o !== null);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

async function liveConfigMaps(namespace: string): Promise<Record<string, Record<string, string>>> {
  const res = await kubectl(['get', 'configmaps', '-n', namespace, '-o', 'json']);
  const items = (JSON.parse(res.stdout) as { items: Obj[] }).items.filter((o) => o.metadata.name !== 'kube-root-ca.crt');
  return Object.fromEntries(items.map((o) => [o.metadata.name, o.data ?? {}]));
}

function snapshot(namespace: string): Promise<string> {
  return contentSnapshot(namespace, 'configmaps,pods');
}

describe('Helm charts in Git, rendered as Argo CD renders them', () => {
  let fx: GitFixture;
  let sha: string;
  let ns: string;
  let nsObject: string;
  const plugin = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
    runPlugin(args, { env: { XDG_CACHE_HOME: join(fx.root, 'cache'), ...env } });
  const appFile = (name: string, namespace: string, path: string, helm: string) => {
    const file = join(fx.root, `app-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, appYaml(name, fx.repo, namespace, path, helm));
    return file;
  };

  beforeAll(async () => {
    fx = new GitFixture();
    for (const [path, text] of Object.entries(CHART_FILES)) fx.write(path, text);
    fx.write('outside.yaml', 'color: green\n');
    sha = fx.commit('charts');
    [ns, nsObject] = await Promise.all([createTestNamespace('helm-git'), createTestNamespace('helm-object')]);
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    await Promise.all([ns, nsObject].filter(Boolean).map((n) => deleteNamespace(n)));
  }, TIMEOUT);

  const fullHelm = `    helm:
      releaseName: store
      valueFiles: [values-prod.yaml]
      values: |
        greeting: hi
      parameters:
        - {name: size, value: large}
        - {name: tier, value: "1,2", forceString: true}
      fileParameters:
        - {name: motd, path: files/motd.txt}
      kubeVersion: "1.33.0"
      apiVersions: [v1, v1/ConfigMap, argoproj.io/v1alpha1/Application]`;

  it(
    'value files, values, parameters, file parameters and releaseName: synced exactly as helm template prints them, then diff is clean',
    async () => {
      const file = appFile('shop', ns, 'charts/shop', fullHelm);
      const res = await plugin(['sync', '-f', file, '-o', 'json']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const valuesFile = join(fx.root, 'values-inline.yaml');
      writeFileSync(valuesFile, 'greeting: hi\n');
      const expected = await helmTemplate(fx.repo, [
        '--name-template',
        'store',
        '--namespace',
        ns,
        '--kube-version',
        '1.33.0',
        '--set',
        'size=large',
        '--set-string',
        'tier=1\\,2',
        '--set-file',
        'motd=files/motd.txt',
        '--values',
        'values-prod.yaml',
        '--values',
        valuesFile,
        '--api-versions',
        'v1',
        '--api-versions',
        'v1/ConfigMap',
        '--api-versions',
        'argoproj.io/v1alpha1/Application',
        '--include-crds',
      ]);
      const expectedMaps = Object.fromEntries(expected.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data ?? {}]));
      expect(Object.keys(expectedMaps).sort()).toEqual(['store-common', 'store-config']);
      expect(expectedMaps['store-config']).toEqual({
        color: 'blue',
        greeting: 'hi',
        size: 'large',
        tier: '1,2',
        motd: 'welcome',
        namespace: ns,
        kube: 'v1.33.0',
        hasApplications: 'true',
      });
      expect(await liveConfigMaps(ns)).toEqual(expectedMaps);
      // The test hook is a hook: not applied by a sync.
      expect((await kubectl(['get', 'pod', 'store-test', '-n', ns, '--ignore-not-found', '-o', 'name'])).stdout).toBe('');
      // Yet `manifests` lists it, last and marked, as Argo CD's repo-server renders it (argocd app manifests).
      const listed = await plugin(['manifests', '-f', file, '-o', 'json']);
      expect(listed.code).toBe(0);
      const items = (
        JSON.parse(listed.stdout) as { items: { kind: string; metadata: { name: string; namespace?: string; annotations?: Record<string, string> } }[] }
      ).items;
      expect(items.map((o) => `${o.kind}/${o.metadata.name}`).at(-1)).toBe('Pod/store-test');
      expect(items.at(-1)!.metadata).toMatchObject({
        namespace: ns,
        annotations: { 'helm.sh/hook': 'test', 'argocd.argoproj.io/tracking-id': `shop:/Pod:${ns}/store-test` },
      });
      const diff = await plugin(['diff', '-f', file, '-o', 'kv']);
      expect(diff.stderr).toBe('');
      expect(diff.code).toBe(0);
      const status = await plugin(['status', '-f', file, '-o', 'json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ source: { type: 'Helm', revision: sha } });
      // A glob is no pattern to Argo CD v3.2 (value file globs came in v3.5): `values-*.yaml` is a file by that name, which
      // Helm cannot open (exit 2, the source and the tool named).
      const glob = await plugin([
        'diff',
        '-f',
        appFile('shop', ns, 'charts/shop', fullHelm.replace('valueFiles: [values-prod.yaml]', 'valueFiles: ["values-*.yaml"]')),
        '-o',
        'kv',
      ]);
      expect(glob.code).toBe(2);
      expect(glob.stderr).toMatch(
        /helm template failed for .*charts\/shop: spec\.source\.helm\.valueFiles values-\*\.yaml: open values-\*\.yaml: no such file or directory/,
      );
    },
    TIMEOUT,
  );

  it(
    "valuesObject, the app's name as release, and the cluster's own version and types as .Capabilities",
    async () => {
      const file = appFile(
        'shop-obj',
        nsObject,
        'charts/shop',
        '    helm:\n      valuesObject: {greeting: from-object, size: xl}\n      values: "greeting: ignored"',
      );
      const res = await plugin(['sync', '-f', file, '-o', 'kv']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const version = await argoKubeVersion();
      expect(version).toMatch(/^\d+\.\d+$/);
      const live = await liveConfigMaps(nsObject);
      expect(Object.keys(live).sort()).toEqual(['shop-obj-common', 'shop-obj-config']);
      expect(live['shop-obj-config']).toEqual({
        color: 'red',
        greeting: 'from-object',
        size: 'xl',
        tier: 'web',
        motd: '',
        namespace: nsObject,
        // As Argo CD renders it: major.minor (`v1.35`), never the patch of gitVersion (`v1.35.4`).
        kube: `v${version}`,
        hasApplications: 'true',
      });
      expect((await plugin(['diff', '-f', file, '-o', 'kv'])).code).toBe(0);
    },
    TIMEOUT,
  );

  it(
    '--kube-version / --api-versions stand in for the cluster: against it they override its capabilities, offline (file mode) they are the only ones',
    async () => {
      const file = appFile('shop-obj', nsObject, 'charts/shop', '    helm:\n      valuesObject: {greeting: from-object, size: xl}');
      const older = await plugin(['diff', '-f', file, '--kube-version', '1.31.0', '-o', 'kv']);
      expect(older.code).toBe(1);
      expect(older.stdout).toMatch(/ConfigMap\/shop-obj-config/);
      const live = await kubectl(['get', 'configmaps', '-n', nsObject, '-o', 'yaml']);
      const liveFile = join(fx.root, 'live-object.yaml');
      writeFileSync(liveFile, live.stdout);
      const version = await argoKubeVersion();
      const offline = ['diff', '-f', file, '--desired', join(fx.repo, 'charts', 'shop'), '--render', '--live', liveFile, '-o', 'kv'];
      const same = await plugin([...offline, '--kube-version', version, '--api-versions', 'v1,argoproj.io/v1alpha1/Application']);
      expect(same.stderr).toBe('');
      expect(same.code).toBe(0);
      const defaults = await plugin(offline);
      expect(defaults.code).toBe(1);
    },
    TIMEOUT,
  );

  it(
    'a chart without helm options is found by its Chart.yaml and rendered with the defaults',
    async () => {
      const file = appFile('shop-obj', nsObject, 'charts/shop', '');
      const diff = await plugin(['diff', '-f', file, '-o', 'kv']);
      expect(diff.stderr).toBe('');
      expect(diff.code).toBe(1);
      expect(diff.stdout).toMatch(/ConfigMap\/shop-obj-config/);
    },
    TIMEOUT,
  );

  it.each([
    ['a broken template', 'charts/broken', '', /helm template failed for .*@[0-9a-f]{7}:charts\/broken: .*x is required/],
    [
      'a missing value file',
      'charts/shop',
      '    helm:\n      valueFiles: [values-none.yaml]',
      /valueFiles values-none\.yaml: open values-none\.yaml: no such file or directory/,
    ],
    [
      'a value file outside the repository',
      'charts/shop',
      '    helm:\n      valueFiles: [../../../outside.yaml]',
      /file '\.\.\/\.\.\/\.\.\/outside\.yaml' resolved to outside repository root/,
    ],
  ])(
    '%s: exit 2 naming the source, nothing applied or pruned',
    async (_what, path, helm, message) => {
      const before = await snapshot(ns);
      const file = appFile('shop', ns, path, helm);
      for (const args of [
        ['sync', '-f', file, '--prune'],
        ['prune', '-f', file, '--confirm'],
        ['diff', '-f', file],
      ]) {
        const res = await plugin(args);
        expect({ args: args[0], code: res.code }).toEqual({ args: args[0], code: 2 });
        expect(res.stderr).toMatch(message);
        expect(res.stderr).not.toContain('kubectl-gitops-render-');
      }
      expect(await snapshot(ns)).toBe(before);
    },
    TIMEOUT,
  );

  it(
    'no helm: exit 2 naming it; --helm names one; a helm that overruns ARGOCD_EXEC_TIMEOUT is stopped (exit 2)',
    async () => {
      const file = appFile('shop', ns, 'charts/shop', fullHelm);
      const gitOnly = mkdtempSync(join(fx.root, 'bin-'));
      symlinkSync('/usr/bin/git', join(gitOnly, 'git'));
      const res = await plugin(['diff', '-f', file, '--hard-refresh'], { PATH: gitOnly });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/needs helm, and it is not on PATH: install helm, or name it with --helm PATH or KUBECTL_GITOPS_HELM=PATH/);
      const named = await plugin(['diff', '-f', file, '--hard-refresh', '--helm', helmBin(), '-o', 'kv'], { PATH: gitOnly });
      expect(named.stderr).toBe('');
      expect(named.code).toBe(0);
      // The real helm, given no time to run (ARGOCD_EXEC_TIMEOUT, as Argo CD's repo-server reads it): stopped, exit 2
      // naming the render and the limit, and no render cached for a later run to find.
      const cut = await plugin(['diff', '-f', file, '--hard-refresh', '--helm', helmBin(), '-o', 'kv'], { ARGOCD_EXEC_TIMEOUT: '1ms' });
      expect(cut.code).toBe(2);
      expect(cut.stderr).toMatch(
        /helm template failed for .*charts\/shop: [\s\S]*stopped after 0\.001 s, its time limit \(ARGOCD_EXEC_TIMEOUT, as Argo CD's repo-server\)/,
      );
      expect((await plugin(['diff', '-f', file, '--helm', helmBin(), '-o', 'kv'])).code).toBe(0);
    },
    TIMEOUT,
  );
});

describe('multi-source: a chart, its values from a second repository (ref), and a plain folder', () => {
  let charts: GitFixture;
  let values: GitFixture;
  let chartSha: string;
  let valuesSha: string;
  let ns: string;
  const plugin = (args: string[]): Promise<RunResult> => runPlugin(args, { env: { XDG_CACHE_HOME: join(charts.root, 'cache') } });
  const appFile = (sourcesYaml: string) => {
    const file = join(charts.root, `app-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(
      file,
      // The sources are YAML list items as the tests write them.
      applicationYaml({ name: 'multi', spec: { project: 'default', sources: parse(sourcesYaml) as unknown, destination: inCluster(ns) } }),
    );
    return file;
  };
  const sources = (valueFile: string) =>
    `  - repoURL: ${charts.repo}\n    path: charts/shop\n    targetRevision: main\n    helm:\n      releaseName: multi\n      valueFiles: [values-prod.yaml, ${valueFile}]\n` +
    `  - {repoURL: ${values.repo}, targetRevision: main, ref: values}\n` +
    `  - {repoURL: ${values.repo}, targetRevision: main, path: extra}\n`;

  beforeAll(async () => {
    charts = new GitFixture();
    for (const [path, text] of Object.entries(CHART_FILES)) charts.write(path, text);
    chartSha = charts.commit('charts');
    values = new GitFixture();
    values.write('envs/prod/shop.yaml', 'color: purple\ngreeting: from-values-repo\n');
    values.write('extra/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra-cm}\ndata: {from: extra}\n');
    valuesSha = values.commit('values');
    ns = await createTestNamespace('helm-multi');
  }, TIMEOUT);

  afterAll(async () => {
    charts?.cleanup();
    values?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  it(
    'syncs the union exactly as helm template prints the chart with the $values file, diffs clean, and status names each revision',
    async () => {
      const file = appFile(sources('$values/envs/prod/shop.yaml'));
      const res = await plugin(['sync', '-f', file, '-o', 'json']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const expected = await helmTemplate(charts.repo, [
        '--name-template',
        'multi',
        '--namespace',
        ns,
        '--values',
        'values-prod.yaml',
        '--values',
        join(values.repo, 'envs/prod/shop.yaml'),
        '--api-versions',
        'argoproj.io/v1alpha1/Application',
        '--kube-version',
        await argoKubeVersion(),
      ]);
      const expectedMaps = Object.fromEntries(expected.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o.data ?? {}]));
      expect(expectedMaps['multi-config']).toMatchObject({ color: 'purple', greeting: 'from-values-repo', size: 'medium' });
      expect(await liveConfigMaps(ns)).toEqual({ ...expectedMaps, 'extra-cm': { from: 'extra' } });
      const diff = await plugin(['diff', '-f', file, '-o', 'json']);
      expect(diff.code).toBe(0);
      const revisions = [
        { repoURL: charts.repo, path: 'charts/shop', targetRevision: 'main', revision: chartSha, type: 'Helm' },
        { repoURL: values.repo, ref: 'values', targetRevision: 'main', revision: valuesSha },
        { repoURL: values.repo, path: 'extra', targetRevision: 'main', revision: valuesSha, type: 'Directory' },
      ];
      expect(JSON.parse(diff.stdout)).toMatchObject({ sync: 'Synced', sources: revisions });
      const status = await plugin(['status', '-f', file, '-o', 'json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ sync: { status: 'Synced' }, sources: revisions });
      const text = await plugin(['status', '-f', file]);
      expect(text.stdout).toContain(`Source 1:       ${charts.repo}, path charts/shop, revision main (${chartSha.slice(0, 7)}), Helm`);
      expect(text.stdout).toContain(`Source 2:       ${values.repo}, no path, revision main (${valuesSha.slice(0, 7)}), ref values`);
    },
    TIMEOUT,
  );

  it(
    'plan of a pull request to the values repository: its two sources move to the head, the chart stays at its revision (nothing changes live)',
    async () => {
      const file = appFile(sources('$values/envs/prod/shop.yaml'));
      values.git(['checkout', '--quiet', '-b', 'pr-7']);
      values.write('envs/prod/shop.yaml', 'color: teal\ngreeting: from-values-repo\n');
      const prSha = values.commit('teal');
      values.git(['checkout', '--quiet', 'main']);
      const before = await snapshot(ns);
      const res = await plugin(['plan', '-f', file, '--repo', values.repo, '--base', 'main', '--head', 'pr-7', '-o', 'kv']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(1);
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines.filter((l) => /^(BASE|HEAD|SOURCE|CHANGE|THIS_CHANGE)=/.test(l))).toEqual([
        `BASE=${valuesSha}`,
        `HEAD=${prSha}`,
        `SOURCE=2 ${values.repo} ${valuesSha} ${prSha}`,
        `SOURCE=3 ${values.repo} ${valuesSha} ${prSha}`,
        'CHANGE=ConfigMap/multi-config data.color',
        'THIS_CHANGE=1',
      ]);
      expect(await snapshot(ns)).toBe(before);
    },
    TIMEOUT,
  );

  it(
    "the other sources' objects are never prune candidates; a new commit in the values repository is drift",
    async () => {
      const file = appFile(sources('$values/envs/prod/shop.yaml'));
      const prune = await plugin(['prune', '-f', file]);
      expect(prune.code).toBe(0);
      expect(prune.stdout).toMatch(/No prune candidates/);
      values.write('envs/prod/shop.yaml', 'color: orange\n');
      values.commit('orange');
      const diff = await plugin(['diff', '-f', file, '-o', 'kv']);
      expect(diff.code).toBe(1);
      expect(diff.stdout).toMatch(/ConfigMap\/multi-config/);
      expect(diff.stdout).not.toMatch(/extra-cm/);
    },
    TIMEOUT,
  );

  it(
    'a $values file missing from the values repository stops every source: exit 2, nothing applied or pruned',
    async () => {
      const before = await snapshot(ns);
      const file = appFile(sources('$values/envs/none.yaml'));
      for (const args of [
        ['sync', '-f', file, '--prune'],
        ['prune', '-f', file, '--confirm'],
        ['diff', '-f', file],
      ]) {
        const res = await plugin(args);
        expect({ command: args[0], code: res.code }).toEqual({ command: args[0], code: 2 });
        expect(res.stderr).toMatch(/valueFiles \$values\/envs\/none\.yaml: open envs\/none\.yaml: no such file or directory in .*@[0-9a-f]{7}/);
      }
      expect(await snapshot(ns)).toBe(before);
    },
    TIMEOUT,
  );

  it(
    "a $name that is no ref source (even with ignoreMissingValueFiles), or a ref at another revision of the chart's repository, is refused in Argo CD's words: exit 2, nothing applied",
    async () => {
      const before = await snapshot(ns);
      const unknown = appFile(
        sources('$other/envs/prod/shop.yaml').replace('valueFiles: [values-prod.yaml, $other/envs/prod/shop.yaml]', '$&\n      ignoreMissingValueFiles: true'),
      );
      charts.git(['tag', 'older', 'HEAD']);
      charts.write('charts/shop/values-prod.yaml', 'color: green\n');
      charts.commit('newer');
      const otherRevision = appFile(
        `  - repoURL: ${charts.repo}\n    path: charts/shop\n    targetRevision: older\n    helm:\n      valueFiles: [$own/charts/shop/values-prod.yaml]\n` +
          `  - {repoURL: ${charts.repo}, targetRevision: main, ref: own}\n`,
      );
      for (const [file, said] of [
        [unknown, /spec\.sources\[0\]: source referenced "\$other", which is not one of the available sources \(\$values\)/],
        [
          otherRevision,
          /cannot reference a different revision of the same repository \(\$own references "main" which resolves to "[0-9a-f]{40}" while the application references "older"/,
        ],
      ] as const) {
        const res = await plugin(['sync', '-f', file, '--prune']);
        expect(res.code).toBe(2);
        expect(res.stderr).toMatch(said);
      }
      expect(await snapshot(ns)).toBe(before);
    },
    TIMEOUT,
  );
});

/** The chart `web` in four versions (a pre-release among them), packaged with helm into `into`; the archives' paths. */
async function packageWebCharts(work: string, into: string): Promise<string[]> {
  const out: string[] = [];
  for (const v of ['1.0.0', '1.2.0', '1.10.0-rc.1', '2.0.0']) {
    const src = join(work, 'src', v);
    mkdirSync(join(src, 'templates'), { recursive: true });
    writeFileSync(join(src, 'Chart.yaml'), `apiVersion: v2\nname: web\nversion: ${v}\n`);
    writeFileSync(join(src, 'values.yaml'), 'color: red\n');
    writeFileSync(join(src, 'values-prod.yaml'), 'color: blue\n');
    writeFileSync(
      join(src, 'templates', 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-web\ndata:\n  version: {{ .Chart.Version | quote }}\n  color: {{ .Values.color | quote }}\n',
    );
    const pkg = await run(helmBin(), ['package', src, '--destination', into]);
    expect(pkg.code).toBe(0);
    out.push(join(into, `web-${v}.tgz`));
  }
  return out;
}

describe('charts from a Helm repository served over loopback HTTP (helm package, helm repo index)', () => {
  let work: string;
  let server: Server;
  let repoURL: string;
  let ns: string;
  let values: GitFixture;
  const requests: string[] = [];
  const cache = () => join(work, 'cache');
  const plugin = (args: string[]): Promise<RunResult> => runPlugin(args, { env: { XDG_CACHE_HOME: cache() } });
  const appFile = (spec: string) => {
    const file = join(work, `app-${Math.random().toString(36).slice(2)}.yaml`);
    // `spec` is more of the spec (the source or sources), as YAML.
    writeFileSync(
      file,
      applicationYaml({ name: 'web', spec: { project: 'default', ...(parse(spec) as Record<string, unknown>), destination: inCluster(ns) } }),
    );
    return file;
  };
  const chartSource = (version: string, helm = '') => `  source:\n    repoURL: ${repoURL}\n    chart: web\n    targetRevision: "${version}"\n${helm}`;
  const version = async () => (await liveConfigMaps(ns))['web-web']?.version;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'kgitops-helm-repo-'));
    const served = join(work, 'served');
    await packageWebCharts(work, served);
    const index = await run(helmBin(), ['repo', 'index', served]);
    expect(index.code).toBe(0);
    ({ server, url: repoURL } = await serveFiles(served, (url) => requests.push(url)));
    values = new GitFixture();
    values.write('web/prod.yaml', 'color: green\n');
    values.commit('values');
    ns = await createTestNamespace('helm-repo');
  }, TIMEOUT);

  afterAll(async () => {
    server?.close();
    values?.cleanup();
    if (work) rmSync(work, { recursive: true, force: true });
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  it(
    'a chart pinned to a version syncs, diffs clean, and status names the chart version',
    async () => {
      const file = appFile(chartSource('1.0.0', '    helm:\n      valueFiles: [values-prod.yaml]\n'));
      const res = await plugin(['sync', '-f', file, '-o', 'json']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(await liveConfigMaps(ns)).toEqual({ 'web-web': { version: '1.0.0', color: 'blue' } });
      expect((await plugin(['diff', '-f', file, '-o', 'kv'])).code).toBe(0);
      const status = await plugin(['status', '-f', file, '-o', 'json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ source: { type: 'Helm', revision: '1.0.0', manifests: 'web@1.0.0' }, sync: { status: 'Synced' } });
    },
    TIMEOUT,
  );

  it(
    'a version range resolves to the highest match (prereleases left out), as Argo CD resolves it',
    async () => {
      const file = appFile(chartSource('1.*'));
      const diff = await plugin(['diff', '-f', file, '-o', 'kv']);
      expect(diff.code).toBe(1);
      expect((await plugin(['sync', '-f', file, '-o', 'kv'])).code).toBe(0);
      expect(await version()).toBe('1.2.0');
      const status = await plugin(['status', '-f', file, '-o', 'json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ source: { revision: '1.2.0' } });
      expect((await plugin(['diff', '-f', appFile(chartSource('>=1.0.0 <3.0.0')), '-o', 'kv'])).stdout).toMatch(/ConfigMap\/web-web/);
    },
    TIMEOUT,
  );

  it(
    'chart + values repository: the chart from the Helm repository, its values from Git ($values), synced and then clean',
    async () => {
      const file = appFile(
        `  sources:\n  - repoURL: ${repoURL}\n    chart: web\n    targetRevision: 2.0.0\n    helm:\n      valueFiles: [$values/web/prod.yaml]\n  - {repoURL: ${values.repo}, targetRevision: main, ref: values}\n`,
      );
      const res = await plugin(['sync', '-f', file, '-o', 'kv']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(await liveConfigMaps(ns)).toEqual({ 'web-web': { version: '2.0.0', color: 'green' } });
      const status = await plugin(['status', '-f', file, '-o', 'json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ sources: [{ chart: 'web', revision: '2.0.0', type: 'Helm' }, { ref: 'values' }] });
      expect((await plugin(['diff', '-f', file, '-o', 'kv'])).code).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "argocd-cm helm.valuesFileSchemes: an http value file is refused in Argo CD's words when only https is allowed, and read by default (https, http)",
    async () => {
      writeFileSync(join(work, 'served', 'extra-values.yaml'), 'color: yellow\n');
      const file = appFile(chartSource('1.0.0', `    helm:\n      valueFiles: [${repoURL}/extra-values.yaml]\n`));
      const cm = join(work, 'argocd-cm-https-only.yaml');
      writeFileSync(cm, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cm}\ndata: {helm.valuesFileSchemes: https}\n');
      const before = await snapshot(ns);
      const refused = await plugin(['sync', '-f', file, '--argocd-cm', cm, '--prune']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /valueFiles http:\/\/127\.0\.0\.1:\d+\/extra-values\.yaml: the URL scheme 'http' is not allowed \(argocd-cm helm\.valuesFileSchemes: https\)/,
      );
      expect(await snapshot(ns)).toBe(before);
      const read = await plugin(['manifests', '-f', file, '-o', 'json']);
      expect(read.stderr).toBe('');
      expect((JSON.parse(read.stdout) as { items: { data?: Record<string, string> }[] }).items.map((o) => o.data?.color)).toEqual(['yellow']);
    },
    TIMEOUT,
  );

  it(
    'a chart without targetRevision is refused as Argo CD refuses it (InvalidSpecError), not rendered at the newest version: exit 2, nothing changed',
    async () => {
      const before = await snapshot(ns);
      const res = await plugin(['sync', '-f', appFile(chartSource('')), '--prune']);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/spec\.source\.targetRevision is required if the manifest source is a helm chart/);
      expect(await snapshot(ns)).toBe(before);
    },
    TIMEOUT,
  );

  it(
    "a version the repository does not have: exit 2 with Helm's words, nothing changed",
    async () => {
      const before = await snapshot(ns);
      const res = await plugin(['sync', '-f', appFile(chartSource('9.9.9')), '--prune']);
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/helm pull failed for web@9\.9\.9 from http:\/\/127\.0\.0\.1:\d+: .*9\.9\.9/);
      expect(await snapshot(ns)).toBe(before);
    },
    TIMEOUT,
  );

  it(
    'an exact version comes from the chart cache without asking the repository',
    async () => {
      const before = requests.length;
      const diff = await plugin(['diff', '-f', appFile(chartSource('2.0.0', '    helm:\n      valueFiles: [values-prod.yaml]\n')), '-o', 'kv']);
      expect(diff.code).toBe(1);
      expect(requests.length).toBe(before);
    },
    TIMEOUT,
  );
});

describe('charts from an OCI registry (the CNCF distribution registry built from its Go module, on loopback)', () => {
  let work: string;
  let registry: ChildProcess | undefined;
  let host: string;
  let ns: string;
  const plugin = (args: string[]): Promise<RunResult> => runPlugin(args, { env: { XDG_CACHE_HOME: join(work, 'cache') } });
  const appFile = (repoURL: string, version: string) => {
    const file = join(work, `app-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, applicationYaml({ name: 'web', spec: { source: { repoURL, chart: 'web', targetRevision: version }, destination: inCluster(ns) } }));
    return file;
  };

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'kgitops-helm-oci-'));
    const started = await startRegistry(work);
    host = started.host;
    registry = started.process;
    for (const archive of await packageWebCharts(work, join(work, 'served'))) {
      const push = await run(helmBin(), ['push', archive, `oci://${host}/charts`, '--plain-http']);
      expect(push.stderr).not.toMatch(/Error/);
      expect(push.code).toBe(0);
    }
    ns = await createTestNamespace('helm-oci');
  }, TIMEOUT);

  afterAll(async () => {
    registry?.kill();
    if (work) rmSync(work, { recursive: true, force: true });
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  it(
    'a repoURL without a scheme (as Argo CD writes it) and a range: the highest match syncs, diffs clean, and is the revision',
    async () => {
      const file = appFile(`${host}/charts`, '1.*');
      const res = await plugin(['sync', '-f', file, '-o', 'kv']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(await liveConfigMaps(ns)).toEqual({ 'web-web': { version: '1.2.0', color: 'red' } });
      expect((await plugin(['diff', '-f', file, '-o', 'kv'])).code).toBe(0);
      const status = await plugin(['status', '-f', file, '-o', 'json']);
      expect(JSON.parse(status.stdout)).toMatchObject({ source: { type: 'Helm', revision: '1.2.0', manifests: 'web@1.2.0' } });
    },
    TIMEOUT,
  );

  it(
    'an oci:// repoURL is an OCI source even with a chart, as in Argo CD v3.2 (the artifact at the repoURL itself); a version the registry lacks is exit 2 with nothing changed',
    async () => {
      // The chart's own repository, pinned: rendered as Helm (the chart's folder the root), its digest the revision.
      const file = appFile(`oci://${host}/charts/web`, '2.0.0');
      const diff = await plugin(['diff', '-f', file, '-o', 'kv']);
      expect(diff.stderr).toBe('');
      expect(diff.code).toBe(1);
      expect(diff.stdout).toMatch(/ConfigMap\/web-web/);
      const status = JSON.parse((await plugin(['status', '-f', file, '-o', 'json'])).stdout) as { source: { type: string; revision: string } };
      expect(status.source).toMatchObject({ type: 'Helm', revision: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
      const before = await snapshot(ns);
      // The registry's folder with a chart name beside it: Argo CD pulls oci://HOST/charts itself ("…/charts:2.0.0:
      // not found", checked against its repo-server), so no chart is rendered: exit 2, nothing changed.
      const folder = await plugin(['sync', '-f', appFile(`oci://${host}/charts`, '2.0.0'), '--prune']);
      expect(folder.code).toBe(2);
      expect(folder.stderr).toMatch(/charts/);
      expect(await snapshot(ns)).toBe(before);
      const missing = await plugin(['sync', '-f', appFile(`${host}/charts`, '9.9.9'), '--prune']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/helm pull failed for web@9\.9\.9/);
      expect(await snapshot(ns)).toBe(before);
    },
    TIMEOUT,
  );
});
