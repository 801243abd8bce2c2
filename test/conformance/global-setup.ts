// Jest global setup for the conformance suite: builds the plugin when it is stale, starts (or reuses)
// Argo CD's application controller and repo-server on their own control plane (test/argocd/up), and
// hands that control plane's kubeconfig to the test workers through the integration helpers' variables.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

function say(msg: string): void {
  process.stderr.write(`[conformance setup] ${msg}\n`);
}

/** Reads the KEY=VALUE lines of the env file test/argocd/up writes. */
export function readEnvFile(path: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/**
 * The integration setup's plugin build (rebuilt when src/ is newer), loaded by path: a global setup's imports
 * are resolved by Node itself (which strips the types), not through jest's module mapper.
 */
async function buildPluginIfStale(): Promise<void> {
  const path = join(repoRoot, 'test', 'integration', 'global-setup.ts');
  const mod = (await import(path)) as { buildPluginIfStale: () => void };
  mod.buildPluginIfStale();
}

export default async function globalSetup(): Promise<void> {
  await buildPluginIfStale();
  say('starting or reusing Argo CD and its control plane (test/argocd/up)');
  const started = Date.now();
  const res = spawnSync('bash', [join(repoRoot, 'test', 'argocd', 'up')], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (res.status !== 0) throw new Error(`starting Argo CD: test/argocd/up exited ${res.status ?? res.signal}`);
  const envFile = res.stdout.trim().split('\n').pop() ?? '';
  if (!envFile.startsWith('/') || !existsSync(envFile)) throw new Error(`starting Argo CD: test/argocd/up printed no env file (got "${envFile}")`);
  const env = readEnvFile(envFile);
  if (!env.KUBECONFIG || !env.KGITOPS_ARGOCD_BIN) throw new Error(`starting Argo CD: ${envFile} lacks KUBECONFIG or KGITOPS_ARGOCD_BIN`);
  process.env.KGITOPS_TEST_KUBECONFIG = env.KUBECONFIG;
  process.env.KGITOPS_CLUSTER_BIN = env.KGITOPS_ARGOCD_BIN;
  process.env.KGITOPS_ARGOCD_VERSION = env.KGITOPS_ARGOCD_VERSION ?? '';
  // Argo CD's components log to the state folder's logs/ (test/argocd/up): a test that waits in vain quotes them.
  process.env.KGITOPS_ARGOCD_LOGS = join(dirname(envFile), 'logs');
  process.env.KGITOPS_TEST_RUN = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  say(`Argo CD ${env.KGITOPS_ARGOCD_VERSION} ready in ${Date.now() - started} ms; kubeconfig ${env.KUBECONFIG}; run ${process.env.KGITOPS_TEST_RUN}`);
}
