// writesAs: every write and access check names the user to act as; reads pass as they are.
import { writesAs } from '../../../src/kube/impersonate.js';
import type { KubeGateway } from '../../../src/kube/gateway.js';

describe('writesAs', () => {
  it('adds impersonate to the options of apply, replace, create, update, patch, delete and canI, and nothing to a read', async () => {
    const calls: [string, unknown[]][] = [];
    const record =
      (name: string) =>
      async (...args: unknown[]) => {
        calls.push([name, args]);
        return undefined;
      };
    const base = Object.fromEntries(['apply', 'replace', 'create', 'update', 'patch', 'delete', 'canI', 'get', 'list'].map((n) => [n, record(n)]));
    const gw = writesAs({ ...base, server: 'https://x' } as unknown as KubeGateway, 'system:serviceaccount:shop:deployer');
    const t = { kind: 'ConfigMap' } as never;
    const obj = { metadata: { name: 'a' } } as never;
    await gw.apply(t, obj, { fieldManager: 'm', force: true, dryRun: false });
    await gw.replace(t, obj, { fieldManager: 'm', dryRun: false });
    await gw.create(t, obj, { fieldManager: 'm', dryRun: false });
    await gw.update(t, obj, { fieldManager: 'm' });
    await gw.patch(t, 'shop', 'a', {}, 'merge', { fieldManager: 'm' });
    await gw.delete(t, 'shop', 'a');
    await gw.canI({ verb: 'delete', group: '', resource: 'configmaps' });
    await gw.get(t, 'shop', 'a');
    await gw.list(t, {});
    const as = 'system:serviceaccount:shop:deployer';
    expect(
      calls.map(([n, a]) => [n, (a.find((x) => typeof x === 'object' && x !== null && 'impersonate' in x) as { impersonate?: string })?.impersonate]),
    ).toEqual([
      ['apply', as],
      ['replace', as],
      ['create', as],
      ['update', as],
      ['patch', as],
      ['delete', as],
      ['canI', as],
      ['get', undefined],
      ['list', undefined],
    ]);
    expect(calls[5]![1][3]).toEqual({ impersonate: as });
    expect(gw.server).toBe('https://x');
  });
});
