import {
  checkProject,
  defaultProject,
  destinationCluster,
  groupKindVerdict,
  impersonationOf,
  isAppNamespacePermitted,
  isDestinationPermitted,
  isSourcePermitted,
  normalizeGitURL,
  parseAppProject,
  type AppProject,
} from '../../../src/settings/project.js';
import { compileFilepathMatch, globMatch, matchStringInList, projectGlobMatch } from '../../../src/model/glob.js';

const proj = (spec: Record<string, unknown>): AppProject =>
  parseAppProject({ apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'p' }, spec }, 'test');

describe('globs (gobwas/glob, filepath.Match, MatchStringInList)', () => {
  it.each<[string, string, string, boolean]>([
    ['*', 'anything/at/all', '', true],
    ['https://github.com/org/*', 'https://github.com/org/repo', '/', true],
    ['https://github.com/org/*', 'https://github.com/org/group/repo', '/', false],
    ['https://github.com/org/**', 'https://github.com/org/group/repo', '/', true],
    ['{shop,billing}-*', 'billing-prod', '', true],
    ['sh?p', 'shop', '', true],
    ['[a-c]at', 'bat', '', true],
    ['[!a-c]at', 'bat', '', false],
    ['[!abc]at', 'rat', '', true],
    ['a\\*b', 'a*b', '', true],
    ['{unclosed', 'x', '', false],
  ])('glob %j on %j (separators %j) is %s', (p, t, sep, m) => expect(globMatch(p, t, sep)).toBe(m));
  it('a lone * matches the empty string; ! negates when allowed', () => {
    expect(projectGlobMatch('*', '', false)).toBe(true);
    expect(projectGlobMatch('!prod', 'dev', true)).toBe(true);
    expect(projectGlobMatch('!prod', 'prod', true)).toBe(false);
    expect(projectGlobMatch('!prod', '!prod', false)).toBe(true);
  });
  it('filepath.Match: * stops at /, [^...] negates, a bad pattern matches nothing', () => {
    expect(compileFilepathMatch('*')?.test('apps')).toBe(true);
    expect(compileFilepathMatch('*')?.test('a/b')).toBe(false);
    expect(compileFilepathMatch('[^a]pps')?.test('opps')).toBe(true);
    expect(compileFilepathMatch('[')).toBeNull();
    expect(compileFilepathMatch('a\\')).toBeNull();
  });
  it('MatchStringInList: /regexp/ entries, globs otherwise', () => {
    expect(matchStringInList(['/^team-[0-9]+$/'], 'team-42')).toBe(true);
    expect(matchStringInList(['team-*'], 'team-a')).toBe(true);
    expect(matchStringInList(['team-*'], 'other')).toBe(false);
  });
});

describe('sourceRepos', () => {
  it('normalises URLs as git.NormalizeGitURL', () => {
    expect(normalizeGitURL('git@GitHub.com:Org/Repo.git')).toBe('git@github.com/org/repo');
    expect(normalizeGitURL('https://github.com/org/repo.git')).toBe('https://github.com/org/repo');
  });
  it.each<[string[], string, boolean]>([
    [['*'], 'https://github.com/org/repo', true],
    [['https://github.com/org/*'], 'https://github.com/org/repo.git', true],
    [['https://github.com/org/*'], 'https://github.com/other/repo', false],
    [['https://github.com/org/*', '!https://github.com/org/secret'], 'https://github.com/org/secret', false],
    [['https://github.com/org/*', '!https://github.com/org/secret'], 'https://github.com/org/public', true],
    [['!https://github.com/org/secret'], 'https://github.com/org/public', true], // a negation alone permits everything else
    [[], 'https://github.com/org/repo', false],
    [['git@github.com:org/*'], 'git@github.com:org/repo.git', true],
  ])('%j and %s: %s', (repos, url, ok) => expect(isSourcePermitted(proj({ sourceRepos: repos }), url)).toBe(ok));
});

describe('destinations (isDestinationMatched)', () => {
  const inCluster = destinationCluster({ server: 'https://kubernetes.default.svc' });
  it('the in-cluster pair is one cluster; an Application naming none is in-cluster', () => {
    expect(inCluster).toEqual({ server: 'https://kubernetes.default.svc', name: 'in-cluster' });
    expect(destinationCluster({ name: 'in-cluster' })).toEqual(inCluster);
    expect(destinationCluster({})).toEqual(inCluster);
    expect(destinationCluster({ name: 'prod' })).toEqual({ server: '', name: 'prod' });
    expect(destinationCluster({ name: 'prod' }, 'https://prod.example.com:6443')).toEqual({ server: 'https://prod.example.com:6443', name: 'prod' });
    expect(destinationCluster({ name: 'in-cluster' }, 'https://127.0.0.1:6443')).toEqual(inCluster);
  });
  it.each<[Record<string, string>[], string, boolean]>([
    [[{ server: '*', namespace: '*' }], 'shop', true],
    [[{ name: 'in-cluster', namespace: 'sh*' }], 'shop', true],
    [[{ server: 'https://prod', namespace: '*' }], 'shop', false],
    [[{ server: '*', namespace: '!kube-*' }], 'kube-system', false],
    [
      [
        { server: '*', namespace: '!kube-*' },
        { server: '*', namespace: '*' },
      ],
      'kube-system',
      false,
    ], // a negation refuses at once
    [
      [
        { server: '*', namespace: '*' },
        { server: '*', namespace: '!kube-*' },
      ],
      'kube-system',
      false,
    ], // wherever it stands
    [
      [
        { server: '!https://kubernetes.default.svc', namespace: '*' },
        { server: '*', namespace: '*' },
      ],
      'shop',
      false,
    ],
    [
      [
        { name: '!in-cluster', namespace: '*' },
        { server: '*', namespace: '*' },
      ],
      'shop',
      false,
    ],
  ])('%j, namespace %s: %s', (dests, ns, ok) => expect(isDestinationPermitted(proj({ destinations: dests }), inCluster, ns)).toBe(ok));
});

describe('resource white- and blacklists', () => {
  it('an absent namespace whitelist allows every kind, an empty one none', () => {
    expect(groupKindVerdict(proj({}), '', 'ConfigMap', 'x', true).permitted).toBe(true);
    expect(groupKindVerdict(proj({ namespaceResourceWhitelist: [] }), '', 'ConfigMap', 'x', true)).toMatchObject({
      permitted: false,
      rule: expect.stringContaining('namespaceResourceWhitelist is empty'),
    });
    expect(groupKindVerdict(proj({ namespaceResourceWhitelist: [{ group: 'apps', kind: '*' }] }), 'apps', 'Deployment', 'x', true).permitted).toBe(true);
    expect(groupKindVerdict(proj({ namespaceResourceBlacklist: [{ group: '*', kind: 'Secret' }] }), '', 'Secret', 'x', true)).toMatchObject({
      permitted: false,
      rule: expect.stringContaining('namespaceResourceBlacklist'),
    });
  });
  it('cluster-scoped kinds need the whitelist (names are globs), and the blacklist wins', () => {
    expect(groupKindVerdict(proj({}), '', 'Namespace', 'x', false).permitted).toBe(false);
    const p = proj({
      clusterResourceWhitelist: [{ group: '*', kind: '*' }],
      clusterResourceBlacklist: [{ group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin-*' }],
    });
    expect(groupKindVerdict(p, 'rbac.authorization.k8s.io', 'ClusterRole', 'admin-x', false).permitted).toBe(false);
    expect(groupKindVerdict(p, 'rbac.authorization.k8s.io', 'ClusterRole', 'reader', false).permitted).toBe(true);
    const named = proj({ clusterResourceWhitelist: [{ group: '', kind: 'Namespace', name: 'team-*' }] });
    expect(groupKindVerdict(named, '', 'Namespace', 'team-a', false).permitted).toBe(true);
    expect(groupKindVerdict(named, '', 'Namespace', 'other', false).permitted).toBe(false);
  });
});

describe('the default project and the whole check', () => {
  it('the default project permits everything', () => {
    const app = {
      name: 'shop',
      namespace: 'argocd',
      source: { repoURL: 'https://x/y.git' },
      destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
    };
    expect(
      checkProject(defaultProject('argocd'), {
        app,
        controlPlaneNamespace: 'argocd',
        objects: [
          { group: '', kind: 'Namespace', namespace: '', name: 'shop', namespaced: false },
          { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'c', namespaced: true },
        ],
      }),
    ).toEqual([]);
  });
  it('the built-in default (no AppProject default: no Argo CD) lets Applications of any namespace and any destination use it', () => {
    expect(
      checkProject(defaultProject('argocd'), {
        app: { name: 'a', namespace: 'argocd', source: {}, destination: { name: 'remote', namespace: 'x' } },
        controlPlaneNamespace: 'argocd',
        objects: [{ group: '', kind: 'ConfigMap', namespace: 'x', name: 'c', namespaced: true }],
      }),
    ).toEqual([]);
    const app = { name: 'shop', namespace: 'team-a', source: {}, destination: { namespace: 'shop' } };
    expect(checkProject(defaultProject('argocd'), { app, controlPlaneNamespace: 'argocd', objects: [] })).toEqual([]);
    expect(checkProject({ ...defaultProject('argocd'), builtIn: false }, { app, controlPlaneNamespace: 'argocd', objects: [] }).map((v) => v.rule)).toEqual([
      'sourceNamespaces',
    ]);
  });
  it('sourceNamespaces: the control-plane namespace always may', () => {
    expect(isAppNamespacePermitted(proj({}), 'argocd', 'argocd')).toBe(true);
    expect(isAppNamespacePermitted(proj({}), 'team-a', 'argocd')).toBe(false);
    expect(isAppNamespacePermitted(proj({ sourceNamespaces: ['team-*'] }), 'team-a', 'argocd')).toBe(true);
  });
  it('names each violation, per object for kinds and namespaces', () => {
    const p = proj({ sourceRepos: ['*'], destinations: [{ server: '*', namespace: 'shop' }], namespaceResourceBlacklist: [{ group: '', kind: 'Secret' }] });
    const app = {
      name: 'shop',
      namespace: 'argocd',
      source: { repoURL: 'https://x/y.git' },
      destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
    };
    const v = checkProject(p, {
      app,
      controlPlaneNamespace: 'argocd',
      objects: [
        { group: '', kind: 'Secret', namespace: 'shop', name: 's', namespaced: true },
        { group: '', kind: 'ConfigMap', namespace: 'other', name: 'c', namespaced: true },
        { group: '', kind: 'Namespace', namespace: '', name: 'shop', namespaced: false },
      ],
    });
    expect(v.map((x) => x.rule)).toEqual(['namespaceResourceBlacklist', 'destinations', 'clusterResourceWhitelist']);
    expect(v[1]?.message).toBe("namespace other is not permitted in project 'p'");
  });
  it('sourceRepos: every source of a multi-source app is checked, not only the first (ValidatePermissions)', () => {
    const p = proj({ sourceRepos: ['https://git.example/allowed.git'], destinations: [{ server: '*', namespace: '*' }] });
    const app = {
      name: 'shop',
      namespace: 'argocd',
      source: { repoURL: 'https://git.example/allowed.git' },
      sources: [{ repoURL: 'https://git.example/allowed.git' }, { repoURL: 'https://git.example/other.git' }, { repoURL: 'https://git.example/third.git' }],
      destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
    };
    const v = checkProject(p, { app, controlPlaneNamespace: 'argocd', objects: [] });
    expect(v.map((x) => x.message)).toEqual([
      "application repo https://git.example/other.git is not permitted in project 'p' (sourceRepos: https://git.example/allowed.git)",
      "application repo https://git.example/third.git is not permitted in project 'p' (sourceRepos: https://git.example/allowed.git)",
    ]);
    expect(
      checkProject(p, { app: { ...app, sources: [{ repoURL: 'https://git.example/allowed.git' }] }, controlPlaneNamespace: 'argocd', objects: [] }),
    ).toEqual([]);
    // --desired replaces the sources: no source rule applies.
    expect(checkProject(p, { app, controlPlaneNamespace: 'argocd', objects: [], sourceOverridden: true })).toEqual([]);
  });
  it('refuses what is not an AppProject, and fields of the wrong type', () => {
    expect(() => parseAppProject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'f')).toThrow('not an Argo CD AppProject');
    expect(() => parseAppProject({ apiVersion: 'argoproj.io/v1alpha1', kind: 'AppProject', metadata: { name: 'x' }, spec: { sourceRepos: 'x' } }, 'f')).toThrow(
      'spec.sourceRepos: must be a list of strings',
    );
  });
});

describe('settings this tool does not carry out refuse the sync, never pass in silence', () => {
  const app = {
    name: 'shop',
    namespace: 'argocd',
    source: { repoURL: 'https://x/y.git' },
    destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
  };
  const check = (p: AppProject, impersonation?: boolean) =>
    checkProject(p, { app, controlPlaneNamespace: 'argocd', objects: [], ...(impersonation !== undefined ? { impersonation } : {}) });
  const open = { sourceRepos: ['*'], destinations: [{ server: '*', namespace: '*' }] };

  it('signatureKeys: the signature check decides (refused with its words, or passed); unchecked, refused; sourceIntegrity refused', () => {
    const signed = proj({ ...open, signatureKeys: [{ keyID: '4AEE18F83AFDEB23' }] });
    const withSignature = (signature: { refusal?: string }) => checkProject(signed, { app, controlPlaneNamespace: 'argocd', objects: [], signature });
    expect(withSignature({})).toEqual([]);
    expect(withSignature({ refusal: 'Target revision abc in Git is not signed, but a signature is required' })).toEqual([
      { rule: 'signatureKeys', message: 'Target revision abc in Git is not signed, but a signature is required' },
    ]);
    expect(check(signed).map((v) => v.message)).toEqual([
      'project p requires signed commits (spec.signatureKeys 4AEE18F83AFDEB23), and no signature was checked',
    ]);
    expect(check(proj({ ...open, sourceIntegrity: { git: {} } })).map((v) => v.rule)).toEqual(['signatureKeys']);
    expect(check(proj(open))).toEqual([]);
  });

  it('destinationServiceAccounts count only with impersonation on (argocd-cm), as in Argo CD; on, a sync no entry matches is refused in its words', () => {
    const withSa = proj({ ...open, destinationServiceAccounts: [{ server: '*', namespace: '*', defaultServiceAccount: 'deployer' }] });
    expect(check(withSa, false)).toEqual([]);
    expect(check(withSa, true)).toEqual([]);
    expect(check(proj(open), true).map((v) => [v.rule, v.message])).toEqual([
      [
        'destinationServiceAccounts',
        `failed to find a matching service account to impersonate: no matching service account found for destination server https://kubernetes.default.svc and namespace ${app.destination.namespace}`,
      ],
    ]);
  });

  it("impersonationOf: the first entry whose server and namespace globs match; NAME in the destination namespace, NS:NAME as written (Argo CD's deriveServiceAccountToImpersonate)", () => {
    const sas = (...items: [string, string, string][]) => ({
      destinationServiceAccounts: items.map(([server, namespace, defaultServiceAccount]) => ({ server, namespace, defaultServiceAccount })),
    });
    const shop = { namespace: 'argocd', destination: { namespace: 'shop' } };
    const server = 'https://kubernetes.default.svc';
    expect(impersonationOf(sas(['https://other', '*', 'a'], [server, 'sh*', 'deployer'], ['*', '*', 'late']), shop, server)).toEqual({
      user: 'system:serviceaccount:shop:deployer',
    });
    expect(impersonationOf(sas(['*', '*', 'ops:admin']), shop, server)).toEqual({ user: 'system:serviceaccount:ops:admin' });
    // No destination namespace: the Application's own namespace.
    expect(impersonationOf(sas(['*', '*', 'deployer']), { namespace: 'argocd', destination: {} }, server)).toEqual({
      user: 'system:serviceaccount:argocd:deployer',
    });
    expect(impersonationOf(sas(['*', 'other', 'x']), shop, server)).toEqual({
      error: `no matching service account found for destination server ${server} and namespace shop`,
    });
    expect(impersonationOf(sas(['*', '*', 'dep*']), shop, server)).toEqual({ error: "default service account contains invalid chars 'dep*'" });
    expect(impersonationOf(sas(['*', '*', ' ']), shop, server)).toEqual({ error: "default service account contains invalid chars ' '" });
  });

  it('reads orphanedResources: warn only when true (Argo CD IsWarn), the ignore list; no warning', () => {
    const p = proj({
      ...open,
      orphanedResources: {
        ignore: [
          { kind: 'ConfigMap', name: 'cache-*' },
          { group: 'apps', kind: '*' },
        ],
      },
    });
    expect(p.orphanedResources).toEqual({
      warn: false,
      ignore: [
        { group: '', kind: 'ConfigMap', name: 'cache-*' },
        { group: 'apps', kind: '*', name: '' },
      ],
    });
    expect(p.warnings).toEqual([]);
    expect(proj({ ...open, orphanedResources: { warn: true } }).orphanedResources).toEqual({ warn: true, ignore: [] });
    expect(proj(open).orphanedResources).toBeUndefined();
    expect(() => proj({ ...open, orphanedResources: 'yes' })).toThrow('spec.orphanedResources is not an object');
  });
});
