// Installs the packaged plugin with krew, offline, into a temporary KREW_ROOT and runs it through
// kubectl (and its completion helper); installs the Windows archive the same way (KREW_OS=windows) to see the
// completion helper krew puts beside it; validate-krew-manifest (without its own install step) accepts the
// manifest as generated (dist/gitops.yaml) under the name krew-index uses, and that manifest is the committed
// template (krew-manifest.yaml at the root, which holds no sha256) with the sums of the archives beside it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { clusterBin, pluginPath, repoRoot, run, type RunResult } from './support/index.js';

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const manifestPath = join(repoRoot, 'dist', 'gitops.yaml');
const templatePath = join(repoRoot, 'krew-manifest.yaml');
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

test('validate-krew-manifest -skip-install accepts the packaged manifest (dist/) where it is, under its own name', async () => {
  const manifest = parse(readFileSync(manifestPath, 'utf8')) as { metadata: { name: string } };
  // The validator infers the plugin name from the file name: it must be <name>.yaml, as it is.
  expect(manifestPath.endsWith(`/${manifest.metadata.name}.yaml`)).toBe(true);
  const res = await run(join(clusterBin(), 'validate-krew-manifest'), ['-manifest', manifestPath, '-skip-install'], { env });
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: expect.stringContaining('structural validation OK') });
});

test('the packaged manifest is the committed template filled in: the sha256 of each archive in dist/, nothing else changed', () => {
  type Platform = { selector: { matchLabels: { os: string; arch: string } }; uri: string; sha256?: string; files: unknown; bin: string };
  type Manifest = { spec: { version: string; caveats: string; platforms: Platform[] } };
  const built = parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  const template = parse(readFileSync(templatePath, 'utf8').replaceAll('{{version}}', version)) as Manifest;
  expect(template.spec.platforms.every((p) => p.sha256 === undefined)).toBe(true);
  expect({ ...built.spec, platforms: built.spec.platforms.map(({ sha256: _s, ...rest }) => rest) }).toEqual(template.spec);
  for (const p of built.spec.platforms) {
    const archive = join(repoRoot, 'dist', p.uri.split('/').at(-1)!);
    expect({ archive, sha256: p.sha256 }).toEqual({ archive, sha256: createHash('sha256').update(readFileSync(archive)).digest('hex') });
  }
});

test('the Windows archive installs (KREW_OS=windows) with its completion helper kubectl_complete-gitops.cmd beside the executable', async () => {
  const zip = join(repoRoot, 'dist', `kubectl-gitops_${version}_windows_amd64.zip`);
  expect(existsSync(zip)).toBe(true);
  const root = mkdtempSync(join(tmpdir(), 'kgitops-krew-win-'));
  try {
    const winEnv = {
      ...env,
      KREW_ROOT: root,
      HOME: root,
      KREW_OS: 'windows',
      KREW_ARCH: 'amd64',
      PATH: [join(root, 'bin'), clusterBin(), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    };
    const install = await run(join(clusterBin(), 'kubectl'), ['krew', 'install', `--manifest=${manifestPath}`, `--archive=${zip}`], {
      env: winEnv,
      timeoutMs: 120_000,
    });
    expect({ code: install.code, out: install.stdout + install.stderr }).toEqual({ code: 0, out: expect.stringContaining('Installed plugin: gitops') });
    const store = join(root, 'store', 'gitops', `v${version}`);
    expect(existsSync(join(store, 'kubectl-gitops.exe'))).toBe(true);
    expect(readFileSync(join(store, 'kubectl_complete-gitops.cmd'))).toEqual(readFileSync(join(repoRoot, 'plugin', 'kubectl_complete-gitops.cmd')));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('validate-krew-manifest is a real check: a file named after another plugin is refused', async () => {
  const wrong = join(krewRoot, 'not-the-name.yaml');
  copyFileSync(manifestPath, wrong);
  const refused = await run(join(clusterBin(), 'validate-krew-manifest'), ['-manifest', wrong, '-skip-install'], { env });
  expect(refused.code).not.toBe(0);
});
