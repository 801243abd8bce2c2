import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Application } from '../../../src/app/types.js';
import { memoryIo } from '../../../src/cli/io.js';
import { InputError, UnrenderableError } from '../../../src/model/errors.js';
import { loadDesiredManifests } from '../../../src/source/index.js';
import { SourceReads } from '../../../src/source/shared-reads.js';
import { renderCacheDir } from '../../../src/source/render/cache.js';
import { DEFAULT_DIRECTORY, parseSourceOptions } from '../../../src/app/source-options.js';
import type { JsonObject } from '../../../src/model/object.js';
import { GitFixture, configMap } from '../../support/git-source.js';

/** An Application with these source options (as written; parsed into source.options unless that is given). */
function app(source: Application['source'], sourceOptions: Application['sourceOptions'] = {}): Application {
  return {
    name: 'shop',
    namespace: 'argocd',
    source:
      source.options !== undefined
        ? source
        : { ...source, ...(Object.keys(sourceOptions).length ? { options: parseSourceOptions(sourceOptions as JsonObject, 'spec.source', 'test') } : {}) },
    destination: { namespace: 'shop' },
    sourcesCount: 0,
    sourceOptions,
    syncOptions: {
      createNamespace: false,
      pruneLast: false,
      serverSideApply: true,
      applyOutOfSyncOnly: false,
      respectIgnoreDifferences: false,
      failOnSharedResource: false,
      prunePropagationPolicy: 'foreground',
      prune: true,
    },
    ignoreDifferences: [],
    warnings: [],
    origin: 'test',
  };
}

/** spec.source.directory.recurse: true */
const recurse = { options: { directory: { ...DEFAULT_DIRECTORY, recurse: true } } };

const values = (r: { objects: { object: { data?: unknown; metadata: { name?: string } } }[] }) =>
  r.objects.map((o) => `${o.object.metadata.name}=${(o.object.data as { value: string }).value}`);

describe('loadDesiredManifests from a git revision', () => {
  let fx: GitFixture;
  let first: string;
  let second: string;
  const io = () => memoryIo({ env: fx.env }).io;

  beforeEach(() => {
    fx = new GitFixture();
    fx.write('apps/shop/a.yaml', configMap('a', '1'));
    fx.write('apps/shop/sub/b.yml', configMap('b', '1'));
    fx.write('apps/shop/notes.txt', 'not a manifest');
    fx.write('apps/shop/.hidden/x.yaml', configMap('x', '1'));
    fx.write('apps/other/c.yaml', configMap('c', '1'));
    first = fx.commit('one');
    fx.git(['tag', 'v1']);
    fx.write('apps/shop/a.yaml', configMap('a', '2'));
    fx.remove('apps/shop/sub/b.yml');
    second = fx.commit('two');
  });
  afterEach(() => fx.cleanup());

  it('reads the branch tip by default (HEAD), only the folder itself (directory.recurse defaults to false), skipping other files', async () => {
    const r = await loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop', targetRevision: 'v1' }), {}, io());
    expect(values(r)).toEqual(['a=1']);
    expect(r.sourceType).toBe('Directory');
    expect(values(await loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop', targetRevision: 'v1', ...recurse }), {}, io()))).toEqual([
      'x=1',
      'a=1',
      'b=1',
    ]);
  });

  it('reads the branch tip by default (HEAD)', async () => {
    const r = await loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop' }), {}, io());
    expect(values(r)).toEqual(['a=2']);
    expect(r.revision).toBe(second);
    expect(r.origin).toBe(`${fx.repo}@${second.slice(0, 7)}:apps/shop`);
    expect(r.objects[0]?.source).toEqual({ file: `${fx.repo}@${second.slice(0, 7)}:apps/shop/a.yaml`, doc: 0, line: 1 });
  });

  it('reads a branch, a tag, a full and a short SHA, and --revision overrides targetRevision', async () => {
    const at = async (targetRevision: string, revision?: string) =>
      loadDesiredManifests(
        app({ repoURL: fx.repo, path: 'apps/shop', targetRevision, options: { directory: { ...DEFAULT_DIRECTORY, recurse: true, exclude: '.hidden/*' } } }),
        { revision },
        io(),
      );
    expect(values(await at('main'))).toEqual(['a=2']);
    expect(values(await at('v1'))).toEqual(['a=1', 'b=1']);
    expect((await at('v1')).revision).toBe(first);
    expect(values(await at(first))).toEqual(['a=1', 'b=1']);
    expect(values(await at(first.slice(0, 7)))).toEqual(['a=1', 'b=1']);
    expect(values(await at('HEAD'))).toEqual(['a=2']);
    expect(values(await at('main', 'v1'))).toEqual(['a=1', 'b=1']);
  });

  it("reads a semver constraint as the greatest tag that satisfies it, as Argo CD's LsRemote does (versions.MaxVersion); no match is an error, a branch of that name still a branch", async () => {
    // Tags v1 (first), v1.2.0 and v2.0.0 (second); a pre-release and a tag that is no version are never picked.
    fx.git(['tag', 'v1.2.0', second]);
    fx.git(['tag', 'v2.0.0', second]);
    fx.git(['tag', 'v1.5.0-rc.1', second]);
    fx.git(['tag', 'latest', second]);
    fx.write('apps/shop/a.yaml', configMap('a', '3'));
    const third = fx.commit('three');
    fx.git(['tag', 'v1.1.0', third]);
    const at = (targetRevision: string) => loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop', targetRevision }), {}, io());
    expect((await at('1.*')).revision).toBe(second);
    expect((await at('>=1.0.0 <1.2.0')).revision).toBe(third);
    expect((await at('~1.1')).revision).toBe(third);
    expect((await at('^1')).revision).toBe(second);
    expect((await at('*')).revision).toBe(second);
    expect((await at('<1.1')).revision).toBe(first);
    // An exact version is a tag name as written (v1 is a tag; 1.2.0 is none: Argo CD looks for a ref named 1.2.0).
    expect((await at('v1')).revision).toBe(first);
    await expect(at('1.2.0')).rejects.toThrow(/names no commit/);
    await expect(at('^3')).rejects.toThrow(/source\.targetRevision "\^3" names no commit/);
    // A branch whose name reads as a constraint no tag satisfies is that branch.
    fx.git(['branch', '3.x', first]);
    expect((await at('3.x')).revision).toBe(first);
  });

  it('ignores uncommitted changes in the working tree and the index, and leaves them untouched', async () => {
    fx.write('apps/shop/a.yaml', configMap('a', 'dirty'));
    fx.write('apps/shop/new.yaml', configMap('new', '1'));
    fx.git(['add', 'apps/shop/new.yaml']);
    const indexBefore = readFileSync(join(fx.repo, '.git', 'index'));
    const mtimeBefore = statSync(join(fx.repo, '.git', 'index')).mtimeMs;
    const r = await loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop' }), {}, io());
    expect(values(r)).toEqual(['a=2']);
    expect(readFileSync(join(fx.repo, '.git', 'index'))).toEqual(indexBefore);
    expect(statSync(join(fx.repo, '.git', 'index')).mtimeMs).toBe(mtimeBefore);
    expect(readFileSync(join(fx.repo, 'apps/shop/a.yaml'), 'utf8')).toBe(configMap('a', 'dirty'));
    expect(fx.git(['status', '--porcelain'])).toContain('new.yaml');
  });

  it('reads a bare repository and a file:// URL', async () => {
    const bare = join(fx.root, 'bare.git');
    fx.git(['clone', '--quiet', '--bare', fx.repo, bare], fx.root);
    expect(
      values(
        await loadDesiredManifests(
          app({
            repoURL: bare,
            path: 'apps/shop',
            targetRevision: 'v1',
            options: { directory: { ...DEFAULT_DIRECTORY, recurse: true, include: '{a.yaml,sub/*}' } },
          }),
          {},
          io(),
        ),
      ),
    ).toEqual(['a=1', 'b=1']);
    const url = pathToFileURL(bare).href;
    const r = await loadDesiredManifests(app({ repoURL: url, path: 'apps/shop' }), {}, io());
    expect(values(r)).toEqual(['a=2']);
    expect(r.revision).toBe(second);
  });

  it('reads the whole repository for an empty path, and refuses a path that is a file, as Argo CD does', async () => {
    const whole = await loadDesiredManifests(app({ repoURL: fx.repo, path: '', ...recurse }), {}, io());
    expect(values(whole)).toEqual(['c=1', 'x=1', 'a=2']);
    expect(values(await loadDesiredManifests(app({ repoURL: fx.repo, path: '' }), {}, io()))).toEqual([]);
    // Read as the whole source, a file made every other object of the app a prune candidate (found by an audit).
    await expect(loadDesiredManifests(app({ repoURL: fx.repo, path: './apps/other/c.yaml/' }), {}, io())).rejects.toThrow(
      /^source\.path "apps\/other\/c\.yaml" is a file at .*: an Application's path must be a directory, as Argo CD requires \(app path is not a directory\)$/,
    );
  });

  it('reads in folder order (a folder a/ before a.yaml), as loadManifests walks a directory', async () => {
    fx.write('d/a.yaml', configMap('second', '1'));
    fx.write('d/a/z.yaml', configMap('first', '1'));
    fx.commit('three');
    const r = await loadDesiredManifests(app({ repoURL: fx.repo, path: 'd', ...recurse }), {}, io());
    expect(r.objects.map((o) => o.object.metadata.name)).toEqual(['first', 'second']);
  });

  it('reads only the folder itself unless directory.recurse is true, as Argo CD does', async () => {
    const top = await loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop', targetRevision: 'v1' }, {}), {}, io());
    expect(values(top)).toEqual(['a=1']);
    const all = await loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop', targetRevision: 'v1' }, { directory: { recurse: true } }), {}, io());
    expect(values(all)).toEqual(['x=1', 'a=1', 'b=1']); // hidden folders too, as Argo CD's walk
  });

  it('refuses a source it still cannot render (a plugin, two types), naming the reason; a chart found at the path is Helm', async () => {
    fx.write('h/Chart.yaml', 'name: x\n');
    fx.write('h/values.yaml', 'replicas: 1\n');
    fx.commit('a chart');
    const at = (path: string, sourceOptions = {}) => loadDesiredManifests(app({ repoURL: fx.repo, path }, sourceOptions), {}, io());
    // Rendered with helm: the one named here does not exist, which says so (exit 2).
    const noHelm = memoryIo({ env: { ...fx.env, KUBECTL_GITOPS_HELM: join(fx.root, 'no-helm') } }).io;
    await expect(loadDesiredManifests(app({ repoURL: fx.repo, path: 'h' }), {}, noHelm)).rejects.toThrow(
      /the helm binary .*no-helm \(KUBECTL_GITOPS_HELM\) is not an executable file/,
    );
    // an explicit directory key wins over discovery, as in Argo CD
    expect(values(await at('h', { directory: { recurse: false } }))).toEqual([]);
    await expect(at('apps/shop', { plugin: { name: 'x' } })).rejects.toThrow(/Config Management Plugins/);
    await expect(at('apps/shop', { directory: {}, kustomize: {} })).rejects.toThrow(/multiple application sources defined: Kustomize,Directory/);
  }, 30_000);

  it("applies Argo CD's parameter override files (.argocd-source.yaml, then .argocd-source-<app>.yaml) as merge patches before detecting the type", async () => {
    fx.write('o/a.yaml', configMap('a', '1'));
    fx.write('o/b.yaml', configMap('b', '1'));
    fx.write('o/sub/c.yaml', configMap('c', '1'));
    fx.write('o/.argocd-source.yaml', "directory:\n  recurse: true\n  include: '{a.yaml,b.yaml}'\n");
    fx.commit('overrides');
    const at = (path: string, sourceOptions = {}, name = 'shop') => loadDesiredManifests({ ...app({ repoURL: fx.repo, path }, sourceOptions), name }, {}, io());
    // The shared file alone: recurse on, include a and b.
    expect(values(await at('o')).sort()).toEqual(['a=1', 'b=1']);
    // The app's own file comes after it: its include wins, the shared recurse stays; another app's file is not read.
    fx.write('o/.argocd-source-shop.yaml', "directory:\n  include: 'sub/*'\n");
    fx.commit('app override');
    expect(values(await at('o'))).toEqual(['c=1']);
    expect(values(await at('o', {}, 'other')).sort()).toEqual(['a=1', 'b=1']);
    // A null deletes (RFC 7386): the Application's own exclude is dropped by the file.
    fx.write('o/.argocd-source-shop.yaml', 'directory:\n  exclude: null\n');
    fx.commit('null');
    expect(values(await at('o', { directory: { recurse: true, exclude: 'a.yaml' } })).sort()).toEqual(['a=1', 'b=1']);
    // A file that is not a map of source fields is refused, naming it.
    fx.write('o/.argocd-source-shop.yaml', '- kustomize\n');
    const sha = fx.commit('bad');
    await expect(at('o')).rejects.toThrow(
      `${fx.repo}@${sha.slice(0, 7)}:o/.argocd-source-shop.yaml: Argo CD's parameter override file must be a map of source fields`,
    );
  }, 30_000);

  it("symbolic links as Argo CD reads them: a link to a file is that file under the link's name, a linked folder and a link to nothing are passed over with a warning, a link out of the repository fails the render", async () => {
    fx.write('shared/common.yaml', configMap('common', '1'));
    fx.write('shared/more/m.yaml', configMap('m', '1'));
    fx.write('linked/own.yaml', configMap('own', '1'));
    symlinkSync('../shared/common.yaml', join(fx.repo, 'linked', 'common.yaml'));
    fx.write('shared/other.yaml', configMap('other', '1'));
    symlinkSync('other.yaml', join(fx.repo, 'shared', 'hop.yaml'));
    symlinkSync('../shared/hop.yaml', join(fx.repo, 'linked', 'chain.yaml')); // a link to a link
    symlinkSync('../shared/more', join(fx.repo, 'linked', 'more')); // a linked folder: not walked into
    symlinkSync('../shared/more', join(fx.repo, 'linked', 'folder.yaml')); // the same under a manifest's name: said, then left out
    symlinkSync('../shared/common.yaml', join(fx.repo, 'linked', 'common.txt')); // not a manifest name: passed over
    symlinkSync('../shared/gone.yaml', join(fx.repo, 'linked', 'dangling.yaml')); // a link to nothing: said, then left out
    fx.commit('links');
    const r = await loadDesiredManifests(app({ repoURL: fx.repo, path: 'linked' }, { directory: { recurse: true } }), {}, io());
    // chain.yaml reads shared/other.yaml through shared/hop.yaml, common.yaml reads shared/common.yaml; own.yaml is a plain file.
    expect(r.objects.map((o) => `${o.source.file}:${o.object.metadata.name}`).sort()).toEqual([
      expect.stringMatching(/linked\/chain\.yaml:other$/),
      expect.stringMatching(/linked\/common\.yaml:common$/),
      expect.stringMatching(/linked\/own\.yaml:own$/),
    ]);
    expect(r.warnings).toEqual([
      expect.stringContaining('linked/dangling.yaml: a symbolic link to shared/gone.yaml, which does not exist (Argo CD skips it too)'),
      expect.stringContaining('linked/folder.yaml: a symbolic link to the directory shared/more (Argo CD does not descend into linked directories)'),
    ]);

    symlinkSync('/etc/hostname', join(fx.repo, 'linked', 'host.yaml'));
    const sha = fx.commit('out of bounds');
    const p = loadDesiredManifests(app({ repoURL: fx.repo, path: 'linked' }), {}, io());
    await expect(p).rejects.toThrow(InputError);
    await expect(p).rejects.toThrow(`${fx.repo}@${sha.slice(0, 7)}: repository contains out-of-bounds symlinks. file: linked/host.yaml`);
  });

  it('a link out of the repository anywhere in it fails a directory render too (Argo CD checks the whole checkout), named in walk order; a fleet checks it once', async () => {
    symlinkSync('/etc/passwd', join(fx.repo, 'apps', 'other', 'abs-link'));
    fx.write('apps/other-x/y.yaml', configMap('y', '1'));
    symlinkSync('../../..', join(fx.repo, 'apps', 'other-x', 'up'));
    const sha = fx.commit('oob elsewhere');
    const said = `${fx.repo}@${sha.slice(0, 7)}: repository contains out-of-bounds symlinks. file: apps/other/abs-link`;
    await expect(loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop' }), {}, io())).rejects.toThrow(said);
    const reads = new SourceReads();
    try {
      const asked: string[] = [];
      const read: string[] = [];
      const once = reads.once.bind(reads);
      reads.once = ((key: string, r: () => Promise<unknown>) => {
        asked.push(key.split('|')[0]!);
        return once(key, () => (read.push(key.split('|')[0]!), r()));
      }) as typeof reads.once;
      const fleet = ['apps/shop', 'apps/other-x'].map((path) => loadDesiredManifests({ ...app({ repoURL: fx.repo, path }), name: path }, { reads }, io()));
      for (const p of fleet) await expect(p).rejects.toThrow(said);
      // Both apps ask; the tree is listed and its links read once.
      expect(asked.filter((k) => k === 'links')).toHaveLength(2);
      expect(read.filter((k) => k === 'links' || k === 'tree')).toEqual(['tree', 'links']);
    } finally {
      reads.close();
    }
  });

  it("kustomize build --enable-helm gets the destination cluster's version and types when the source names none", async () => {
    fx.write('k/kustomization.yaml', 'resources: []\n');
    fx.commit('k');
    const args = join(fx.root, 'args.txt');
    const fake = join(fx.root, 'kustomize');
    writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$@" > ${args}\n`, { mode: 0o755 });
    const capabilities = async () => ({ kubeVersion: 'v1.31.4', apiVersions: ['v1'] });
    const env = { ...fx.env, KUBECTL_GITOPS_KUSTOMIZE: fake };
    await loadDesiredManifests(app({ repoURL: fx.repo, path: 'k' }), { kustomizeBuildOptions: '--enable-helm', capabilities }, memoryIo({ env }).io);
    expect(readFileSync(args, 'utf8').split('\n').slice(2)).toEqual(['--enable-helm', '--helm-kube-version', '1.31.4', '--helm-api-versions', 'v1', '']);
  });

  it('a link out of the repository anywhere in it fails a Kustomize render before the tool runs (the tree is written out for it)', async () => {
    fx.write('k/kustomization.yaml', 'resources:\n- cm.yaml\n');
    fx.write('k/cm.yaml', configMap('k', '1'));
    symlinkSync('../../../../etc', join(fx.repo, 'apps', 'etc'));
    const sha = fx.commit('oob');
    const p = loadDesiredManifests(app({ repoURL: fx.repo, path: 'k' }), {}, memoryIo({ env: { ...fx.env, KUBECTL_GITOPS_KUSTOMIZE: '/bin/true' } }).io);
    await expect(p).rejects.toThrow(`${fx.repo}@${sha.slice(0, 7)}: repository contains out-of-bounds symlinks. file: apps/etc`);
  });

  describe('several sources (spec.sources)', () => {
    // As the parser makes it: the first source is also `source`, its rendering keys the app's sourceOptions.
    const multi = (sources: Application['sources']): Application => ({
      ...app({}),
      sources,
      sourcesCount: sources!.length,
      source: sources![0]!,
      sourceOptions: sources![0]!.sourceOptions ?? {},
    });
    let other: GitFixture;
    let otherSha: string;
    beforeEach(() => {
      other = new GitFixture();
      other.write('more/m.yaml', configMap('m', '1'));
      other.write('values/shop.yaml', 'replicas: 2\n');
      otherSha = other.commit('other repo');
    });
    afterEach(() => other.cleanup());

    it('renders every source with a path and unites the objects; a source without a path only lends its files; each revision is said', async () => {
      const r = await loadDesiredManifests(
        multi([
          { repoURL: fx.repo, path: 'apps/shop', targetRevision: 'v1' },
          { repoURL: other.repo, path: 'more', targetRevision: 'main' },
          { repoURL: other.repo, targetRevision: 'main', ref: 'values' },
        ]),
        {},
        io(),
      );
      expect(values(r)).toEqual(['a=1', 'm=1']);
      expect(r.revision).toBeUndefined();
      expect(r.sources).toEqual([
        { repoURL: fx.repo, path: 'apps/shop', targetRevision: 'v1', revision: first, type: 'Directory' },
        { repoURL: other.repo, path: 'more', targetRevision: 'main', revision: otherSha, type: 'Directory' },
        { repoURL: other.repo, ref: 'values', targetRevision: 'main', revision: otherSha },
      ]);
      expect(r.origin).toBe(`${fx.repo}@${first.slice(0, 7)}:apps/shop, ${other.repo}@${otherSha.slice(0, 7)}:more`);
    });

    it("a parameter override file in the second source merges into that source's own options, not the first's", async () => {
      other.write('more/sub/n.yaml', configMap('nested', '1'));
      other.write('more/.argocd-source-shop.yaml', 'directory:\n  recurse: true\n');
      other.commit('override in the second source');
      const r = await loadDesiredManifests(
        multi([
          {
            repoURL: fx.repo,
            path: 'apps/shop',
            targetRevision: 'v1',
            options: parseSourceOptions({ directory: { include: 'a.yaml' } }, 'spec.sources[0]', 'test'),
            sourceOptions: { directory: { include: 'a.yaml' } },
          },
          { repoURL: other.repo, path: 'more', targetRevision: 'main' },
        ]),
        {},
        io(),
      );
      expect(values(r)).toEqual(['a=1', 'm=1', 'nested=1']);
    });

    it("$name/... value files are checked as Argo CD's repo-server checks them, before anything is rendered (no helm needed)", async () => {
      const noHelm = memoryIo({ env: { ...fx.env, KUBECTL_GITOPS_HELM: join(fx.root, 'no-helm') } }).io;
      const chart = (h: JsonObject, targetRevision = 'v1') => ({
        repoURL: fx.repo,
        path: 'apps/shop',
        targetRevision,
        options: parseSourceOptions({ helm: h }, 'spec.sources[0]', 'test'),
        sourceOptions: { helm: h },
      });
      // A ref no source has: an error even with ignoreMissingValueFiles (never a path in the chart, silently skipped).
      await expect(
        loadDesiredManifests(
          multi([chart({ valueFiles: ['$other/envs/prod/values.yaml'], ignoreMissingValueFiles: true }), { repoURL: other.repo, ref: 'values' }]),
          {},
          noHelm,
        ),
      ).rejects.toThrow(
        'test: Application spec.sources[0]: source referenced "$other", which is not one of the available sources ($values) (Argo CD fails to generate manifest for source 1 of 2)',
      );
      await expect(
        loadDesiredManifests(multi([chart({ fileParameters: [{ name: 'f', path: '$values/f.txt' }] }), { repoURL: other.repo, path: 'more' }]), {}, noHelm),
      ).rejects.toThrow(`source referenced "$values", but no source has a 'ref' field defined`);
      // The chart's own repository as the ref, at another commit.
      await expect(
        loadDesiredManifests(
          multi([chart({ valueFiles: ['$values/apps/other/c.yaml'] }), { repoURL: fx.repo, ref: 'values', targetRevision: 'main' }]),
          {},
          noHelm,
        ),
      ).rejects.toThrow(
        `cannot reference a different revision of the same repository ($values references "main" which resolves to "${second}" while the application references "v1" which resolves to "${first}")`,
      );
      // Two revisions of one values repository.
      other.git(['tag', 'o1']);
      await expect(
        loadDesiredManifests(
          multi([
            chart({ valueFiles: ['$a/values/shop.yaml', '$b/values/shop.yaml'] }),
            { repoURL: other.repo, ref: 'a', targetRevision: 'main' },
            { repoURL: other.repo, ref: 'b', targetRevision: 'o1' },
          ]),
          {},
          noHelm,
        ),
      ).rejects.toThrow('cannot reference multiple revisions for the same repository ($b references "o1" while $a references "main")');
    });

    it('a Helm chart source without targetRevision is refused as Argo CD refuses it (InvalidSpecError), before anything is pulled', async () => {
      const noHelm = memoryIo({ env: { ...fx.env, KUBECTL_GITOPS_HELM: join(fx.root, 'no-helm') } }).io;
      const chart = { repoURL: 'https://charts.example', options: parseSourceOptions({ chart: 'web' }, 'spec.source', 'test') };
      const said = /spec\.source\.targetRevision is required if the manifest source is a helm chart/;
      await expect(loadDesiredManifests(app(chart), {}, noHelm)).rejects.toThrow(said);
      await expect(loadDesiredManifests(app({ ...chart, targetRevision: '' }), { revision: '1.0.0' }, noHelm)).rejects.toThrow(said);
      await expect(loadDesiredManifests(multi([{ repoURL: fx.repo, path: 'apps/shop' }, chart]), {}, noHelm)).rejects.toThrow(
        /Application spec\.sources\[1\]\.targetRevision: spec\.source\.targetRevision is required/,
      );
    });

    it('one source that fails stops everything; one object from two sources, bad or repeated ref names and --revision are refused', async () => {
      await expect(
        loadDesiredManifests(
          multi([
            { repoURL: fx.repo, path: 'apps/shop' },
            { repoURL: other.repo, path: 'nope' },
          ]),
          {},
          io(),
        ),
      ).rejects.toThrow(/source\.path "nope" does not exist/);
      await expect(
        loadDesiredManifests(
          multi([
            { repoURL: fx.repo, path: 'apps/shop' },
            { repoURL: other.repo, path: 'more', targetRevision: 'gone' },
          ]),
          {},
          io(),
        ),
      ).rejects.toThrow(/spec\.sources\[1\]\.targetRevision "gone" names no commit/);
      await expect(
        loadDesiredManifests(
          multi([
            { repoURL: fx.repo, path: 'apps/shop' },
            { repoURL: fx.repo, path: 'apps/shop' },
          ]),
          {},
          io(),
        ),
      ).rejects.toThrow(/ConfigMap shop\/a is declared twice|is declared twice/);
      await expect(loadDesiredManifests(multi([{ repoURL: fx.repo, path: 'apps/shop', ref: 'a.b' }]), {}, io())).rejects.toThrow(
        /ref a\.b cannot contain any special characters/,
      );
      await expect(
        loadDesiredManifests(
          multi([
            { repoURL: fx.repo, ref: 'v' },
            { repoURL: other.repo, ref: 'v' },
          ]),
          {},
          io(),
        ),
      ).rejects.toThrow(/multiple sources had the same `ref` key/);
      await expect(loadDesiredManifests(multi([{ repoURL: fx.repo, path: 'apps/shop' }]), { revision: 'main' }, io())).rejects.toThrow(
        /--revision names one revision/,
      );
      await expect(loadDesiredManifests(multi([{ repoURL: fx.repo, path: 'apps/shop' }]), { repoDir: fx.repo }, io())).rejects.toThrow(
        /--repo-dir stands for one repository/,
      );
      const plugin = multi([
        { repoURL: fx.repo, path: 'apps/shop' },
        { repoURL: other.repo, path: 'more', options: { plugin: {} } },
      ]);
      await expect(loadDesiredManifests(plugin, {}, io())).rejects.toThrow(UnrenderableError);
      await expect(loadDesiredManifests(plugin, {}, io())).rejects.toThrow(/spec\.sources\[1\]\.plugin/);
    });
  });

  it("a directory at a commit is read once: the next read of that commit comes from the render cache (as Argo CD's repo-server caches every source's manifests), --hard-refresh reads the files again, a new commit is read anew", async () => {
    const trace = join(fx.root, 'git-trace.log');
    const traced = () => memoryIo({ env: { ...fx.env, GIT_TRACE: trace } }).io;
    const blobReads = () =>
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter((l) => /trace: built-in: git (?:--git-dir=\S+ )?cat-file --batch\b/.test(l)).length;
    const shop = app({ repoURL: fx.repo, path: 'apps/shop', targetRevision: 'main' });
    const first = await loadDesiredManifests(shop, {}, traced());
    expect(blobReads()).toBe(1);
    expect(readdirSync(join(fx.env.XDG_CACHE_HOME!, 'kubectl-gitops', 'renders')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    const again = await loadDesiredManifests(shop, {}, traced());
    expect(again.objects).toEqual(first.objects);
    expect([values(again), again.revision, again.sourceType]).toEqual([['a=2'], second, 'Directory']);
    expect(blobReads()).toBe(1);
    const hard = await loadDesiredManifests(shop, { hardRefresh: true }, traced());
    expect([values(hard), blobReads()]).toEqual([['a=2'], 2]);
    fx.write('apps/shop/a.yaml', configMap('a', '3'));
    const third = fx.commit('three');
    const next = await loadDesiredManifests(shop, {}, traced());
    expect([values(next), next.revision, blobReads()]).toEqual([['a=3'], third, 3]);
  });

  it('refuses a revision that does not exist, naming it', async () => {
    const p = loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop', targetRevision: 'release-9' }), {}, io());
    await expect(p).rejects.toThrow(InputError);
    await expect(p).rejects.toThrow(/source\.targetRevision "release-9" names no commit/);
    await expect(loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop' }), { revision: 'nope' }, io())).rejects.toThrow(/--revision "nope"/);
    await expect(loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop' }), { revision: '--upload-pack=x' }, io())).rejects.toThrow(InputError);
  });

  it('refuses a path missing at that revision, naming the commit', async () => {
    const p = loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop/sub', targetRevision: 'main' }), {}, io());
    await expect(p).rejects.toThrow(InputError);
    await expect(p).rejects.toThrow(new RegExp(`source\\.path "apps/shop/sub" does not exist at .*@${second.slice(0, 7)}`));
    // the same path exists at the tag
    expect(values(await loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop/sub', targetRevision: 'v1' }), {}, io()))).toEqual(['b=1']);
    await expect(loadDesiredManifests(app({ repoURL: fx.repo, path: '../etc' }), {}, io())).rejects.toThrow(/inside the repository/);
  });

  it('refuses a broken manifest naming the file at the commit and its line', async () => {
    fx.write('apps/shop/bad.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n');
    const sha = fx.commit('broken');
    const p = loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop' }), {}, io());
    await expect(p).rejects.toThrow(InputError);
    await expect(p).rejects.toThrow(new RegExp(`@${sha.slice(0, 7)}:apps/shop/bad\\.yaml`));
  });

  it('refuses the same object declared in two files', async () => {
    fx.write('apps/shop/dup.yaml', configMap('a', '3'));
    fx.commit('dup');
    await expect(loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop' }), {}, io())).rejects.toThrow(/declared twice/);
  });

  it('refuses a repoURL that is not a repository, and an app without any source', async () => {
    await expect(loadDesiredManifests(app({ repoURL: join(fx.repo, 'apps'), path: '' }), {}, io())).rejects.toThrow(/is not a git repository/);
    await expect(loadDesiredManifests(app({ path: 'x' }), {}, io())).rejects.toThrow(/--desired/);
  });

  it('uses --desired instead of the repository when given', async () => {
    const file = join(fx.root, 'desired.yaml');
    writeFileSync(file, configMap('local', '9'));
    const r = await loadDesiredManifests(app({ repoURL: 'https://git.example.invalid/x.git', path: 'apps' }), { desired: file }, io());
    expect(values(r)).toEqual(['local=9']);
    expect(r.revision).toBeUndefined();
  });

  it('keeps --desired DIR as parsed in the render cache, by its files and their contents; --hard-refresh and a changed file read anew', async () => {
    const dir = join(fx.root, 'desired');
    fx.write('../desired/a.yaml', configMap('a', '1'));
    fx.write('../desired/sub/b.yaml', configMap('b', '1'));
    const renders = renderCacheDir(fx.env);
    const load = (hardRefresh = false) => loadDesiredManifests(app({}), { desired: dir, ...(hardRefresh ? { hardRefresh } : {}) }, io());
    expect(values(await load())).toEqual(['a=1', 'b=1']);
    // The entries (the sweep's .swept marker aside).
    const entries = readdirSync(renders).filter((f) => f.endsWith('.json'));
    expect(entries).toHaveLength(1);
    // What is read again comes from the entry (made visible here by changing it): the files are not parsed again.
    const entry = join(renders, entries[0]!);
    writeFileSync(entry, readFileSync(entry, 'utf8').replaceAll('"1"', '"cached"'));
    expect(values(await load())).toEqual(['a=cached', 'b=cached']);
    expect(values(await load(true))).toEqual(['a=1', 'b=1']);
    // A changed file is another key: read and parsed anew.
    writeFileSync(join(dir, 'sub', 'b.yaml'), configMap('b', '2'));
    expect(values(await load())).toEqual(['a=1', 'b=2']);
    // A bad file is an error naming it, and nothing is cached for it.
    const before = readdirSync(renders).length;
    writeFileSync(join(dir, 'a.yaml'), 'kind: [');
    await expect(load()).rejects.toThrow(/a\.yaml/);
    expect(readdirSync(renders)).toHaveLength(before);
  });

  it('reads a remote repoURL from --repo-dir without fetching, falling back to origin/<branch>', async () => {
    const clone = join(fx.root, 'clone');
    fx.git(['clone', '--quiet', fx.repo, clone], fx.root);
    fx.git(['checkout', '--quiet', '-b', 'feature'], fx.repo);
    fx.write('apps/shop/a.yaml', configMap('a', 'feature'));
    fx.commit('feature');
    fx.git(['fetch', '--quiet', 'origin'], clone);
    const remote = app({ repoURL: 'https://git.example.invalid/shop.git', path: 'apps/shop', targetRevision: 'feature' });
    expect(values(await loadDesiredManifests(remote, { repoDir: clone }, io()))).toEqual(['a=feature']);
  });

  it('says so plainly when git is not installed', async () => {
    const noGit = memoryIo({ env: { ...fx.env, PATH: join(fx.root, 'empty-bin') } }).io;
    const p = loadDesiredManifests(app({ repoURL: fx.repo, path: 'apps/shop' }), {}, noGit);
    await expect(p).rejects.toThrow(InputError);
    await expect(p).rejects.toThrow(/git is not installed/);
  });

  it('says how to use a local clone when a remote cannot be fetched', async () => {
    const remote = app({ repoURL: `file-not-a-url:${join(fx.root, 'missing')}`, path: '' });
    const viaScp = app({ repoURL: 'nohost.invalid:org/shop.git', path: '' });
    for (const a of [remote, viaScp]) {
      const p = loadDesiredManifests(a, {}, io());
      await expect(p).rejects.toThrow(InputError);
      await expect(p).rejects.toThrow(/--repo-dir/);
    }
  });
});

describe('--desired DIR --render: a local folder rendered like a source', () => {
  let fx: GitFixture;
  beforeEach(() => {
    fx = new GitFixture();
  });
  afterEach(() => fx.cleanup());
  const io = () => memoryIo({ env: fx.env }).io;

  it('reads the folder as a directory source: no sub-folders by default, non-Kubernetes YAML passed over, options from the app', async () => {
    fx.write('k8s/a.yaml', configMap('a', '1'));
    fx.write('k8s/values.yaml', 'replicas: 2\n');
    fx.write('k8s/sub/b.yaml', configMap('b', '1'));
    const dir = join(fx.repo, 'k8s');
    const r = await loadDesiredManifests(app({}), { desired: dir, render: true }, io());
    expect(values(r)).toEqual(['a=1']);
    expect(r.sourceType).toBe('Directory');
    expect(r.origin).toBe(dir);
    expect(values(await loadDesiredManifests(app(recurse), { desired: dir, render: true }, io()))).toEqual(['a=1', 'b=1']);
    // without --render the folder is read as plain manifests, recursively, and values.yaml is an error
    await expect(loadDesiredManifests(app({}), { desired: dir }, io())).rejects.toThrow(/values\.yaml/);
  });

  it('refuses --render without --desired, and a file', async () => {
    fx.write('a.yaml', configMap('a', '1'));
    await expect(loadDesiredManifests(app({ repoURL: fx.repo }), { render: true }, io())).rejects.toThrow(/--render renders the folder given by --desired/);
    await expect(loadDesiredManifests(app({}), { desired: join(fx.repo, 'a.yaml'), render: true }, io())).rejects.toThrow(/needs a directory/);
  });
});
