// status --recursive: which of an app's resources are its child Applications, and how their rows print.
import { buildStatusReport } from '../../../../src/health/report.js';
import { renderStatus, renderStatusKv } from '../../../../src/render/status.js';
import { paint } from '../../../../src/render/colour.js';
import { childAppsOf, childAppsOfObjects } from '../../../../src/workflows/status/children.js';
import { liveDiffExitCode, type LiveDiffReport } from '../../../../src/workflows/diff/live-diff.js';
import { renderLiveDiff } from '../../../../src/render/live-diff.js';
import { app } from '../../health/status-fixtures.js';

const appObject = (name: string) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name, namespace: 'argocd' },
  spec: {},
});

test('the child Applications are the argoproj.io Applications the app declares, not its prune candidates or look-alikes', () => {
  const r = buildStatusReport({
    app: app(),
    resources: [
      { key: { group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name: 'web' }, comparison: 'in-sync', live: appObject('web') },
      { key: { group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name: 'new' }, comparison: 'missing' },
      { key: { group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name: 'old' }, comparison: 'extra', live: appObject('old') },
      { key: { group: 'example.com', kind: 'Application', namespace: 'argocd', name: 'other' }, comparison: 'in-sync' },
      { key: { group: '', kind: 'ConfigMap', namespace: 'argocd', name: 'cm' }, comparison: 'in-sync' },
    ],
    children: [],
  });
  // In the report's resource order.
  expect(childAppsOf(r)).toEqual([
    { namespace: 'argocd', name: 'new' },
    { namespace: 'argocd', name: 'web' },
  ]);
});

test('their rows: CHILD= lines depth first with the reason or the error, and a table indented by depth', () => {
  const r = buildStatusReport({ app: app(), resources: [], children: [] });
  r.children = [
    {
      namespace: 'argocd',
      name: 'infra',
      sync: 'Synced',
      health: 'Degraded',
      reason: 'Job/migrate: failed',
      children: [{ namespace: 'argocd', name: 'db', sync: 'OutOfSync', health: 'Healthy' }],
    },
    { namespace: 'argocd', name: 'gone', sync: 'Unknown', health: 'Unknown', error: 'Application "gone" not found' },
  ];
  expect(renderStatusKv(r)).toMatch(
    /\nCHILD=argocd\/infra 1 Synced Degraded\nCHILD_REASON=argocd\/infra Job\/migrate: failed\nCHILD=argocd\/db 2 OutOfSync Healthy\nCHILD=argocd\/gone 1 Unknown Unknown\nCHILD_ERROR=argocd\/gone Application "gone" not found\n$/,
  );
  const table = renderStatus(r, { output: 'table', tree: false, paint: paint(false) });
  expect(table).toContain(
    [
      'Child Applications (compared live):',
      'APPLICATION   SYNC       HEALTH    MESSAGE',
      'argocd/infra  Synced     Degraded  Job/migrate: failed',
      '  argocd/db   OutOfSync  Healthy',
      'argocd/gone   Unknown    Unknown   Application "gone" not found',
    ].join('\n'),
  );
  expect(JSON.parse(renderStatus(r, { output: 'json', tree: false, paint: paint(false) })).children[0].children[0].name).toBe('db');
});

test('diff --recursive: the children among the desired objects; exit 1 when any child, at any depth, is not Synced; CHILD lines', () => {
  const key = (group: string, kind: string, name: string) => ({ group, kind, namespace: 'argocd', name });
  expect(
    childAppsOfObjects([{ key: key('argoproj.io', 'Application', 'web') }, { key: key('', 'ConfigMap', 'cm') }, { key: key('x.io', 'Application', 'x') }]),
  ).toEqual([{ namespace: 'argocd', name: 'web' }]);
  const report = {
    schemaVersion: 1,
    sync: 'Synced',
    app: 'root',
    origin: 'repo',
    objects: [],
    extras: [],
    warnings: [],
    serverSide: false,
    conflicts: [],
    extrasSkipped: [],
  } as unknown as LiveDiffReport;
  expect(liveDiffExitCode(report)).toBe(0);
  report.children = [
    {
      namespace: 'argocd',
      name: 'web',
      sync: 'Synced',
      health: 'Healthy',
      children: [{ namespace: 'argocd', name: 'db', sync: 'OutOfSync', health: 'Healthy' }],
    },
  ];
  expect(liveDiffExitCode(report)).toBe(1);
  expect(renderLiveDiff(report, 'kv', paint(false))).toBe('SYNC=Synced\nCHILD=argocd/web 1 Synced Healthy\nCHILD=argocd/db 2 OutOfSync Healthy\n');
  expect(renderLiveDiff(report, 'table', paint(false))).toContain(
    'Child Applications (compared live):\nAPPLICATION  SYNC       HEALTH   MESSAGE\nargocd/web   Synced     Healthy\n  argocd/db  OutOfSync  Healthy\n',
  );
  report.children[0]!.children = [];
  expect(liveDiffExitCode(report)).toBe(0);
});
