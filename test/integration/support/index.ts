// Helpers for integration suites: run the built plugin and the built kubectl against the local
// control plane started by the global setup, one namespace per suite.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../../src/model/object.js';
import { TEST_NAMESPACE_LABEL, TEST_RUN_LABEL } from './labels.js';

export { TEST_RUN_LABEL } from './labels.js';

/** The repository root, found from this file rather than from the working directory. */
export const repoRoot: string = fileURLToPath(new URL('../../../', import.meta.url)).replace(/\/$/, '');

/** The built single-executable plugin that integration suites drive. */
export const pluginPath: string = join(repoRoot, 'plugin', 'kubectl-gitops');

export interface RunOptions {
  stdin?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Working directory; the repository root by default. */
  cwd?: string;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(
      `${name} is not set: integration suites need the jest global setup ` +
        '(run them with `npm run test:integration` or `jest --selectProjects integration`)',
    );
  }
  return value;
}

/** Absolute path of the local control plane's own kubeconfig (never ~/.kube/config). */
/** `-o kv` output as a map of each key to its values, in order (a key may repeat). */
export function kvValues(out: string): Record<string, string[]> {
  const m: Record<string, string[]> = {};
  for (const line of out.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) (m[line.slice(0, i)] ??= []).push(line.slice(i + 1));
  }
  return m;
}

export function kubeconfigPath(): string {
  return requiredEnv('KGITOPS_TEST_KUBECONFIG');
}

/** The folder holding the built kubectl, kwok, kubectl-krew and validate-krew-manifest. */
export function clusterBin(): string {
  return requiredEnv('KGITOPS_CLUSTER_BIN');
}

/** The id of this jest run, written into the labels of the namespaces it creates. */
export function testRunId(): string {
  return requiredEnv('KGITOPS_TEST_RUN');
}

/**
 * The environment child processes get: the built kubectl first on PATH, KUBECONFIG pointing at the
 * test cluster, colour off, and the caller's additions last.
 */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.FORCE_COLOR;
  env.PATH = [clusterBin(), env.PATH ?? ''].join(delimiter);
  env.KUBECONFIG = kubeconfigPath();
  env.NO_COLOR = '1';
  return { ...env, ...extra };
}

/**
 * Runs a program without a TTY and collects its output; never throws for a non-zero exit, only when
 * the program cannot start or exceeds its timeout (default 120 s).
 */
export function run(file: string, args: string[], opts: RunOptions = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: opts.cwd ?? repoRoot,
      env: childEnv(opts.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`running ${file} ${args.join(' ')}`, { cause: e }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      if (timedOut) {
        reject(new Error(`running ${file} ${args.join(' ')}: timed out after ${timeoutMs} ms\n${stderr}`));
        return;
      }
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
    child.stdin.on('error', () => undefined); // the child may exit before reading its input
    child.stdin.end(opts.stdin ?? '');
  });
}

/** Inserts `--kubeconfig <path>` after the arguments, or before a `--` separator when there is one. */
function withKubeconfig(args: string[]): string[] {
  const flag = ['--kubeconfig', kubeconfigPath()];
  const dashdash = args.indexOf('--');
  return dashdash < 0 ? [...args, ...flag] : [...args.slice(0, dashdash), ...flag, ...args.slice(dashdash)];
}

/** Runs the built plugin (plugin/kubectl-gitops) with `--kubeconfig <test kubeconfig>` appended. */
/** A plugin process left running (to be signalled): its output as it comes, and its exit code once it ends. */
export interface StartedPlugin {
  child: ReturnType<typeof spawn>;
  out: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

/** Starts the plugin with `args` (the test cluster's environment) and collects its output; the caller ends it. */
export function startPlugin(args: string[]): StartedPlugin {
  const child = spawn(pluginPath, args, { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (c: Buffer) => (out.stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out, exited };
}

export function runPlugin(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  if (!existsSync(pluginPath)) {
    return Promise.reject(new Error(`running the plugin: ${pluginPath} is missing (npm run build makes it)`));
  }
  return run(pluginPath, withKubeconfig(args), opts);
}

/** Runs the built kubectl (the image's /usr/bin/kubectl is too old) with `--kubeconfig` appended. */
export function kubectl(args: string[], opts: RunOptions = {}): Promise<RunResult> {
  return run(join(clusterBin(), 'kubectl'), withKubeconfig(args), opts);
}

/** Like kubectl(), but throws with the command and its stderr when the exit code is not 0. */
export async function kubectlOk(args: string[], opts: RunOptions = {}): Promise<string> {
  const res = await kubectl(args, opts);
  if (res.code !== 0) {
    throw new Error(`kubectl ${args.join(' ')} exited ${res.code}: ${res.stderr.trim()}`);
  }
  return res.stdout;
}

/** A DNS-1123 label: lower-case, at most 63 characters. */
function dnsLabel(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Creates a namespace `<prefix>-<random>` labelled with this run's id, so that the global teardown
 * (or a later run, once it is stale) deletes it; returns its name.
 */
export async function createTestNamespace(prefix: string): Promise<string> {
  const name = `${dnsLabel(prefix).slice(0, 50) || 'test'}-${randomBytes(4).toString('hex')}`;
  const yaml = [
    'apiVersion: v1',
    'kind: Namespace',
    'metadata:',
    `  name: ${name}`,
    '  labels:',
    `    ${TEST_NAMESPACE_LABEL}: "true"`,
    `    ${TEST_RUN_LABEL}: "${testRunId()}"`,
    '',
  ].join('\n');
  await kubectlOk(['create', '-f', '-'], { stdin: yaml });
  return name;
}

/** Deletes a namespace without waiting for its finalizers (the teardown sweeps what remains). */
export async function deleteNamespace(name: string): Promise<void> {
  await kubectlOk(['delete', 'namespace', name, '--ignore-not-found', '--wait=false']);
}

export interface ApplyOptions {
  namespace?: string;
  fieldManager?: string;
  serverSide?: boolean;
  /** Server-side only: take fields over from other managers. */
  forceConflicts?: boolean;
}

/** The kubectl arguments for an apply of standard input; exported so tests can expect failures. */
export function applyArgs(opts: ApplyOptions = {}): string[] {
  const args = ['apply', '-f', '-'];
  if (opts.namespace) args.push('-n', opts.namespace);
  if (opts.serverSide) args.push('--server-side');
  if (opts.forceConflicts) args.push('--force-conflicts');
  if (opts.fieldManager) args.push(`--field-manager=${opts.fieldManager}`);
  return args;
}

/** Applies YAML with the built kubectl (client-side unless serverSide); throws when kubectl fails. */
export function applyYaml(yaml: string, opts: ApplyOptions = {}): Promise<string> {
  return kubectlOk(applyArgs(opts), { stdin: yaml });
}

/** Reads one live object as JSON, managedFields included; throws when it does not exist. */
export async function getJson<T extends object = KubeObject>(kind: string, name: string, namespace?: string): Promise<T> {
  const args = ['get', kind, name, '-o', 'json', '--show-managed-fields'];
  if (namespace) args.push('-n', namespace);
  const stdout = await kubectlOk(args);
  return JSON.parse(stdout) as T;
}

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What is awaited, for the timeout message. */
  what: string;
}

/**
 * Polls until the predicate returns a truthy value and returns it; errors thrown by the predicate
 * count as "not yet" and the last one becomes the cause of the timeout error.
 */
export async function waitFor<T>(predicate: () => Promise<T | undefined | null | false> | T | undefined | null | false, opts: WaitOptions): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const intervalMs = opts.intervalMs ?? 500;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await predicate();
      if (value) return value;
      lastError = undefined;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      throw new Error(`waiting for ${opts.what}: timed out after ${timeoutMs} ms`, lastError ? { cause: lastError } : undefined);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * What a sync or prune could have changed in a namespace, as one comparable string: each object's
 * kind, name, uid and content, without what the cluster's own controllers write behind us
 * (resourceVersion, managedFields, status, the Deployment controller's revision annotation). A
 * resourceVersion comparison fails whenever the Deployment controller finishes a rollout started
 * by an earlier test, which is not something the command under test did.
 */
export async function contentSnapshot(namespace: string, kinds: string): Promise<string> {
  const list = JSON.parse(await kubectlOk(['get', kinds, '-n', namespace, '-o', 'json'])) as { items: KubeObject[] };
  return list.items
    .map((o) => {
      const { status: _status, metadata, ...rest } = o as KubeObject & { status?: unknown };
      const { resourceVersion: _rv, managedFields: _mf, annotations, ...meta } = metadata as KubeObject['metadata'] & Record<string, unknown>;
      const kept = Object.fromEntries(Object.entries(annotations ?? {}).filter(([k]) => k !== 'deployment.kubernetes.io/revision'));
      return `${o.kind}/${metadata.name} ${JSON.stringify({ ...rest, metadata: { ...meta, annotations: kept } })}`;
    })
    .sort()
    .join('\n');
}
