// Counts the documentation (README.md, docs/**/*.md) states, as the suites count them: a suite tallies each check that passed, prints the totals
// after its tests (`[claims] bad-input.inputs=22`) and appends them to the run's claims file; the global teardown
// (global-teardown.ts: it cannot import this file) compares them with the pages' `N<!-- claim NAME -->` marks and
// fails the run when one differs. A suite names the claims it counts up front, so a claim it counted nothing of is
// recorded as 0 (a suite that stopped counting fails); a record says whether every test of the file ran and passed,
// so a run filtered by `-t`, or one with a failed test, is not compared (its counts are partial) but never skipped
// silently: the teardown says which claims it could not check.
import { appendFileSync } from 'node:fs';

const tallies = new Map<string, number>();

/** Names the claims this suite counts (call once at the top of the file). */
export function countsClaims(...names: string[]): void {
  for (const name of names) if (!tallies.has(name)) tallies.set(name, 0);
}

/** Counts one more (or `n` more) of a claim, once the check it stands for has passed. */
export function tally(name: string, n = 1): void {
  const now = tallies.get(name);
  if (now === undefined) throw new Error(`claim ${name} is not named by countsClaims() in this suite`);
  tallies.set(name, now + n);
}

interface CircusTest {
  type: 'test';
  status?: string;
  errors: unknown[];
}
interface CircusBlock {
  type: 'describeBlock';
  children: (CircusTest | CircusBlock)[];
}

/**
 * Whether every test of this file ran (none skipped, by `-t` or otherwise) and passed so far, from jest-circus's state
 * (kept on the test's global under a symbol it does not export). Throws when that state is not there, so a Jest
 * upgrade that moves it fails loudly instead of checking nothing.
 */
export function suiteComplete(global: object = globalThis): boolean {
  const sym = Object.getOwnPropertySymbols(global).find((s) => s.description === 'JEST_STATE_SYMBOL');
  const state = sym ? (global as Record<symbol, { rootDescribeBlock?: CircusBlock } | undefined>)[sym] : undefined;
  if (!state?.rootDescribeBlock) throw new Error("claims: jest-circus's state is not where it was (JEST_STATE_SYMBOL); update suiteComplete()");
  const walk = (b: CircusBlock): boolean => b.children.every((c) => (c.type === 'describeBlock' ? walk(c) : c.status === 'done' && c.errors.length === 0));
  return walk(state.rootDescribeBlock);
}

/** Prints this suite's counts and records them for the documentation check (call from a top-level afterAll). */
export function reportClaims(): void {
  const file = process.env.KGITOPS_CLAIMS_FILE;
  const complete = suiteComplete();
  for (const [name, value] of [...tallies].sort()) {
    process.stderr.write(`[claims] ${name}=${value}${complete ? '' : ' (partial: not every test of the suite ran and passed)'}\n`);
    if (file) appendFileSync(file, `${JSON.stringify({ name, value, complete })}\n`);
  }
}
