// list's pieces: the bound on apps compared at once, the last sync a status records, and the renderers' kv lines.
import { humanAge, lastSyncOf, listApplications, mapBounded, storedRow, type ListReport } from '../../../src/workflows/list.js';
import { renderList } from '../../../src/render/list.js';
import { renderHistory } from '../../../src/render/history.js';
import { historyReport } from '../../../src/workflows/history/history.js';
import { renderSyncAll } from '../../../src/render/sync-all.js';
import { syncAllExitCode, type SyncAllReport } from '../../../src/workflows/sync/sync-all.js';
import { paint } from '../../../src/render/colour.js';
import { FakeGateway } from '../../support/fake-gateway.js';
import type { KubeObject } from '../../../src/model/object.js';
import { application } from '../../support/application.js';

const app = (name: string, namespace: string, status: object = {}, labels: Record<string, string> = {}): KubeObject =>
  application({ name, namespace, labels, spec: { source: { repoURL: 'r', path: 'p', targetRevision: 'main' } }, status: status as Record<string, unknown> });

test('mapBounded keeps the order and never runs more than n at once', async () => {
  let running = 0;
  let most = 0;
  const out = await mapBounded([5, 1, 4, 2, 3, 0], 2, async (ms) => {
    running++;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, ms));
    running--;
    return ms * 10;
  });
  expect(out).toEqual([50, 10, 40, 20, 30, 0]);
  expect(most).toBe(2);
});

test('lastSyncOf: operationState.finishedAt, else the newest history entry', () => {
  expect(lastSyncOf(app('a', 'x', { operationState: { finishedAt: 't2' }, history: [{ id: 0, deployedAt: 't1' }] }))).toBe('t2');
  expect(
    lastSyncOf(
      app('a', 'x', {
        history: [
          { id: 0, deployedAt: 't0' },
          { id: 1, deployedAt: 't1' },
        ],
      }),
    ),
  ).toBe('t1');
  expect(lastSyncOf(app('a', 'x'))).toBeUndefined();
});

test('listApplications: one namespace or all, by label, sorted by namespace and name', async () => {
  const gw = new FakeGateway({ objects: [app('b', 'argocd', {}, { team: 'shop' }), app('a', 'argocd'), app('c', 'team', {}, { team: 'shop' })] });
  expect((await listApplications(gw, 'argocd', undefined)).map((o) => o.metadata.name)).toEqual(['a', 'b']);
  expect((await listApplications(gw, undefined, 'team=shop')).map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['argocd/b', 'team/c']);
});

test('list kv: one APP line per Application, its error beside it, the count', () => {
  const r: ListReport = {
    schemaVersion: 1,
    apps: [
      {
        name: 'shop',
        namespace: 'argocd',
        project: 'default',
        sync: 'Synced',
        health: 'Healthy',
        revision: 'abc',
        destination: { namespace: 'shop' },
        lastSync: 't1',
      },
      {
        name: 'far',
        namespace: 'argocd',
        project: 'default',
        sync: 'Unknown',
        health: 'Unknown',
        destination: { name: 'gone' },
        error: 'refusing to act\non it',
      },
    ],
  };
  expect(renderList(r, 'kv', paint(false))).toBe(
    'APP=argocd/shop Synced Healthy abc t1\nAPP=argocd/far Unknown Unknown - -\nAPP_ERROR=argocd/far refusing to act on it\nAPPS=2\n',
  );
  expect(renderList(r, 'table', paint(false))).toMatch(
    /^NAME\s+NAMESPACE\s+PROJECT\s+SYNC\s+HEALTH\s+REVISION\s+DESTINATION\s+LAST SYNC\s+MESSAGE\nshop\s+argocd\s+default\s+Synced\s+Healthy\s+abc\s+- shop\s+t1\n/,
  );
});

test('history kv and table', () => {
  const r = historyReport(
    app('shop', 'argocd', {
      history: [
        { id: 0, revision: 'abc', deployedAt: 't1', source: { repoURL: 'r', path: 'p', targetRevision: 'main' }, initiatedBy: { username: 'alice' } },
        { id: 1, revision: 'def', deployedAt: 't2', initiatedBy: { automated: true } },
      ],
    }),
  );
  expect(renderHistory(r, 'kv', paint(false))).toBe(
    'HISTORY_LIMIT=10\nHISTORY=0 t1 abc alice\nHISTORY_SOURCE=0 r p@main\nHISTORY=1 t2 def automated\nHISTORY_SOURCE=1 -\n',
  );
  expect(renderHistory(r, 'table', paint(false)).split('\n')[1]).toMatch(/^0\s+t1\s+abc\s+r p@main\s+alice$/);
  expect(renderHistory(historyReport(app('new', 'argocd')), 'table', paint(false))).toContain('has no history yet');
});

test('sync --all: the highest exit code, kv lines', () => {
  const r: SyncAllReport = {
    schemaVersion: 1,
    dryRun: false,
    apps: [
      { name: 'a', namespace: 'argocd', exitCode: 0 },
      { name: 'b', namespace: 'argocd', exitCode: 4, error: 'refused: window' },
    ],
  };
  expect(syncAllExitCode(r)).toBe(4);
  expect(renderSyncAll(r, 'kv', paint(false))).toBe('SYNC_APP=argocd/a synced 0\nSYNC_APP=argocd/b refused 0 refused: window\nAPPS=2\nAPPS_NOT_SYNCED=1\n');
});

test('humanAge prints an age as kubectl does (apimachinery duration.HumanDuration)', () => {
  const s = 1000;
  const m = 60 * s;
  const h = 60 * m;
  const d = 24 * h;
  const cases: [number, string][] = [
    [-1500, '0s'],
    [-2500, '<invalid>'],
    [0, '0s'],
    [119 * s, '119s'],
    [2 * m, '2m'],
    [5 * m + 30 * s, '5m30s'],
    [10 * m + 30 * s, '10m'],
    [179 * m, '179m'],
    [3 * h, '3h'],
    [3 * h + 20 * m, '3h20m'],
    [8 * h + 20 * m, '8h'],
    [47 * h, '47h'],
    [2 * d, '2d'],
    [3 * d + 4 * h, '3d4h'],
    [8 * d + 4 * h, '8d'],
    [729 * d, '729d'],
    [730 * d, '2y'],
    [760 * d, '2y30d'],
    [9 * 365 * d, '9y'],
  ];
  expect(cases.map(([ms]) => [ms, humanAge(ms)])).toEqual(cases);
});

test('list --stored: each row from what the status records, with the age; Unknown where nothing is recorded', () => {
  const now = Date.parse('2026-12-03T12:00:00Z');
  const recorded = {
    ...app('shop', 'argocd', { sync: { status: 'OutOfSync', revision: 'abc' }, health: { status: 'Degraded' }, operationState: { finishedAt: 't1' } }),
  };
  recorded.metadata.creationTimestamp = '2026-12-03T11:55:00Z';
  const r: ListReport = { schemaVersion: 1, stored: true, apps: [storedRow(recorded, now), storedRow(app('new', 'argocd'), now)] };
  expect(r.apps).toEqual([
    {
      name: 'shop',
      namespace: 'argocd',
      project: 'default',
      sync: 'OutOfSync',
      health: 'Degraded',
      revision: 'abc',
      destination: {},
      lastSync: 't1',
      created: '2026-12-03T11:55:00Z',
      age: '5m',
    },
    { name: 'new', namespace: 'argocd', project: 'default', sync: 'Unknown', health: 'Unknown', destination: {} },
  ]);
  expect(renderList(r, 'kv', paint(false))).toBe('APP=argocd/shop OutOfSync Degraded abc t1\nAPP=argocd/new Unknown Unknown - -\nSTORED=true\nAPPS=2\n');
  const table = renderList(r, 'table', paint(false)).split('\n');
  expect(table[0]).toMatch(/^NAME\s+NAMESPACE\s+PROJECT\s+SYNC\s+HEALTH\s+REVISION\s+DESTINATION\s+LAST SYNC\s+AGE$/);
  expect(table[1]).toMatch(/^shop\s+argocd\s+default\s+OutOfSync\s+Degraded\s+abc\s+-\s+t1\s+5m$/);
  expect(table[2]).toMatch(/^new\s+argocd\s+default\s+Unknown\s+Unknown\s+-\s+-\s+-\s+-$/);
});
