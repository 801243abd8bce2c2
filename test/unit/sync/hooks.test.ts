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

  it('names a generateName hook as Argo CD does: revision[0:7]-phase-unix seconds, lower-cased', () => {
    expect(generatedHookName('migrate-', '4F3a9c1d2e', 'PreSync', 1_700_000_000_999)).toBe('migrate-4f3a9c1-presync-1700000000');
  });
});

describe('phaseGroups', () => {
  const step = (name: string, wave: number) => ({ name, wave });
  const hook = (name: string, phases: ('PreSync' | 'Sync' | 'PostSync' | 'SyncFail')[], wave = 0) => ({ name, phases, wave });

  it('orders PreSync, Sync, PostSync by wave, with hooks in each phase they name; SyncFail apart', () => {
    const groups = phaseGroups([step('db', -1), step('app', 1), step('cm', 1)], (s) => s.wave, [
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

  it('one wave and no hook is a one-step sync (nothing waited for); several waves or any hook is not', () => {
    expect(isMultiStep(phaseGroups([step('a', 0), step('b', 0)], (s) => s.wave, []))).toBe(false);
    expect(isMultiStep(phaseGroups([step('a', 0), step('b', 1)], (s) => s.wave, []))).toBe(true);
    expect(isMultiStep(phaseGroups([step('a', 0)], (s) => s.wave, [hook('h', ['Sync'])]))).toBe(true);
  });
});
