// The documentation's fuzzing counts (README.md and docs/**/*.md), read from the property tests themselves: how many
// properties, and how many cases a run of `npm test` generates (each property's numRuns, fast-check's default 100 when
// it sets none); and every test file or folder the documentation points at exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { docsText } from '../support/docs.js';
import { RUNS } from './fuzz/arbitraries.js';

const FUZZ = join(process.cwd(), 'test/unit/fuzz');
const DOCS = docsText();

function claimed(name: string): number | undefined {
  const m = DOCS.match(new RegExp(`(\\d[\\d,]*)<!-- claim ${name.replace(/\./g, '\\.')} -->`));
  return m ? Number(m[1]!.replace(/,/g, '')) : undefined;
}

function fuzzCounts(): { properties: number; cases: number } {
  let properties = 0;
  let cases = 0;
  for (const f of readdirSync(FUZZ).filter((x) => x.endsWith('.fuzz.test.ts'))) {
    // Each fc.assert(...) call up to the next one: its numRuns, if it sets one.
    const chunks = readFileSync(join(FUZZ, f), 'utf8').split('fc.assert(').slice(1);
    for (const chunk of chunks) {
      properties++;
      const m = chunk.match(/numRuns: (RUNS\.(\w+)|\d+)/);
      cases += !m ? 100 : m[2] ? RUNS[m[2] as keyof typeof RUNS] : Number(m[1]);
    }
  }
  return { properties, cases };
}

test('the documentation states the number of fuzz properties and cases the property tests define', () => {
  const { properties, cases } = fuzzCounts();
  expect(properties).toBeGreaterThan(20);
  expect({ properties: claimed('fuzz.properties'), cases: claimed('fuzz.cases') }).toEqual({ properties, cases });
});

test('every test file or folder the documentation (README.md and docs/) points at exists', () => {
  // test/screenshots/ is what the dashboard suite writes (git-ignored).
  const paths = [...new Set([...DOCS.matchAll(/`(test\/[\w./-]+)`/g)].map((m) => m[1]!))].filter((p) => p !== 'test/screenshots/');
  expect(paths.length).toBeGreaterThan(50);
  expect(paths.filter((p) => !existsSync(join(process.cwd(), p)))).toEqual([]);
});
