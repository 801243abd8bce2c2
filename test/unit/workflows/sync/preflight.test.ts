// Permission preflight against the fake gateway: what it asks, what it names, and that it changes nothing.
import { COMMON_TYPES, FakeGateway } from '../../../support/fake-gateway.js';
import type { ResourceType } from '../../../../src/model/resource-type.js';
import { describeMissing, permissionsNeeded, preflight, writesOf, type IntendedWrite } from '../../../../src/workflows/sync/preflight.js';
import type { KubeObject } from '../../../../src/model/object.js';

const type = (kind: string): ResourceType => {
  const t = COMMON_TYPES.find((x) => x.kind === kind);
  if (!t) throw new Error(kind);
  return t;
};
const cm = (name: string, ns = 'shop'): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns }, data: { a: '1' } });
const key = (kind: string, name: string, namespace = 'shop') => ({ group: kind === 'Deployment' ? 'apps' : '', kind, namespace, name });

const writes: IntendedWrite[] = [
  { op: 'apply', type: type('ConfigMap'), key: key('ConfigMap', 'a'), exists: true },
  { op: 'apply', type: type('ConfigMap'), key: key('ConfigMap', 'b'), exists: false },
  { op: 'apply', type: type('Deployment'), key: key('Deployment', 'web'), exists: true },
  { op: 'apply', type: type('Namespace'), key: { group: '', kind: 'Namespace', namespace: '', name: 'shop' }, exists: false },
  { op: 'delete', type: type('ConfigMap'), key: key('ConfigMap', 'old') },
];

describe('permissionsNeeded', () => {
  it('asks patch for every apply, create for absent objects, delete for prunes, once per verb/resource/namespace', () => {
    const needed = permissionsNeeded(writes).map((p) => `${p.verb} ${p.group}/${p.resource} ${p.namespace ?? '-'} <- ${p.neededFor.join('|')}`);
    expect(needed).toEqual([
      'create /configmaps shop <- apply ConfigMap shop/b',
      'create /namespaces - <- apply Namespace shop',
      'delete /configmaps shop <- delete ConfigMap shop/old',
      'patch /configmaps shop <- apply ConfigMap shop/a|apply ConfigMap shop/b',
      'patch /namespaces - <- apply Namespace shop',
      'patch apps/deployments shop <- apply Deployment.apps shop/web',
    ]);
  });

  it('names each write once per permission, sorted, however many writes share it (a sync of thousands of objects)', () => {
    const many: IntendedWrite[] = [];
    for (let i = 999; i >= 0; i--)
      many.push({ op: 'apply', type: type('ConfigMap'), key: key('ConfigMap', `cm-${String(i).padStart(4, '0')}`), exists: i % 2 === 0 });
    // The same object twice (two sources): named once.
    many.push({ op: 'apply', type: type('ConfigMap'), key: key('ConfigMap', 'cm-0001'), exists: false });
    const needed = permissionsNeeded(many);
    expect(needed.map((p) => `${p.verb} ${p.resource} ${p.neededFor.length}`)).toEqual(['create configmaps 500', 'patch configmaps 1000']);
    const patch = needed[1]!.neededFor;
    expect(patch[0]).toBe('apply ConfigMap shop/cm-0000');
    expect(patch.at(-1)).toBe('apply ConfigMap shop/cm-0999');
    expect([...patch].sort()).toEqual(patch);
    expect(new Set(patch).size).toBe(1000);
  });

  it('does not mutate its input', () => {
    const copy = structuredClone(writes);
    permissionsNeeded(writes);
    expect(writes).toEqual(copy);
  });
});

describe('preflight', () => {
  it('reports nothing missing when everything is allowed, and changes nothing: no delete is dry-run (as gitops-engine sends none for a prune task)', async () => {
    const gw = new FakeGateway({ objects: [cm('old')] });
    const before = gw.objects();
    const r = await preflight(gw, writes);
    expect(r.missing).toEqual([]);
    expect(r.applyBlocked).toBe(false);
    expect(r.deleteBlocked).toBe(false);
    expect(r.requests).toBe(6);
    expect(gw.objects()).toEqual(before);
    expect(gw.calls.filter((c) => c.startsWith('DELETE') || c.startsWith('APPLY'))).toEqual([]);
  });

  it('names each missing permission and what needs it', async () => {
    const gw = new FakeGateway({ objects: [cm('old')], forbidden: ['delete configmaps', 'patch deployments.apps'] });
    const r = await preflight(gw, writes);
    expect(r.applyBlocked).toBe(true);
    expect(r.deleteBlocked).toBe(true);
    expect(r.missing.map(describeMissing)).toEqual([
      'cannot delete configmaps in namespace "shop" (needed to delete ConfigMap shop/old)',
      'cannot patch deployments.apps in namespace "shop" (needed to apply Deployment.apps shop/web)',
    ]);
    expect(r.missing.every((m) => m.reason === 'denied by fake')).toBe(true);
    expect(gw.calls.some((c) => c.startsWith('DELETE'))).toBe(false);
    expect(gw.objects().map((o) => o.metadata.name)).toEqual(['old']);
  });

  it('apply allowed, delete refused: only deleteBlocked', async () => {
    const gw = new FakeGateway({ forbidden: ['delete configmaps'] });
    const r = await preflight(gw, writes);
    expect(r.applyBlocked).toBe(false);
    expect(r.deleteBlocked).toBe(true);
  });

  it('writesOf skips skipped steps and skipped candidates', () => {
    const w = writesOf(
      [
        { key: key('ConfigMap', 'a'), type: type('ConfigMap'), action: 'update' },
        { key: key('ConfigMap', 'b'), type: type('ConfigMap'), action: 'create' },
        { key: key('ConfigMap', 'c'), type: type('ConfigMap'), action: 'skip' },
      ],
      [
        { key: key('ConfigMap', 'old'), type: type('ConfigMap'), object: cm('old') },
        { key: key('ConfigMap', 'kept'), type: type('ConfigMap'), object: cm('kept'), skip: 'Prune=false' },
      ],
    );
    expect(w.map((x) => `${x.op} ${x.key.name} ${x.exists ?? ''}`)).toEqual(['apply a true', 'apply b false', 'delete old ']);
  });
});
