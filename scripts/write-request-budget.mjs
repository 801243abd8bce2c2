// Writes the request budget (test/fixtures/request-budget.json): the API requests each measured command makes, by
// method and path shape, on the local control plane (started, and the plugin built, as the integration suites' global
// setup does). test/integration/request-budget.test.ts measures the same with the same module
// (test/integration/support/request-budget.ts) and fails on growth; it never writes this file.
// `node scripts/write-request-budget.mjs` after a deliberate change of what a command reads or writes; review the diff.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importTs } from './import-ts.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const setup = await importTs(root, 'test/integration/global-setup.ts', { beside: true });
const teardown = await importTs(root, 'test/integration/global-teardown.ts', { beside: true });
const budget = await importTs(root, 'test/integration/support/request-budget.ts', { beside: true });
// A name pattern: no documentation-count tally for this run (the global setup's claims file).
await setup.default({ testNamePattern: 'request budget' });
let code = 0;
try {
  const measured = await budget.measureRequests();
  writeFileSync(join(root, budget.BUDGET_FILE), budget.formatBudget(measured));
  console.log(`wrote ${budget.BUDGET_FILE}: ${JSON.stringify(budget.totals(measured))}`);
} catch (err) {
  console.error(`write-request-budget: ${err.message}`);
  code = 1;
} finally {
  await teardown.default({ testPathPatterns: { patterns: ['request-budget'] }, testNamePattern: 'request budget' });
}
process.exit(code);
