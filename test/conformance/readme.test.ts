// The README's table of the differences the conformance suite finds on purpose lists exactly the known
// differences the scenarios expect: a row without a difference, or a difference without a row, fails.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../integration/support/index.js';
import { KNOWN_DIFFERENCES } from './support/known-differences.js';

export const TABLE_HEADING = '### Where Argo CD itself answers differently, on purpose';

/** The ids (first column, `C<n>`) of the table under the heading. */
function readmeIds(): string[] {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const start = readme.indexOf(TABLE_HEADING);
  expect(start).toBeGreaterThanOrEqual(0);
  const section = readme.slice(start + TABLE_HEADING.length).split(/\n#{2,3} /)[0]!;
  return [...section.matchAll(/^\| (C\d+) \|/gm)].map((m) => m[1]!);
}

describe("the README's table of differences on purpose", () => {
  it('has one row for each known difference the scenarios expect, and no other', () => {
    const known = [...new Set(KNOWN_DIFFERENCES.map((d) => d.id))].sort();
    expect(readmeIds().sort()).toEqual(known);
  });
});
