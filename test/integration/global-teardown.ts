// Jest global teardown for integration suites: deletes the namespaces this run labelled. The local
// control plane keeps running (the next run reuses it in about a second, and other runs may share it),
// unless this run started it and KGITOPS_CLUSTER_STOP=1; .ci/run stops it itself.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const RUN_LABEL = 'kubectl-gitops.test/run'; // same as support/labels.ts

function say(msg: string): void {
  process.stderr.write(`[integration teardown] ${msg}\n`);
}

/** The claims a unit test tallies (test/unit/readme-claims.test.ts), not an integration suite: never missing here. */
const UNIT_CLAIMS = new Set(['fuzz.properties', 'fuzz.cases']);

export default async function globalTeardown(globalConfig?: { testPathPatterns?: { patterns?: readonly string[] }; testNamePattern?: string }): Promise<void> {
  // Every integration suite ran (no path or name filter): then a mark no suite tallied is wrong too.
  const wholeRun = (globalConfig?.testPathPatterns?.patterns?.length ?? 0) === 0 && !globalConfig?.testNamePattern;
  // The documentation's counts (README.md and docs/**/*.md) against what the suites of this run counted (see
  // support/claims.ts); thrown after the cleanup.
  let claimsError: Error | undefined;
  const claimsFile = process.env.KGITOPS_CLAIMS_FILE;
  if (claimsFile && existsSync(claimsFile)) {
    const partial: string[] = [];
    const mismatches = claimMismatches(claimsFile, docsText(), wholeRun, partial);
    rmSync(claimsFile, { force: true });
    if (partial.length > 0) say(`not compared with the documentation (a suite that counts them was filtered or failed): ${partial.sort().join(', ')}`);
    if (mismatches.length > 0)
      claimsError = new Error(`The documentation's counts (README.md, docs/) differ from what the tests counted:\n${mismatches.join('\n')}`);
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

/**
 * README.md and every docs/**\/*.md, one after another, as test/support/docs.ts's docsText() reads them (a global
 * teardown is loaded outside the test modules' resolution, so it keeps its own copy, as it does RUN_LABEL).
 */
function docsText(): string {
  const files = [join(repoRoot, 'README.md')];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('.md')) files.push(join(dir, e.name));
    }
  };
  walk(join(repoRoot, 'docs'));
  return files.map((f) => readFileSync(f, 'utf8')).join('\n');
}

/**
 * What differs between the counts the suites recorded (support/claims.ts) and the documentation's `N<!-- claim NAME -->`
 * marks, both ways: a count (from a suite whose every test ran and passed) with no mark or another number, and
 * (`wholeRun`) a mark that no suite counted. A count from a partial suite (a `-t` filter, a failed test) is not
 * compared: it is listed in `partial` instead, for the teardown to say so.
 */
export function claimMismatches(claimsFile: string, readme: string, wholeRun: boolean, partial: string[] = []): string[] {
  const recorded = new Map<string, { value: number; complete: boolean }>();
  for (const line of readFileSync(claimsFile, 'utf8').split('\n').filter(Boolean)) {
    const { name, value, complete } = JSON.parse(line) as { name: string; value: number; complete?: boolean };
    const was = recorded.get(name) ?? { value: 0, complete: true };
    recorded.set(name, { value: was.value + value, complete: was.complete && complete === true });
  }
  const marks = new Map<string, number>();
  for (const m of readme.matchAll(/(\d[\d,]*)<!-- claim ([\w.-]+) -->/g)) marks.set(m[2]!, Number(m[1]!.replace(/,/g, '')));
  const out: string[] = [];
  for (const [name, { value, complete }] of recorded) {
    const said = marks.get(name);
    if (said === undefined) out.push(`${name}: the tests counted ${value}; no page (README.md, docs/) has a \`${value}<!-- claim ${name} -->\` mark`);
    else if (!complete) partial.push(name);
    else if (said !== value) out.push(`${name}: the documentation says ${said}, the tests counted ${value}`);
  }
  if (wholeRun) {
    for (const [name, said] of marks) {
      if (!recorded.has(name) && !UNIT_CLAIMS.has(name))
        out.push(`${name}: the documentation says ${said}, but no suite of this whole run counted it (a stale mark, or a suite that stopped counting)`);
    }
  }
  return out;
}
