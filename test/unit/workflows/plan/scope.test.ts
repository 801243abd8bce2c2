// plan --all: the apps a change of one repository's branch is about, and why the others are left out.
import { pairGenerated, planScope } from '../../../../src/workflows/plan/scope.js';
import type { KubeObject } from '../../../../src/model/object.js';

const app = (name: string, spec: Record<string, unknown>, namespace = 'argocd'): KubeObject => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Application',
  metadata: { name, namespace },
  spec: spec as KubeObject['spec'],
});
const git = (repoURL: string, targetRevision?: string) => ({ repoURL, path: 'deploy', ...(targetRevision !== undefined ? { targetRevision } : {}) });

describe('planScope', () => {
  const apps = [
    app('shop', { source: git('https://git.example.com/org/shop.git', 'main') }),
    app('cart', { source: git('git@git.example.com:org/shop', 'main') }, 'team'),
    app('pinned', { source: git('https://git.example.com/org/shop.git', 'v1.2.0') }),
    app('head', { source: git('https://git.example.com/org/shop.git') }),
    app('other', { source: git('https://git.example.com/org/infra.git', 'main') }),
    app('multi', {
      sources: [git('https://git.example.com/org/shop.git', 'main'), { repoURL: 'https://charts.example.com', chart: 'redis', targetRevision: '1.0.0' }],
    }),
    app('multi-pinned', {
      sources: [git('https://git.example.com/org/shop.git', 'v2'), { repoURL: 'https://charts.example.com', chart: 'main', targetRevision: 'main' }],
    }),
    app('empty', {}),
  ];

  it('plans the apps whose one source follows --base in --repo (URLs compared as Argo CD compares them); says why the others are left out', () => {
    const r = planScope(apps, { base: 'main', repo: 'https://GIT.example.com/org/shop/' });
    expect(r.planned.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['argocd/shop', 'team/cart', 'argocd/multi']);
    expect(r.skipped).toEqual([
      { namespace: 'argocd', name: 'pinned', reason: 'it follows v1.2.0, not main' },
      { namespace: 'argocd', name: 'head', reason: 'it follows HEAD, not main' },
      { namespace: 'argocd', name: 'other', reason: 'its source is another repository (https://git.example.com/org/infra.git)' },
      {
        namespace: 'argocd',
        name: 'multi-pinned',
        reason: 'none of its 2 sources (spec.sources) follows main of that repository (v2, chart main main)',
      },
      { namespace: 'argocd', name: 'empty', reason: 'no source' },
    ]);
  });

  it('plans a multi-source app when any of its Git sources follows --base (a Helm chart never moves, whatever its version says)', () => {
    expect(planScope(apps, { base: 'v2' }).planned.map((o) => o.metadata.name)).toEqual(['multi-pinned']);
    expect(planScope([apps[6]!], { base: 'main' }).skipped).toEqual([
      { namespace: 'argocd', name: 'multi-pinned', reason: 'none of its 2 sources (spec.sources) follows main (v2, chart main main)' },
    ]);
  });

  it('without --repo, every repository counts; an empty targetRevision follows HEAD', () => {
    expect(planScope(apps, { base: 'main' }).planned.map((o) => o.metadata.name)).toEqual(['shop', 'cart', 'other', 'multi']);
    expect(planScope(apps, { base: 'HEAD' }).planned.map((o) => o.metadata.name)).toEqual(['head']);
  });
});

describe('pairGenerated', () => {
  it("pairs an ApplicationSet's apps at base and head by namespace and name: head's first, then those only at base", () => {
    const a = app('a', {});
    const b = app('b', {});
    const c = app('c', {});
    const otherA = app('a', {}, 'team');
    expect(pairGenerated([a, b, otherA], [c, a])).toEqual([
      { id: 'argocd/c', head: c },
      { id: 'argocd/a', head: a, base: a },
      { id: 'argocd/b', base: b },
      { id: 'team/a', base: otherA },
    ]);
    expect(pairGenerated([], [])).toEqual([]);
  });
});
