// The prune plan's order: the reverse of creation, and objects annotated PruneLast=true after every other.
import { COMMON_TYPES } from '../../support/fake-gateway.js';
import { planPrune } from '../../../src/prune/plan.js';
import type { KubeObject } from '../../../src/model/object.js';

const CM = COMMON_TYPES.find((t) => t.kind === 'ConfigMap')!;
const marked = (name: string, annotations: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', uid: `uid-${name}`, annotations: { 'argocd.argoproj.io/tracking-id': `shop:/ConfigMap:shop/${name}`, ...annotations } },
});
const order = (objects: KubeObject[]) =>
  planPrune({ live: objects.map((object) => ({ object, type: CM })), appInstance: 'shop', desired: [], appPruneDefault: true }).candidates.map(
    (c) => c.key.name,
  );
const wave = (w: number) => ({ 'argocd.argoproj.io/sync-wave': String(w) });

test('candidates are deleted in reverse wave order', () => {
  expect(order([marked('w0', wave(0)), marked('w2', wave(2)), marked('w-1', wave(-1))])).toEqual(['w2', 'w0', 'w-1']);
});

test('an object annotated PruneLast=true is deleted after every other, whatever its wave', () => {
  const last = marked('last', { ...wave(5), 'argocd.argoproj.io/sync-options': 'PruneLast=true' });
  const alsoLast = marked('also-last', { ...wave(-3), 'argocd.argoproj.io/sync-options': 'Prune=true, PruneLast=true' });
  expect(order([marked('w0', wave(0)), last, marked('w2', wave(2)), alsoLast])).toEqual(['w2', 'w0', 'last', 'also-last']);
});

test('PruneLast=false keeps an object in its wave', () => {
  expect(order([marked('w0', wave(0)), marked('w1', { ...wave(1), 'argocd.argoproj.io/sync-options': 'PruneLast=false' })])).toEqual(['w1', 'w0']);
});

test('Prune=confirm (the annotation, else the app-level option) marks a candidate for confirmation; Prune=false wins and Prune=true opts out', () => {
  const plan = (objects: KubeObject[], appPruneConfirm: boolean) =>
    planPrune({
      live: objects.map((object) => ({ object, type: CM })),
      appInstance: 'shop',
      desired: [],
      appPruneDefault: true,
      appPruneConfirm,
    })
      .candidates.map((c) => `${c.key.name} ${c.confirm ? 'confirm' : '-'} ${c.skip ? 'skip' : '-'}`)
      .sort();
  const opt = (v: string) => ({ 'argocd.argoproj.io/sync-options': v });
  expect(plan([marked('a'), marked('b', opt('Prune=confirm')), marked('c', opt('Prune=false'))], false)).toEqual(['a - -', 'b confirm -', 'c - skip']);
  expect(plan([marked('a'), marked('b', opt('Prune=true')), marked('c', opt('Prune=false'))], true)).toEqual(['a confirm -', 'b - -', 'c - skip']);
});

test("the app's live hooks are listed, never candidates: a hook Argo CD made from generateName carries its declaration's unnamed mark", () => {
  const hook = (name: string, id: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      annotations: { 'argocd.argoproj.io/tracking-id': id, 'argocd.argoproj.io/hook': 'PreSync' },
      ...extra,
    },
  });
  const plan = planPrune({
    live: [
      hook('named', 'shop:/ConfigMap:shop/named'),
      // Argo CD's sync: the tracking-id was set before the hook got its name (gitops-engine names it afterwards)
      hook('gen-0d521c6-presync-1796681285', 'shop:/ConfigMap:shop/'),
      hook('other-app', 'cart:/ConfigMap:shop/'),
      hook('owned-by-job', 'shop:/ConfigMap:shop/', { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'j', uid: 'u' }] }),
      marked('copied', { 'argocd.argoproj.io/tracking-id': 'shop:/ConfigMap:shop/original' }),
    ].map((object) => ({ object, type: CM })),
    appInstance: 'shop',
    desired: [],
    appPruneDefault: true,
  });
  expect(plan.hooks.map((h) => h.key.name)).toEqual(['named', 'gen-0d521c6-presync-1796681285']);
  expect(plan.candidates).toEqual([]);
  // a plain object whose mark names another object stays a copied mark, never a candidate
  expect(plan.notOwned.map((n) => [n.key.name, n.reason.code])).toEqual([['copied', 'not-self']]);
});
