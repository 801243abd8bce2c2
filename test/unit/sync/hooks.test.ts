// Hooks and the sync operation's order, as data: phases from Argo CD's and Helm's annotations, delete policies,
// generated names, and (phase, wave) groups.
import { generatedHookName, hookOf, isHookObject } from '../../../src/sync/hooks.js';
import { hookWave, isMultiStep, phaseGroups, syncFailGroups } from '../../../src/sync/phases.js';
import type { KubeObject } from '../../../src/model/object.js';

const obj = (annotations: Record<string, string>, name = 'x'): KubeObject => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name, annotations } });

describe('hookOf', () => {
  it('an ordinary resource is no hook', () => {
    expect(hookOf(obj({}))).toBeUndefined();
    expect(isHookObject(obj({ 'argocd.argoproj.io/sync-wave': '1' }))).toBe(false);
  });

  it('reads the phases of argocd.argoproj.io/hook; BeforeHookCreation is the default delete policy', () => {
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'PreSync' }))).toEqual({
      phases: ['PreSync'],
      deletePhases: [],
      deletePolicies: ['BeforeHookCreation'],
      policyDeclared: false,
      helm: false,
      unknown: [],
    });
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'PreSync, PostSync', 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded,HookFailed' }))).toEqual({
      phases: ['PreSync', 'PostSync'],
      deletePhases: [],
      deletePolicies: ['HookSucceeded', 'HookFailed'],
      policyDeclared: true,
      helm: false,
      unknown: [],
    });
  });

  it('Skip is never run; unknown values are named', () => {
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'Skip' }))?.phases).toEqual([]);
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'PreSync,Later', 'argocd.argoproj.io/hook-delete-policy': 'Never' }))?.unknown).toEqual([
      'argocd.argoproj.io/hook: Later',
      'argocd.argoproj.io/hook-delete-policy: Never',
    ]);
  });

  it("maps Helm's hooks as gitops-engine does; test hooks are not run; Argo CD's annotation wins", () => {
    expect(hookOf(obj({ 'helm.sh/hook': 'pre-install,pre-upgrade', 'helm.sh/hook-delete-policy': 'hook-succeeded,before-hook-creation' }))).toEqual({
      phases: ['PreSync'],
      deletePhases: [],
      deletePolicies: ['HookSucceeded', 'BeforeHookCreation'],
      policyDeclared: true,
      helm: true,
      unknown: [],
    });
    expect(hookOf(obj({ 'helm.sh/hook': 'post-install' }))?.phases).toEqual(['PostSync']);
    expect(hookOf(obj({ 'helm.sh/hook': 'test' }))?.phases).toEqual([]);
    expect(hookOf(obj({ 'helm.sh/hook': 'pre-install', 'argocd.argoproj.io/hook': 'Sync' }))?.phases).toEqual(['Sync']);
  });

  it('PreDelete and PostDelete (and Helm pre-delete / post-delete) are delete hooks: no sync phase, no unknown value', () => {
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'PreDelete' }))).toMatchObject({ phases: [], deletePhases: ['PreDelete'], unknown: [] });
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'PostDelete', 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' }))).toMatchObject({
      phases: [],
      deletePhases: ['PostDelete'],
      policyDeclared: true,
    });
    expect(hookOf(obj({ 'helm.sh/hook': 'pre-delete,post-delete' }))).toMatchObject({
      phases: [],
      deletePhases: ['PreDelete', 'PostDelete'],
      policyDeclared: false,
    });
    expect(hookOf(obj({ 'helm.sh/hook': 'post-install,post-delete' }))).toMatchObject({ phases: ['PostSync'], deletePhases: ['PostDelete'] });
  });

  it('a hook wave is the sync-wave, else the Helm weight, else 0', () => {
    expect(hookWave(obj({ 'argocd.argoproj.io/sync-wave': '-2', 'helm.sh/hook-weight': '5' }))).toEqual({ wave: -2 });
    expect(hookWave(obj({ 'helm.sh/hook-weight': '5' }))).toEqual({ wave: 5 });
    expect(hookWave(obj({}))).toEqual({ wave: 0 });
    expect(hookWave(obj({ 'helm.sh/hook-weight': 'high' })).error).toMatch(/not an integer/);
  });

  it('helm.sh/hook: crd-install is no hook (gitops-engine helm IsHook): an ordinary resource, applied in the Sync phase', () => {
    const crd: KubeObject = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com', annotations: { 'helm.sh/hook': 'crd-install' } },
    };
    expect(hookOf(crd)).toBeUndefined();
    expect(isHookObject(crd)).toBe(false);
    // Any other value keeps it a hook; crd-install is no type gitops-engine maps, so it runs in no phase of its own.
    expect(hookOf(obj({ 'helm.sh/hook': 'crd-install,pre-install' }))?.phases).toEqual(['PreSync']);
  });

  it('Skip skips only when it is the one type named (gitops-engine hook.Skip): PreSync,Skip is a PreSync hook', () => {
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'PreSync,Skip' }))?.phases).toEqual(['PreSync']);
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'Skip, Skip' }))?.phases).toEqual([]);
  });

  it("Argo CD's and Helm's delete policies count together (gitops-engine hook.DeletePolicies)", () => {
    expect(
      hookOf(
        obj({ 'argocd.argoproj.io/hook': 'PreSync', 'argocd.argoproj.io/hook-delete-policy': 'HookFailed', 'helm.sh/hook-delete-policy': 'hook-succeeded' }),
      )?.deletePolicies,
    ).toEqual(['HookFailed', 'HookSucceeded']);
    expect(hookOf(obj({ 'helm.sh/hook': 'pre-install', 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' }))).toMatchObject({
      deletePolicies: ['HookSucceeded'],
      policyDeclared: true,
    });
  });

  it('an Argo CD hook annotation with no type gitops-engine knows falls back to the Helm types (hook.Types)', () => {
    expect(hookOf(obj({ 'argocd.argoproj.io/hook': 'Later', 'helm.sh/hook': 'post-install' }))?.phases).toEqual(['PostSync']);
  });

  it('a wave is read as Go strconv.Atoi reads it: " 5" is refused (then the Helm weight, else 0), +5 and 007 are not', () => {
    expect(hookWave(obj({ 'argocd.argoproj.io/sync-wave': ' 5' }))).toMatchObject({ wave: 0, error: expect.stringMatching(/" 5" is not an integer/) });
    expect(hookWave(obj({ 'argocd.argoproj.io/sync-wave': '5 ', 'helm.sh/hook-weight': '3' }))).toMatchObject({ wave: 3 });
    expect(hookWave(obj({ 'argocd.argoproj.io/sync-wave': '+5' }))).toEqual({ wave: 5 });
    expect(hookWave(obj({ 'argocd.argoproj.io/sync-wave': '007' }))).toEqual({ wave: 7 });
    expect(hookWave(obj({ 'argocd.argoproj.io/sync-wave': '9223372036854775808' })).error).toMatch(/not an integer/);
  });

  it('names a generateName hook as Argo CD does: revision[0:7]-phase-unix seconds, lower-cased', () => {
    expect(generatedHookName('migrate-', '4F3a9c1d2e', 'PreSync', 1_700_000_000_999)).toBe('migrate-4f3a9c1-presync-1700000000');
  });
});

describe('phaseGroups', () => {
  type Phase = 'PreSync' | 'Sync' | 'PostSync' | 'SyncFail';
  const o = (kind: string, name: string, ns = 'shop'): KubeObject => ({
    apiVersion: kind === 'Namespace' ? 'v1' : kind === 'Job' ? 'batch/v1' : kind === 'Deployment' ? 'apps/v1' : 'v1',
    kind,
    metadata: { name, ...(kind === 'Namespace' ? {} : { namespace: ns }) },
  });
  const step = (name: string, wave: number, kind = 'ConfigMap', ns = 'shop') => ({ name, wave, object: o(kind, name, ns) });
  const hook = (name: string, phases: Phase[], wave = 0, kind = 'Job', ns = 'shop') => ({ name, phases, wave, object: o(kind, name, ns) });
  const read = { step: (s: ReturnType<typeof step>) => s };

  it('orders PreSync, Sync, PostSync by wave, with hooks in each phase they name; SyncFail apart', () => {
    const groups = phaseGroups([step('db', -1), step('app', 1), step('cm', 1)], read, [
      hook('migrate', ['PreSync']),
      hook('smoke', ['PostSync']),
      hook('both', ['PreSync', 'PostSync'], 3),
      hook('cleanup', ['SyncFail']),
    ]);
    expect(groups.map((g) => [g.phase, g.wave, g.steps.map((s) => s.name), g.hooks.map((h) => h.name)])).toEqual([
      ['PreSync', 0, [], ['migrate']],
      ['PreSync', 3, [], ['both']],
      ['Sync', -1, ['db'], []],
      ['Sync', 1, ['app', 'cm'], []],
      ['PostSync', 0, [], ['smoke']],
      ['PostSync', 3, [], ['both']],
    ]);
    expect(syncFailGroups([hook('cleanup', ['SyncFail']), hook('migrate', ['PreSync'])]).map((g) => g.hooks.map((h) => h.name))).toEqual([['cleanup']]);
  });

  it("within a (phase, wave) hooks and resources are one list by kind order, then name (gitops-engine's syncTasks.Less)", () => {
    // A Sync hook ServiceAccount, a Sync hook Job, and the resources of wave 0: created kind by kind, not hooks first.
    const groups = phaseGroups([step('web', 0, 'Deployment'), step('b-settings', 0), step('z-settings', 0)], read, [
      hook('seed', ['Sync'], 0, 'Job'),
      hook('runner', ['Sync'], 0, 'ServiceAccount'),
      hook('a-settings', ['Sync'], 0, 'ConfigMap'),
    ]);
    expect(groups).toHaveLength(1);
    expect(groups[0]!.tasks.map((t) => `${t.hook ? 'hook' : 'step'} ${(t.hook ?? t.step)!.object.kind}/${(t.hook ?? t.step)!.name}`)).toEqual([
      'hook ServiceAccount/runner',
      'hook ConfigMap/a-settings',
      'step ConfigMap/b-settings',
      'step ConfigMap/z-settings',
      'step Deployment/web',
      'hook Job/seed',
    ]);
  });

  it('a Namespace a PreSync hook runs in moves to PreSync, ahead of the hook (adjustDeps over hooks and resources)', () => {
    const groups = phaseGroups([step('shop', 0, 'Namespace'), step('app', 0)], read, [hook('migrate', ['PreSync'], -2)]);
    expect(groups.map((g) => [g.phase, g.wave, g.tasks.map((t) => (t.hook ?? t.step)!.name)])).toEqual([
      ['PreSync', -2, ['shop', 'migrate']],
      ['Sync', 0, ['app']],
    ]);
  });

  it('the name a generateName hook gets is the name it is sorted by', () => {
    const groups = phaseGroups(
      [step('m', 0, 'Job')],
      { ...read, hookObject: (h, p) => ({ ...h.object, metadata: { ...h.object.metadata, name: `zz-${p}` } }) },
      [hook('a', ['Sync'], 0, 'Job')],
    );
    expect(groups[0]!.tasks.map((t) => (t.hook ?? t.step)!.name)).toEqual(['m', 'a']);
  });

  it('one wave and no hook is a one-step sync (nothing waited for); several waves, any hook or a SyncFail hook is not', () => {
    expect(isMultiStep(phaseGroups([step('a', 0), step('b', 0)], read, []))).toBe(false);
    expect(isMultiStep(phaseGroups([step('a', 0), step('b', 1)], read, []))).toBe(true);
    expect(isMultiStep(phaseGroups([step('a', 0)], read, [hook('h', ['Sync'])]))).toBe(true);
    expect(isMultiStep(phaseGroups([step('a', 0)], read, []), syncFailGroups([hook('h', ['SyncFail'])]))).toBe(true);
  });
});
