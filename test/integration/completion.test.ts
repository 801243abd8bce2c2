// `kubectl gitops <TAB>` as kubectl 1.35 completes it: kubectl's own __complete runs kubectl_complete-gitops
// (from plugin/, beside kubectl-gitops on PATH), which asks the plugin; Application names and namespaces
// come from the local control plane. Then the scripts of `kubectl gitops completion zsh|fish` in those shells (from
// Debian's packages, installed by .ci/run) completing the real kubectl-gitops.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tempDir } from '../support/temp-dir.js';
import { delimiter, join } from 'node:path';
import { applyYaml, clusterBin, kubectlOk, repoRoot, run } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const suffix = randomBytes(3).toString('hex');
const apps = [`zz-complete-${suffix}-shop`, `zz-complete-${suffix}-orders`];
const path = [join(repoRoot, 'plugin'), clusterBin(), process.env.PATH ?? ''].join(delimiter);

/** kubectl's completion of `kubectl <words>`: the candidates (without descriptions) and the directive. */
async function kubectlComplete(words: string[]) {
  const r = await run(join(clusterBin(), 'kubectl'), ['__complete', ...words], { env: { PATH: path } });
  expect(r.code).toBe(0);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  return { values: lines.slice(0, -1).map((l) => l.split('\t')[0]), directive: lines.at(-1) };
}

beforeAll(async () => {
  await applyYaml(
    apps.map((name) => applicationYaml({ name, spec: { destination: inCluster('default'), source: { repoURL: 'file:///unused', path: '.' } } })).join('---\n'),
  );
});

afterAll(async () => {
  await kubectlOk(['delete', 'applications.argoproj.io', '-n', 'argocd', ...apps, '--ignore-not-found']);
});

it("completes the plugin's commands", async () => {
  expect(await kubectlComplete(['gitops', 'st'])).toEqual({ values: ['status'], directive: ':4' });
  expect((await kubectlComplete(['gitops', ''])).values).toEqual(
    expect.arrayContaining(['diff', 'sync', 'prune', 'status', 'normalize', 'version', 'completion']),
  );
});

it("completes a command's flags and their values", async () => {
  expect((await kubectlComplete(['gitops', 'diff', '--req'])).values).toEqual(['--request-timeout']);
  expect((await kubectlComplete(['gitops', 'normalize', '-o', ''])).values).toEqual(['yaml', 'json']);
  const namespaces = (await kubectlComplete(['gitops', 'diff', '-n', 'kube-'])).values;
  expect(namespaces).toEqual(expect.arrayContaining(['kube-system', 'kube-public']));
});

it('completes Application names from the cluster', async () => {
  expect(await kubectlComplete(['gitops', 'status', `zz-complete-${suffix}-`])).toEqual({ values: [...apps].sort(), directive: ':4' });
  expect((await kubectlComplete(['gitops', 'diff', `zz-complete-${suffix}-s`])).values).toEqual([apps[0]]);
});

it('completes contexts from the kubeconfig', async () => {
  const contexts = (await kubectlOk(['config', 'get-contexts', '-o', 'name'])).trim().split('\n');
  expect((await kubectlComplete(['gitops', 'sync', '--context', ''])).values).toEqual(contexts);
});

describe('the zsh and fish scripts in their shells, over the real kubectl-gitops', () => {
  const work = { dir: '' };
  beforeAll(() => {
    work.dir = tempDir('kgo-completion-shells');
  });
  const script = async (shell: 'zsh' | 'fish') => {
    const r = await run(join(repoRoot, 'plugin', 'kubectl-gitops'), ['completion', shell]);
    expect(r.code).toBe(0);
    const file = join(work.dir, `completion.${shell}`);
    writeFileSync(file, r.stdout);
    return file;
  };
  const lines = (out: string) =>
    out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t')[0]);

  it('zsh (compsys, through a pseudo-terminal): commands, flags, output modes and Application names', async () => {
    const file = await script('zsh');
    const zsh = async (line: string) => {
      const r = await run('zsh', ['-f', join(repoRoot, 'test', 'support', 'zsh-complete.zsh'), file, line], {
        env: { PATH: path, TERM: 'dumb' },
        timeoutMs: 60_000,
        cwd: work.dir,
      });
      expect(r.code).toBe(0);
      return lines(r.stdout).sort();
    };
    expect(await zsh('kubectl-gitops sy')).toEqual(['sync']);
    expect(await zsh('kubectl-gitops diff --req')).toEqual(['--request-timeout']);
    expect(await zsh('kubectl-gitops status -o ')).toEqual(['dot', 'env', 'json', 'kv', 'svg', 'table', 'yaml']);
    expect(await zsh(`kubectl-gitops status zz-complete-${suffix}-`)).toEqual([...apps].sort());
  });

  it('fish (complete -C): commands with descriptions, flags, output modes and Application names', async () => {
    const file = await script('fish');
    const fish = async (line: string) => {
      const r = await run('fish', ['--no-config', '-c', `source ${file}; complete -C '${line}'`], { env: { PATH: path }, timeoutMs: 60_000, cwd: work.dir });
      expect(r.stderr).toBe('');
      return r.stdout;
    };
    expect(await fish('kubectl-gitops sy')).toMatch(/^sync\t\S.*\n$/);
    expect(lines(await fish('kubectl-gitops diff --req'))).toEqual(['--request-timeout']);
    expect(lines(await fish('kubectl-gitops normalize -o '))).toEqual(['json', 'yaml']);
    expect(lines(await fish(`kubectl-gitops diff zz-complete-${suffix}-s`))).toEqual([apps[0]]);
  });
});
