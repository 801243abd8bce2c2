// planDelete: what an Application's deletion deletes, keeps and waits for, highest wave first; the finalizers it sets.
import { cascadeOf, finalizersAfter, finalizersFor, planDelete } from '../../../src/prune/delete-plan.js';
import type { LiveEntry } from '../../../src/prune/plan.js';
import type { ResourceType } from '../../../src/model/resource-type.js';

const type = (kind: string, group = ''): ResourceType => ({
  group,
  version: 'v1',
  kind,
  resource: `${kind.toLowerCase()}s`,
  namespaced: kind !== 'CustomResourceDefinition',
  verbs: ['list', 'delete'],
});

function entry(
  kind: string,
  name: string,
  annotations: Record<string, string> = {},
  opts: { group?: string; app?: string; namespace?: string } = {},
): LiveEntry {
  const group = opts.group ?? '';
  const namespace = opts.namespace ?? (kind === 'CustomResourceDefinition' ? '' : 'shop');
  const mark = `${opts.app ?? 'shop'}:${group}/${kind}:${namespace}/${name}`;
  return {
    type: type(kind, group),
    object: {
      apiVersion: group ? `${group}/v1` : 'v1',
      kind,
      metadata: { name, ...(namespace ? { namespace } : {}), uid: `uid-${name}`, annotations: { 'argocd.argoproj.io/tracking-id': mark, ...annotations } },
    },
  };
}
const wave = (n: number) => ({ 'argocd.argoproj.io/sync-wave': String(n) });

describe('planDelete', () => {
  it('groups the objects by wave, highest first, in the reverse of the kind order within a wave', () => {
    const plan = planDelete({
      live: [
        entry('ConfigMap', 'w0'),
        entry('Service', 'svc', wave(1)),
        entry('Namespace', 'ns-obj', wave(1), { namespace: '' }),
        entry('ConfigMap', 'w2', wave(2)),
      ],
      appInstance: 'shop',
      approved: false,
    });
    expect(plan.waves.map((w) => [w.wave, w.objects.map((o) => o.key.name)])).toEqual([
      [2, ['w2']],
      [1, ['svc', 'ns-obj']],
      [0, ['w0']],
    ]);
    expect(plan.kept).toEqual([]);
  });

  it('keeps Delete=false, Helm keep, CRDs and the Application itself, each with its reason', () => {
    const plan = planDelete({
      live: [
        entry('ConfigMap', 'stay', { 'argocd.argoproj.io/sync-options': 'Prune=false,Delete=false' }),
        entry('ConfigMap', 'helm-kept', { 'helm.sh/resource-policy': 'keep' }),
        entry('CustomResourceDefinition', 'crontabs.example.com', {}, { group: 'apiextensions.k8s.io' }),
        entry('Application', 'shop', {}, { group: 'argoproj.io', namespace: 'argocd' }),
        entry('ConfigMap', 'goes'),
      ],
      appInstance: 'shop',
      application: { namespace: 'argocd', name: 'shop' },
      approved: false,
    });
    expect(plan.kept.map((k) => `${k.key.name}: ${k.reason}`).sort()).toEqual([
      'crontabs.example.com: a CustomResourceDefinition is never deleted with an app',
      'helm-kept: annotated helm.sh/resource-policy: keep',
      'shop: the Application being deleted',
      'stay: annotated argocd.argoproj.io/sync-options: Delete=false',
    ]);
    expect(plan.waves.flatMap((w) => w.objects.map((o) => o.key.name))).toEqual(['goes']);
  });

  it("never another app's objects or unmarked ones; Delete=confirm needs approval; live delete hooks are run, not deleted", () => {
    const unmarked = entry('ConfigMap', 'bystander');
    delete unmarked.object.metadata.annotations;
    const live = [
      entry('ConfigMap', 'theirs', {}, { app: 'other' }),
      unmarked,
      entry('ConfigMap', 'careful', { 'argocd.argoproj.io/sync-options': 'Delete=confirm' }),
      entry('Job', 'cleanup', { 'argocd.argoproj.io/hook': 'PostDelete' }, { group: 'batch' }),
      entry('Job', 'leftover-presync', { 'argocd.argoproj.io/hook': 'PreSync' }, { group: 'batch' }),
    ];
    const plan = planDelete({ live, appInstance: 'shop', approved: false });
    expect(plan.notOwned.map((n) => `${n.key.name} ${n.reason.code}`)).toEqual(['theirs other-app']);
    expect(plan.needConfirmation.map((k) => k.name)).toEqual(['careful']);
    expect(plan.liveDeleteHooks.map((h) => h.key.name)).toEqual(['cleanup']);
    expect(plan.waves.flatMap((w) => w.objects.map((o) => o.key.name)).sort()).toEqual(['careful', 'leftover-presync']);
    expect(planDelete({ live, appInstance: 'shop', approved: true }).needConfirmation).toEqual([]);
  });
});

describe("the Application's own Delete= option (Argo CD's shouldBeDeleted fallback)", () => {
  const live = () => [
    entry('ConfigMap', 'plain'),
    entry('ConfigMap', 'says-true', { 'argocd.argoproj.io/sync-options': 'Delete=true' }),
    entry('ConfigMap', 'first-wins', { 'argocd.argoproj.io/sync-options': 'Delete=false,Delete=true' }),
  ];
  it('Delete=false keeps every object whose annotation says nothing; an annotation wins; the first of repeated keys is read', () => {
    const plan = planDelete({ live: live(), appInstance: 'shop', appDelete: 'false', approved: false });
    expect(plan.kept.map((k) => `${k.key.name}: ${k.reason}`).sort()).toEqual([
      'first-wins: annotated argocd.argoproj.io/sync-options: Delete=false',
      'plain: the Application sets syncOptions Delete=false',
    ]);
    expect(plan.waves.flatMap((w) => w.objects.map((o) => o.key.name))).toEqual(['says-true']);
  });
  it('Delete=confirm holds the deletion of every object whose annotation says nothing until approved', () => {
    const plan = planDelete({ live: live(), appInstance: 'shop', appDelete: 'confirm', approved: false });
    expect(plan.needConfirmation.map((k) => k.name)).toEqual(['plain']);
    expect(planDelete({ live: live(), appInstance: 'shop', appDelete: 'confirm', approved: true }).needConfirmation).toEqual([]);
  });
});

describe('finalizers', () => {
  it("takes the hooks Argo CD's sync made from generateName as the app's (their mark has no name); a copied mark stays out", () => {
    // Argo CD marks a generateName hook before naming it: `shop:batch/Job:shop/`
    const generated = (name: string, hook: string) => {
      const e = entry('Job', name, { 'argocd.argoproj.io/hook': hook }, { group: 'batch' });
      e.object.metadata.annotations!['argocd.argoproj.io/tracking-id'] = 'shop:batch/Job:shop/';
      return e;
    };
    const elsewhere = generated('migrate-abc1234-presync-1796681205', 'PreSync');
    elsewhere.object.metadata.namespace = 'other';
    elsewhere.object.metadata.uid = 'uid-elsewhere';
    const copied = entry('ConfigMap', 'copy');
    copied.object.metadata.annotations!['argocd.argoproj.io/tracking-id'] = 'shop:/ConfigMap:shop/original';
    const unnamedPlain = entry('ConfigMap', 'plain');
    unnamedPlain.object.metadata.annotations!['argocd.argoproj.io/tracking-id'] = 'shop:/ConfigMap:shop/';
    const plan = planDelete({
      live: [
        generated('migrate-abc1234-presync-1796681205', 'PreSync'),
        generated('cleanup-abc1234-postdelete-1796681300', 'PostDelete'),
        elsewhere,
        copied,
        unnamedPlain,
      ],
      appInstance: 'shop',
      approved: false,
    });
    expect(plan.waves.flatMap((w) => w.objects.map((o) => o.key.name))).toEqual(['migrate-abc1234-presync-1796681205']);
    expect(plan.liveDeleteHooks.map((h) => h.key.name)).toEqual(['cleanup-abc1234-postdelete-1796681300']);
    expect(plan.notOwned.map((n) => [n.key.namespace, n.key.name, n.reason.code])).toEqual([
      ['other', 'migrate-abc1234-presync-1796681205', 'not-self'],
      ['shop', 'copy', 'not-self'],
      ['shop', 'plain', 'not-self'],
    ]);
  });

  it("reads the cascade from Argo CD's finalizers", () => {
    expect(cascadeOf(['resources-finalizer.argocd.argoproj.io'])).toBe('foreground');
    expect(cascadeOf(['resources-finalizer.argocd.argoproj.io/foreground'])).toBe('foreground');
    expect(cascadeOf(['resources-finalizer.argocd.argoproj.io/background'])).toBe('background');
    expect(cascadeOf(['example.com/other'])).toBe('orphan');
  });

  it("sets the cascade's finalizer instead of another one, adds the delete hooks' and keeps anyone else's", () => {
    expect(finalizersFor(['example.com/other', 'resources-finalizer.argocd.argoproj.io'], 'background', { pre: true, post: false })).toEqual([
      'example.com/other',
      'resources-finalizer.argocd.argoproj.io/background',
      'pre-delete-finalizer.argocd.argoproj.io',
    ]);
    expect(finalizersFor(['resources-finalizer.argocd.argoproj.io'], 'orphan', { pre: false, post: true })).toEqual([
      'post-delete-finalizer.argocd.argoproj.io',
    ]);
    expect(finalizersFor([], 'foreground', { pre: false, post: false })).toEqual(['resources-finalizer.argocd.argoproj.io']);
  });

  it("removes every one of Argo CD's deletion finalizers at the end, and nothing else", () => {
    expect(
      finalizersAfter([
        'example.com/other',
        'resources-finalizer.argocd.argoproj.io/foreground',
        'pre-delete-finalizer.argocd.argoproj.io',
        'post-delete-finalizer.argocd.argoproj.io/cleanup',
      ]),
    ).toEqual(['example.com/other']);
  });
});
