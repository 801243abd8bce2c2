// The table of the differences the conformance suite finds on purpose (docs/engineering/conformance.md, "Where Argo CD
// itself answers differently, on purpose") against the data the suite expects them from
// (test/conformance/support/known-differences.ts), whole rows, cell for cell: a row without a difference, a difference
// without a row, or a cell that says something else than the data fails in `npm test`, with no Argo CD needed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_DIFFERENCES } from '../../conformance/support/known-differences.js';
import { docPage } from '../../support/docs.js';

const ROOT = process.cwd();
const TABLE_PAGE = 'docs/engineering/conformance.md';
const TABLE_HEADING = '## Where Argo CD itself answers differently, on purpose';
const HEADER = ['id', 'where', 'Argo CD', 'kubectl-gitops', 'why'];

/** The cells of a Markdown table row (`| a | b |`), trimmed. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** The rows of the first table under `heading` (up to the next heading), header first, the separator row left out. */
function tableUnder(page: string, heading: string): string[][] {
  const start = page.indexOf(heading);
  if (start < 0) throw new Error(`${TABLE_PAGE} has no heading "${heading}"`);
  const section = page.slice(start + heading.length).split(/\n#{2,3} /)[0]!;
  const lines = section.split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  if (first < 0) throw new Error(`no table under "${heading}"`);
  const table: string[] = [];
  for (const l of lines.slice(first)) {
    if (!l.startsWith('|')) break;
    table.push(l);
  }
  return table.filter((l) => !/^\|(\s*-+\s*\|)+\s*$/.test(l)).map(cells);
}

describe(`${TABLE_PAGE}'s table of differences on purpose`, () => {
  const [header, ...rows] = tableUnder(docPage(TABLE_PAGE, ROOT), TABLE_HEADING);

  it('has the columns the data fills', () => {
    expect(header).toEqual(HEADER);
  });

  it('holds exactly the known differences the scenarios expect, every cell as the data says, in id order', () => {
    const fromData = KNOWN_DIFFERENCES.map((d) => [d.id, d.row.where, d.row.argoCd, d.row.kubectlGitops, d.row.why]);
    expect(rows).toEqual(fromData);
  });

  it('has one known difference per id, in order, each naming the step that expects it', () => {
    const ids = KNOWN_DIFFERENCES.map((d) => d.id);
    expect(ids).toEqual(ids.map((_, i) => `C${i + 1}`));
    for (const d of KNOWN_DIFFERENCES) expect([d.id, d.row.where.includes(`\`${d.step}\``)]).toEqual([d.id, true]);
  });

  it('lists only steps a scenario compares: each step is named in its test file (test/conformance/<file>.test.ts)', () => {
    for (const d of KNOWN_DIFFERENCES) {
      const file = join(ROOT, 'test', 'conformance', `${d.step.split('/')[0]}.test.ts`);
      expect([d.step, readFileSync(file, 'utf8').includes(`'${d.step}'`)]).toEqual([d.step, true]);
    }
  });
});
