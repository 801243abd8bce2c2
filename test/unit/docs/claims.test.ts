// The documentation's counts against what the integration suites tallied, both ways (global-teardown.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claimMismatches } from '../../integration/global-teardown.js';
import { tempDir } from '../../support/temp-dir.js';

const DOCS = 'We check 22<!-- claim bad-input.inputs --> inputs and 7<!-- claim secrets.values --> values; 30<!-- claim fuzz.properties --> properties.';

function claims(lines: { name: string; value: number }[]): string {
  const file = join(tempDir('claims-'), 'claims.jsonl');
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

test('a tally with no mark, or another number, fails in any run', () => {
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
});

test('a mark no suite tallied fails only when the whole integration project ran (unit-tallied claims excepted)', () => {
  const file = claims([{ name: 'bad-input.inputs', value: 22 }]);
  expect(claimMismatches(file, DOCS, false)).toEqual([]);
  expect(claimMismatches(file, DOCS, true)).toEqual([
    'secrets.values: the documentation says 7, but no suite of this whole run counted it (a stale mark, or a suite that stopped counting)',
  ]);
});
