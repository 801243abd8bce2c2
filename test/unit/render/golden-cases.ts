// Every golden file under test/fixtures/golden and how it is rendered: the one list that scripts/write-golden.mjs
// writes from and test/unit/render/golden.test.ts checks against (the test never writes a golden file).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFileDiff } from '../../../src/workflows/diff/file-diff.js';
import { buildStatusReport } from '../../../src/health/report.js';
import { renderDiff } from '../../../src/render/diff.js';
import { renderStatus } from '../../../src/render/status.js';
import { renderStatusGraph } from '../../../src/render/status-graph.js';
import { renderSync } from '../../../src/render/sync.js';
import { renderPrune } from '../../../src/render/prune.js';
import { renderLiveDiff } from '../../../src/render/live-diff.js';
import { paint } from '../../../src/render/colour.js';
import type { OutputFormat } from '../../../src/render/colour.js';
import type { DiffReport } from '../../../src/diff/types.js';
import { brokenInput } from '../health/status-fixtures.js';
import {
  syncDryRun,
  syncDryRunNoPrune,
  syncPruneIncomplete,
  syncInterrupted,
  syncRefused,
  syncStoppedOnConflicts,
  syncWaveFailed,
} from '../../fixtures/reports/sync.js';
import { pruneEmpty, pruneHalfDone, pruneList } from '../../fixtures/reports/prune.js';
import { LIVE_DIFF_NOW, liveDiffNoConflicts, liveDiffServerSide, liveDiffUnknown } from '../../fixtures/reports/live-diff.js';

/** Where the golden files live, relative to the repository root (the working directory of jest and of the writer). */
export const GOLDEN_DIR = 'test/fixtures/golden';
/** The command that writes them all. */
export const WRITE_COMMAND = 'npm run golden:write';

export interface GoldenCase {
  /** The file name under GOLDEN_DIR. */
  file: string;
  render: () => string | Promise<string>;
}

/** The time the file-mode diff golden files count owner ages from. */
const DIFF_NOW = new Date('2026-11-30T05:00:00Z');
const DIFF_IN = join(process.cwd(), 'test/fixtures/manifests/golden');

const plain = paint(false);
const colour = paint(true);

/** The table (plain; `-colour.txt` with ANSI colours too), kv and json of one report. */
function forms(stem: string, render: (format: OutputFormat, paint: typeof plain) => string, opts: { colour?: boolean; json?: boolean } = {}): GoldenCase[] {
  return [
    { file: `${stem}.txt`, render: () => render('table', plain) },
    ...(opts.colour ? [{ file: `${stem}-colour.txt`, render: () => render('table', colour) }] : []),
    { file: `${stem}.kv`, render: () => render('kv', plain) },
    ...(opts.json === false ? [] : [{ file: `${stem}.json`, render: () => render('json', plain) }]),
  ];
}

/** Every golden file, in a fixed order; each call builds its reports afresh. */
export function goldenCases(): GoldenCase[] {
  let fileDiff: Promise<DiffReport> | undefined;
  const diffReport = () =>
    (fileDiff ??= runFileDiff({
      desired: join(DIFF_IN, 'desired.yaml'),
      live: join(DIFF_IN, 'live.yaml'),
      appFile: join(DIFF_IN, 'app.yaml'),
      fieldManager: 'argocd-controller',
    }).then((r) => r.report));
  const status = (output: OutputFormat, tree = false) => renderStatus(buildStatusReport(brokenInput()), { output, tree, paint: plain });
  return [
    // `diff -f DESIRED --live LIVE` (file mode)
    { file: 'diff-table.txt', render: async () => renderDiff(await diffReport(), 'table', plain, DIFF_NOW) },
    { file: 'diff.kv', render: async () => renderDiff(await diffReport(), 'kv', plain, DIFF_NOW) },
    { file: 'diff.json', render: async () => renderDiff(await diffReport(), 'json', plain, DIFF_NOW) },
    // `status`, and its live map
    { file: 'status-broken.txt', render: () => status('table') },
    { file: 'status-broken-tree.txt', render: () => status('table', true) },
    { file: 'status-broken.kv', render: () => status('kv') },
    { file: 'status-broken.json', render: () => status('json') },
    { file: 'status-broken.dot', render: () => renderStatusGraph(buildStatusReport(brokenInput()), 'dot') ?? '' },
    { file: 'status-broken.svg', render: () => renderStatusGraph(buildStatusReport(brokenInput()), 'svg') ?? '' },
    // `sync`
    ...forms('sync-wave-failed', (f, p) => renderSync(syncWaveFailed(), f, p), { colour: true }),
    ...forms('sync-prune-incomplete', (f, p) => renderSync(syncPruneIncomplete(), f, p)),
    ...forms('sync-dry-run', (f, p) => renderSync(syncDryRun(), f, p), { colour: true }),
    ...forms('sync-dry-run-no-prune', (f, p) => renderSync(syncDryRunNoPrune(), f, p), { json: false }),
    ...forms('sync-refused', (f, p) => renderSync(syncRefused(), f, p), { colour: true }),
    ...forms('sync-stopped-on-conflicts', (f, p) => renderSync(syncStoppedOnConflicts(), f, p)),
    ...forms('sync-interrupted', (f, p) => renderSync(syncInterrupted(), f, p), { json: false }),
    // `prune`
    ...forms('prune-list', (f, p) => renderPrune(pruneList(), f, p), { colour: true }),
    ...forms('prune-half-done', (f, p) => renderPrune(pruneHalfDone(), f, p), { colour: true }),
    ...forms('prune-empty', (f, p) => renderPrune(pruneEmpty(), f, p), { json: false }),
    // `diff` against the cluster
    ...forms('live-diff-server-side', (f, p) => renderLiveDiff(liveDiffServerSide(), f, p, 'argocd-controller', LIVE_DIFF_NOW), { colour: true }),
    ...forms('live-diff-no-conflicts', (f, p) => renderLiveDiff(liveDiffNoConflicts(), f, p, 'argocd-controller', LIVE_DIFF_NOW), { json: false }),
    ...forms('live-diff-unknown', (f, p) => renderLiveDiff(liveDiffUnknown(), f, p, 'argocd-controller', LIVE_DIFF_NOW)),
  ];
}

/** Why a golden file is missing or differs, and the command that writes it. */
export function rewriteHint(file: string, what: 'is missing' | 'differs'): string {
  return `${GOLDEN_DIR}/${file} ${what}: \`${WRITE_COMMAND}\` writes every golden file from the cases in test/unit/render/golden-cases.ts; run it after a deliberate change of output and review the diff before committing`;
}

/** A golden file's committed text; throws naming the file and the command when it is missing (never writes it). */
export function readGolden(file: string, dir: string = GOLDEN_DIR): string {
  const path = join(dir, file);
  if (!existsSync(path)) throw new Error(rewriteHint(file, 'is missing'));
  return readFileSync(path, 'utf8');
}
