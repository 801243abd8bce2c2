// Sources rendered as Argo CD's repo-server renders them, end to end on the local control plane: a Kustomize overlay
// (with a base, and with spec.source.kustomize options) syncs and then diffs clean, through kustomize or through
// kubectl's built-in kustomize; directory.recurse and include/exclude decide what is applied; a missing tool or a
// broken build is exit 2 with nothing applied or pruned.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSONNET_FILES, KUSTOMIZE_FILES } from '../fixtures/render/apps.js';
import { GitFixture } from '../support/git-source.js';
import { clusterBin, contentSnapshot, createTestNamespace, deleteNamespace, kubectl, runPlugin, type RunResult } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { parse } from 'yaml';

const TEST_TIMEOUT_MS = 150_000;

/** The suite's Application: automated with prune, server-side apply; `sourceExtra` is more of its source, as YAML lines. */
function appYaml(name: string, repoURL: string, namespace: string, path: string, sourceExtra = ''): string {
  return applicationYaml({
    name,
    spec: {
      project: 'default',
      source: { repoURL, path, targetRevision: 'main', ...((parse(sourceExtra) ?? {}) as Record<string, unknown>) },
      destination: inCluster(namespace),
      syncPolicy: { automated: { prune: true }, syncOptions: ['ServerSideApply=true'] },
    },
  });
}

const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;

async function names(namespace: string, kinds: string): Promise<string[]> {
  const res = await kubectl(['get', kinds, '-n', namespace, '-o', 'jsonpath={range .items[*]}{.kind}/{.metadata.name}{"\\n"}{end}']);
  expect(res.code).toBe(0);
  return res.stdout
    .split('\n')
    .filter((l) => l !== '' && !l.endsWith('/kube-root-ca.crt'))
    .sort();
}

function snapshot(namespace: string): Promise<string> {
  return contentSnapshot(namespace, 'deployments,services,configmaps');
}

describe('rendering sources as Argo CD does (sync, diff, status)', () => {
  let fx: GitFixture;
  let sha: string;
  let nsKustomize: string;
  let nsDirectory: string;
  let nsJsonnet: string;
  /** A PATH with git and nothing else of ours: no kustomize, no kubectl. */
  let gitOnly: string;
  /** git and kubectl, but no kustomize binary. */
  let kubectlOnly: string;

  /** The plugin with a render cache of this suite's own. */
  const plugin = (args: string[], env: Record<string, string> = {}): Promise<RunResult> =>
    runPlugin(args, { env: { XDG_CACHE_HOME: join(fx.root, 'cache'), KUBECACHEDIR: '', ...env } });

  const appFile = (name: string, namespace: string, path: string, extra = '') => {
    const file = join(fx.root, `app-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, appYaml(name, fx.repo, namespace, path, extra));
    return file;
  };

  beforeAll(async () => {
    fx = new GitFixture();
    for (const [path, text] of Object.entries({ ...KUSTOMIZE_FILES, ...JSONNET_FILES })) fx.write(path, text);
    fx.write('plain/a.yaml', cm('top-a'));
    fx.write('plain/values.yaml', 'replicas: 3\nimage: nginx\n'); // not a Kubernetes object: passed over
    fx.write('plain/sub/b.yaml', cm('sub-b'));
    fx.write('plain/sub/deep/c.json', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'deep-c' } }));
    fx.write('plain/other/d.yaml', cm('other-d'));
    sha = fx.commit('apps');
    gitOnly = join(fx.root, 'bin-git');
    kubectlOnly = join(fx.root, 'bin-kubectl');
    mkdirSync(gitOnly);
    mkdirSync(kubectlOnly);
    for (const dir of [gitOnly, kubectlOnly]) symlinkSync('/usr/bin/git', join(dir, 'git'));
    symlinkSync(join(clusterBin(), 'kubectl'), join(kubectlOnly, 'kubectl'));
    [nsKustomize, nsDirectory, nsJsonnet] = await Promise.all([
      createTestNamespace('render-kustomize'),
      createTestNamespace('render-directory'),
      createTestNamespace('render-jsonnet'),
    ]);
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    fx?.cleanup();
    await Promise.all([nsKustomize, nsDirectory, nsJsonnet].filter(Boolean).map((ns) => deleteNamespace(ns)));
  }, TEST_TIMEOUT_MS);

  it('a Kustomize overlay with a base syncs, then diffs clean, and status names the source type', async () => {
    const file = appFile('gb', nsKustomize, 'kustomize-guestbook/overlays/prod');
    const res = await plugin(['sync', '-f', file, '-o', 'json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect((JSON.parse(res.stdout) as { applied: number }).applied).toBe(3);
    const live = await names(nsKustomize, 'deployments,services,configmaps');
    expect(live).toEqual(['ConfigMap/prod-guestbook-settings-' + live[0]!.split('-').pop(), 'Deployment/prod-guestbook-ui', 'Service/prod-guestbook-ui']);
    const dep = await kubectl([
      'get',
      'deployment',
      'prod-guestbook-ui',
      '-n',
      nsKustomize,
      '-o',
      'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.labels.env}',
    ]);
    expect(dep.stdout).toBe('2 registry.example/guestbook-ui:0.2 prod');
    const diff = await plugin(['diff', '-f', file, '-o', 'kv']);
    expect(diff.code).toBe(0);
    const status = await plugin(['status', '-f', file, '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ source: { type: 'Kustomize', revision: sha } });
    const text = await plugin(['status', '-f', file]);
    expect(text.stdout).toMatch(/Source Type:\s+Kustomize/);
  });

  it('file mode: --desired OVERLAY --render renders the folder offline like a source and compares it with live files', async () => {
    const live = await kubectl(['get', 'deployments,services,configmaps', '-n', nsKustomize, '-l', '!nonexistent', '-o', 'yaml']);
    expect(live.code).toBe(0);
    const liveFile = join(fx.root, 'live.yaml');
    writeFileSync(liveFile, live.stdout);
    const overlay = join(fx.repo, 'kustomize-guestbook', 'overlays', 'prod');
    const res = await plugin(['diff', '--desired', overlay, '--render', '--live', liveFile, '-n', nsKustomize, '-o', 'kv']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    // without --render the folder is plain manifests, and kustomization.yaml is no Kubernetes object
    const plainRead = await plugin(['diff', '--desired', overlay, '--live', liveFile, '-n', nsKustomize, '-o', 'kv']);
    expect(plainRead.code).toBe(2);
    expect(plainRead.stderr).toMatch(/kustomization\.yaml/);
  });

  it('spec.source.kustomize options change what is synced; the same app diffs clean through kubectl kustomize', async () => {
    const extra = `    kustomize:
      namePrefix: prod-
      images: [registry.example/guestbook-ui:0.3]
      commonAnnotations: {owner: team-$ARGOCD_APP_NAME}
      commonAnnotationsEnvsubst: true
      replicas: [{name: guestbook-ui, count: 4}]`;
    const file = appFile('gb', nsKustomize, 'kustomize-guestbook/overlays/prod', extra);
    const res = await plugin(['sync', '-f', file, '-o', 'json']);
    expect(res.code).toBe(0);
    const dep = await kubectl([
      'get',
      'deployment',
      'prod-guestbook-ui',
      '-n',
      nsKustomize,
      '-o',
      'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.annotations.owner}',
    ]);
    expect(dep.stdout).toBe('4 registry.example/guestbook-ui:0.3 team-gb');
    const viaKubectl = await plugin(['diff', '-f', file, '-o', 'kv'], { PATH: kubectlOnly });
    expect(viaKubectl.stderr).toBe('');
    expect(viaKubectl.code).toBe(0);
    const named = await plugin(['diff', '-f', file, '-o', 'kv', '--kustomize', join(clusterBin(), 'kustomize')], { PATH: gitOnly });
    expect(named.code).toBe(0);
  });

  it('no kustomize and no kubectl: exit 2 naming the tools and how to point at one, nothing applied or pruned', async () => {
    const before = await snapshot(nsKustomize);
    const file = appFile('gb', nsKustomize, 'kustomize-guestbook/overlays/prod', '    kustomize: {namePrefix: other-}');
    const res = await plugin(['sync', '-f', file, '-o', 'kv'], { PATH: gitOnly });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/needs kustomize or kubectl, and neither is on PATH/);
    expect(res.stderr).toMatch(/--kustomize PATH or KUBECTL_GITOPS_KUSTOMIZE=PATH/);
    const badPath = await plugin(['diff', '-f', file, '--kustomize', join(fx.root, 'nope')]);
    expect(badPath.code).toBe(2);
    expect(badPath.stderr).toMatch(/is not an executable file/);
    expect(await snapshot(nsKustomize)).toBe(before);
  });

  it("a failing build: exit 2 with kustomize's own message and <repo>@<sha7>:<path>, nothing applied or pruned", async () => {
    const before = await snapshot(nsKustomize);
    const res = await plugin(['sync', '-f', appFile('gb', nsKustomize, 'kustomize-guestbook/broken'), '-o', 'kv']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`kustomize build failed for ${fx.repo}@${sha.slice(0, 7)}:kustomize-guestbook/broken`);
    expect(res.stderr).toMatch(/does-not-exist\.yaml/);
    expect(res.stderr).not.toContain('kubectl-gitops-render-'); // the temporary folder is not shown
    expect(await snapshot(nsKustomize)).toBe(before);
  });

  it("Argo CD's .argocd-source-<app>.yaml is applied before the build: its namePrefix reaches the rendered objects", async () => {
    const res = await plugin(['diff', '-f', appFile('ovr', nsKustomize, 'kustomize-guestbook/overridden'), '-o', 'json']);
    expect(res.stderr).toBe('');
    const report = JSON.parse(res.stdout) as { objects: { key: { kind: string; name: string }; status: string }[] };
    expect(report.objects.map((o) => `${o.key.kind}/${o.key.name} ${o.status}`).sort()).toEqual([
      'Deployment/ovr-guestbook-ui missing',
      'Service/ovr-guestbook-ui missing',
    ]);
  });

  it("a remote base that cannot be fetched: exit 2 saying so, with kustomize's message, nothing applied or pruned", async () => {
    const before = await snapshot(nsKustomize);
    const res = await plugin(['sync', '-f', appFile('gb', nsKustomize, 'kustomize-guestbook/remote'), '-o', 'kv'], { GIT_TERMINAL_PROMPT: '0' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`kustomize build failed for ${fx.repo}@${sha.slice(0, 7)}:kustomize-guestbook/remote (a remote base could not be fetched)`);
    expect(res.stderr).toContain('git.example.invalid');
    expect(await snapshot(nsKustomize)).toBe(before);
  });

  it('a directory is read without sub-folders by default; recurse, include and exclude decide what is applied', async () => {
    const plain = appFile('plain', nsDirectory, 'plain');
    expect((await plugin(['sync', '-f', plain, '-o', 'kv'])).code).toBe(0);
    expect(await names(nsDirectory, 'configmaps')).toEqual(['ConfigMap/top-a']);
    const status = await plugin(['status', '-f', plain, '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ source: { type: 'Directory' } });

    const recurse = appFile('plain', nsDirectory, 'plain', '    directory: {recurse: true, exclude: "other/*"}');
    const diff = await plugin(['diff', '-f', recurse, '-o', 'kv']);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(/MISSING=ConfigMap\/sub-b/);
    expect(diff.stdout).toMatch(/MISSING=ConfigMap\/deep-c/);
    expect(diff.stdout).not.toMatch(/other-d/);
    expect((await plugin(['sync', '-f', recurse, '-o', 'kv'])).code).toBe(0);
    expect(await names(nsDirectory, 'configmaps')).toEqual(['ConfigMap/deep-c', 'ConfigMap/sub-b', 'ConfigMap/top-a']);

    const include = appFile('plain', nsDirectory, 'plain', '    directory: {recurse: true, include: "{a.yaml,other/*}"}');
    expect((await plugin(['sync', '-f', include, '--prune', '-o', 'kv'])).code).toBe(0);
    expect(await names(nsDirectory, 'configmaps')).toEqual(['ConfigMap/other-d', 'ConfigMap/top-a']);
    expect((await plugin(['diff', '-f', include, '-o', 'kv'])).code).toBe(0);
  });

  it('a Jsonnet directory with TLAs, ext vars and libs syncs, then diffs clean', async () => {
    const extra = `    directory:
      jsonnet:
        libs: [lib/jsonnet]
        tlas: [{name: replicas, value: "2", code: true}, {name: tier, value: front}]
        extVars:
          - {name: image, value: "registry.example/guestbook-ui:$ARGOCD_APP_REVISION_SHORT"}
          - {name: greeting, value: hello}
          - {name: settings, value: "{color: 'blue'}", code: true}`;
    const file = appFile('gb-jsonnet', nsJsonnet, 'jsonnet-guestbook', extra);
    const res = await plugin(['sync', '-f', file, '-o', 'json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect((JSON.parse(res.stdout) as { applied: number }).applied).toBe(3);
    const dep = await kubectl([
      'get',
      'deployment',
      'guestbook-ui',
      '-n',
      nsJsonnet,
      '-o',
      'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.labels.tier}',
    ]);
    expect(dep.stdout).toBe(`2 registry.example/guestbook-ui:${sha.slice(0, 7)} front`);
    const settings = await kubectl(['get', 'configmap', 'guestbook-settings', '-n', nsJsonnet, '-o', 'jsonpath={.data.color}']);
    expect(settings.stdout).toBe('blue');
    expect((await plugin(['diff', '-f', file, '-o', 'kv'])).code).toBe(0);
  });

  it('a repeated render at the same commit comes from the render cache; --hard-refresh builds again', async () => {
    const log = join(fx.root, 'kustomize-calls.log');
    const counting = join(fx.root, 'counting-kustomize');
    writeFileSync(counting, `#!/bin/sh\necho "$1" >> ${log}\nexec ${join(clusterBin(), 'kustomize')} "$@"\n`);
    chmodSync(counting, 0o755);
    const builds = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l === 'build').length;
    const file = appFile('gb', nsKustomize, 'kustomize-guestbook/overlays/prod', '    kustomize: {nameSuffix: -cached}');
    const first = await plugin(['diff', '-f', file, '-o', 'kv', '--kustomize', counting]);
    expect(first.code).toBe(1); // the -cached objects are missing
    expect(builds()).toBe(1);
    const second = await plugin(['diff', '-f', file, '-o', 'kv', '--kustomize', counting]);
    expect(second.stdout).toBe(first.stdout);
    expect(builds()).toBe(1);
    const refreshed = await plugin(['diff', '-f', file, '-o', 'kv', '--kustomize', counting, '--hard-refresh']);
    expect(refreshed.stdout).toBe(first.stdout);
    expect(builds()).toBe(2);
  });

  it("--cache-dir (else $KUBECACHEDIR), kubectl's cache directory, holds the render cache in its kubectl-gitops folder", async () => {
    const log = join(fx.root, 'kustomize-calls-cachedir.log');
    const counting = join(fx.root, 'counting-kustomize-cachedir');
    writeFileSync(counting, `#!/bin/sh\necho "$1" >> ${log}\nexec ${join(clusterBin(), 'kustomize')} "$@"\n`);
    chmodSync(counting, 0o755);
    const builds = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l === 'build').length;
    const kubeCache = join(fx.root, 'kube-cache');
    const renders = () =>
      existsSync(join(kubeCache, 'kubectl-gitops', 'renders'))
        ? readdirSync(join(kubeCache, 'kubectl-gitops', 'renders')).filter((f) => f.endsWith('.json')).length
        : 0;
    const file = appFile('gbc', nsKustomize, 'kustomize-guestbook/overlays/prod', '    kustomize: {nameSuffix: -cachedir}');
    const first = await plugin(['diff', '-f', file, '-o', 'kv', '--kustomize', counting, '--cache-dir', kubeCache]);
    expect(first.code).toBe(1);
    expect(builds()).toBe(1);
    expect(renders()).toBe(1);
    const again = await plugin(['diff', '-f', file, '-o', 'kv', '--kustomize', counting, `--cache-dir=${kubeCache}`]);
    expect(again.stdout).toBe(first.stdout);
    expect(builds()).toBe(1);
    const viaEnv = await plugin(['diff', '-f', file, '-o', 'kv', '--kustomize', counting], { KUBECACHEDIR: kubeCache });
    expect(viaEnv.stdout).toBe(first.stdout);
    expect(builds()).toBe(1);
    // Without either, the XDG cache of this suite, which has no such render yet: built again.
    await plugin(['diff', '-f', file, '-o', 'kv', '--kustomize', counting]);
    expect(builds()).toBe(2);
  });
});
