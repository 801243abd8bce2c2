// Per-run sync overrides as argocd app sync takes them: the run's options replace the Application's, --strategy apply
// runs no hook, --force forces every object's write; malformed input is an input error before anything is read.
import { runSyncOptions, syncStrategyOf, withRunOptions } from '../../../src/app/run-options.js';
import { parseApplication } from '../../../src/app/application.js';
import { application, inCluster } from '../../support/application.js';
import { objectSyncMode } from '../../../src/sync/options.js';

const app = parseApplication(
  application({
    spec: {
      source: { repoURL: 'https://git.example.com/a.git', path: 'a' },
      destination: inCluster('shop'),
      syncPolicy: { syncOptions: ['CreateNamespace=true', 'Validate=false'] },
    },
  }),
  'cluster',
);

test("the flags in argocd app sync's order after --sync-option ones; none given: the Application's own stay", () => {
  const run = runSyncOptions({ syncOption: ['PruneLast=true'], replace: true, serverSide: true, applyOutOfSyncOnly: true });
  expect(run.items).toEqual(['PruneLast=true', 'Replace=true', 'ServerSideApply=true', 'ApplyOutOfSyncOnly=true']);
  expect(runSyncOptions({}).items).toBeUndefined();
  expect(withRunOptions(app, runSyncOptions({})).syncOptions).toEqual(app.syncOptions);
});

test("given, the run's options replace the Application's (as Argo CD's API server does): CreateNamespace and Validate=false are not kept", () => {
  const synced = withRunOptions(app, runSyncOptions({ replace: true }));
  expect(app.syncOptions).toMatchObject({ createNamespace: true, validate: false });
  expect(synced.syncOptions).toMatchObject({ createNamespace: false, replace: true });
  expect(synced.syncOptions.validate).toBeUndefined();
  expect(withRunOptions(app, runSyncOptions({ replace: true, syncOption: ['CreateNamespace=true'] })).syncOptions.createNamespace).toBe(true);
});

test('--force: every object is written as if annotated Force=true; the strategy recorded as Argo CD records it', () => {
  const forced = withRunOptions(app, runSyncOptions({ force: true }));
  expect(forced.syncOptions.createNamespace).toBe(true);
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } };
  expect(objectSyncMode(cm, forced.syncOptions).force).toBe(true);
  expect(objectSyncMode(cm, app.syncOptions).force).toBe(false);
  expect(syncStrategyOf(runSyncOptions({ force: true }))).toEqual({ hook: { force: true } });
  expect(syncStrategyOf(runSyncOptions({ strategy: 'apply' }))).toEqual({ apply: {} });
  expect(syncStrategyOf(runSyncOptions({ replace: true }))).toBeUndefined();
});

test('malformed or unknown options and strategies are input errors naming them', () => {
  expect(() => runSyncOptions({ syncOption: ['Replace'] })).toThrow('--sync-option Replace: expected NAME=VALUE (e.g. Replace=true)');
  expect(() => runSyncOptions({ syncOption: ['Turbo=true'] })).toThrow(/--sync-option Turbo=true: Turbo is not a sync option Argo CD knows/);
  expect(() => runSyncOptions({ syncOption: ['Replace=yes'] })).toThrow('--sync-option Replace=yes: expected Replace=true or Replace=false');
  expect(() => runSyncOptions({ strategy: 'sideways' })).toThrow('--strategy sideways: one of apply, hook');
});
