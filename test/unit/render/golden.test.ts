// Every golden file (diff, status, the live map, sync, prune, the live diff) against what the renderers print today.
// The cases are in golden-cases.ts; only scripts/write-golden.mjs (`npm run golden:write`) writes the files.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { renderLiveDiff } from '../../../src/render/live-diff.js';
import { paint } from '../../../src/render/colour.js';
import { liveDiffServerSide } from '../../fixtures/reports/live-diff.js';
import { GOLDEN_DIR, goldenCases, readGolden, rewriteHint, WRITE_COMMAND } from './golden-cases.js';

const cases = goldenCases();
const ANSI = /\u001b\[\d+m/g;
const HAS_ANSI = /\u001b\[/;

describe('golden files', () => {
  it.each(cases.map((c) => [c.file, c] as const))('%s is what the renderer prints', async (file, c) => {
    const expected = readGolden(file);
    const actual = await c.render();
    try {
      expect(actual).toBe(expected);
    } catch (err) {
      (err as Error).message = `${rewriteHint(file, 'differs')}\n\n${(err as Error).message}`;
      throw err;
    }
  });

  it('renders the same text twice (nothing depends on the clock or on order)', async () => {
    const again = goldenCases();
    for (const [i, c] of cases.entries()) expect([c.file, await again[i]!.render()]).toEqual([c.file, await c.render()]);
  });

  it('has one case per file in test/fixtures/golden, and a file for every case', () => {
    const files = cases.map((c) => c.file);
    expect(new Set(files).size).toBe(files.length);
    // A golden file no case names would be checked by nothing: add its case to golden-cases.ts (or delete the file).
    expect({ 'not written by any case in test/unit/render/golden-cases.ts': readdirSync(GOLDEN_DIR).filter((f) => !files.includes(f)) }).toEqual({
      'not written by any case in test/unit/render/golden-cases.ts': [],
    });
    expect(readdirSync(GOLDEN_DIR).sort()).toEqual([...files].sort());
  });

  it('a missing golden file fails, naming the file and the command that writes it, and is not written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'golden-'));
    try {
      expect(() => readGolden('sync-new.txt', dir)).toThrow(`${GOLDEN_DIR}/sync-new.txt is missing: \`${WRITE_COMMAND}\` writes every golden file`);
      expect(existsSync(join(dir, 'sync-new.txt'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('colour is only in the -colour files, and takes nothing away: without its codes a coloured table is the plain one', () => {
    const coloured = cases.filter((c) => c.file.endsWith('-colour.txt'));
    expect(coloured.map((c) => c.file.replace(/-colour\.txt$/, ''))).toEqual([
      'sync-wave-failed',
      'sync-dry-run',
      'sync-refused',
      'prune-list',
      'prune-half-done',
      'live-diff-server-side',
    ]);
    for (const c of coloured) {
      const text = readGolden(c.file);
      expect(text).toMatch(HAS_ANSI);
      expect(text.replace(ANSI, '')).toBe(readGolden(c.file.replace(/-colour\.txt$/, '.txt')));
    }
    for (const c of cases.filter((x) => !x.file.endsWith('-colour.txt'))) expect([c.file, HAS_ANSI.test(readGolden(c.file))]).toEqual([c.file, false]);
  });

  it('the JSON files parse and carry schemaVersion 1', () => {
    for (const c of cases.filter((x) => x.file.endsWith('.json')))
      expect([c.file, (JSON.parse(readGolden(c.file)) as { schemaVersion: number }).schemaVersion]).toEqual([c.file, 1]);
  });
});

describe('what the golden files pin', () => {
  it('sync: every kind of kv line appears in some file', () => {
    const kv = cases
      .filter((c) => c.file.startsWith('sync-') && c.file.endsWith('.kv'))
      .map((c) => readGolden(c.file))
      .join('');
    const keys = new Set(
      kv
        .split('\n')
        .filter(Boolean)
        .map((l) => l.slice(0, l.indexOf('='))),
    );
    expect([...keys].sort()).toEqual(
      [
        'APPLIED',
        'APPLY',
        'CONFLICT',
        'DRY_RUN',
        'FAILED',
        'HEAL',
        'HEALED',
        'HOOK',
        'IGNORED',
        'INTERRUPTED',
        'NEXT_COMMAND',
        'PHASE',
        'PRUNE',
        'PRUNED',
        'PRUNE_BLOCKED',
        'PRUNE_CANDIDATE',
        'PRUNE_FAILED',
        'PRUNE_GONE',
        'PRUNE_SKIPPED',
        'REFUSED',
        'REVISION',
        'STOPPED',
        'WAVE',
      ].sort(),
    );
  });

  it('sync: a sync that ran ends with its operation phase and revision; a dry run has neither', () => {
    const tail = (file: string) => readGolden(file).trimEnd().split('\n').slice(-2);
    expect(tail('sync-interrupted.kv')).toEqual(['PHASE=Failed', 'REVISION=3f2a9c1e5b7d90a4c2e8f6b1d3a5c7e9f0b2d4a6']);
    expect(tail('sync-refused.kv')[1]).toBe('PHASE=Error');
    expect(readGolden('sync-dry-run.kv')).not.toMatch(/^(PHASE|REVISION)=/m);
  });

  it('prune: deleted, still there at the time limit, skipped with its reason, gone, changed and failed, each line whole', () => {
    expect(
      readGolden('prune-half-done.kv')
        .split('\n')
        .map((l) => l.slice(0, l.indexOf(' ') + 1 || undefined)),
    ).toEqual([
      'PRUNED=ConfigMap/old-config',
      'PRUNED=Service/orders-legacy',
      'PRUNE_TERMINATING=PersistentVolumeClaim/orders-data ',
      'PRUNE_SKIPPED=Deployment/legacy-worker ',
      'PRUNE_GONE=Secret/old-token',
      'PRUNE_FAILED=ConfigMap/feature-flags ',
      'PRUNE_FAILED=CronJob/nightly-report ',
      '',
    ]);
    expect(readGolden('prune-empty.kv')).toBe('');
  });

  it('live diff: the Secret values are masks, the conflict and the kept extra are shown, Unknown has its reason on one kv line', () => {
    const table = readGolden('live-diff-server-side.txt');
    expect(table).toMatch(/data\.password {2}"\+{8}" {2}"\+{12}"/);
    expect(table).toContain('(not pruned: Deployment/legacy-worker annotated argocd.argoproj.io/sync-options: Prune=false)');
    expect(readGolden('live-diff-server-side.kv')).toContain('\nCONFLICT=Deployment/orders spec.template.spec.containers[name=orders].image kubectl-set\n');
    expect(readGolden('live-diff-unknown.kv').split('\n')).toHaveLength(3);
  });

  it('live diff: the table counts owner ages from the time it is given', () => {
    const at = (iso: string) => renderLiveDiff(liveDiffServerSide(), 'table', paint(false), 'argocd-controller', new Date(iso));
    expect(at('2026-11-30T05:00:00Z')).toContain('kubectl-edit (Update, 30s)');
    expect(at('2026-11-30T06:00:00Z')).toContain('kubectl-edit (Update, 60m)');
  });
});

describe('scripts/write-golden.mjs', () => {
  const run = promisify(execFile);
  const writer = (...args: string[]) => run(process.execPath, ['scripts/write-golden.mjs', ...args], { cwd: process.cwd() });

  it('writes byte for byte the committed files (so running it on a clean tree leaves git status clean)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'golden-out-'));
    try {
      const { stdout } = await writer('--out', out);
      expect(stdout.split('\n').filter((l) => l.startsWith('wrote '))).toHaveLength(cases.length);
      expect(readdirSync(out).sort()).toEqual(readdirSync(GOLDEN_DIR).sort());
      for (const f of readdirSync(out)) expect([f, readFileSync(join(out, f), 'utf8')]).toEqual([f, readGolden(f)]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('--check writes nothing and fails naming the missing files and the command', async () => {
    const out = mkdtempSync(join(tmpdir(), 'golden-check-'));
    try {
      const err = (await writer('--check', '--out', out).then(
        () => undefined,
        (e: unknown) => e,
      )) as { code: number; stdout: string };
      expect(err.code).toBe(1);
      expect(err.stdout).toContain(`missing ${out}/sync-wave-failed.txt\n`);
      expect(err.stdout).toContain(`${cases.length} golden file(s) out of date: run \`${WRITE_COMMAND}\``);
      expect(readdirSync(out)).toEqual([]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
