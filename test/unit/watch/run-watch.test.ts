import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeContext } from '../../../src/cli/context.js';
import { memoryIo } from '../../../src/cli/io.js';
import { toGlobalOptions } from '../../../src/cli/options.js';
import { FakeGateway } from '../../support/fake-gateway.js';
import { pollingOf, pollTiming, runWatch, type WatchRequest } from '../../../src/workflows/sync/watch.js';
import { parseArgoSettings } from '../../../src/settings/argocd-cm.js';
import { formatEvent, type LoopEvent } from '../../../src/watch/events.js';
import { GitFixture, configMap } from '../../support/git-source.js';
import { applicationYaml } from '../../support/application.js';

/** A watch of an Application file, as cli/inputs.ts builds it from `sync -f FILE --watch --interval 60s`. */
function watchOf(appFile: string): WatchRequest {
  return { source: { appFile }, interval: '60s', intervalMs: 60_000, timeoutMs: 300_000, prune: false, forceConflicts: false, record: true };
}

describe("sync --watch's polls", () => {
  it("--interval wins (its 10 % jitter); without it argocd-cm's timeout.reconciliation and jitter, Argo CD's defaults before it is read", () => {
    const cm = parseArgoSettings({ 'timeout.reconciliation': '0', 'timeout.reconciliation.jitter': '5s' }, 'cm');
    expect(pollTiming({ intervalMs: 30_000 }, cm)).toEqual({ intervalMs: 30_000, jitterMs: 3000 });
    expect(pollTiming({}, cm)).toEqual({ intervalMs: 0, jitterMs: 5000 });
    expect(pollTiming({}, undefined)).toEqual({ intervalMs: 120_000, jitterMs: 60_000 });
    expect(pollingOf({ interval: '30s' })).toBe('every 30s');
    expect(pollingOf({})).toBe("every argocd-cm's timeout.reconciliation (unset: 120s, plus up to 60s)");
  });
});

describe('runWatch with a fake cluster', () => {
  let fx: GitFixture;
  beforeEach(() => {
    fx = new GitFixture();
    fx.write('apps/shop/cm.yaml', configMap('orders-config', 'blue'));
    fx.commit('one');
  });
  afterEach(() => fx.cleanup());

  function appFile(targetRevision: string): string {
    const file = join(fx.root, 'app.yaml');
    writeFileSync(
      file,
      applicationYaml({
        spec: {
          source: { repoURL: fx.repo, path: 'apps/shop', targetRevision },
          destination: { namespace: 'shop' },
          syncPolicy: { automated: { prune: true, selfHeal: true } },
        },
      }),
    );
    return file;
  }

  it('syncs the branch tip into the cluster, then stops cleanly when its signal aborts', async () => {
    const gw = new FakeGateway({ objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }] });
    const mem = memoryIo({ env: fx.env });
    const ctx = makeContext(mem.io, toGlobalOptions({ output: 'json' }));
    const stop = new AbortController();
    const events: LoopEvent[] = [];
    const done = runWatch(watchOf(appFile('main')), ctx, (e) => events.push(e), { gateway: gw, signal: stop.signal, handleSignals: false });
    for (let i = 0; i < 200 && !events.some((e) => e.action === 'in-sync'); i++) await new Promise((r) => setTimeout(r, 25));
    stop.abort();
    await expect(done).resolves.toBe(0);
    // The workflow prints nothing itself: every line is an event handed to the caller.
    expect(mem.stdout()).toBe('');
    expect(mem.stderr()).toBe('');
    expect(events.every((e) => e.time instanceof Date)).toBe(true);
    const actions = events.filter((l) => l.action !== 'reconnect');
    expect(actions.map((l) => [l.action, l.object, l.result].filter(Boolean).join(' '))).toEqual([
      'start',
      'revision',
      'sync ConfigMap/orders-config applied',
      'in-sync',
      'stop stopped',
    ]);
    const cm = gw.find('ConfigMap', 'shop', 'orders-config');
    expect(cm?.data).toEqual({ value: 'blue' });
    expect(cm?.metadata.annotations?.['argocd.argoproj.io/tracking-id']).toBe('shop:/ConfigMap:shop/orders-config');
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it('-f -: the Application on standard input is synced as from a file, and the start line says where it came from', async () => {
    const gw = new FakeGateway({ objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }] });
    const mem = memoryIo({ env: fx.env, stdin: readFileSync(appFile('main'), 'utf8') });
    const ctx = makeContext(mem.io, toGlobalOptions({ output: 'kv' }));
    const stop = new AbortController();
    const events: LoopEvent[] = [];
    const done = runWatch(watchOf('-'), ctx, (e) => events.push(e), { gateway: gw, signal: stop.signal, handleSignals: false });
    for (let i = 0; i < 200 && !events.some((e) => e.action === 'in-sync'); i++) await new Promise((r) => setTimeout(r, 25));
    stop.abort();
    await expect(done).resolves.toBe(0);
    expect(events[0]?.message).toBe('reconciling the Application on standard input every 60s');
    expect(gw.find('ConfigMap', 'shop', 'orders-config')?.data).toEqual({ value: 'blue' });
  });

  it('ends with the input error when the first step cannot read what it was asked to watch', async () => {
    const gw = new FakeGateway();
    const mem = memoryIo({ env: fx.env });
    const ctx = makeContext(mem.io, toGlobalOptions({ output: 'kv' }));
    const before = process.listenerCount('SIGTERM');
    const events: LoopEvent[] = [];
    await expect(runWatch(watchOf(appFile('release-9')), ctx, (e) => events.push(e), { gateway: gw })).rejects.toThrow(/"release-9" names no commit/);
    expect(gw.objects()).toEqual([]);
    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(events[0]?.action).toBe('start');
    expect(formatEvent(events[0]!, 'kv')).toMatch(/^TIME=\S+ ACTION=start /);
  });
});
