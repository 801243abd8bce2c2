import type { KubeGateway, ListResult, WatchEvent, WatchOptions } from '../../../src/kube/gateway.js';
import type { ResourceType } from '../../../src/model/resource-type.js';
import { KubeApiError } from '../../../src/kube/errors.js';
import { follow, type FollowEvent } from '../../../src/kube/watch.js';
import type { KubeObject } from '../../../src/model/object.js';

const cmType: ResourceType = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, verbs: ['list', 'watch'] };

function cm(name: string, rv: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', resourceVersion: rv } };
}

type WatchStep = (opts: WatchOptions, onEvent: (e: WatchEvent) => void) => Promise<void>;
type ListStep = () => Promise<ListResult>;

/** A gateway whose list and watch calls play scripted steps in order, and record what they were asked. */
class ScriptedGateway {
  lists: ListStep[] = [];
  watches: WatchStep[] = [];
  listCalls = 0;
  watchCalls: (string | undefined)[] = [];
  constructor(private readonly done: AbortController) {}
  async list(): Promise<ListResult> {
    this.listCalls++;
    const step = this.lists.shift();
    if (!step) {
      this.done.abort();
      return { items: [], pages: 1 };
    }
    return step();
  }
  async watch(_t: ResourceType, opts: WatchOptions, onEvent: (e: WatchEvent) => void): Promise<void> {
    this.watchCalls.push(opts.resourceVersion);
    const step = this.watches.shift();
    if (!step) {
      this.done.abort();
      return;
    }
    return step(opts, onEvent);
  }
}

function setup() {
  const ctl = new AbortController();
  const gw = new ScriptedGateway(ctl);
  const events: FollowEvent[] = [];
  const sleeps: number[] = [];
  let clock = 0;
  const run = () =>
    follow(gw as unknown as KubeGateway, { type: cmType, namespace: 'ns', metadataOnly: true }, (e) => events.push(e), {
      signal: ctl.signal,
      reconnectDelay: (n) => 100 * 2 ** n,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
      now: () => clock,
      minHealthyMs: 1000,
    });
  return { ctl, gw, events, sleeps, run, tick: (ms: number) => (clock += ms) };
}

describe('follow (list + watch that keeps going)', () => {
  it('lists, then watches from the list resourceVersion and resumes from the last event after a normal close', async () => {
    const t = setup();
    t.gw.lists.push(async () => ({ items: [cm('a', '10')], resourceVersion: '10', pages: 1 }));
    t.gw.watches.push(async (_o, on) => {
      on({ type: 'MODIFIED', object: cm('a', '11') });
      on({ type: 'BOOKMARK', object: cm('', '15') });
      t.tick(5000);
    });
    t.gw.watches.push(async (_o, on) => {
      on({ type: 'DELETED', object: cm('a', '16') });
    });
    await t.run();
    expect(t.gw.listCalls).toBe(1);
    expect(t.gw.watchCalls).toEqual(['10', '15', '16']);
    expect(t.events.map((e) => (e.kind === 'change' ? `${e.type}:${e.object.metadata.resourceVersion}` : e.kind))).toEqual([
      'listed',
      'MODIFIED:11',
      'DELETED:16',
    ]);
    expect(t.sleeps).toEqual([]);
  });

  it('re-lists after a 410 Gone error event, and after an HTTP 410', async () => {
    const t = setup();
    t.gw.lists.push(async () => ({ items: [], resourceVersion: '5', pages: 1 }));
    t.gw.watches.push(async (opts, on) => {
      on({ type: 'ERROR', object: { apiVersion: 'v1', kind: 'Status', metadata: {}, code: 410, reason: 'Expired' } as unknown as KubeObject });
      on({ type: 'MODIFIED', object: cm('late', '6') }); // after the error: ignored
      expect(opts.signal?.aborted).toBe(true);
    });
    t.gw.lists.push(async () => ({ items: [cm('a', '50')], resourceVersion: '50', pages: 1 }));
    t.gw.watches.push(async () => {
      throw new KubeApiError('watching configmaps: gone', 410, 'Gone', []);
    });
    t.gw.lists.push(async () => ({ items: [], resourceVersion: '70', pages: 1 }));
    await t.run();
    expect(t.gw.watchCalls).toEqual(['5', '50', '70']);
    expect(t.events.map((e) => e.kind)).toEqual(['listed', 'gone', 'listed', 'gone', 'listed']);
    expect(t.sleeps).toEqual([]);
  });

  it('reconnects with growing back-off while the server is down, resets it once back, resuming where it was', async () => {
    const t = setup();
    const down = async () => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
    };
    t.gw.lists.push(async () => ({ items: [], resourceVersion: '1', pages: 1 }));
    t.gw.watches.push(async (_o, on) => on({ type: 'ADDED', object: cm('a', '2') }));
    t.gw.watches.push(down, down, down);
    t.gw.watches.push(async (_o, on) => on({ type: 'MODIFIED', object: cm('a', '3') }));
    t.gw.watches.push(down);
    await t.run();
    expect(t.gw.watchCalls).toEqual(['1', '2', '2', '2', '2', '3', '3']);
    expect(t.sleeps).toEqual([100, 200, 400, 100]);
    const disc = t.events.filter((e) => e.kind === 'disconnected');
    expect(disc.map((e) => (e.kind === 'disconnected' ? e.attempt : -1))).toEqual([0, 1, 2, 0]);
  });

  it('treats a list failure like a lost connection and retries the list', async () => {
    const t = setup();
    t.gw.lists.push(async () => {
      throw new Error('503 Service Unavailable');
    });
    t.gw.lists.push(async () => ({ items: [cm('a', '9')], resourceVersion: '9', pages: 1 }));
    await t.run();
    expect(t.gw.listCalls).toBe(2);
    expect(t.sleeps).toEqual([100]);
    expect(t.events.map((e) => e.kind)).toEqual(['disconnected', 'listed']);
  });

  it('backs off when a stream closes at once with nothing in it', async () => {
    const t = setup();
    t.gw.lists.push(async () => ({ items: [], resourceVersion: '1', pages: 1 }));
    t.gw.watches.push(
      async () => undefined,
      async () => undefined,
    );
    await t.run();
    expect(t.sleeps).toEqual([100, 200]);
  });

  it('stops at once when aborted, without reporting the abort as a failure', async () => {
    const t = setup();
    t.gw.lists.push(async () => ({ items: [], resourceVersion: '1', pages: 1 }));
    t.gw.watches.push(
      (opts) =>
        new Promise<void>((resolve) => {
          opts.signal?.addEventListener('abort', () => resolve());
          setTimeout(() => t.ctl.abort(), 5);
        }),
    );
    await t.run();
    expect(t.events.map((e) => e.kind)).toEqual(['listed']);
    expect(t.gw.watchCalls).toEqual(['1']);
  });
});
