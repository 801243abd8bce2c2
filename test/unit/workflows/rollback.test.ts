// Choosing what a rollback deploys: the previous entry or a named one, the recorded source at its revision; refusals.
import { rollbackTarget } from '../../../src/workflows/rollback.js';
import { InputError, RefusedError } from '../../../src/cli/exit-codes.js';
import type { KubeObject } from '../../../src/model/object.js';

const source = (rev: string) => ({ repoURL: 'https://git.example/shop.git', path: 'apps/shop', targetRevision: rev, helm: { parameters: [{ name: 'tag', value: rev }] } });
const APP: KubeObject = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name: 'shop', namespace: 'argocd' },
  spec: { source: source('main'), destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' } },
  status: {
    history: [
      { id: 3, revision: 'aaa', deployedAt: 't3', source: source('v1') },
      { id: 4, revision: 'bbb', deployedAt: 't4', source: source('main') },
    ],
  },
};

test('default: the entry before the newest, its recorded source pinned at its revision', () => {
  const t = rollbackTarget(APP, undefined);
  expect(t.entry.id).toBe(3);
  expect(t.source).toEqual(source('v1'));
  expect(t.app.source).toMatchObject({ repoURL: 'https://git.example/shop.git', path: 'apps/shop', targetRevision: 'aaa' });
  expect(t.app.sourceOptions).toEqual({ helm: { parameters: [{ name: 'tag', value: 'v1' }] } });
});

test('a named ID; an unknown one or too short a history is an input error', () => {
  expect(rollbackTarget(APP, 4).app.source.targetRevision).toBe('bbb');
  expect(() => rollbackTarget(APP, 9)).toThrow(InputError);
  expect(() => rollbackTarget(APP, 9)).toThrow('has no history entry with ID 9 (IDs: 3, 4)');
  const one = { ...APP, status: { history: [{ id: 0, revision: 'a', deployedAt: 't', source: source('main') }] } };
  expect(() => rollbackTarget(one, undefined)).toThrow('should have at least two successful deployments');
});

test('refused (exit 4) while automated sync is on, before the history is looked at', () => {
  const auto = { ...APP, spec: { ...(APP.spec as object), syncPolicy: { automated: {} } }, status: {} } as KubeObject;
  expect(() => rollbackTarget(auto, 0)).toThrow(RefusedError);
  expect(() => rollbackTarget(auto, 0)).toThrow('rollback cannot be initiated when auto-sync is enabled');
});
