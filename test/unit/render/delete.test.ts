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
