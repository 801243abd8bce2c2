// The documentation's table of the differences the conformance suite finds on purpose (moved from the README to
// docs/engineering/conformance.md) lists exactly the known differences the scenarios expect: a row without a
// difference, or a difference without a row, fails.
import { repoRoot } from '../integration/support/index.js';
import { docPage } from '../support/docs.js';
import { KNOWN_DIFFERENCES } from './support/known-differences.js';

/** The page the table is on, and its heading there. */
const TABLE_PAGE = 'docs/engineering/conformance.md';
export const TABLE_HEADING = '## Where Argo CD itself answers differently, on purpose';

/** The ids (first column, `C<n>`) of the table under the heading. */
function readmeIds(): string[] {
  const readme = docPage(TABLE_PAGE, repoRoot);
  const start = readme.indexOf(TABLE_HEADING);
  expect(start).toBeGreaterThanOrEqual(0);
  const section = readme.slice(start + TABLE_HEADING.length).split(/\n#{2,3} /)[0]!;
  return [...section.matchAll(/^\| (C\d+) \|/gm)].map((m) => m[1]!);
}

describe(`${TABLE_PAGE}'s table of differences on purpose`, () => {
  it('has one row for each known difference the scenarios expect, and no other', () => {
    const known = [...new Set(KNOWN_DIFFERENCES.map((d) => d.id))].sort();
    expect(readmeIds().sort()).toEqual(known);
  });
});
