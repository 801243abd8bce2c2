// renderDeleteKv: one stable line per object and hook, then the cascade, the Application and the phase.
import { renderDeleteKv } from '../../../src/render/delete.js';
import type { DeleteReport } from '../../../src/workflows/delete/delete.js';

const report: DeleteReport = {
  schemaVersion: 1,
  app: 'shop',
  cascade: 'foreground',
  propagationPolicy: 'foreground',
  dryRun: false,
  namespaces: ['shop'],
  entries: [
    { group: 'apps', kind: 'Deployment', namespace: 'shop', name: 'web', wave: 1, outcome: 'deleted' },
    {
      group: '',
      kind: 'ConfigMap',
      namespace: 'shop',
      name: 'raced',
      wave: 0,
      outcome: 'changed',
      message: 'recreated or changed since it was listed: not deleted',
    },
    { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'later', wave: 0, outcome: 'not-run' },
    { group: '', kind: 'Secret', namespace: 'shop', name: 'keep-me', outcome: 'kept', message: 'annotated helm.sh/resource-policy: keep' },
  ],
  hooks: [{ group: 'batch', kind: 'Job', namespace: 'shop', name: 'backup', phase: 'PreDelete', outcome: 'Succeeded', cleanup: 'kept' }],
  application: 'terminating',
  phase: 'Failed',
  message: 'wave 0: 1 object(s) not deleted; later waves were not started',
  notOwned: [],
  warnings: [],
};

test('kv lines name each object and hook, then CASCADE, APPLICATION, PHASE and MESSAGE', () => {
  expect(renderDeleteKv(report).split('\n')).toEqual([
    'DELETED=Deployment/web',
    'DELETE_FAILED=ConfigMap/raced recreated or changed since it was listed: not deleted',
    'DELETE_NOT_RUN=ConfigMap/later',
    'DELETE_KEPT=Secret/keep-me annotated helm.sh/resource-policy: keep',
    'HOOK=PreDelete Job/backup Succeeded kept',
    'CASCADE=foreground',
    'APPLICATION=terminating',
    'PHASE=Failed',
    'MESSAGE=wave 0: 1 object(s) not deleted; later waves were not started',
    '',
  ]);
});

test("--recursive: each child app's objects, hooks and errors, depth first, before the closing lines", () => {
  const leaf: DeleteReport = {
    ...report,
    app: 'leaf',
    appNamespace: 'argocd',
    entries: [{ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'leaf-cm', outcome: 'would-delete' }],
    hooks: [],
    children: [],
    phase: 'DryRun',
  };
  const broken: DeleteReport = { ...leaf, app: 'broken', entries: [], phase: 'Failed', message: 'its deletion could not be planned: not found' };
  const mid: DeleteReport = {
    ...leaf,
    app: 'mid',
    entries: [
      { group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name: 'leaf', outcome: 'would-delete' },
      { group: '', kind: 'Secret', namespace: 'shop', name: 'kept', outcome: 'kept', message: 'annotated helm.sh/resource-policy: keep' },
    ],
    hooks: [{ group: 'batch', kind: 'Job', namespace: 'shop', name: 'bye', phase: 'PostDelete', outcome: 'would-run' }],
    children: [leaf, broken],
  };
  const lines = renderDeleteKv({ ...report, entries: [], hooks: [], message: '', children: [mid] }).split('\n');
  expect(lines.filter((l) => l.startsWith('CHILD_'))).toEqual([
    'CHILD_DELETE=argocd/mid Application/leaf',
    'CHILD_KEPT=argocd/mid Secret/kept annotated helm.sh/resource-policy: keep',
    'CHILD_HOOK=argocd/mid PostDelete Job/bye',
    'CHILD_DELETE=argocd/leaf ConfigMap/leaf-cm',
    'CHILD_ERROR=argocd/broken its deletion could not be planned: not found',
  ]);
});
