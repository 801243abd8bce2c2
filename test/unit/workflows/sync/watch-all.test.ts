// sync --watch --all: which Applications get a loop (automated ones only), and how their events name them.
import { isAutomated } from '../../../../src/workflows/sync/watch-all.js';
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
