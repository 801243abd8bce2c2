// The status output's rules: kv lines, colour, one-line reasons (its golden files are checked in golden.test.ts).
import { buildStatusReport } from '../../../src/health/report.js';
import { renderStatus, renderStatusKv } from '../../../src/render/status.js';
import { paint } from '../../../src/render/colour.js';
import { app, brokenInput, loadTree } from '../health/status-fixtures.js';

const plain = paint(false);

describe('renderStatus', () => {
  it('prints exactly the five kv lines, REASON carrying the scheduler message on one line', () => {
    const lines = renderStatusKv(buildStatusReport(brokenInput())).trimEnd().split('\n');
    expect(lines.map((l) => l.slice(0, l.indexOf('=') + 1))).toEqual(['SYNC=', 'HEALTH=', 'REASON=', 'PRUNE=', 'ALLOW_EMPTY=']);
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
    expect(renderStatusKv(r)).toMatch(/\nPRUNE=false\nALLOW_EMPTY=false\n$/);
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
