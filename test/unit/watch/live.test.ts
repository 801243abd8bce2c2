import type { KubeGateway, ListResult, WatchEvent, WatchOptions } from '../../../src/kube/gateway.js';
import type { ResourceType } from '../../../src/model/resource-type.js';
import { changeFingerprint, LiveWatcher } from '../../../src/watch/live.js';
import type { KubeObject } from '../../../src/model/object.js';

const deployType: ResourceType = { group: 'apps', version: 'v1', kind: 'Deployment', resource: 'deployments', namespaced: true, verbs: ['list', 'watch'] };

function deploy(name: string, rv: string, generation: number, annotations: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: rv, generation, annotations } };
}

/** Lists once, then plays the given watch events and holds the stream open until stopped. */
class OneShotGateway {
  constructor(private readonly events: WatchEvent[]) {}
  async list(): Promise<ListResult> {
    return { items: [deploy('orders', '1', 1)], resourceVersion: '1', pages: 1 };
  }
  async watch(_t: ResourceType, opts: WatchOptions, onEvent: (e: WatchEvent) => void): Promise<void> {
    for (const e of this.events.splice(0)) onEvent(e);
    await new Promise<void>((resolve) => opts.signal?.addEventListener('abort', () => resolve()));
  }
}

describe('changeFingerprint', () => {
  it('ignores status-only updates of objects with a generation, but not spec or annotation changes', () => {
    expect(changeFingerprint(deploy('a', '1', 1))).toBe(changeFingerprint(deploy('a', '2', 1)));
    expect(changeFingerprint(deploy('a', '1', 1))).not.toBe(changeFingerprint(deploy('a', '2', 2)));
    expect(changeFingerprint(deploy('a', '1', 1))).not.toBe(changeFingerprint(deploy('a', '2', 1, { x: 'y' })));
  });
  it('uses the resourceVersion for objects without a generation (ConfigMaps)', () => {
    const cm = (rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', resourceVersion: rv } });
    expect(changeFingerprint(cm('1'))).not.toBe(changeFingerprint(cm('2')));
  });
});

describe('LiveWatcher', () => {
  it('reports changes of the app objects only: desired names or objects marked for the app, not status churn', async () => {
    const gw = new OneShotGateway([
      { type: 'MODIFIED', object: deploy('orders', '2', 1) }, // status only
      { type: 'MODIFIED', object: deploy('orders', '3', 2) }, // kubectl scale / set env
      { type: 'MODIFIED', object: deploy('someone-else', '4', 5) },
      { type: 'ADDED', object: deploy('stray', '5', 1, { 'argocd.argoproj.io/tracking-id': 'shop:apps/Deployment:shop/stray' }) },
      { type: 'ADDED', object: deploy('other-app', '6', 1, { 'argocd.argoproj.io/tracking-id': 'shopping:apps/Deployment:shop/other-app' }) },
      { type: 'DELETED', object: deploy('orders', '7', 2) },
    ]);
    const changes: string[] = [];
    const w = new LiveWatcher({
      gateway: gw as unknown as KubeGateway,
      appInstance: () => 'shop',
      onChange: (c) => changes.push(`${c.type} ${c.object}`),
      onConnection: () => undefined,
      reconnectDelay: () => 10,
      sleep: async () => undefined,
    });
    w.update([{ type: deployType, namespace: 'shop', names: new Set(['orders']) }]);
    await new Promise((r) => setTimeout(r, 20));
    await w.stop();
    expect(changes).toEqual(['MODIFIED Deployment/orders', 'ADDED Deployment/stray', 'DELETED Deployment/orders']);
  });
});

describe('LiveWatcher on a shared cache (sync --watch --all)', () => {
  it("follows the cache's cluster-wide watch, only the target's namespace; follows on its own a type the cache cannot list", async () => {
    type Listener = (e: import('../../../src/kube/watch.js').FollowEvent) => void;
    const listeners: Listener[] = [];
    const scopes: (string | undefined)[] = [];
    let follows = true;
    // As the cache's subscribe: its events of the whole cluster, cut to the scope's namespace, until the scope's signal.
    const cache = {
      follows: () => follows,
      subscribe: (_t: ResourceType, l: Listener, scope: { namespace?: string; signal?: AbortSignal }) => {
        if (!follows) return undefined;
        scopes.push(scope.namespace);
        const mine = (o: KubeObject) => scope.namespace === undefined || o.metadata.namespace === scope.namespace;
        const scoped: Listener = (e) => {
          if (e.kind === 'listed') l({ ...e, items: e.items.filter(mine) });
          else if (e.kind !== 'change' || mine(e.object)) l(e);
        };
        listeners.push(scoped);
        const off = () => listeners.splice(listeners.indexOf(scoped), 1);
        scope.signal?.addEventListener('abort', off, { once: true });
        return off;
      },
    };
    const own: string[] = [];
    const gw = {
      list: async () => {
        own.push('LIST');
        return { items: [], resourceVersion: '1', pages: 1 };
      },
      watch: async (_t: ResourceType, opts: WatchOptions) => {
        await new Promise<void>((resolve) => opts.signal?.addEventListener('abort', () => resolve()));
      },
    };
    const changes: string[] = [];
    const w = new LiveWatcher({
      gateway: gw as unknown as KubeGateway,
      appInstance: () => 'shop',
      onChange: (c) => changes.push(`${c.type} ${c.object}`),
      onConnection: () => undefined,
      reconnectDelay: () => 10,
      sleep: async () => undefined,
      cache,
    });
    const target = { type: deployType, namespace: 'shop', names: new Set(['orders']) };
    w.update([target]);
    expect(listeners).toHaveLength(1);
    const elsewhere = { ...deploy('orders', '3', 2), metadata: { ...deploy('orders', '3', 2).metadata, namespace: 'other', uid: 'uid-other' } };
    listeners[0]!({ kind: 'listed', items: [deploy('orders', '1', 1), elsewhere] });
    listeners[0]!({ kind: 'change', type: 'MODIFIED', object: { ...elsewhere, metadata: { ...elsewhere.metadata, generation: 9 } } });
    listeners[0]!({ kind: 'change', type: 'MODIFIED', object: deploy('orders', '4', 2) });
    expect(changes).toEqual(['MODIFIED Deployment/orders']);
    expect(scopes).toEqual(['shop']);
    expect(own).toEqual([]);

    // The cache found the type's cluster-wide LIST forbidden: the next update follows it here, in its namespace.
    follows = false;
    w.update([target]);
    await new Promise((r) => setTimeout(r, 10));
    expect(listeners).toHaveLength(0);
    expect(own).toEqual(['LIST']);
    await w.stop();
  });
});
