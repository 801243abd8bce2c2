// Sources rendered as Argo CD's repo-server renders them, end to end on the local control plane: a Kustomize overlay
// (with a base, and with spec.source.kustomize options) syncs and then diffs clean, through kustomize or through
// kubectl's built-in kustomize; directory.recurse and include/exclude decide what is applied; a missing tool or a
// broken build is exit 2 with nothing applied or pruned.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KUSTOMIZE_FILES } from '../fixtures/render/apps.js';
import { GitFixture } from '../unit/source/git-fixture.js';
import { clusterBin, createTestNamespace, deleteNamespace, kubectl, runPlugin } from './support/index.js';

const TEST_TIMEOUT_MS = 150_000;

function applicationYaml(name: string, repoURL: string, namespace: string, path: string, sourceExtra = ''): string {
  return `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: ${name}
  namespace: argocd
spec:
  project: default
  source:
    repoURL: ${repoURL}
    path: ${path}
    targetRevision: main
${sourceExtra}
  destination:
    server: https://kubernetes.default.svc
    namespace: ${namespace}
  syncPolicy:
    automated: {prune: true}
    syncOptions: [ServerSideApply=true]
`;
}

const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;

async function names(namespace: string, kinds: string): Promise<string[]> {
  const res = await kubectl(['get', kinds, '-n', namespace, '-o', 'jsonpath={range .items[*]}{.kind}/{.metadata.name}{"\\n"}{end}']);
  expect(res.code).toBe(0);
  return res.stdout.split('\n').filter((l) => l !== '' && !l.endsWith('/kube-root-ca.crt')).sort();
}

async function snapshot(namespace: string): Promise<string> {
  const res = await kubectl(['get', 'deployments,services,configmaps', '-n', namespace, '-o', 'jsonpath={range .items[*]}{.kind}/{.metadata.name}@{.metadata.resourceVersion} {end}']);
  return res.stdout;
}

describe('rendering sources as Argo CD does (sync, diff, status)', () => {
  let fx: GitFixture;
  let sha: string;
  let nsKustomize: string;
  let nsDirectory: string;
  /** A PATH with git and nothing else of ours: no kustomize, no kubectl. */
  let gitOnly: string;
  /** git and kubectl, but no kustomize binary. */
  let kubectlOnly: string;

  const appFile = (name: string, namespace: string, path: string, extra = '') => {
    const file = join(fx.root, `app-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, applicationYaml(name, fx.repo, namespace, path, extra));
    return file;
  };

  beforeAll(async () => {
    fx = new GitFixture();
    for (const [path, text] of Object.entries(KUSTOMIZE_FILES)) fx.write(path, text);
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
    [nsKustomize, nsDirectory] = await Promise.all([createTestNamespace('render-kustomize'), createTestNamespace('render-directory')]);
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    fx?.cleanup();
    await Promise.all([nsKustomize, nsDirectory].filter(Boolean).map((ns) => deleteNamespace(ns)));
  }, TEST_TIMEOUT_MS);

  it('a Kustomize overlay with a base syncs, then diffs clean, and status names the source type', async () => {
    const file = appFile('gb', nsKustomize, 'kustomize-guestbook/overlays/prod');
    const res = await runPlugin(['sync', '-f', file, '-o', 'json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect((JSON.parse(res.stdout) as { applied: number }).applied).toBe(3);
    const live = await names(nsKustomize, 'deployments,services,configmaps');
    expect(live).toEqual(['ConfigMap/prod-guestbook-settings-' + live[0]!.split('-').pop(), 'Deployment/prod-guestbook-ui', 'Service/prod-guestbook-ui']);
    const dep = await kubectl(['get', 'deployment', 'prod-guestbook-ui', '-n', nsKustomize, '-o', 'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.labels.env}']);
    expect(dep.stdout).toBe('2 registry.example/guestbook-ui:0.2 prod');
    const diff = await runPlugin(['diff', '-f', file, '-o', 'kv']);
    expect(diff.code).toBe(0);
    const status = await runPlugin(['status', '-f', file, '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ source: { type: 'Kustomize', revision: sha } });
    const text = await runPlugin(['status', '-f', file]);
    expect(text.stdout).toMatch(/Source Type:\s+Kustomize/);
  });

  it('spec.source.kustomize options change what is synced; the same app diffs clean through kubectl kustomize', async () => {
    const extra = `    kustomize:
      namePrefix: prod-
      images: [registry.example/guestbook-ui:0.3]
      commonAnnotations: {owner: team-$ARGOCD_APP_NAME}
      commonAnnotationsEnvsubst: true
      replicas: [{name: guestbook-ui, count: 4}]`;
    const file = appFile('gb', nsKustomize, 'kustomize-guestbook/overlays/prod', extra);
    const res = await runPlugin(['sync', '-f', file, '-o', 'json']);
    expect(res.code).toBe(0);
    const dep = await kubectl(['get', 'deployment', 'prod-guestbook-ui', '-n', nsKustomize, '-o', 'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image} {.metadata.annotations.owner}']);
    expect(dep.stdout).toBe('4 registry.example/guestbook-ui:0.3 team-gb');
    const viaKubectl = await runPlugin(['diff', '-f', file, '-o', 'kv'], { env: { PATH: kubectlOnly } });
    expect(viaKubectl.stderr).toBe('');
    expect(viaKubectl.code).toBe(0);
    const named = await runPlugin(['diff', '-f', file, '-o', 'kv', '--kustomize', join(clusterBin(), 'kustomize')], { env: { PATH: gitOnly } });
    expect(named.code).toBe(0);
  });

  it('no kustomize and no kubectl: exit 2 naming the tools and how to point at one, nothing applied or pruned', async () => {
    const before = await snapshot(nsKustomize);
    const file = appFile('gb', nsKustomize, 'kustomize-guestbook/overlays/prod', '    kustomize: {namePrefix: other-}');
    const res = await runPlugin(['sync', '-f', file, '-o', 'kv'], { env: { PATH: gitOnly } });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/needs kustomize or kubectl, and neither is on PATH/);
    expect(res.stderr).toMatch(/--kustomize PATH or KUBECTL_GITOPS_KUSTOMIZE=PATH/);
    const badPath = await runPlugin(['diff', '-f', file, '--kustomize', join(fx.root, 'nope')]);
    expect(badPath.code).toBe(2);
    expect(badPath.stderr).toMatch(/is not an executable file/);
    expect(await snapshot(nsKustomize)).toBe(before);
  });

  it("a failing build: exit 2 with kustomize's own message and <repo>@<sha7>:<path>, nothing applied or pruned", async () => {
    const before = await snapshot(nsKustomize);
    const res = await runPlugin(['sync', '-f', appFile('gb', nsKustomize, 'kustomize-guestbook/broken'), '-o', 'kv']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`kustomize build failed for ${fx.repo}@${sha.slice(0, 7)}:kustomize-guestbook/broken`);
    expect(res.stderr).toMatch(/does-not-exist\.yaml/);
    expect(res.stderr).not.toContain('kubectl-gitops-render-'); // the temporary folder is not shown
    expect(await snapshot(nsKustomize)).toBe(before);
  });

  it('a directory is read without sub-folders by default; recurse, include and exclude decide what is applied', async () => {
    const plain = appFile('plain', nsDirectory, 'plain');
    expect((await runPlugin(['sync', '-f', plain, '-o', 'kv'])).code).toBe(0);
    expect(await names(nsDirectory, 'configmaps')).toEqual(['ConfigMap/top-a']);
    const status = await runPlugin(['status', '-f', plain, '-o', 'json']);
    expect(JSON.parse(status.stdout)).toMatchObject({ source: { type: 'Directory' } });

    const recurse = appFile('plain', nsDirectory, 'plain', '    directory: {recurse: true, exclude: "other/*"}');
    const diff = await runPlugin(['diff', '-f', recurse, '-o', 'kv']);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toMatch(/MISSING=ConfigMap\/sub-b/);
    expect(diff.stdout).toMatch(/MISSING=ConfigMap\/deep-c/);
    expect(diff.stdout).not.toMatch(/other-d/);
    expect((await runPlugin(['sync', '-f', recurse, '-o', 'kv'])).code).toBe(0);
    expect(await names(nsDirectory, 'configmaps')).toEqual(['ConfigMap/deep-c', 'ConfigMap/sub-b', 'ConfigMap/top-a']);

    const include = appFile('plain', nsDirectory, 'plain', '    directory: {recurse: true, include: "{a.yaml,other/*}"}');
    expect((await runPlugin(['sync', '-f', include, '-o', 'kv'])).code).toBe(0);
    expect(await names(nsDirectory, 'configmaps')).toEqual(['ConfigMap/other-d', 'ConfigMap/top-a']);
    expect((await runPlugin(['diff', '-f', include, '-o', 'kv'])).code).toBe(0);
  });
});
