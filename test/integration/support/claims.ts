// Counts the documentation (README.md, docs/**/*.md) states, as the suites count them: a suite tallies each check that passed, prints the totals
// after its tests (`[claims] bad-input.inputs=22`) and appends them to the run's claims file; the global teardown
// (global-teardown.ts: it cannot import this file) compares them with the pages' `N<!-- claim NAME -->` marks and
// fails the run when one differs.
import { appendFileSync } from 'node:fs';

const tallies = new Map<string, number>();

/** Counts one more (or `n` more) of a claim, once the check it stands for has passed. */
export function tally(name: string, n = 1): void {
  tallies.set(name, (tallies.get(name) ?? 0) + n);
}

/** Prints this suite's counts and records them for the documentation check (call from afterAll). */
export function reportClaims(): void {
  const file = process.env.KGITOPS_CLAIMS_FILE;
  for (const [name, value] of [...tallies].sort()) {
    process.stderr.write(`[claims] ${name}=${value}\n`);
    if (file) appendFileSync(file, `${JSON.stringify({ name, value })}\n`);
  }
}
