// Choosing what a rollback deploys: the previous entry or a named one, the recorded source at its revision; refusals.
import { rollbackTarget } from '../../../../src/workflows/history/rollback.js';
import { InputError, RefusedError } from '../../../../src/model/errors.js';
import type { KubeObject } from '../../../../src/model/object.js';
import { application, inCluster } from '../../../support/application.js';

const source = (rev: string) => ({
  repoURL: 'https://git.example/shop.git',
  path: 'apps/shop',
  targetRevision: rev,
  helm: { parameters: [{ name: 'tag', value: rev }] },
});
const APP = application({
  spec: { source: source('main'), destination: inCluster('shop') },
  status: {
    history: [
      { id: 3, revision: 'aaa', deployedAt: 't3', source: source('v1') },
      { id: 4, revision: 'bbb', deployedAt: 't4', source: source('main') },
    ],
  },
});

test('default: the entry before the newest, its recorded source pinned at its revision', () => {
  const t = rollbackTarget(APP, undefined);
  expect(t.entry.id).toBe(3);
  expect(t.synced).toEqual({ source: source('v1') });
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

describe('a multi-source Application, as Argo CD rolls it back: every recorded source at its own recorded revision', () => {
  const chart = { repoURL: 'https://charts.example', chart: 'web', targetRevision: '2.*', helm: { valueFiles: ['$values/web/prod.yaml'] } };
  const values = { repoURL: 'https://git.example/values.git', targetRevision: 'main', ref: 'values' };
  const sources = [chart, values];
  const MULTI: KubeObject = {
    ...APP,
    spec: { sources: [{ ...chart, targetRevision: '3.*' }, values], destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' } },
    status: {
      history: [
        // Argo CD writes an empty `source` beside `sources` for a multi-source entry.
        { id: 0, revisions: ['2.0.0', 'aaa'], deployedAt: 't0', source: { repoURL: '' }, sources },
        { id: 1, revisions: ['3.0.0', 'bbb'], deployedAt: 't1', sources: [{ ...chart, targetRevision: '3.*' }, values] },
      ],
    },
  };

  test('the entry before the newest: spec.sources replaced, each pinned; the recorded sources kept for the new entry', () => {
    const t = rollbackTarget(MULTI, undefined);
    expect(t.entry.id).toBe(0);
    expect(t.synced).toEqual({ sources });
    expect(t.app.sources?.map((s) => [s.repoURL, s.targetRevision, s.options?.chart, s.ref])).toEqual([
      ['https://charts.example', '2.0.0', 'web', undefined],
      ['https://git.example/values.git', 'aaa', undefined, 'values'],
    ]);
  });

  test('an entry whose revisions do not pair with its sources, or with no source at all, is an input error', () => {
    const odd = { ...MULTI, status: { history: [{ id: 0, revisions: ['x'], deployedAt: 't', sources }] } };
    expect(() => rollbackTarget(odd, 0)).toThrow('records 2 sources and 1 revisions');
    const none = { ...MULTI, status: { history: [{ id: 0, revision: 'x', deployedAt: 't' }] } };
    expect(() => rollbackTarget(none, 0)).toThrow(InputError);
    expect(() => rollbackTarget(none, 0)).toThrow('records no source');
  });
});
