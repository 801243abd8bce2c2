import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KustomizeOptions } from '../../../../src/app/source-options.js';
import { editKustomization, KustomizeEditError, parseImageArg, splitImage } from '../../../../src/source/render/kustomize-edit.js';
import { componentCheck, goGlob, namedKustomize } from '../../../../src/source/render/kustomize.js';

const none: KustomizeOptions = {
  namePrefix: '',
  nameSuffix: '',
  namespace: '',
  images: [],
  commonLabels: {},
  commonAnnotations: {},
  commonAnnotationsEnvsubst: false,
  forceCommonLabels: false,
  forceCommonAnnotations: false,
  labelWithoutSelector: false,
  labelIncludeTemplates: false,
  replicas: [],
  patches: [],
  components: [],
  ignoreMissingComponents: false,
  version: '',
  kubeVersion: '',
  apiVersions: [],
};
const env = { ARGOCD_APP_NAME: 'shop' };
const all = { exists: () => true, glob: (p: string) => [p] };
const edit = (text: string, o: Partial<KustomizeOptions>) => parse(editKustomization(text, { ...none, ...o }, env, all)) as Record<string, unknown>;
/** A tree whose folder `../components` holds `b`, `a` (read in that order) and `c.yaml`; the stub globs it as Go's filepath.Glob would. */
const tree = {
  exists: (p: string) => ['../components', '../components/a', '../components/b', '../components/c.yaml'].includes(p),
  glob: (p: string) =>
    ({ '../components/*': ['../components/a', '../components/b', '../components/c.yaml'], '../components/[ab]': ['../components/a', '../components/b'] })[p] ??
    [],
};
const editIn = (text: string, o: Partial<KustomizeOptions>) => editKustomization(text, { ...none, ...o }, env, tree);

describe('kustomize edit semantics', () => {
  it('splits image references as kustomize does (a registry port is not a tag)', () => {
    expect(splitImage('nginx')).toEqual(['nginx', '', '']);
    expect(splitImage('nginx:1.25')).toEqual(['nginx', '1.25', '']);
    expect(splitImage('reg:5000/nginx:1.25')).toEqual(['reg:5000/nginx', '1.25', '']);
    expect(splitImage('reg:5000/nginx@sha256:ab')).toEqual(['reg:5000/nginx', '', 'sha256:ab']);
    expect(splitImage('nginx:1.25@sha256:ab')).toEqual(['nginx', '1.25', 'sha256:ab']);
  });

  it('reads set image arguments and refuses one with nothing to set', () => {
    expect(parseImageArg('nginx=mirror/nginx:1')).toEqual({ name: 'nginx', newName: 'mirror/nginx', newTag: '1' });
    expect(parseImageArg('nginx:2')).toEqual({ name: 'nginx', newTag: '2' });
    expect(parseImageArg('nginx=other')).toEqual({ name: 'nginx', newName: 'other' });
    expect(() => parseImageArg('nginx')).toThrow(KustomizeEditError);
  });

  it('replaces an image entry of the same name whole (keeping only * fields), keeps the others, sorted by name', () => {
    const k = edit('images:\n- name: z\n  newTag: "1"\n- name: nginx\n  newName: mirror/nginx\n  newTag: "1"\n', {
      images: ['nginx:2', 'alpine=mirror/alpine:*'],
    });
    expect(k.images).toEqual([
      { name: 'alpine', newName: 'mirror/alpine' },
      { name: 'nginx', newTag: '2' },
      { name: 'z', newTag: '1' },
    ]);
    const kept = edit('images:\n- name: nginx\n  newName: mirror/nginx\n  newTag: "1"\n', { images: ['nginx=*:2'] });
    expect(kept.images).toEqual([{ name: 'nginx', newName: 'mirror/nginx', newTag: '2' }]);
  });

  it("fails as kustomize's typed read does on an image field that is not a string or a count that is not an integer, whatever the edit (Argo CD's render fails)", () => {
    // `newTag: 1.2` is a YAML number: kustomize edit (and build) refuse it; it was dropped from the entry and rendered.
    expect(() => edit('images:\n- name: nginx\n  newTag: 1.2\n', { images: ['redis:7'] })).toThrow(
      'invalid Kustomization: json: cannot unmarshal number into Go struct field Image.images.newTag of type string',
    );
    expect(() => edit('images:\n- name: nginx\n  newTag: 1.2\n', { namePrefix: 'p-' })).toThrow(/Image\.images\.newTag of type string/);
    expect(() => edit('imageTags:\n- name: nginx\n  digest: true\n', { images: ['redis:7'] })).toThrow(
      'cannot unmarshal bool into Go struct field Image.imageTags.digest of type string',
    );
    expect(() => edit('replicas:\n- name: web\n  count: "2"\n', { replicas: [{ name: 'api', count: 1 }] })).toThrow(
      'cannot unmarshal string into Go struct field Replica.replicas.count of type int64',
    );
    expect(() => edit('replicas:\n- name: web\n  count: 1.5\n', { namePrefix: 'p-' })).toThrow(
      'cannot unmarshal number 1.5 into Go struct field Replica.replicas.count of type int64',
    );
    // A quoted tag and a null field read as Go reads them.
    expect(edit('images:\n- name: nginx\n  newTag: "1.2"\n  digest: null\n', { images: ['redis:7'] }).images).toEqual([
      { name: 'nginx', newTag: '1.2' },
      { name: 'redis', newTag: '7' },
    ]);
  });

  it('sets replicas by name, sorted; appends patches and components once', () => {
    const k = edit('replicas:\n- name: b\n  count: 1\n- name: a\n  count: 1\ncomponents: [c1]\npatches:\n- path: p.yaml\n', {
      replicas: [{ name: 'b', count: 4 }],
      patches: [{ patch: 'x' }],
      components: ['c1', 'c2'],
    });
    expect(k.replicas).toEqual([
      { name: 'a', count: 1 },
      { name: 'b', count: 4 },
    ]);
    expect(k.patches).toEqual([{ path: 'p.yaml' }, { patch: 'x' }]);
    expect(k.components).toEqual(['c1', 'c2']);
  });

  it('adds labels to commonLabels, or to a labels entry without selectors; an existing key needs the force flag', () => {
    expect(edit('commonLabels:\n  a: "1"\n', { commonLabels: { b: '$ARGOCD_APP_NAME' } }).commonLabels).toEqual({ a: '1', b: 'shop' });
    expect(() => edit('commonLabels:\n  a: "1"\n', { commonLabels: { a: '2' } })).toThrow(/label a already in kustomization file/);
    expect(edit('commonLabels:\n  a: "1"\n', { commonLabels: { a: '2' }, forceCommonLabels: true }).commonLabels).toEqual({ a: '2' });
    expect(edit('{}', { commonLabels: { t: 'x' }, labelWithoutSelector: true, labelIncludeTemplates: true }).labels).toEqual([
      { pairs: { t: 'x' }, includeTemplates: true },
    ]);
    expect(() => edit('{}', { commonLabels: { t: 'x' }, labelIncludeTemplates: true })).toThrow(/--without-selector/);
  });

  it('substitutes annotation values only with commonAnnotationsEnvsubst, and trims quotes as kustomize does', () => {
    expect(edit('{}', { commonAnnotations: { o: '$ARGOCD_APP_NAME' } }).commonAnnotations).toEqual({ o: '$ARGOCD_APP_NAME' });
    expect(edit('{}', { commonAnnotations: { o: '$ARGOCD_APP_NAME' }, commonAnnotationsEnvsubst: true }).commonAnnotations).toEqual({ o: 'shop' });
    expect(edit('{}', { commonAnnotations: { q: '"quoted"' } }).commonAnnotations).toEqual({ q: 'quoted' });
  });

  it('expands a component glob as kustomize edit add component does: the matches in order, in their relative form', () => {
    expect(parse(editIn('resources: [a.yaml]\n', { components: ['../components/[ab]'] })).components).toEqual(['../components/a', '../components/b']);
  });

  it('refuses a component glob that matches nothing, and a malformed one, naming the entry', () => {
    expect(() => editIn('{}', { components: ['../components/z*'] })).toThrow(KustomizeEditError);
    expect(() => editIn('{}', { components: ['../components/z*'] })).toThrow(/^\.\.\/components\/z\* has no match: /);
    expect(() => editIn('{}', { components: ['../components/['] })).toThrow(/^\.\.\/components\/\[: syntax error in pattern$/);
  });

  it('with ignoreMissingComponents, checks a glob entry as a literal path (as Argo CD does): no file has its name, so it is dropped', () => {
    const text = '# comment\nresources: [a.yaml]\n';
    expect(editIn(text, { components: ['../components/*'], ignoreMissingComponents: true })).toBe(text);
    expect(parse(editIn(text, { components: ['../components/*', '../components/a'], ignoreMissingComponents: true })).components).toEqual(['../components/a']);
  });

  it('does not add an expanded component the kustomization already lists', () => {
    expect(parse(editIn('components: [../components/b]\n', { components: ['../components/*', '../components/a'] })).components).toEqual([
      '../components/b',
      '../components/a',
      '../components/c.yaml',
    ]);
  });

  it('passes a remote component on as is (a `?ref=` is no glob)', () => {
    expect(parse(editIn('{}', { components: ['https://github.com/org/repo//components/x?ref=v1'] })).components).toEqual([
      'https://github.com/org/repo//components/x?ref=v1',
    ]);
  });

  it("writes every key and value so that kustomize's YAML 1.1 reader (go-yaml v2) reads back the same string, as kustomize edit's writer quotes them", () => {
    const out = editKustomization(
      'resources: [cm.yaml]\n',
      {
        ...none,
        namePrefix: 'y',
        nameSuffix: 'NO',
        images: ['on=n:0o17', 'busybox:1.10'],
        replicas: [{ name: 'off', count: 2 }],
        commonLabels: { on: 'yes', l: 'n', x: '0X1F', t: '1:20', d: '2001-12-14' },
        commonAnnotations: { n: 'v', Yes: 'Off', o: '1_0', z: '~', e: '1e3', f: '.5' },
        namespace: 'on',
        patches: [{ target: { kind: 'yes', name: 'n' }, patch: 'a: "on"\n' }],
        components: ['y'],
      },
      env,
      all,
    );
    // What kustomize itself writes for these (kustomize v5.8.1 `kustomize edit`): the ambiguous scalars double-quoted.
    for (const line of ['"on": "yes"', 'l: "n"', 'x: "0X1F"', '"n": v', '"Yes": "Off"', 'o: "1_0"', 'newTag: "0o17"', 'newTag: "1.10"', 'namespace: "on"'])
      expect(out).toContain(line);
    expect(parse(out, { version: '1.1' })).toEqual({
      resources: ['cm.yaml'],
      namePrefix: 'y',
      nameSuffix: 'NO',
      images: [
        { name: 'busybox', newTag: '1.10' },
        { name: 'on', newName: 'n', newTag: '0o17' },
      ],
      replicas: [{ name: 'off', count: 2 }],
      commonLabels: { on: 'yes', l: 'n', x: '0X1F', t: '1:20', d: '2001-12-14' },
      commonAnnotations: { n: 'v', Yes: 'Off', o: '1_0', z: '~', e: '1e3', f: '.5' },
      namespace: 'on',
      patches: [{ target: { kind: 'yes', name: 'n' }, patch: 'a: "on"\n' }],
      components: ['y'],
    });
    const pairs = editKustomization('{}', { ...none, commonLabels: { on: 'n' }, labelWithoutSelector: true }, env, all);
    expect(pairs).toContain('"on": "n"');
  });

  it('keeps what the kustomization already holds as kustomize reads it: a quoted `on` a string, a plain `yes` a bool', () => {
    const out = editKustomization(
      'commonLabels:\n  monitoring: "on"\n  "n": "yes"\ngeneratorOptions:\n  disableNameSuffixHash: yes\nreplicas:\n- name: a\n  count: 0010\n',
      { ...none, namePrefix: 'p-' },
      env,
      all,
    );
    expect(parse(out, { version: '1.1' })).toEqual({
      commonLabels: { monitoring: 'on', n: 'yes' },
      generatorOptions: { disableNameSuffixHash: true },
      replicas: [{ name: 'a', count: 8 }],
      namePrefix: 'p-',
    });
  });

  it('leaves the text untouched when no option applies', () => {
    const text = '# comment\nresources: [a.yaml]\n';
    expect(editKustomization(text, none, env, all)).toBe(text);
  });
});

describe("components globbed in a real folder as Go's filepath.Glob does, inside the repository only", () => {
  let base: string;
  let root: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'kgitops-component-glob-'));
    root = join(base, 'repo');
    for (const d of ['components/zeta', 'components/alpha', 'overlay', 'extra/.hidden', 'other/components']) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, 'extra/readme.md'), '');
    // Outside the repository: a file `../../components/*` would match from the overlay.
    mkdirSync(join(base, 'components'));
    writeFileSync(join(base, 'components/outside.yaml'), '');
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('adds the two folders ../components/* matches, sorted, and no match outside the repository', () => {
    const check = componentCheck(root, join(root, 'overlay'));
    const k = parse(editKustomization('resources: []\n', { ...none, components: ['../components/*'] }, env, check)) as Record<string, unknown>;
    expect(k.components).toEqual(['../components/alpha', '../components/zeta']);
    expect(check.glob('../../components/*')).toEqual([]);
    expect(goGlob(join(root, 'overlay'), '../../components/*', () => true)).toEqual(['../../components/outside.yaml']);
    expect(() => editKustomization('{}', { ...none, components: ['../../components/*'] }, env, check)).toThrow(/^\.\.\/\.\.\/components\/\* has no match: /);
  });

  it('matches dot files, files and folders; walks globbed folders; cleans the joined path; a literal path is itself', () => {
    const check = componentCheck(root, join(root, 'overlay'));
    expect(check.glob('../extra/*')).toEqual(['../extra/.hidden', '../extra/readme.md']);
    expect(check.glob('../*/components')).toEqual(['../other/components']);
    expect(check.glob('../*/[a-z]*a')).toEqual(['../components/alpha', '../components/zeta']);
    expect(check.glob('./../components/al*')).toEqual(['../components/alpha']);
    expect(check.glob('../components/alpha')).toEqual(['../components/alpha']);
    expect(check.glob('../components/none')).toEqual([]);
    expect(check.glob('../../*')).toEqual([]);
  });
});

describe('kustomize build arguments', () => {
  it('splits build options at whitespace, and adds the helm versions only with --enable-helm', async () => {
    const { buildArgs } = await import('../../../../src/source/render/kustomize.js');
    const tool = { kind: 'kustomize' as const, path: '/bin/kustomize' };
    expect(buildArgs(tool, 'app', undefined, undefined)).toEqual(['build', 'app']);
    expect(buildArgs({ kind: 'kubectl', path: '/bin/kubectl' }, 'app', ' --load-restrictor  LoadRestrictionsNone', undefined)).toEqual([
      'kustomize',
      'app',
      '--load-restrictor',
      'LoadRestrictionsNone',
    ]);
    const opts = { ...none, kubeVersion: 'v1.35.0', apiVersions: ['a/v1', 'b/v2'] };
    expect(buildArgs(tool, 'app', '', opts)).toEqual(['build', 'app']);
    expect(buildArgs(tool, 'app', '--enable-helm', opts)).toEqual([
      'build',
      'app',
      '--enable-helm',
      '--helm-kube-version',
      '1.35.0',
      '--helm-api-versions',
      'a/v1',
      '--helm-api-versions',
      'b/v2',
    ]);
  });

  it("with --enable-helm and no versions of the source's own, the destination cluster's (GetKubeVersionOrDefault), the version as ParseGeneric reads it", async () => {
    const { buildArgs } = await import('../../../../src/source/render/kustomize.js');
    const tool = { kind: 'kustomize' as const, path: '/bin/kustomize' };
    const cluster = { kubeVersion: 'v1.31.4+k3s1', apiVersions: ['apps/v1', 'v1'] };
    expect(buildArgs(tool, 'app', '--enable-helm', none, cluster)).toEqual([
      'build',
      'app',
      '--enable-helm',
      '--helm-kube-version',
      '1.31.4',
      '--helm-api-versions',
      'apps/v1',
      '--helm-api-versions',
      'v1',
    ]);
    expect(buildArgs(tool, 'app', '--enable-helm', undefined, cluster)).toContain('1.31.4');
    // The source's own win, each on its own.
    expect(buildArgs(tool, 'app', '--enable-helm', { ...none, kubeVersion: 'v1.29.0' }, cluster)).toEqual([
      'build',
      'app',
      '--enable-helm',
      '--helm-kube-version',
      '1.29.0',
      '--helm-api-versions',
      'apps/v1',
      '--helm-api-versions',
      'v1',
    ]);
    expect(buildArgs(tool, 'app', '--enable-helm', { ...none, apiVersions: ['x/v1'] }, cluster).slice(3)).toEqual([
      '--helm-kube-version',
      '1.31.4',
      '--helm-api-versions',
      'x/v1',
    ]);
    // Without --enable-helm the cluster's are not passed; a kubeVersion that is no version fails as in Argo CD.
    expect(buildArgs(tool, 'app', '--load-restrictor LoadRestrictionsNone', none, cluster)).toEqual([
      'build',
      'app',
      '--load-restrictor',
      'LoadRestrictionsNone',
    ]);
    expect(() => buildArgs(tool, 'app', '', { ...none, kubeVersion: 'latest' })).toThrow(/could not parse kubernetes version latest/);
  });
});

describe("a named kustomize version: argocd-cm's kustomize.path.<version>", () => {
  const env = { PATH: '/usr/bin:/bin' };
  it('is the registered binary when it is an executable file here', () => {
    expect(namedKustomize('v5', new Map([['v5', '/bin/sh']]), env)).toEqual({ kind: 'kustomize', path: '/bin/sh' });
  });
  it("an unregistered version is Argo CD's error, naming the key that would register it; a path that is no executable here names --kustomize", () => {
    expect(() => namedKustomize('v9', new Map([['v5', '/bin/sh']]), env)).toThrow(
      /^kustomize version v9 is not registered \(argocd-cm kustomize\.path\.v9\), so Argo CD's repo-server fails this render: add kustomize\.path\.v9 to argocd-cm/,
    );
    expect(() => namedKustomize('v5', new Map([['v5', '/custom-tools/kustomize_5']]), env)).toThrow(
      /^kustomize version v5: argocd-cm's kustomize\.path\.v5 \/custom-tools\/kustomize_5 is not an executable file on this machine .*--kustomize/,
    );
  });
  it('--kustomize stands in for a registered version, but not for an unregistered one (Argo CD fails that render whatever binary it has)', () => {
    expect(namedKustomize('v5', new Map([['v5', '/custom-tools/kustomize_5']]), env, '/bin/sh')).toEqual({ kind: 'kustomize', path: '/bin/sh' });
    expect(() => namedKustomize('v9.9.9', new Map([['v5', '/bin/sh']]), env, '/bin/sh')).toThrow(
      /^kustomize version v9\.9\.9 is not registered \(argocd-cm kustomize\.path\.v9\.9\.9\)/,
    );
    expect(() => namedKustomize('v9.9.9', new Map(), env, '/bin/sh')).toThrow(/is not registered/);
  });
});
