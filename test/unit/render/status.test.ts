// The status output's rules: kv lines, colour, one-line reasons (its golden files are checked in golden.test.ts).
import { buildStatusReport } from '../../../src/health/report.js';
import { renderStatus, renderStatusKv } from '../../../src/render/status.js';
import { paint } from '../../../src/render/colour.js';
import { app, brokenInput, loadTree } from '../health/status-fixtures.js';

const plain = paint(false);

describe('renderStatus', () => {
  it('prints the five kv lines first, REASON carrying the scheduler message on one line, then REVISION and a line per resource', () => {
    const lines = renderStatusKv(buildStatusReport(brokenInput())).trimEnd().split('\n');
    expect(lines.map((l) => l.slice(0, l.indexOf('=') + 1))).toEqual([
      'SYNC=',
      'HEALTH=',
      'REASON=',
      'PRUNE=',
      'ALLOW_EMPTY=',
      'REVISION=',
      ...Array(5).fill('RESOURCE='),
    ]);
    expect(lines[2]).toMatch(
      /^REASON=Pod\/broken-6f9c-abcde: Unschedulable: 0\/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector\./,
    );
    expect(lines[3]).toBe('PRUNE=true');
    expect(lines[4]).toBe('ALLOW_EMPTY=false');
  });

  it('echoes false for PRUNE and ALLOW_EMPTY when the app has no automated policy', () => {
    const [deploy, ...children] = loadTree('unschedulable.yaml');
    const r = buildStatusReport({
      app: app(),
      resources: [{ key: { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'broken' }, comparison: 'in-sync', live: deploy! }],
      children,
    });
    expect(renderStatusKv(r)).toMatch(/\nPRUNE=false\nALLOW_EMPTY=false\nRESOURCE=Deployment\/broken Synced Progressing\n$/);
  });

  it('shows the last operation and the stored conditions, as argocd app get: PHASE=, OPERATION_REVISION=, OPERATION_MESSAGE=, CONDITION=', () => {
    const base = app();
    const r = buildStatusReport({
      app: {
        ...base,
        operation: {
          requested: false,
          phase: 'Failed',
          message: 'one or more objects failed to apply\nreason: x',
          revision: 'abc1234def',
          finishedAt: '2026-01-01T00:00:05Z',
        },
        conditions: [{ type: 'ComparisonError', message: 'rendering app/ failed' }],
      },
      resources: [],
      children: [],
    });
    expect(renderStatusKv(r).split('\n').slice(5)).toEqual([
      'PHASE=Failed',
      'OPERATION_REVISION=abc1234def',
      'OPERATION_MESSAGE=one or more objects failed to apply reason: x',
      'CONDITION=ComparisonError rendering app/ failed',
      '',
    ]);
    const table = renderStatus(r, { output: 'table', tree: false, paint: plain });
    expect(table).toContain('Last Sync:      Failed at 2026-01-01T00:00:05Z, revision abc1234def: one or more objects failed to apply reason: x');
    expect(table).toContain('Condition:      ComparisonError: rendering app/ failed');
  });

  it('has an empty REASON when Healthy', () => {
    const r = buildStatusReport({ app: app(), resources: [], children: [] });
    expect(renderStatusKv(r)).toBe('SYNC=Synced\nHEALTH=Healthy\nREASON=\nPRUNE=false\nALLOW_EMPTY=false\n');
  });

  it('colours the STATUS and HEALTH cells only when asked, keeping columns aligned', () => {
    const r = buildStatusReport(brokenInput());
    const coloured = renderStatus(r, { output: 'table', tree: false, paint: paint(true) });
    expect(coloured).toContain('\u001b[33mOutOfSync');
    expect(coloured).toContain('\u001b[36mProgressing');
    // Without escape codes the coloured table is the plain one.
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(renderStatus(r, { output: 'table', tree: false, paint: plain }));
    expect(renderStatus(r, { output: 'json', tree: false, paint: paint(true) })).not.toMatch(/\u001b\[/);
  });
});
