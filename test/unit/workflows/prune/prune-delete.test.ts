// Guarded deletion: preconditions on uid and resourceVersion, every result collected, skips respected.
import { FakeGateway, COMMON_TYPES } from '../../../support/fake-gateway.js';
import { apiError } from '../../../../src/kube/errors.js';
import { deleteCandidates } from '../../../../src/workflows/prune/prune-delete.js';
import { planPrune } from '../../../../src/prune/plan.js';
import type { KubeObject } from '../../../../src/model/object.js';

const CM = COMMON_TYPES.find((t) => t.kind === 'ConfigMap')!;
const marked = (name: string, extra: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', annotations: { 'argocd.argoproj.io/tracking-id': `shop:/ConfigMap:shop/${name}`, ...extra } },
});

async function candidatesOf(gw: FakeGateway) {
  const { items } = await gw.list(CM, { namespace: 'shop', metadataOnly: true });
  return planPrune({ live: items.map((object) => ({ object, type: CM })), appInstance: 'shop', desired: [], appPruneDefault: true }).candidates;
}

test('an object recreated or changed after listing is not deleted; the others are, and every outcome is reported', async () => {
  const gw = new FakeGateway({ objects: [marked('a'), marked('b'), marked('c')] });
  const cands = await candidatesOf(gw);
  // Between listing and deleting: b is recreated (new uid), c is changed (new resourceVersion).
  await gw.delete(CM, 'shop', 'b');
  gw.put(marked('b'));
  gw.put({ ...gw.find('ConfigMap', 'shop', 'c')!, data: { x: 'y' } });
  const results = await deleteCandidates(gw, cands, { propagationPolicy: 'foreground' });
  expect(results.map((r) => [r.candidate.key.name, r.outcome])).toEqual([
    ['c', 'changed'],
    ['b', 'changed'],
    ['a', 'deleted'],
  ]);
  expect(gw.find('ConfigMap', 'shop', 'b')).toBeDefined();
  expect(gw.find('ConfigMap', 'shop', 'c')).toBeDefined();
  expect(gw.find('ConfigMap', 'shop', 'a')).toBeUndefined();
});

test('a failure does not stop the others; an object already gone is reported as gone; Prune=false is skipped', async () => {
  const gw = new FakeGateway({
    objects: [marked('a'), marked('b'), marked('c'), marked('keep', { 'argocd.argoproj.io/sync-options': 'Prune=false' })],
    failDelete: (_t, _ns, name) =>
      name === 'b'
        ? apiError(
            'deleting ConfigMap shop/b',
            403,
            '{"kind":"Status","message":"configmaps \\"b\\" is forbidden: User \\"dev\\" cannot delete resource \\"configmaps\\" in API group \\"\\" in the namespace \\"shop\\""}',
            { verb: 'delete', resource: 'configmaps', namespace: 'shop' },
          )
        : undefined,
  });
  const cands = await candidatesOf(gw);
  await gw.delete(CM, 'shop', 'c');
  const results = await deleteCandidates(gw, cands, { propagationPolicy: 'background' });
  expect(results.map((r) => [r.candidate.key.name, r.outcome, r.message ?? ''])).toEqual([
    ['keep', 'skipped', 'annotated argocd.argoproj.io/sync-options: Prune=false'],
    ['c', 'gone', 'already deleted'],
    ['b', 'failed', 'deleting ConfigMap shop/b: forbidden (403): cannot delete configmaps in namespace "shop"'],
    ['a', 'deleted', ''],
  ]);
  expect(gw.calls.filter((c) => c.startsWith('DELETE')).pop()).toBe('DELETE ConfigMap shop/a background');
});

test('the app-level Prune=false default is overridden by a resource annotation', () => {
  const live = [marked('a'), marked('b', { 'argocd.argoproj.io/sync-options': 'Prune=true' })].map((object) => ({ object, type: CM }));
  const plan = planPrune({ live, appInstance: 'shop', desired: [], appPruneDefault: false });
  expect(plan.candidates.map((c) => [c.key.name, c.skip ?? ''])).toEqual([
    ['b', ''],
    ['a', 'the Application sets syncOptions Prune=false'],
  ]);
});

test("the app's live hooks are never candidates; they are listed apart for status, another app's are not", () => {
  const live = [
    marked('plain'),
    marked('hook', { 'argocd.argoproj.io/hook': 'PreSync' }),
    {
      ...marked('other-hook', { 'argocd.argoproj.io/hook': 'PostSync' }),
      metadata: {
        name: 'other-hook',
        namespace: 'shop',
        annotations: { 'argocd.argoproj.io/tracking-id': 'other:/ConfigMap:shop/other-hook', 'argocd.argoproj.io/hook': 'PostSync' },
      },
    },
  ].map((object) => ({ object, type: CM }));
  const plan = planPrune({ live, appInstance: 'shop', desired: [], appPruneDefault: true });
  expect(plan.candidates.map((c) => c.key.name)).toEqual(['plain']);
  expect(plan.hooks.map((h) => h.key.name)).toEqual(['hook']);
});
