// Installs the packaged plugin with krew, offline, into a temporary KREW_ROOT and runs it through
// kubectl (and its completion helper); validate-krew-manifest (without its own install step) accepts
// the manifest as generated (dist/gitops.yaml) and as committed (plugins/gitops.yaml), under the names
// krew-index uses; the committed manifest's sha256 values are those of the archives built here when
// it was made from the same build inputs (the archives are reproducible).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { clusterBin, pluginPath, repoRoot, run, type RunResult } from './support/index.js';

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const manifestPath = join(repoRoot, 'dist', 'gitops.yaml');
const committedPath = join(repoRoot, 'plugins', 'gitops.yaml');
const archivePath = join(repoRoot, 'dist', `kubectl-gitops_${version}_linux_amd64.tar.gz`);

function stale(path: string): boolean {
  return !existsSync(path) || (existsSync(pluginPath) && statSync(path).mtimeMs < statSync(pluginPath).mtimeMs);
}

let krewRoot: string;
/** Only the krew root's bin, the cluster binaries (kubectl, kubectl-krew) and the system: no other plugin copy. */
let env: Record<string, string>;
const kubectlIn = (args: string[]): Promise<RunResult> => run(join(clusterBin(), 'kubectl'), args, { env, timeoutMs: 60_000 });

beforeAll(() => {
  // The archive and manifest come from `npm run package`; make them when missing or older than the binary.
  if ((stale(archivePath) || !existsSync(manifestPath)) && existsSync(join(repoRoot, 'plugin', 'package.mjs'))) {
    const res = spawnSync('npm', ['run', '--silent', 'package'], { cwd: repoRoot, encoding: 'utf8' });
    if (res.status !== 0) throw new Error(`packaging the plugin: npm run package exited ${res.status}\n${res.stderr}`);
  }
  if (!existsSync(archivePath) || !existsSync(manifestPath)) {
    throw new Error(`krew test needs ${archivePath} and ${manifestPath}: run \`npm run package\``);
  }
  krewRoot = mkdtempSync(join(tmpdir(), 'kgitops-krew-'));
  env = {
    KREW_ROOT: krewRoot,
    KREW_NO_UPGRADE_CHECK: '1',
    PATH: [join(krewRoot, 'bin'), clusterBin(), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: krewRoot,
  };
}, 600_000); // packaging every platform takes minutes on a busy 2-core machine
afterAll(() => {
  if (krewRoot) rmSync(krewRoot, { recursive: true, force: true });
});

test('kubectl krew install --manifest --archive installs the plugin offline, and kubectl gitops runs through kubectl', async () => {
  const manifest = parse(readFileSync(manifestPath, 'utf8')) as { metadata: { name: string } };
  const install = await kubectlIn(['krew', 'install', `--manifest=${manifestPath}`, `--archive=${archivePath}`]);
  expect({ code: install.code, stderr: install.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  expect(install.stdout + install.stderr).toContain(`Installed plugin: ${manifest.metadata.name}`);
  expect(existsSync(join(krewRoot, 'receipts', `${manifest.metadata.name}.yaml`))).toBe(true);

  const list = await kubectlIn(['plugin', 'list', '--name-only']);
  expect(list.stdout.split('\n')).toContain('kubectl-gitops');

  const plain = await kubectlIn(['gitops', 'version']);
  expect(plain.code).toBe(0);
  expect(plain.stdout).toContain(version);

  const json = await kubectlIn(['gitops', 'version', '-o', 'json']);
  expect(json.code).toBe(0);
  expect(JSON.parse(json.stdout)).toMatchObject({ version });

  // The completion helper is installed too; linked onto PATH as the caveats say, kubectl completes through it.
  const helper = join(krewRoot, 'store', manifest.metadata.name, `v${version}`, 'kubectl_complete-gitops');
  expect(existsSync(helper)).toBe(true);
  symlinkSync(helper, join(krewRoot, 'bin', 'kubectl_complete-gitops'));
  const completion = await kubectlIn(['__complete', 'gitops', 'vers']);
  expect(completion.stdout.split('\n')[0]).toMatch(/^version\t/);
});

test.each([
  ['the packaged manifest (dist/)', () => manifestPath],
  ['the committed release manifest (plugins/)', () => committedPath],
])('validate-krew-manifest -skip-install accepts %s where it is, under its own name', async (_what, pathOf) => {
  const manifest = parse(readFileSync(pathOf(), 'utf8')) as { metadata: { name: string } };
  // The validator infers the plugin name from the file name: it must be <name>.yaml, as it is.
  expect(pathOf().endsWith(`/${manifest.metadata.name}.yaml`)).toBe(true);
  const res = await run(join(clusterBin(), 'validate-krew-manifest'), ['-manifest', pathOf(), '-skip-install'], { env });
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.stringContaining('structural validation OK') });
});

test('the committed manifest carries the sha256 of the archives built from its build inputs', () => {
  type Manifest = { spec: { platforms: { selector: unknown; sha256: string; uri: string }[] } };
  const inputs = (text: string) => /built reproducibly from the build inputs as of commit (\w+)/.exec(text)?.[1];
  const committedText = readFileSync(committedPath, 'utf8');
  const builtText = readFileSync(manifestPath, 'utf8');
  const committed = parse(committedText) as Manifest;
  const built = parse(builtText) as Manifest;
  expect(inputs(builtText)).toMatch(/^[0-9a-f]{7,}$/);
  if (inputs(committedText) !== inputs(builtText)) {
    // The build inputs changed since the release manifest was made: `npm run package -- --release` makes it anew.
    process.stderr.write(`krew: plugins/gitops.yaml is from the inputs of ${inputs(committedText)}, dist/ from ${inputs(builtText)}: sums not compared\n`);
    expect(committed.spec.platforms.map((p) => p.selector)).toEqual(built.spec.platforms.map((p) => p.selector));
    return;
  }
  expect(committed.spec.platforms.map((p) => [p.uri, p.sha256])).toEqual(built.spec.platforms.map((p) => [p.uri, p.sha256]));
});

test('validate-krew-manifest is a real check: a file named after another plugin is refused', async () => {
  const wrong = join(krewRoot, 'not-the-name.yaml');
  copyFileSync(manifestPath, wrong);
  const refused = await run(join(clusterBin(), 'validate-krew-manifest'), ['-manifest', wrong, '-skip-install'], { env });
  expect(refused.code).not.toBe(0);
});
