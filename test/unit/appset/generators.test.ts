// The generators over fixed inputs. Expectations follow Argo CD v3's documentation examples
// (docs/operator-manual/applicationset/Generators-*.md) and generator sources (applicationset/generators/*.go); each
// case says which.
import {
  type ClusterSecret,
  type GenerateContext,
  type GeneratorInputs,
  fillTemplate,
  IN_CLUSTER_SERVER,
  pathMatch,
  pathspecMatch,
  refusedGenerators,
  RefusedGeneratorError,
  transform,
  treeDirectories,
} from '../../../src/appset/generators.js';
import { fasttemplate, type Params, type RenderItem } from '../../../src/appset/template.js';

const REPO = 'https://github.com/argoproj/argo-cd.git';

function fakeInputs(files: Record<string, string>, secrets: ClusterSecret[] = []): GeneratorInputs & { secretReads: number } {
  const me = {
    secretReads: 0,
    async gitFiles(repoURL: string) {
      if (repoURL !== REPO) throw new Error(`unexpected repo ${repoURL}`);
      return Object.keys(files).sort();
    },
    async gitRead(_r: string, _v: string, paths: readonly string[]) {
      return new Map(paths.map((p) => [p, files[p] ?? '']));
    },
    async clusterSecrets() {
      me.secretReads++;
      return secrets;
    },
  };
  return me;
}

/** Nested lookups of `{{.a.b}}` only: enough to see which parameters a goTemplate generator hands on (the real engine is tested in test/integration/appset-gotemplate.test.ts). */
async function dotLookup(items: readonly RenderItem[]): Promise<string[]> {
  return items.map((i) =>
    i.text.replace(/\{\{\s*\.([\w.]+)\s*\}\}/g, (_, path: string) => {
      let v: unknown = i.params;
      for (const k of path.split('.')) v = (v as Record<string, unknown> | undefined)?.[k];
      return String(v);
    }),
  );
}

function ctx(goTemplate: boolean, inputs: GeneratorInputs): GenerateContext {
  return { goTemplate, inputs, render: goTemplate ? dotLookup : async (items) => items.map((i) => fasttemplate(i.text, i.params)) };
}

async function params(gen: Record<string, unknown>, c: GenerateContext): Promise<Params[]> {
  const t = await transform(gen, {}, c);
  return t.flatMap((r) => r.params);
}

// Generators-Git.md "Git Generator: Directories" (the argo-cd repository's applicationset/examples/git-generator-directory)
const ADDONS = {
  'applicationset/examples/git-generator-directory/cluster-addons/argo-workflows/kustomization.yaml': '',
  'applicationset/examples/git-generator-directory/cluster-addons/prometheus-operator/Chart.yaml': '',
  'applicationset/examples/git-generator-directory/excludes/cluster-addons/exclude-helm-guestbook/Chart.yaml': '',
  '.github/workflows/ci.yaml': '',
};

describe('list', () => {
  // Generators-List.md: elements of cluster and url
  const list = {
    list: {
      elements: [
        { cluster: 'engineering-dev', url: 'https://kubernetes.default.svc' },
        { cluster: 'engineering-prod', url: 'https://kubernetes.default.svc', values: { size: 'big' } },
      ],
    },
  };
  it('without goTemplate: string params, values flattened to values.KEY (list.go)', async () => {
    expect(await params(list, ctx(false, fakeInputs({})))).toEqual([
      { cluster: 'engineering-dev', url: 'https://kubernetes.default.svc' },
      { cluster: 'engineering-prod', url: 'https://kubernetes.default.svc', 'values.size': 'big' },
    ]);
  });
  it('with goTemplate: each element as it is, elementsYaml appended', async () => {
    const g = { list: { elements: [{ a: { b: 1 } }], elementsYaml: '- cluster: c1\n  num: 2\n' } };
    expect(await params(g, ctx(true, fakeInputs({})))).toEqual([{ a: { b: 1 } }, { cluster: 'c1', num: 2 }]);
  });
  it('a non-string value without goTemplate is an error (list.go "error parsing value as string")', async () => {
    await expect(params({ list: { elements: [{ n: 1 }] } }, ctx(false, fakeInputs({})))).rejects.toThrow(/error parsing value as string/);
  });
  it('a selector filters the flattened params (Generators-Post-Selector.md)', async () => {
    const g = {
      list: {
        elements: [
          { cluster: 'a', env: 'staging' },
          { cluster: 'b', env: 'prod' },
        ],
      },
      selector: { matchLabels: { env: 'staging' } },
    };
    expect(await params(g, ctx(false, fakeInputs({})))).toEqual([{ cluster: 'a', env: 'staging' }]);
  });
});

describe('git directories', () => {
  const dirs = {
    repoURL: REPO,
    revision: 'HEAD',
    directories: [{ path: 'applicationset/examples/git-generator-directory/cluster-addons/*' }],
  };
  it('flat params: path, path.basename, path.basenameNormalized, path[N] (git.go generateParamsFromApps)', async () => {
    const got = await params({ git: dirs }, ctx(false, fakeInputs(ADDONS)));
    expect(got.map((p) => p['path.basename'])).toEqual(['argo-workflows', 'prometheus-operator']);
    expect(got[0]).toEqual({
      path: 'applicationset/examples/git-generator-directory/cluster-addons/argo-workflows',
      'path.basename': 'argo-workflows',
      'path.basenameNormalized': 'argo-workflows',
      'path[0]': 'applicationset',
      'path[1]': 'examples',
      'path[2]': 'git-generator-directory',
      'path[3]': 'cluster-addons',
      'path[4]': 'argo-workflows',
    });
  });
  it('nested params with goTemplate, path.segments, pathParamPrefix and values', async () => {
    const got = await params({ git: { ...dirs, pathParamPrefix: 'addon', values: { name: '{{.addon.path.basename}}-x' } } }, ctx(true, fakeInputs(ADDONS)));
    expect(got[1]).toEqual({
      addon: {
        path: {
          path: 'applicationset/examples/git-generator-directory/cluster-addons/prometheus-operator',
          basename: 'prometheus-operator',
          basenameNormalized: 'prometheus-operator',
          segments: ['applicationset', 'examples', 'git-generator-directory', 'cluster-addons', 'prometheus-operator'],
        },
      },
      values: { name: 'prometheus-operator-x' },
    });
  });
  it('exclude wins over include (Generators-Git.md "Exclude directories")', async () => {
    const g = {
      git: {
        repoURL: REPO,
        directories: [
          { path: 'applicationset/examples/git-generator-directory/excludes/cluster-addons/*' },
          { path: 'applicationset/examples/git-generator-directory/excludes/cluster-addons/exclude-helm-guestbook', exclude: true },
        ],
      },
    };
    expect(
      await params(g, ctx(false, fakeInputs({ ...ADDONS, 'applicationset/examples/git-generator-directory/excludes/cluster-addons/keep/a.yaml': '' }))),
    ).toEqual([expect.objectContaining({ 'path.basename': 'keep' })]);
  });
  it('hidden folders and the root are never listed (repo-server GetGitDirectories)', () => {
    expect(treeDirectories(['.github/x/y', 'a/b/c.yaml', 'a/.hidden/d', 'top.yaml', 'a-b/e'])).toEqual(['a', 'a/b', 'a-b']);
  });
  it('path.Match: * stops at /', () => {
    expect(pathMatch('apps/*', 'apps/a')).toBe(true);
    expect(pathMatch('apps/*', 'apps/a/b')).toBe(false);
    expect(pathMatch('*', 'apps')).toBe(true);
    expect(pathMatch('apps/[ab]?', 'apps/bx')).toBe(true);
  });
});

describe('git files', () => {
  // Generators-Git.md "Git Generator: Files": cluster-config/engineering/{dev,prod}/config.json
  const FILES = {
    'applicationset/examples/git-generator-files-discovery/cluster-config/engineering/dev/config.json': JSON.stringify({
      aws_account: '123456',
      asset_id: '11223344',
      cluster: { owner: 'cluster-admin@company.com', name: 'engineering-dev', address: 'https://1.2.3.4' },
    }),
    'applicationset/examples/git-generator-files-discovery/cluster-config/engineering/prod/config.json': JSON.stringify({
      aws_account: '123456',
      asset_id: '11223344',
      cluster: { owner: 'cluster-admin@company.com', name: 'engineering-prod', address: 'https://2.4.6.8' },
    }),
    'applicationset/examples/git-generator-files-discovery/cluster-config/engineering/skip/config.json':
      '[{"cluster": {"name": "a"}}, {"cluster": {"name": "b"}}]',
  };
  const files = {
    repoURL: REPO,
    files: [{ path: 'applicationset/examples/git-generator-files-discovery/cluster-config/**/config.json' }, { path: '**/skip/config.json', exclude: true }],
  };
  it('flat: the keys flattened plus path params of the folder and path.filename (git.go generateParamsFromGitFile)', async () => {
    const got = await params({ git: files }, ctx(false, fakeInputs(FILES)));
    expect(got).toHaveLength(2);
    expect(got[0]).toEqual({
      aws_account: '123456',
      asset_id: '11223344',
      'cluster.owner': 'cluster-admin@company.com',
      'cluster.name': 'engineering-dev',
      'cluster.address': 'https://1.2.3.4',
      path: 'applicationset/examples/git-generator-files-discovery/cluster-config/engineering/dev',
      'path.basename': 'dev',
      'path.basenameNormalized': 'dev',
      'path.filename': 'config.json',
      'path.filenameNormalized': 'config.json',
      'path[0]': 'applicationset',
      'path[1]': 'examples',
      'path[2]': 'git-generator-files-discovery',
      'path[3]': 'cluster-config',
      'path[4]': 'engineering',
      'path[5]': 'dev',
    });
  });
  it('a YAML file of several documents gives its first one (sigs.k8s.io/yaml decodes the first document only)', async () => {
    const got = await params(
      { git: { repoURL: REPO, files: [{ path: 'multi/a.yaml' }] } },
      ctx(false, fakeInputs({ 'multi/a.yaml': 'name: m1\n---\nname: m2\n' })),
    );
    expect(got.map((p) => p.name)).toEqual(['m1']);
  });
  it('nested with goTemplate; a file holding a list makes one set per element', async () => {
    const got = await params({ git: { repoURL: REPO, files: [{ path: '**/skip/config.json' }] } }, ctx(true, fakeInputs(FILES)));
    expect(got.map((p) => (p.cluster as { name: string }).name)).toEqual(['a', 'b']);
    expect(got[0]?.path).toEqual(
      expect.objectContaining({
        basename: 'skip',
        filename: 'config.json',
        segments: ['applicationset', 'examples', 'git-generator-files-discovery', 'cluster-config', 'engineering', 'skip'],
      }),
    );
  });
  it('git ls-files pathspecs: * crosses /, a folder matches what is in it', () => {
    expect(pathspecMatch('apps/*.yaml', 'apps/a/b.yaml')).toBe(true);
    expect(pathspecMatch('apps', 'apps/a/b.yaml')).toBe(true);
    expect(pathspecMatch('apps/*.json', 'apps/a/b.yaml')).toBe(false);
    expect(pathspecMatch('config.json', 'x/config.json')).toBe(false);
    // as git 2.x answers `git ls-files -- PATTERN`: a wildcard pattern matches whole paths only, not their folders
    expect(pathspecMatch('ap?s', 'apps/a/x.yaml')).toBe(false);
    expect(pathspecMatch('*.json', 'cluster-config/x/config.json')).toBe(true);
    expect(pathspecMatch('cluster-config/**/config.json', 'cluster-config/config.json')).toBe(false);
    expect(pathspecMatch('cluster-config/**/config.json', 'cluster-config/x/config.json')).toBe(true);
    expect(pathspecMatch('app', 'apps/b.json')).toBe(false);
  });
});

describe('clusters', () => {
  // Generators-Cluster.md: a Secret named staging, labelled, plus the local in-cluster
  const staging: ClusterSecret = {
    name: 'staging',
    server: 'https://1.2.3.4',
    labels: { 'argocd.argoproj.io/secret-type': 'cluster', env: 'staging' },
    annotations: { note: 'n' },
  };
  const prod: ClusterSecret = {
    name: 'Prod_1',
    server: 'https://2.4.6.8',
    project: 'p',
    labels: { 'argocd.argoproj.io/secret-type': 'cluster', env: 'prod' },
    annotations: {},
  };
  it('every Secret, and in-cluster when no Secret names its address (utils.ListClusters, cluster.go)', async () => {
    const got = await params({ clusters: {} }, ctx(false, fakeInputs({}, [staging, prod])));
    expect(got).toEqual([
      { name: 'in-cluster', nameNormalized: 'in-cluster', server: IN_CLUSTER_SERVER, project: '' },
      {
        name: 'staging',
        nameNormalized: 'staging',
        server: 'https://1.2.3.4',
        project: '',
        'metadata.annotations.note': 'n',
        'metadata.labels.argocd.argoproj.io/secret-type': 'cluster',
        'metadata.labels.env': 'staging',
      },
      expect.objectContaining({ name: 'Prod_1', nameNormalized: 'prod-1', project: 'p' }),
    ]);
  });
  it('a Secret for the in-cluster address with a trailing slash is the in-cluster credentials (SecretToCluster trims it): no extra in-cluster; its own server param as written', async () => {
    const local: ClusterSecret = { name: 'local-Prod', server: `${IN_CLUSTER_SERVER}/`, labels: {}, annotations: {} };
    const got = await params({ clusters: {} }, ctx(false, fakeInputs({}, [local])));
    expect(got).toEqual([{ name: 'local-Prod', nameNormalized: 'local-prod', server: `${IN_CLUSTER_SERVER}/`, project: '' }]);
  });
  it('a Secret whose config does not decode fails the generator, naming the Secret (ListClusters), never quoting the config', async () => {
    const broken: ClusterSecret = { ...staging, secretName: 'cluster-staging', configError: 'the config is not valid JSON' };
    await expect(params({ clusters: {} }, ctx(false, fakeInputs({}, [broken])))).rejects.toThrow(
      "error listing clusters: unable to convert cluster secret to cluster object 'cluster-staging': failed to unmarshal cluster config: the config is not valid JSON",
    );
  });
  it('a selector leaves in-cluster out; values rendered; goTemplate metadata nested', async () => {
    const got = await params(
      { clusters: { selector: { matchLabels: { env: 'staging' } }, values: { revision: '{{.metadata.labels.env}}-branch' } } },
      ctx(true, fakeInputs({}, [staging, prod])),
    );
    expect(got).toEqual([
      {
        name: 'staging',
        nameNormalized: 'staging',
        server: 'https://1.2.3.4',
        project: '',
        metadata: { annotations: { note: 'n' }, labels: { 'argocd.argoproj.io/secret-type': 'cluster', env: 'staging' } },
        values: { revision: 'staging-branch' },
      },
    ]);
  });
  it('flatList: one set holding every cluster', async () => {
    const got = await params({ clusters: { flatList: true, selector: { matchLabels: { env: 'prod' } } } }, ctx(false, fakeInputs({}, [staging, prod])));
    expect(got).toEqual([{ clusters: [expect.objectContaining({ name: 'Prod_1' })] }]);
  });
});

describe('matrix', () => {
  // Generators-Matrix.md: git directories x clusters with selector env=staging
  const staging: ClusterSecret = { name: 'staging', server: 'https://1.2.3.4', labels: { env: 'staging' }, annotations: {} };
  it('each of the first with each of the second (flat, CombineStringMaps)', async () => {
    const g = {
      matrix: {
        generators: [
          { git: { repoURL: REPO, revision: 'HEAD', directories: [{ path: 'applicationset/examples/git-generator-directory/cluster-addons/*' }] } },
          { clusters: { selector: { matchLabels: { env: 'staging' } } } },
        ],
      },
    };
    const got = await params(g, ctx(false, fakeInputs(ADDONS, [staging])));
    expect(got.map((p) => `${p['path.basename']}-${p.name}`)).toEqual(['argo-workflows-staging', 'prometheus-operator-staging']);
  });
  it("the second child is rendered with the first one's params (goTemplate), the first wins a clash", async () => {
    const g = {
      matrix: {
        generators: [
          {
            list: {
              elements: [
                { env: 'dev', shared: 'first' },
                { env: 'prod', shared: 'first' },
              ],
            },
          },
          { list: { elements: [{ name: 'app-{{.env}}', shared: 'second' }] } },
        ],
      },
    };
    expect(await params(g, ctx(true, fakeInputs({})))).toEqual([
      { name: 'app-dev', env: 'dev', shared: 'first' },
      { name: 'app-prod', env: 'prod', shared: 'first' },
    ]);
  });
  it("the second child's selector is not rendered with the first's params (Transform parses it first)", async () => {
    const g = {
      matrix: {
        generators: [
          { list: { elements: [{ env: 'dev' }] } },
          {
            list: {
              elements: [
                { name: 'a', tier: '{{env}}' },
                { name: 'b', tier: 'x' },
              ],
            },
            selector: { matchLabels: { tier: '{{env}}' } },
          },
        ],
      },
    };
    // the element's tier is rendered to "dev", the selector still asks for "{{env}}": nothing matches
    expect(await params(g, ctx(false, fakeInputs({})))).toEqual([]);
  });
  it('a clash of different values without goTemplate is an error (utils.CombineStringMaps)', async () => {
    const g = { matrix: { generators: [{ list: { elements: [{ a: '1' }] } }, { list: { elements: [{ a: '2' }] } }] } };
    await expect(params(g, ctx(false, fakeInputs({})))).rejects.toThrow(/found duplicate key a with different value/);
  });
  it('exactly two children (matrix.go)', async () => {
    await expect(params({ matrix: { generators: [{ list: { elements: [] } }] } }, ctx(false, fakeInputs({})))).rejects.toThrow(
      'found less than two generators, Matrix support only two',
    );
    const three = { matrix: { generators: [{ list: { elements: [] } }, { list: { elements: [] } }, { list: { elements: [] } }] } };
    await expect(params(three, ctx(false, fakeInputs({})))).rejects.toThrow('found more than two generators, Matrix support only two');
  });
  it('a nested matrix is allowed, a third level is not', async () => {
    const inner = { matrix: { generators: [{ list: { elements: [{ a: '1' }] } }, { list: { elements: [{ b: '2' }] } }] } };
    const g = { matrix: { generators: [inner, { list: { elements: [{ c: '3' }] } }] } };
    expect(await params(g, ctx(false, fakeInputs({})))).toEqual([{ a: '1', b: '2', c: '3' }]);
    const deep = { matrix: { generators: [{ matrix: { generators: [inner, inner] } }, { list: { elements: [] } }] } };
    await expect(params(deep, ctx(false, fakeInputs({})))).rejects.toThrow(/two levels deep/);
  });
});

describe('merge', () => {
  // Generators-Merge.md: clusters with values, overridden by a selector-filtered clusters and a list, mergeKeys [server]
  const secrets: ClusterSecret[] = [
    { name: 'a', server: 'https://1.2.3.4', labels: { 'use-kafka': 'false' }, annotations: {} },
    { name: 'b', server: 'https://2.4.6.8', labels: {}, annotations: {} },
  ];
  it("the first child's sets, overridden by the others with the same merge key values", async () => {
    const g = {
      merge: {
        mergeKeys: ['server'],
        generators: [
          { clusters: { values: { kafka: 'true', redis: 'false' } } },
          { clusters: { selector: { matchLabels: { 'use-kafka': 'false' } }, values: { kafka: 'false' } } },
          { list: { elements: [{ server: 'https://2.4.6.8', 'values.redis': 'true' }] } },
        ],
      },
    };
    const got = await params(g, ctx(false, fakeInputs({}, secrets)));
    const byName = Object.fromEntries(got.map((p) => [p.name, `${p['values.kafka']}/${p['values.redis']}`]));
    expect(byName).toEqual({ 'in-cluster': 'true/false', a: 'false/false', b: 'true/true' });
  });
  it('merge keys must make each set unique; at least one key', async () => {
    const dup = { merge: { mergeKeys: ['k'], generators: [{ list: { elements: [{ k: '1' }, { k: '1' }] } }, { list: { elements: [] } }] } };
    await expect(params(dup, ctx(false, fakeInputs({})))).rejects.toThrow(/not unique by the given mergeKeys.*Duplicate key was \{"k":"1"\}/);
    const none = { merge: { mergeKeys: [], generators: [{ list: { elements: [] } }, { list: { elements: [] } }] } };
    await expect(params(none, ctx(false, fakeInputs({})))).rejects.toThrow('no merge keys were specified');
  });
});

describe('refusals and templates', () => {
  it('finds refused generators at any depth, by name', () => {
    expect(refusedGenerators([{ list: {} }, { matrix: { generators: [{ git: {} }, { pullRequest: {} }] } }, { plugin: {} }])).toEqual([
      'pullRequest',
      'plugin',
    ]);
  });
  it('transform refuses, never skips', async () => {
    await expect(transform({ scmProvider: {} }, {}, ctx(false, fakeInputs({})))).rejects.toThrow(RefusedGeneratorError);
  });
  it('an unknown generator is an error', async () => {
    await expect(transform({ lists: {} }, {}, ctx(false, fakeInputs({})))).rejects.toThrow(/unknown generator "lists"/);
  });
  it('a generator template is filled from the ApplicationSet template (mergo.Merge: the generator wins)', () => {
    expect(
      fillTemplate({ metadata: { name: 'g' }, spec: { project: '' } }, { metadata: { name: 'a', labels: { x: 'y' } }, spec: { project: 'default' } }),
    ).toEqual({
      metadata: { name: 'g', labels: { x: 'y' } },
      spec: { project: 'default' },
    });
  });
});

describe('matrix batching', () => {
  it('renders the second child for every set of the first in one batch', async () => {
    let batches = 0;
    const c = ctx(true, fakeInputs({}));
    const inner = c.render;
    c.render = async (items) => {
      batches++;
      return inner(items);
    };
    const g = { matrix: { generators: [{ list: { elements: [{ e: '1' }, { e: '2' }, { e: '3' }] } }, { list: { elements: [{ n: 'x{{.e}}' }] } }] } };
    expect((await params(g, c)).map((p) => p.n)).toEqual(['x1', 'x2', 'x3']);
    expect(batches).toBe(1);
  });
});
