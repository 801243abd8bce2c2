// Counts the README states, as the suites count them: a suite tallies each check that passed, prints the totals
// after its tests (`[claims] bad-input.inputs=22`) and appends them to the run's claims file; the global teardown
// compares them with the README's `N<!-- claim NAME -->` marks and fails the run when one differs.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

const tallies = new Map<string, number>();

/** Counts one more (or `n` more) of a claim, once the check it stands for has passed. */
export function tally(name: string, n = 1): void {
  tallies.set(name, (tallies.get(name) ?? 0) + n);
}

/** Prints this suite's counts and records them for the README check (call from afterAll). */
export function reportClaims(): void {
  const file = process.env.KGITOPS_CLAIMS_FILE;
  for (const [name, value] of [...tallies].sort()) {
    process.stderr.write(`[claims] ${name}=${value}\n`);
    if (file) appendFileSync(file, `${JSON.stringify({ name, value })}\n`);
  }
}

/** The `N<!-- claim NAME -->` marks of a README text: name → the number written before the mark. */
export function readmeClaims(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(/(\d[\d,]*)<!-- claim ([\w.-]+) -->/g)) out.set(m[2]!, Number(m[1]!.replace(/,/g, '')));
  return out;
}

/** What differs between the recorded counts and the README (empty when they agree, or nothing was recorded). */
export function claimMismatches(claimsFile: string, readme: string): string[] {
  if (!existsSync(claimsFile)) return [];
  const recorded = new Map<string, number>();
  for (const line of readFileSync(claimsFile, 'utf8').split('\n').filter(Boolean)) {
    const { name, value } = JSON.parse(line) as { name: string; value: number };
    recorded.set(name, (recorded.get(name) ?? 0) + value);
  }
  const marks = readmeClaims(readme);
  const out: string[] = [];
  for (const [name, value] of recorded) {
    const said = marks.get(name);
    if (said === undefined) out.push(`${name}: the tests counted ${value}; README.md has no \`${value}<!-- claim ${name} -->\` mark`);
    else if (said !== value) out.push(`${name}: README.md says ${said}, the tests counted ${value}`);
  }
  return out;
}
