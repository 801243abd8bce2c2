// Jest global teardown for integration suites: deletes the namespaces this run labelled. The local
// control plane keeps running (the next run reuses it in about a second, and other runs may share it),
// unless this run started it and KGITOPS_CLUSTER_STOP=1; .ci/run stops it itself.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { claimMismatches } from './support/claims.js';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const RUN_LABEL = 'kubectl-gitops.test/run'; // same as support/labels.ts

function say(msg: string): void {
  process.stderr.write(`[integration teardown] ${msg}\n`);
}

export default async function globalTeardown(): Promise<void> {
  // The README's counts against what the suites of this run counted (see support/claims.ts).
  const claimsFile = process.env.KGITOPS_CLAIMS_FILE;
  if (claimsFile && existsSync(claimsFile)) {
    const mismatches = claimMismatches(claimsFile, readFileSync(join(repoRoot, 'README.md'), 'utf8'));
    rmSync(claimsFile, { force: true });
    if (mismatches.length > 0) throw new Error(`README.md's counts differ from what the tests counted:\n${mismatches.join('\n')}`);
  }
  const { KGITOPS_TEST_KUBECONFIG: kubeconfig, KGITOPS_CLUSTER_BIN: bin, KGITOPS_TEST_RUN: run } = process.env;
  if (!kubeconfig || !bin || !run) return; // the setup failed before the cluster was up
  const res = spawnSync(
    join(bin, 'kubectl'),
    ['delete', 'namespaces', '-l', `${RUN_LABEL}=${run}`, '--wait=false', '--ignore-not-found', '--kubeconfig', kubeconfig],
    { encoding: 'utf8' },
  );
  if (res.status !== 0) say(`could not delete this run's namespaces: ${res.stderr.trim()}`);
  else if (res.stdout.trim()) say(`deleting this run's namespaces:\n${res.stdout.trim()}`);

  if (process.env.KGITOPS_CLUSTER_STOP === '1' && process.env.KGITOPS_CLUSTER_STARTED_BY_RUN === '1') {
    say('stopping the local control plane (KGITOPS_CLUSTER_STOP=1)');
    spawnSync('bash', [join(repoRoot, 'test', 'cluster', 'down')], { stdio: ['ignore', 'inherit', 'inherit'] });
  }
}
