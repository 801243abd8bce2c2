// The documentation's counts against what the integration suites tallied, both ways (global-teardown.ts), and how a
// suite knows its counts are whole (support/claims.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claimMismatches } from '../../integration/global-teardown.js';
import { suiteComplete } from '../../integration/support/claims.js';
import { tempDir } from '../../support/temp-dir.js';

const DOCS = 'We check 22<!-- claim bad-input.inputs --> inputs and 7<!-- claim secrets.values --> values; 30<!-- claim fuzz.properties --> properties.';

function claims(lines: { name: string; value: number; complete?: boolean }[]): string {
  const file = join(tempDir('claims-'), 'claims.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify({ complete: true, ...l })).join('\n') + '\n');
  return file;
}

test('a count with no mark, or another number, fails in any run', () => {
  const file = claims([
    { name: 'bad-input.inputs', value: 20 },
    { name: 'bad-input.inputs', value: 2 },
    { name: 'faults.h2-runs', value: 24 },
  ]);
  expect(claimMismatches(file, DOCS, false)).toEqual([
    'faults.h2-runs: the tests counted 24; no page (README.md, docs/) has a `24<!-- claim faults.h2-runs -->` mark',
  ]);
  expect(claimMismatches(claims([{ name: 'secrets.values', value: 8 }]), DOCS, false)).toEqual([
    'secrets.values: the documentation says 7, the tests counted 8',
  ]);
  // A suite that counted nothing of a claim it names records 0: that differs too.
  expect(claimMismatches(claims([{ name: 'secrets.values', value: 0 }]), DOCS, false)).toEqual([
    'secrets.values: the documentation says 7, the tests counted 0',
  ]);
});

test('a count from a partial suite (filtered by -t, or a test failed) is listed as not compared, never as a match', () => {
  const partial: string[] = [];
  const file = claims([
    { name: 'bad-input.inputs', value: 3, complete: false },
    { name: 'secrets.values', value: 7 },
  ]);
  expect(claimMismatches(file, DOCS, false, partial)).toEqual([]);
  expect(partial).toEqual(['bad-input.inputs']);
  // One partial record of a claim makes the whole claim partial (two suites may count one claim).
  const both: string[] = [];
  expect(
    claimMismatches(
      claims([
        { name: 'bad-input.inputs', value: 11 },
        { name: 'bad-input.inputs', value: 11, complete: false },
      ]),
      DOCS,
      false,
      both,
    ),
  ).toEqual([]);
  expect(both).toEqual(['bad-input.inputs']);
  // A mark must exist even for a partial count.
  expect(claimMismatches(claims([{ name: 'faults.h2-runs', value: 1, complete: false }]), DOCS, false)).toEqual([
    'faults.h2-runs: the tests counted 1; no page (README.md, docs/) has a `1<!-- claim faults.h2-runs -->` mark',
  ]);
});

test('a mark no suite counted fails only when the whole integration project ran (unit-tallied claims excepted)', () => {
  const file = claims([{ name: 'bad-input.inputs', value: 22 }]);
  expect(claimMismatches(file, DOCS, false)).toEqual([]);
  expect(claimMismatches(file, DOCS, true)).toEqual([
    'secrets.values: the documentation says 7, but no suite of this whole run counted it (a stale mark, or a suite that stopped counting)',
  ]);
});

describe("a suite's counts are whole only when every test ran and passed", () => {
  const STATE = Symbol('JEST_STATE_SYMBOL');
  const test1 = (status: string | undefined, errors: unknown[] = []) => ({ type: 'test' as const, status, errors });
  const globalWith = (children: unknown[]) => ({ [STATE]: { rootDescribeBlock: { type: 'describeBlock', children } } });

  it('reads the test tree, nested blocks included', () => {
    expect(suiteComplete(globalWith([test1('done'), { type: 'describeBlock', children: [test1('done')] }]))).toBe(true);
    expect(suiteComplete(globalWith([test1('done'), { type: 'describeBlock', children: [test1('skip')] }]))).toBe(false);
    expect(suiteComplete(globalWith([test1('done', [new Error('x')])]))).toBe(false);
    expect(suiteComplete(globalWith([test1(undefined)]))).toBe(false);
  });

  it("reads this very suite's state, and fails loudly where Jest keeps none", () => {
    // This test has not finished yet, so the suite is not whole; the afterAll below sees it whole.
    expect(suiteComplete()).toBe(false);
    expect(() => suiteComplete({})).toThrow(/JEST_STATE_SYMBOL/);
  });

  afterAll(() => {
    expect(suiteComplete()).toBe(true);
  });
});
