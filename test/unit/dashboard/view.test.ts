// The dashboard's data: list rows, app views with field tables on drifted nodes, live objects with Secrets masked.
import { buildStatusReport } from '../../../src/health/report.js';
import { appView, fieldRows, type AppRow } from '../../../src/dashboard/view.js';
import { app as statusApp } from '../health/status-fixtures.js';
import { displayObject } from '../../../src/dashboard/live-object.js';
import { baseRow } from '../../../src/workflows/dashboard.js';
import { brokenInput } from '../health/status-fixtures.js';
import type { KubeObject } from '../../../src/model/object.js';
import { parsePath } from '../../../src/model/field-path.js';
import { application, inCluster } from '../../support/application.js';

const row: AppRow = {
  id: 'argocd/shop',
  name: 'shop',
  namespace: 'argocd',
  project: 'default',
  labels: {},
  sync: 'OutOfSync',
  health: 'Progressing',
  destination: { namespace: 'shop' },
};
const now = new Date('2026-01-01T12:00:00Z');

describe('dashboard view', () => {
  it('puts the field table, with owners, operation and age, on the drifted resource node', () => {
    const report = buildStatusReport(brokenInput());
    const diff = {
      objects: [
        {
          key: { group: '', kind: 'Service', namespace: 'shop', name: 'web' },
          apiVersion: 'v1',
          status: 'drifted' as const,
          fields: [
            {
              path: parsePath('spec.type'),
              pointer: '/spec/type',
              desired: 'ClusterIP',
              live: 'NodePort',
              owners: [{ manager: 'kubectl-edit', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T11:55:00Z' }],
              verdict: 'drift' as const,
            },
            {
              path: parsePath('spec.replicas'),
              pointer: '/spec/replicas',
              desired: 1,
              live: 3,
              owners: [{ manager: 'kubectl-scale', operation: 'Update', subresource: 'scale', apiVersion: 'v1' }],
              verdict: 'conflict' as const,
            },
          ],
        },
      ],
    };
    const v = appView(row, report, diff, ['a warning'], now);
    const web = v.nodes.find((n) => n.kind === 'Service' && n.name === 'web')!;
    expect(web.fields).toEqual([
      {
        path: 'spec.type',
        desired: '"ClusterIP"',
        live: '"NodePort"',
        owners: [{ manager: 'kubectl-edit', operation: 'Update', age: '5m' }],
        verdict: 'drift',
        kind: 'drift',
      },
      {
        path: 'spec.replicas',
        desired: '1',
        live: '3',
        owners: [{ manager: 'kubectl-scale', operation: 'Update/scale' }],
        verdict: 'conflict',
        kind: 'conflict',
      },
    ]);
    expect(v.nodes.filter((n) => n.fields !== undefined)).toHaveLength(1);
    expect(v.row.reason).toMatch(/^Pod\/broken-6f9c-abcde: Unschedulable/);
    expect(v.svg).toContain('data-node="n4"');
    expect(v.warnings).toEqual(['a warning']);
    expect(v.nodes.some((n) => 'x' in n)).toBe(false);
  });

  it('formats ages as the terminal table does', () => {
    expect(
      fieldRows(
        [
          {
            path: parsePath('a'),
            pointer: '/a',
            owners: [{ manager: 'm', operation: 'Apply', apiVersion: 'v1', time: '2026-01-01T10:00:00Z' }],
            verdict: 'removed',
            live: 'x',
          },
        ],
        now,
      )[0],
    ).toEqual({
      path: 'a',
      desired: '<absent>',
      live: '"x"',
      owners: [{ manager: 'm', operation: 'Apply', age: '2h' }],
      verdict: 'removed',
      kind: 'removed',
    });
  });

  it('shows a live Secret with every value masked, normalized but with its status', () => {
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'creds',
        namespace: 'shop',
        uid: 'u1',
        managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"stringData":{"password":"hunter2"}}', team: 'a' },
      },
      data: { password: 'aHVudGVyMg==', user: 'YWRtaW4=' },
      stringData: { token: 'plain-token' },
    };
    const shown = JSON.stringify(displayObject(secret));
    for (const secretText of ['aHVudGVyMg==', 'YWRtaW4=', 'plain-token', 'hunter2']) expect(shown).not.toContain(secretText);
    expect(displayObject(secret)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'shop', annotations: { team: 'a' } },
      data: { password: '++++++++', user: '++++++++' },
      stringData: { token: '++++++++' },
    });
    // argocd-cm's resource.sensitive.mask.annotations: those annotations' values are masked too.
    expect(displayObject(secret, new Set(['team'])).metadata.annotations).toEqual({ team: '++++++++' });
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', resourceVersion: '5' }, spec: {}, status: { phase: 'Running' } };
    expect(displayObject(pod)).toEqual({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {}, status: { phase: 'Running' } });
  });

  it('makes a list row from an Application object', () => {
    const app = application({
      labels: { team: 'web' },
      spec: { project: 'p1', destination: inCluster('shop') },
      status: { operationState: { finishedAt: '2026-01-01T00:00:00Z' } },
    });
    expect(baseRow(app)).toEqual({
      id: 'argocd/shop',
      name: 'shop',
      namespace: 'argocd',
      project: 'p1',
      labels: { team: 'web' },
      sync: 'Unknown',
      health: 'Unknown',
      destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
      lastSync: '2026-01-01T00:00:00Z',
    });
  });
});

describe('a child Application on the map (app-of-apps)', () => {
  const child = (name: string): KubeObject =>
    ({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name, namespace: 'argocd' }, spec: {} }) as unknown as KubeObject;
  const report = buildStatusReport({
    app: statusApp(),
    resources: [
      { key: { group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name: 'web' }, comparison: 'in-sync', live: child('web') },
      { key: { group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name: 'far' }, comparison: 'in-sync', live: child('far') },
    ],
    children: [],
  });
  const rows: Record<string, AppRow> = { 'argocd/web': { ...row, id: 'argocd/web', name: 'web', sync: 'OutOfSync', health: 'Degraded' } };

  it('is drawn with its own health and carries its id, sync and health when this dashboard lists it', () => {
    const view = appView(row, report, undefined, [], now, (id) => rows[id]);
    const node = (name: string) => view.nodes.find((n) => n.key?.name === name)!;
    expect(node('web').app).toEqual({ id: 'argocd/web', listed: true, sync: 'OutOfSync', health: 'Degraded' });
    expect(node('web').health).toBe('Degraded');
    expect(node('far').app).toEqual({ id: 'argocd/far', listed: false });
    expect(view.svg).toMatch(/<g class="node health-degraded[^"]*"[^>]*data-node="[^"]+"/);
    // Without the dashboard's rows, the node says what the parent's report says (no health check for the kind).
    expect(appView(row, report, undefined, [], now).nodes.find((n) => n.key?.name === 'web')?.app).toEqual({ id: 'argocd/web', listed: false });
  });
});
