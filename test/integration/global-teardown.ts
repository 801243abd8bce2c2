// Jest global teardown for integration suites: deletes the namespaces this run labelled. The local
// control plane keeps running (the next run reuses it in about a second, and other runs may share it),
// unless this run started it and KGITOPS_CLUSTER_STOP=1; .ci/run stops it itself.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const RUN_LABEL = 'kubectl-gitops.test/run'; // same as support/labels.ts

function say(msg: string): void {
  process.stderr.write(`[integration teardown] ${msg}\n`);
}

export default async function globalTeardown(): Promise<void> {
  // The README's counts against what the suites of this run counted (see support/claims.ts); thrown after the cleanup.
  let claimsError: Error | undefined;
  const claimsFile = process.env.KGITOPS_CLAIMS_FILE;
  if (claimsFile && existsSync(claimsFile)) {
    const mismatches = claimMismatches(claimsFile, readFileSync(join(repoRoot, 'README.md'), 'utf8'));
    rmSync(claimsFile, { force: true });
    if (mismatches.length > 0) claimsError = new Error(`README.md's counts differ from what the tests counted:\n${mismatches.join('\n')}`);
  }
  const { KGITOPS_TEST_KUBECONFIG: kubeconfig, KGITOPS_CLUSTER_BIN: bin, KGITOPS_TEST_RUN: run } = process.env;
  if (!kubeconfig || !bin || !run) {
    if (claimsError) throw claimsError;
    return; // the setup failed before the cluster was up
  }
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
  if (claimsError) throw claimsError;
}

/** What differs between the counts the suites recorded (support/claims.ts) and the README's `N<!-- claim NAME -->` marks. */
function claimMismatches(claimsFile: string, readme: string): string[] {
  const recorded = new Map<string, number>();
  for (const line of readFileSync(claimsFile, 'utf8').split('\n').filter(Boolean)) {
    const { name, value } = JSON.parse(line) as { name: string; value: number };
    recorded.set(name, (recorded.get(name) ?? 0) + value);
  }
  const marks = new Map<string, number>();
  for (const m of readme.matchAll(/(\d[\d,]*)<!-- claim ([\w.-]+) -->/g)) marks.set(m[2]!, Number(m[1]!.replace(/,/g, '')));
  const out: string[] = [];
  for (const [name, value] of recorded) {
    const said = marks.get(name);
    if (said === undefined) out.push(`${name}: the tests counted ${value}; README.md has no \`${value}<!-- claim ${name} -->\` mark`);
    else if (said !== value) out.push(`${name}: README.md says ${said}, the tests counted ${value}`);
  }
  return out;
}
