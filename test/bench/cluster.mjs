// The bench's control plane: BENCH_KUBECONFIG when given, else its own local control plane (test/cluster/up with a
// state folder apart from the one integration tests share); and the kubectl built with it.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Starts (or reuses) the bench's own control plane; `log` says what it does. */
export function startCluster(env, log) {
  if (env.BENCH_KUBECONFIG) return { kubeconfig: resolve(env.BENCH_KUBECONFIG), started: false };
  const state = join(homedir(), '.cache', 'kubectl-gitops', 'bench-run');
  const clusterEnv = { ...env, KGITOPS_CLUSTER_STATE: state };
  log(`starting the bench control plane in ${state} (test/cluster/up)`);
  const out = execFileSync(join(ROOT, 'test', 'cluster', 'up'), { env: clusterEnv, stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim()
    .split('\n');
  return { kubeconfig: out[out.length - 1], started: true, state, clusterEnv };
}

/** Stops the control plane startCluster started (unless BENCH_KEEP_CLUSTER). */
export function stopCluster(cluster, env, log) {
  if (!cluster.started || env.BENCH_KEEP_CLUSTER) return;
  log('stopping the bench control plane (test/cluster/down)');
  execFileSync(join(ROOT, 'test', 'cluster', 'down'), { env: cluster.clusterEnv, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The folder of the control plane's binaries (kubectl, and the rendering tools linked beside it), if known. */
export function clusterBin(kubeconfig) {
  const f = join(dirname(kubeconfig), 'cluster.env');
  const m = existsSync(f) ? /^KGITOPS_CLUSTER_BIN=(.*)$/m.exec(readFileSync(f, 'utf8')) : null;
  return m ? m[1] : undefined;
}

export function kubectlPath(kubeconfig, env) {
  if (env.BENCH_KUBECTL) return env.BENCH_KUBECTL;
  const bin = clusterBin(kubeconfig);
  return bin && existsSync(join(bin, 'kubectl')) ? join(bin, 'kubectl') : 'kubectl';
}
