// The status output's rules: kv lines, colour, one-line reasons (its golden files are checked in golden.test.ts).
import { buildStatusReport } from '../../../src/health/report.js';
import { renderStatus, renderStatusKv } from '../../../src/render/status.js';
import { paint } from '../../../src/render/colour.js';
import { app, brokenInput, cm, loadTree, res } from '../health/status-fixtures.js';
import type { KubeObject } from '../../../src/model/object.js';

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

  describe('--tree with child Applications (app-of-apps)', () => {
    const application = (name: string): KubeObject => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name, namespace: 'shop', uid: `app-${name}` },
      spec: {},
    });
    const parent = () => buildStatusReport({ app: app(), resources: [res(application('front'), 'in-sync'), res(cm('settings'), 'in-sync')], children: [] });

    it('without --recursive a child Application is one node, and the row says how to draw its tree', () => {
      const table = renderStatus(parent(), { output: 'table', tree: true, paint: plain });
      expect(table.split('\n').filter((l) => /^(KIND|Application|ConfigMap)/.test(l))).toEqual([
        'KIND/NAME           STATUS  HEALTH  MESSAGE',
        'ConfigMap/settings  Synced  -',
        'Application/front   Synced  -       child Application: --recursive draws its tree',
      ]);
    });

    it("with --recursive each child is a node with its own live sync and health, its resources' trees under it, to any depth", () => {
      const r = parent();
      const child = buildStatusReport({ app: app(), resources: [res(application('api'), 'in-sync'), res(cm('front-cm'), 'drifted')], children: [] });
      const grandchild = buildStatusReport({ app: app(), resources: [res(cm('api-cm'), 'in-sync')], children: [] });
      r.children = [
        {
          namespace: 'shop',
          name: 'front',
          sync: 'OutOfSync',
          health: 'Healthy',
          resources: child.resources,
          trees: child.trees,
          children: [
            {
              namespace: 'shop',
              name: 'api',
              sync: 'Synced',
              health: 'Degraded',
              reason: 'Deployment/api: boom',
              resources: grandchild.resources,
              trees: grandchild.trees,
            },
          ],
        },
      ];
      const table = renderStatus(r, { output: 'table', tree: true, paint: plain });
      expect(table.split('\n').filter((l) => /^(KIND|Application|ConfigMap|[├└│ ])/.test(l))).toEqual([
        'KIND/NAME               STATUS     HEALTH    MESSAGE',
        'ConfigMap/settings      Synced     -',
        'Application/front       Synced     Healthy   application OutOfSync',
        '├─ ConfigMap/front-cm   OutOfSync  -         drifted',
        '└─ Application/api      Synced     Degraded  application Synced: Deployment/api: boom',
        '   └─ ConfigMap/api-cm  Synced     -',
      ]);
      // The tree holds the children: no second list under it; without --tree the list is printed.
      expect(table).not.toContain('Child Applications (compared live):');
      expect(renderStatus(r, { output: 'table', tree: false, paint: plain })).toContain('Child Applications (compared live):');
      // A child that could not be compared is a node with the reason, in red when colour is on.
      r.children = [
        {
          namespace: 'shop',
          name: 'front',
          sync: 'Unknown',
          health: 'Unknown',
          error: 'its own ancestor (shop/shop -> shop/front -> shop/shop): not followed',
        },
      ];
      const coloured = renderStatus(r, { output: 'table', tree: true, paint: paint(true) });
      expect(coloured).toContain('\u001b[31mapplication Unknown: its own ancestor (shop/shop -> shop/front -> shop/shop): not followed');
    });
  });
});
