// The server's source over the workflow's data: views made once per comparison, the reason on list rows, a node's YAML.
import { buildStatusReport } from '../../../src/health/report.js';
import { viewSource, type ComparedApp, type DashboardData } from '../../../src/dashboard/source.js';
import type { AppRow } from '../../../src/dashboard/view.js';
import { brokenInput } from '../health/status-fixtures.js';

const row: AppRow = {
  id: 'argocd/shop',
  name: 'shop',
  namespace: 'argocd',
  project: 'default',
  labels: {},
  sync: 'OutOfSync',
  health: 'Progressing',
  destination: {},
  comparedAt: '2026-01-01T00:00:00Z',
};

function data(app: ComparedApp | undefined) {
  const asked: string[] = [];
  const d: DashboardData = {
    list: () => ({ apps: app ? [app.row] : [], loading: false }),
    app: (id) => (id === 'argocd/shop' ? app : undefined),
    liveObject: async (_id, key) => {
      asked.push(`${key.kind}/${key.name}`);
      return key.kind === 'Deployment'
        ? { object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: key.name } } }
        : { error: 'not in the cluster' };
    },
    refresh: () => undefined,
    subscribe: () => () => undefined,
  };
  return { d, asked };
}

describe('viewSource', () => {
  it('makes the view once per comparison and puts the reason on the list row', () => {
    const app: ComparedApp = { row, report: buildStatusReport(brokenInput()), warnings: [] };
    const { d } = data(app);
    const s = viewSource(d);
    const v1 = s.app('argocd/shop');
    expect(s.app('argocd/shop')).toBe(v1);
    expect(s.list().apps[0]?.reason).toMatch(/^Pod\/broken-6f9c-abcde: Unschedulable/);
    app.row = { ...row, comparedAt: '2026-01-01T00:01:00Z' };
    expect(s.app('argocd/shop')).not.toBe(v1);
    expect(s.app('argocd/nope')).toBeUndefined();
  });

  it('serves an app not compared yet with an empty map', () => {
    const s = viewSource(data({ row: { ...row, comparedAt: undefined } as AppRow, warnings: ['w'] }).d);
    expect(s.app('argocd/shop')).toMatchObject({ svg: '', nodes: [], warnings: ['w'] });
  });

  it('answers a node with its live object as YAML, or the reason it has none', async () => {
    const { d, asked } = data({ row, report: buildStatusReport(brokenInput()), warnings: [] });
    const s = viewSource(d);
    const nodes = s.app('argocd/shop')!.nodes;
    const deploy = nodes.find((n) => n.kind === 'Deployment')!;
    expect((await s.node('argocd/shop', deploy.id))?.yaml).toBe('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: broken\n');
    const svc = nodes.find((n) => n.kind === 'Service')!;
    expect(await s.node('argocd/shop', svc.id)).toMatchObject({ error: 'not in the cluster' });
    expect(await s.node('argocd/shop', 'app')).toEqual({ node: expect.objectContaining({ kind: 'Application' }) });
    expect(await s.node('argocd/shop', 'n999')).toBeUndefined();
    expect(asked).toEqual(['Deployment/broken', `Service/${svc.name}`]);
  });
});
