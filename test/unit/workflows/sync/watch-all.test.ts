// sync --watch --all: which Applications get a loop (automated ones only), and how their events name them.
import { isAutomated } from '../../../../src/workflows/sync/watch-all.js';
import { automatedRetry } from '../../../../src/workflows/sync/watch.js';
import { retryDelayMs } from '../../../../src/workflows/sync/sync.js';
import { formatEvent } from '../../../../src/watch/events.js';
import { application } from '../../../support/application.js';

test('an Application gets a loop only when its syncPolicy is automated (and not `enabled: false`)', () => {
  const app = (syncPolicy?: Record<string, unknown>) => application({ spec: { ...(syncPolicy ? { syncPolicy } : {}) } });
  expect(
    [
      app(),
      app({ syncOptions: ['CreateNamespace=true'] }),
      app({ automated: {} }),
      app({ automated: { selfHeal: true } }),
      app({ automated: { enabled: false } }),
    ].map(isAutomated),
  ).toEqual([false, false, true, true, false]);
});

test('each event of an app’s loop carries the app, in every output mode', () => {
  const ev = { time: new Date('2026-12-03T10:00:00Z'), app: 'argocd/shop', action: 'heal' as const, object: 'Deployment/web', result: 'applied' };
  expect(formatEvent(ev, 'json')).toBe(
    '{"time":"2026-12-03T10:00:00.000Z","app":"argocd/shop","action":"heal","object":"Deployment/web","result":"applied"}\n',
  );
  expect(formatEvent(ev, 'kv')).toBe('TIME=2026-12-03T10:00:00.000Z APP=argocd/shop ACTION=heal OBJECT=Deployment/web RESULT=applied\n');
  expect(formatEvent(ev, 'table')).toBe('2026-12-03T10:00:00.000Z  argocd/shop  heal       Deployment/web  applied\n');
  expect(formatEvent({ time: ev.time, action: 'stop', result: 'stopped' }, 'kv')).toBe('TIME=2026-12-03T10:00:00.000Z ACTION=stop RESULT=stopped\n');
});

test('a push wakes the loops of the apps whose source is that repository, compared as Argo CD compares URLs', async () => {
  const { pushTouches } = await import('../../../../src/watch/webhook.js');
  const { repoURLsOf } = await import('../../../../src/workflows/sync/watch-all.js');
  const shop = repoURLsOf(application({ spec: { sources: [{ repoURL: 'https://github.com/Acme/Shop.git' }, { repoURL: 'git@github.com:acme/values' }] } }));
  expect(shop).toEqual(['https://github.com/Acme/Shop.git', 'git@github.com:acme/values']);
  const push = (repository?: string) => ({ provider: 'github' as const, ...(repository !== undefined ? { repository } : {}) });
  expect(
    [
      'https://github.com/acme/shop',
      'https://github.com/acme/shop.git/',
      'ssh://git@github.com/acme/values.git',
      'acme/shop',
      'https://github.com/acme/other',
      'https://gitlab.com/acme/shop',
    ].map((r) => pushTouches(push(r), shop)),
  ).toEqual([true, true, true, true, false, false]);
  expect(pushTouches(push(), shop)).toBe(true);
  expect(pushTouches(push('https://git.example.com:8443/acme/shop.git'), ['https://git.example.com:8443/acme/shop'])).toBe(true);
});

test("the watch loop's operations retry as Argo CD's automated one: Retry{Limit: 5} (5 s doubling, at most 3 m) unless syncPolicy.retry says otherwise", () => {
  const policy = automatedRetry(undefined);
  expect(policy).toMatchObject({ limit: 5, durationMs: 5000, factor: 2, maxDurationMs: 180_000 });
  expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(policy, n) / 1000)).toEqual([5, 10, 20, 40, 80, 160, 180]);
  const own = { limit: -1, durationMs: 1000, factor: 3, maxDurationMs: 0 };
  expect(automatedRetry({ retry: own })).toBe(own);
  expect(retryDelayMs(own, 4)).toBe(27_000);
});
