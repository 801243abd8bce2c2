// appset generate's output: a YAML stream and a JSON List of the Applications (as manifests prints objects), or kv lines.
import { appsetWarnings, renderAppSetGenerate, renderAppSetSync } from '../../../src/render/appset.js';
import type { AppSetGenerateReport } from '../../../src/workflows/appset/generate.js';
import type { AppSetSyncReport } from '../../../src/workflows/appset/sync.js';
import { paint } from '../../../src/render/colour.js';

const report: AppSetGenerateReport = {
  applicationSet: 'argocd/set',
  origin: 'set.yaml',
  applications: [
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'a', namespace: 'argocd' }, spec: { project: 'default' } },
    { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { name: 'b', namespace: 'argocd' }, spec: { project: 'default' } },
  ],
  invalid: [],
};

test('kv: the ApplicationSet, one APPLICATION line each, the count', () => {
  expect(renderAppSetGenerate(report, 'kv')).toBe('APPLICATIONSET=argocd/set\nAPPLICATION=argocd/a\nAPPLICATION=argocd/b\nCOUNT=2\n');
});

test('json: a v1 List of the Applications', () => {
  expect(JSON.parse(renderAppSetGenerate(report, 'json'))).toEqual({ apiVersion: 'v1', kind: 'List', items: report.applications });
});

test('yaml: one document per Application', () => {
  const text = renderAppSetGenerate(report, 'yaml');
  expect(text.split('---\n')).toHaveLength(2);
  expect(text).toContain('name: a\n');
});

test('Applications the controller leaves out: INVALID= lines and warnings', () => {
  const r = { ...report, invalid: [{ name: 'argocd/same', error: 'ApplicationSet set contains applications with duplicate name: same' }] };
  expect(renderAppSetGenerate(r, 'kv')).toContain('INVALID=argocd/same ApplicationSet set contains applications with duplicate name: same\nCOUNT=2\n');
  expect(appsetWarnings(r)).toEqual([
    "argocd/same left out, as Argo CD's controller leaves it out: ApplicationSet set contains applications with duplicate name: same",
  ]);
});

describe('appset sync --recursive with a RollingSync strategy', () => {
  const rolled: AppSetSyncReport = {
    applicationSet: 'apps/roll',
    origin: 'ApplicationSet apps/roll',
    policy: 'sync',
    dryRun: false,
    owned: true,
    results: [{ app: 'apps/roll-a', action: 'unchanged', done: true }],
    invalid: [],
    warnings: [],
    rolling: {
      steps: [
        { step: 1, maxUpdate: 1, apps: ['apps/roll-a'] },
        { step: 2, maxUpdate: 0, apps: ['apps/roll-b'] },
      ],
      children: [
        { namespace: 'apps', name: 'roll-a', wave: 1, outcome: 'synced', exitCode: 0, sync: 'Synced', health: 'Healthy' },
        { namespace: 'apps', name: 'roll-b', wave: 2, outcome: 'unhealthy', exitCode: 3, sync: 'OutOfSync', health: 'Missing', message: 'held' },
      ],
      excluded: ['apps/roll-c'],
      exitCode: 3,
      stopped: 'step 2 has maxUpdate 0',
    },
  };

  it('kv: STEP= per Application in rollout order, EXCLUDED=, ROLLOUT_STOPPED=', () => {
    expect(renderAppSetSync(rolled, 'kv', paint(false)).split('\n').slice(4)).toEqual([
      'STEP=apps/roll-a 1 synced Synced Healthy',
      'STEP=apps/roll-b 2 unhealthy OutOfSync Missing',
      'EXCLUDED=apps/roll-c',
      'ROLLOUT_STOPPED=step 2 has maxUpdate 0',
      '',
    ]);
  });

  it('table: the steps with their maxUpdate, a row per Application, what no step selects and why it stopped', () => {
    const table = renderAppSetSync(rolled, 'table', paint(false)).trimEnd().split('\n');
    expect(table.slice(-6)).toEqual([
      'RollingSync: step 1 (1 app(s), maxUpdate 1), step 2 (1 app(s), maxUpdate 0)',
      'APPLICATION  STEP  RESULT     SYNC       HEALTH   MESSAGE',
      'apps/roll-a  1     synced     Synced     Healthy',
      'apps/roll-b  2     unhealthy  OutOfSync  Missing  held',
      'selected by no step, left to be synced by hand: apps/roll-c',
      'rollout stopped: step 2 has maxUpdate 0',
    ]);
  });
});
