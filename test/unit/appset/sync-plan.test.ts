// appset sync's plan: the generated Applications against the live ones, as Argo CD's ApplicationSet controller
// reconciles them (createOrUpdateInCluster, createInCluster, deleteInCluster, the applicationsSync policies).
import { appSetSyncSettings, type AppSetSyncSettings, planAppSetSync, withoutMissingProjects } from '../../../src/appset/sync-plan.js';

type Obj = Record<string, unknown>;

const gen = (name: string, spec: Obj = {}, meta: Obj = {}): Obj => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name, namespace: 'argocd', finalizers: ['resources-finalizer.argocd.argoproj.io'], ...meta },
  spec: { destination: { server: 'https://kubernetes.default.svc', namespace: name }, source: { repoURL: 'r', path: name }, ...spec },
});

const OWNER = { apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet', name: 'shop', uid: 'u-1', controller: true, blockOwnerDeletion: true };

/** A live Application as the controller left it: the generated one, owned, with the server's fields. */
const live = (g: Obj, extra: Obj = {}, owner: Obj | null = OWNER): Obj => {
  const m = g.metadata as Obj;
  return {
    ...structuredClone(g),
    metadata: { ...structuredClone(m), uid: `uid-${String(m.name)}`, resourceVersion: '7', ...(owner ? { ownerReferences: [owner] } : {}), ...extra },
    spec: { project: 'default', ...(g.spec as Obj) },
    status: { sync: { status: 'Synced' } },
  };
};

function settings(over: Partial<AppSetSyncSettings> = {}): AppSetSyncSettings {
  return { name: 'shop', namespace: 'argocd', uid: 'u-1', policy: 'sync', preservedAnnotations: [], preservedLabels: [], ignore: [], ...over };
}

const actions = (p: ReturnType<typeof planAppSetSync>) => p.steps.map((s) => `${s.action} ${s.app}${s.note ? ` (${s.note})` : ''}`);

describe('planAppSetSync', () => {
  it('creates what is missing, owned by the live ApplicationSet, with the default project; leaves what is equal', () => {
    const a = gen('a');
    const b = gen('b');
    const p = planAppSetSync(settings(), [a, b], ['a', 'b'], [live(a)]);
    expect(actions(p)).toEqual(['unchanged argocd/a', 'create argocd/b']);
    expect(p.steps[1]!.object).toEqual({
      ...b,
      metadata: { ...(b.metadata as Obj), ownerReferences: [OWNER] },
      spec: { project: 'default', ...(b.spec as Obj) },
    });
    expect(p.warnings).toEqual([]);
  });

  it('updates a changed Application over its live one: spec replaced, resourceVersion kept, the preserved annotations, labels and post-delete finalizers kept', () => {
    const a = gen('a', { source: { repoURL: 'r', path: 'a2' } }, { labels: { team: 'x' }, annotations: { note: 'new' } });
    const was = live(gen('a'), {
      labels: { team: 'x', keep: 'me', drop: 'me' },
      annotations: { 'argocd.argoproj.io/refresh': 'hard', mine: 'kept', other: 'dropped' },
      finalizers: ['resources-finalizer.argocd.argoproj.io', 'post-delete-finalizer.argocd.argoproj.io/cleanup'],
    });
    const p = planAppSetSync(settings({ preservedLabels: ['keep'], preservedAnnotations: ['mine'] }), [a], ['a'], [was]);
    expect(actions(p)).toEqual(['update argocd/a']);
    const obj = p.steps[0]!.object as Obj;
    expect(obj.metadata).toEqual({
      name: 'a',
      namespace: 'argocd',
      uid: 'uid-a',
      resourceVersion: '7',
      labels: { team: 'x', keep: 'me' },
      annotations: { note: 'new', mine: 'kept', 'argocd.argoproj.io/refresh': 'hard' },
      finalizers: ['resources-finalizer.argocd.argoproj.io', 'post-delete-finalizer.argocd.argoproj.io/cleanup'],
      ownerReferences: [OWNER],
    });
    expect(obj.spec).toEqual({ project: 'default', ...(a.spec as Obj) });
    expect(obj.status).toBeUndefined();
    expect(p.steps[0]!.uid).toBe('uid-a');
  });

  it('deletes what it owns and no longer generates (sync, create-delete); keeps it under create-only and create-update', () => {
    const a = gen('a');
    const gone = live(gen('gone'));
    const foreign = live(gen('foreign'), {}, null);
    const otherSet = live(gen('other'), {}, { ...OWNER, name: 'other-set', uid: 'u-2' });
    for (const policy of ['sync', 'create-delete'] as const)
      expect(actions(planAppSetSync(settings({ policy }), [a], ['a'], [live(a), gone, foreign, otherSet]))).toEqual([
        'unchanged argocd/a',
        'delete argocd/gone',
      ]);
    for (const policy of ['create-only', 'create-update'] as const)
      expect(actions(planAppSetSync(settings({ policy }), [a], ['a'], [live(a), gone]))).toEqual([
        'unchanged argocd/a',
        `unchanged argocd/gone (no longer generated; applicationsSync ${policy}: kept)`,
      ]);
    // A name still generated, though invalid (a duplicate), is not deleted: the controller deletes by the whole generated list.
    expect(actions(planAppSetSync(settings(), [], ['gone'], [gone]))).toEqual([]);
  });

  it('does not update under create-only and create-delete, but does under create-update', () => {
    const a = gen('a', { source: { repoURL: 'r', path: 'changed' } });
    const was = live(gen('a'));
    expect(actions(planAppSetSync(settings({ policy: 'create-only' }), [a], ['a'], [was]))).toEqual([
      'unchanged argocd/a (differs; applicationsSync create-only: not updated)',
    ]);
    expect(actions(planAppSetSync(settings({ policy: 'create-delete' }), [a], ['a'], [was]))).toEqual([
      'unchanged argocd/a (differs; applicationsSync create-delete: not updated)',
    ]);
    expect(actions(planAppSetSync(settings({ policy: 'create-update' }), [a], ['a'], [was]))).toEqual(['update argocd/a']);
  });

  it('takes over an Application of the same name that nothing controls; refuses one another controller owns, before any write', () => {
    const a = gen('a');
    const p = planAppSetSync(settings(), [a, gen('b')], ['a', 'b'], [live(a, {}, null)]);
    expect(actions(p)).toEqual(['update argocd/a', 'create argocd/b']);
    expect((p.steps[0]!.object as { metadata: Obj }).metadata.ownerReferences).toEqual([OWNER]);
    const other = planAppSetSync(settings(), [gen('b'), a], ['b', 'a'], [live(a, {}, { ...OWNER, name: 'other-set', uid: 'u-2' })]);
    expect(other).toEqual({
      steps: [],
      warnings: [],
      refusal: 'Application argocd/a is already owned by another controller (ApplicationSet other-set): nothing was written',
    });
  });

  it('without a live ApplicationSet: no owner, no deletion, existing ones left alone under create-only, and a warning', () => {
    const a = gen('a', { source: { repoURL: 'r', path: 'changed' } });
    const s = settings({ uid: undefined });
    const p = planAppSetSync(s, [a, gen('b')], ['a', 'b'], [live(gen('a'), {}, null), live(gen('stale'))]);
    expect(actions(p)).toEqual(['update argocd/a', 'create argocd/b']);
    expect((p.steps[0]!.object as { metadata: Obj }).metadata.ownerReferences).toBeUndefined();
    expect((p.steps[1]!.object as { metadata: Obj }).metadata.ownerReferences).toBeUndefined();
    expect(p.warnings).toEqual(['ApplicationSet argocd/shop is not in the cluster: the Applications are written without an owner, and none is deleted']);
    expect(actions(planAppSetSync({ ...s, policy: 'create-only' }, [a], ['a'], [live(gen('a'), {}, null)]))).toEqual([
      'unchanged argocd/a (differs; applicationsSync create-only: not updated)',
    ]);
  });

  it('ignoreApplicationDifferences: the pointed fields keep their live value (or stay absent), for the named Application or every one', () => {
    const a = gen('a', { source: { repoURL: 'r', path: 'a', targetRevision: 'v2' }, syncPolicy: { automated: {} } });
    const was = live(gen('a', { source: { repoURL: 'r', path: 'a', targetRevision: 'v1' } }));
    const rules = (name?: string) => [{ ...(name ? { name } : {}), jsonPointers: ['/spec/source/targetRevision', '/spec/syncPolicy'] }];
    expect(actions(planAppSetSync(settings({ ignore: rules() }), [a], ['a'], [was]))).toEqual(['unchanged argocd/a']);
    expect(actions(planAppSetSync(settings({ ignore: rules('a') }), [a], ['a'], [was]))).toEqual(['unchanged argocd/a']);
    const other = planAppSetSync(settings({ ignore: rules('b') }), [a], ['a'], [was]);
    expect(actions(other)).toEqual(['update argocd/a']);
    expect((other.steps[0]!.object as { spec: Obj }).spec.syncPolicy).toEqual({ automated: {} });
  });
});

describe('appSetSyncSettings', () => {
  const obj = (spec: Obj, metadata: Obj = { name: 'shop', uid: 'u-9' }) => ({ apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet', metadata, spec });

  it('reads the policy (default sync), the preserved fields, the JSON pointers and the live uid', () => {
    expect(
      appSetSyncSettings(
        obj({
          syncPolicy: { applicationsSync: 'create-update' },
          preservedFields: { annotations: ['a'], labels: ['l'] },
          ignoreApplicationDifferences: [{ jsonPointers: ['/spec/x'] }, { name: 'n', jsonPointers: ['/spec/y'] }],
        }),
        'shop',
        'argocd',
      ),
    ).toEqual({
      name: 'shop',
      namespace: 'argocd',
      uid: 'u-9',
      policy: 'create-update',
      preservedAnnotations: ['a'],
      preservedLabels: ['l'],
      ignore: [{ jsonPointers: ['/spec/x'] }, { name: 'n', jsonPointers: ['/spec/y'] }],
    });
    expect(appSetSyncSettings(obj({}, { name: 'shop' }), 'shop', 'argocd')).toEqual({
      name: 'shop',
      namespace: 'argocd',
      policy: 'sync',
      preservedAnnotations: [],
      preservedLabels: [],
      ignore: [],
    });
  });

  it('refuses what it would not carry out, and names a wrong policy', () => {
    expect(appSetSyncSettings(obj({ ignoreApplicationDifferences: [{ jqPathExpressions: ['.spec.x'] }] }), 'shop', 'argocd')).toEqual({
      refusal:
        'spec.ignoreApplicationDifferences with jqPathExpressions is not carried out by appset sync (jsonPointers are): refusing rather than overwrite what it protects',
    });
    expect(appSetSyncSettings(obj({ syncPolicy: { applicationsSync: 'everything' } }), 'shop', 'argocd')).toEqual({
      error: 'spec.syncPolicy.applicationsSync must be one of sync, create-only, create-update, create-delete (got "everything")',
    });
  });
});

describe('withoutMissingProjects (validateGeneratedApplications: the AppProject must exist)', () => {
  it("leaves out an Application of a project not among those listed, with the controller's message; default (or none) is always there", () => {
    const a = gen('a', { project: 'team' });
    const b = gen('b', { project: 'gone' });
    const c = gen('c');
    const d = gen('d', { project: '' });
    expect(withoutMissingProjects('argocd', [a, b, c, d], new Set(['team']))).toEqual({
      valid: [a, c, d],
      invalid: [{ name: 'argocd/b', error: 'application references project gone which does not exist' }],
    });
    expect(withoutMissingProjects('argocd', [a], new Set())).toEqual({
      valid: [],
      invalid: [{ name: 'argocd/a', error: 'application references project team which does not exist' }],
    });
  });
});
