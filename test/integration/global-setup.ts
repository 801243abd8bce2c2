// Jest global setup for integration suites: builds the plugin when it is stale, starts (or reuses)
// the local control plane through test/cluster/up, and hands its kubeconfig to the test workers.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const NAMESPACE_LABEL = 'kubectl-gitops.test/namespace'; // same as support/labels.ts
const STALE_AFTER_MS = 2 * 60 * 60 * 1000;

function say(msg: string): void {
  process.stderr.write(`[integration setup] ${msg}\n`);
}

/** The newest modification time of any file under a folder (0 when it has none). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Builds plugin/kubectl-gitops with `npm run build` when it is missing or older than src/ or
 * package.json. Builds are serialised across concurrent jest runs with flock, and the staleness is
 * checked again under the lock, so a build another run just finished is not repeated.
 * KGITOPS_SKIP_PLUGIN_BUILD=1 skips this step (suites that run the plugin then use what is there).
 */
export function buildPluginIfStale(): void {
  if (process.env.KGITOPS_SKIP_PLUGIN_BUILD === '1') {
    say('KGITOPS_SKIP_PLUGIN_BUILD=1: not building the plugin');
    return;
  }
  if (!existsSync(join(repoRoot, 'plugin', 'build.mjs'))) {
    say('plugin/build.mjs does not exist yet: not building the plugin (suites that run it will fail)');
    return;
  }
  const plugin = join(repoRoot, 'plugin', 'kubectl-gitops');
  const sources = Math.max(newestMtime(join(repoRoot, 'src')), statSync(join(repoRoot, 'package.json')).mtimeMs);
  if (existsSync(plugin) && statSync(plugin).mtimeMs >= sources) {
    say('plugin/kubectl-gitops is up to date');
    return;
  }
  say('building the plugin (npm run build)');
  const started = Date.now();
  const lock = join(tmpdir(), `kubectl-gitops-build-${createHash('sha256').update(repoRoot).digest('hex').slice(0, 12)}.lock`);
  const script =
    '[ -x plugin/kubectl-gitops ] && [ -z "$(find src package.json -newer plugin/kubectl-gitops -type f -print -quit)" ] ' +
    '&& echo "built meanwhile by another run" >&2 || npm run --silent build';
  const res = spawnSync('flock', ['-w', '900', lock, 'bash', '-c', script], { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  if (res.status !== 0) throw new Error(`building the plugin: npm run build exited ${res.status ?? res.signal}`);
  say(`plugin ready in ${Date.now() - started} ms`);
}

/** Reads KEY=VALUE lines (the cluster.env that test/cluster/up writes next to its kubeconfig). */
function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  if (!existsSync(path)) return env;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/**
 * Runs test/cluster/up and reads the cluster.env it writes next to its kubeconfig; the cluster was
 * started by this run when its KGITOPS_CLUSTER_STARTED time (ms) is not older than the call.
 */
function startCluster(): { kubeconfig: string; bin: string; startedHere: boolean } {
  const up = join(repoRoot, 'test', 'cluster', 'up');
  const calledAt = Date.now();
  say('starting or reusing the local control plane (test/cluster/up)');
  const res = spawnSync('bash', [up], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`starting the local control plane: test/cluster/up exited ${res.status ?? res.signal}`);
  const kubeconfig = res.stdout.trim().split('\n').pop() ?? '';
  if (!kubeconfig.startsWith('/') || !existsSync(kubeconfig)) {
    throw new Error(`starting the local control plane: test/cluster/up printed no kubeconfig path (got "${kubeconfig}")`);
  }
  const env = readEnvFile(join(dirname(kubeconfig), 'cluster.env'));
  const bin = env.KGITOPS_CLUSTER_BIN;
  if (!bin) throw new Error(`starting the local control plane: no KGITOPS_CLUSTER_BIN in ${dirname(kubeconfig)}/cluster.env`);
  return { kubeconfig, bin, startedHere: Number(env.KGITOPS_CLUSTER_STARTED ?? 0) >= calledAt };
}

/** Deletes namespaces that integration runs left behind more than two hours ago (crashed runs). */
function sweepStaleNamespaces(kubectl: string, kubeconfig: string): void {
  const res = spawnSync(kubectl, ['get', 'namespaces', '-l', NAMESPACE_LABEL, '-o', 'json', '--kubeconfig', kubeconfig], {
    encoding: 'utf8',
  });
  if (res.status !== 0) return;
  const list = JSON.parse(res.stdout) as { items: { metadata: { name: string; creationTimestamp: string } }[] };
  const stale = list.items.filter((ns) => Date.now() - Date.parse(ns.metadata.creationTimestamp) > STALE_AFTER_MS).map((ns) => ns.metadata.name);
  if (stale.length === 0) return;
  say(`deleting ${stale.length} stale test namespace(s): ${stale.join(' ')}`);
  spawnSync(kubectl, ['delete', 'namespace', ...stale, '--wait=false', '--ignore-not-found', '--kubeconfig', kubeconfig], {
    stdio: 'ignore',
  });
}

export default async function globalSetup(globalConfig?: { testNamePattern?: string | null }): Promise<void> {
  buildPluginIfStale();
  const { kubeconfig, bin, startedHere } = startCluster();
  process.env.KGITOPS_TEST_KUBECONFIG = kubeconfig;
  process.env.KGITOPS_CLUSTER_BIN = bin;
  process.env.KGITOPS_TEST_RUN = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  process.env.KGITOPS_CLUSTER_STARTED_BY_RUN = startedHere ? '1' : '0';
  // The documentation's counts (README.md, docs/) are checked in every run, a -t one too: a suite's counts are compared
  // when every test of it ran and passed (support/claims.ts), and the teardown names the ones it could not compare.
  process.env.KGITOPS_CLAIMS_FILE = join(tmpdir(), `kubectl-gitops-claims-${process.env.KGITOPS_TEST_RUN}.jsonl`);
  sweepStaleNamespaces(join(bin, 'kubectl'), kubeconfig);
  say(`cluster ${startedHere ? 'started' : 'reused'}; kubeconfig ${kubeconfig}; run ${process.env.KGITOPS_TEST_RUN}`);
}
