// The built single executable on its own: no Node, no node_modules, an empty environment; and as a
// kubectl plugin found on PATH by the real kubectl.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { copyFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterBin, pluginPath, repoRoot } from './support/index.js';

const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

let dir: string;
let exe: string;
beforeAll(() => {
  // A copy outside the repository: nothing can be resolved from node_modules.
  dir = mkdtempSync(join(tmpdir(), 'kgitops-smoke-'));
  exe = join(dir, 'kubectl-gitops');
  copyFileSync(pluginPath, exe);
  chmodSync(exe, 0o755);
  // The built kubectl, alone with the plugin on PATH: nothing else can shadow or warn.
  symlinkSync(join(clusterBin(), 'kubectl'), join(dir, 'kubectl'));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs a program with exactly `env` (nothing inherited) in the temporary folder, `input` on its standard input. */
function runBare(file: string, args: string[], env: Record<string, string> = {}, input?: string): SpawnSyncReturns<string> {
  return spawnSync(file, args, { cwd: dir, env, encoding: 'utf8', timeout: 60_000, ...(input !== undefined ? { input } : {}) });
}

describe('the single executable with an empty environment (no PATH, no Node, no node_modules)', () => {
  it('--help exits 0 and prints the usage with every command', () => {
    const res = runBare(exe, ['--help']);
    expect(res.status).toBe(0);
    expect(res.stderr).toBe('');
    expect(res.stdout).toMatch(/^kubectl gitops <command> \[options\]/);
    for (const cmd of ['diff', 'sync', 'prune', 'status', 'normalize', 'version']) {
      expect(res.stdout).toContain(`kubectl gitops ${cmd}`);
    }
    expect(res.stdout).toContain('Exit codes: 0 success');
  });

  it('version -o json is valid JSON with version, gitCommit and nodeVersion', () => {
    const res = runBare(exe, ['version', '-o', 'json']);
    expect(res.status).toBe(0);
    const info = JSON.parse(res.stdout) as Record<string, string>;
    expect(info.version).toBe(version);
    expect(info.gitCommit).toMatch(/^([0-9a-f]{7,40}|unknown)$/);
    expect(info.nodeVersion).toMatch(/^v24\.\d+\.\d+$/);
    expect(`${info.platform}/${info.arch}`).toBe(`${process.platform}/${process.arch}`);
  });

  it('a bad flag exits 2 with a usage error and nothing on stdout', () => {
    const res = runBare(exe, ['version', '--bogus-flag']);
    expect(res.status).toBe(2);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/^error: Unknown argument: bogus-flag\n/);
    expect(res.stderr).toContain("See 'kubectl gitops version --help' for usage.");
  });

  it('a value outside the choices exits 2', () => {
    const res = runBare(exe, ['version', '-o', 'xml']);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('unknown output format "xml": version prints table, json, yaml, kv, env');
  });

  it('-f - reads an ApplicationSet from a pipe once, for the look at its kind and for its generation', () => {
    const fx = join(repoRoot, 'test/fixtures/diff/replicas-json-pointer');
    const appSet = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: ApplicationSet',
      'metadata: {name: shops, namespace: argocd}',
      'spec:',
      '  generators: [{list: {elements: [{name: north}, {name: south}]}}]',
      '  template:',
      "    metadata: {name: '{{name}}'}",
      '    spec:',
      '      project: default',
      "      source: {repoURL: 'https://example.com/r.git', path: x}",
      '      destination: {namespace: shop, server: https://kubernetes.default.svc}',
      '      ignoreDifferences: [{group: apps, kind: Deployment, jsonPointers: [/spec/replicas]}]',
      '',
    ].join('\n');
    const res = runBare(exe, ['diff', '--desired', join(fx, 'desired.yaml'), '--live', join(fx, 'live.yaml'), '-f', '-', '-o', 'kv'], { HOME: dir }, appSet);
    expect(res.stderr).toBe('');
    expect(res.status).toBe(1);
    // Both generated apps compared: the replicas ignored by their rules, only the tracking id (shop's, not theirs) differs.
    expect(res.stdout.split('\n').filter((l) => l.startsWith('SUMMARY='))).toEqual(['SUMMARY=north 1', 'SUMMARY=south 1']);
    expect(res.stdout).not.toContain('spec.replicas');
  });

  it('a command that needs a cluster fails as an input error when the kubeconfig is missing (lazy code is inside)', () => {
    const res = runBare(exe, ['status', 'shop', '--kubeconfig', join(dir, 'no-such-kubeconfig')], { HOME: dir });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('no-such-kubeconfig');
  });
});

describe('through the real kubectl, with the executable on PATH as kubectl-gitops', () => {
  const env = () => ({ PATH: dir, HOME: dir, KUBECONFIG: join(dir, 'none') });

  it('kubectl gitops --help runs the plugin', () => {
    const res = runBare(join(dir, 'kubectl'), ['gitops', '--help'], env());
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^kubectl gitops <command> \[options\]/);
  });

  it('kubectl gitops version -o json passes the arguments through', () => {
    const res = runBare(join(dir, 'kubectl'), ['gitops', 'version', '-o', 'json'], env());
    expect(res.status).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ version });
  });

  it('kubectl plugin list lists it with no warnings', () => {
    const res = runBare(join(dir, 'kubectl'), ['plugin', 'list'], env());
    expect(res.status).toBe(0);
    expect(res.stdout).toContain(exe);
    expect(res.stdout + res.stderr).not.toMatch(/warning/i);
  });

  it('kubectl passes the exit code through (2 for a usage error)', () => {
    const res = runBare(join(dir, 'kubectl'), ['gitops', 'version', '--bogus-flag'], env());
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('Unknown argument: bogus-flag');
  });
});
