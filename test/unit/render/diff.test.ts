import { join } from 'node:path';
import { runFileDiff } from '../../../src/workflows/diff/file-diff.js';
import { renderDiff, formatAge, formatValue } from '../../../src/render/diff.js';
import { paint } from '../../../src/render/colour.js';
import type { DiffReport } from '../../../src/diff/types.js';

const IN = join(process.cwd(), 'test/fixtures/manifests/golden');
const NOW = new Date('2026-11-30T05:00:00Z');

let report: DiffReport;
beforeAll(async () => {
  ({ report } = await runFileDiff({
    desired: join(IN, 'desired.yaml'),
    live: join(IN, 'live.yaml'),
    appFile: join(IN, 'app.yaml'),
    fieldManager: 'argocd-controller',
  }));
});

// The golden files (diff-table.txt, diff.kv, diff.json) are checked in golden.test.ts, written only by `npm run golden:write`.
describe('diff rendering', () => {
  it('the table ends with OUTOFSYNC and the kv lines are the documented ones', () => {
    const table = renderDiff(report, 'table', paint(false), NOW);
    expect(table.trimEnd().split('\n').at(-1)).toBe('OUTOFSYNC');
    expect(renderDiff(report, 'kv', paint(false), NOW).split('\n')).toEqual([
      'SYNC=OutOfSync',
      'DRIFT=Deployment/orders spec.template.spec.containers[name=orders].image',
      'MISSING=ConfigMap/orders-config',
      'DRIFT=Secret/orders-db data.password',
      'DRIFT=Ingress/orders spec.rules[0].host',
      '',
    ]);
  });

  it('colours the table only when told to, and the colours carry no text of their own', () => {
    const plain = renderDiff(report, 'table', paint(false), NOW);
    const coloured = renderDiff(report, 'table', paint(true), NOW);
    expect(plain).not.toMatch(/\u001b\[/);
    expect(coloured).toMatch(/\u001b\[31mOUTOFSYNC\u001b\[39m/);
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(plain);
  });

  it('json and yaml carry the schema version and never colour codes', () => {
    const json = JSON.parse(renderDiff(report, 'json', paint(true), NOW)) as DiffReport;
    expect(json.schemaVersion).toBe(1);
    expect(renderDiff(report, 'yaml', paint(true), NOW)).toMatch(/^schemaVersion: 1\nsync: OutOfSync\n/);
    expect(renderDiff(report, 'yaml', paint(true), NOW)).not.toMatch(/\u001b\[/);
  });

  it('never prints the Secret values in any format', () => {
    for (const f of ['table', 'json', 'yaml', 'kv'] as const) {
      const text = renderDiff(report, f, paint(false), NOW);
      for (const secret of ['correct-horse', 'Y29ycmVjdC1ob3JzZQ==', 'aHVudGVyMg==', 'hunter2', 'b3JkZXJz']) expect(text).not.toContain(secret);
    }
  });

  it('ends with SYNCED when in sync', () => {
    const synced: DiffReport = { schemaVersion: 1, sync: 'Synced', objects: [], extras: [], warnings: [] };
    expect(renderDiff(synced, 'table', paint(false), NOW)).toBe('SYNCED\n');
    expect(renderDiff(synced, 'kv', paint(false), NOW)).toBe('SYNC=Synced\n');
  });

  it('lists extras as EXTRA lines', () => {
    const r: DiffReport = {
      schemaVersion: 1,
      sync: 'OutOfSync',
      objects: [],
      extras: [{ group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'old' }],
      warnings: [],
    };
    expect(renderDiff(r, 'kv', paint(false), NOW)).toBe('SYNC=OutOfSync\nEXTRA=Deployment/old\n');
    expect(renderDiff(r, 'table', paint(false), NOW)).toContain('Deployment/old (namespace shop)  EXTRA');
  });
});

describe('cells', () => {
  it('values are JSON so 3 and "3" differ; absent is spelled out', () => {
    expect(formatValue(3)).toBe('3');
    expect(formatValue('3')).toBe('"3"');
    expect(formatValue(undefined)).toBe('<absent>');
    expect(formatValue('x'.repeat(100))).toHaveLength(48);
  });
  it('ages read like kubectl', () => {
    expect(formatAge('2026-11-30T04:59:30Z', NOW)).toBe('30s');
    expect(formatAge('2026-11-30T04:50:00Z', NOW)).toBe('10m');
    expect(formatAge('2026-11-30T02:00:00Z', NOW)).toBe('3h');
    expect(formatAge('2026-11-20T05:00:00Z', NOW)).toBe('10d');
    expect(formatAge(undefined, NOW)).toBeUndefined();
  });
});
