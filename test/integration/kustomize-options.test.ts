// Each spec.source.kustomize option renders exactly what the real kustomize (built by test/cluster/build) builds
// after the `kustomize edit` command Argo CD's repo-server runs for that option, on the same commit.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KustomizeOptions } from '../../src/app/source-options.js';
import type { Application } from '../../src/app/types.js';
import { parseManifests } from '../../src/manifest/parse.js';
import { listTree } from '../../src/source/git.js';
import { commitFiles, renderSource } from '../../src/source/render/index.js';
import { KUSTOMIZE_FILES } from '../fixtures/render/apps.js';
import { GitFixture } from '../support/git-source.js';
import { clusterBin } from './support/index.js';

const OVERLAY = 'kustomize-guestbook/overlays/prod';

const NO_OPTIONS: KustomizeOptions = {
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

const SERVICE_PATCH = '- op: add\n  path: /spec/sessionAffinity\n  value: ClientIP\n';

describe('spec.source.kustomize options against kustomize edit + kustomize build', () => {
  let fx: GitFixture;
  let sha: string;
  let kustomize: string;

  beforeAll(() => {
    kustomize = join(clusterBin(), 'kustomize');
    fx = new GitFixture();
    for (const [path, text] of Object.entries(KUSTOMIZE_FILES)) fx.write(path, text);
    sha = fx.commit('kustomize guestbook');
  });
  afterAll(() => fx?.cleanup());

  async function ours(options: Partial<KustomizeOptions>, path = OVERLAY, kustomizeBuildOptions?: string): Promise<unknown[]> {
    const app: Application = {
      name: 'shop',
      namespace: 'argocd',
      source: { repoURL: fx.repo, path, options: { kustomize: { ...NO_OPTIONS, ...options } } },
      sourcesCount: 0,
      sourceOptions: {},
      destination: {},
      syncOptions: {} as Application['syncOptions'],
      ignoreDifferences: [],
      warnings: [],
      origin: 'app.yaml',
    };
    const dir = { gitDir: join(fx.repo, '.git'), env: fx.env };
    const entries = await listTree(dir, sha, path);
    const r = await renderSource({
      files: commitFiles(dir, sha),
      label: fx.repo,
      sha,
      path,
      entries,
      app,
      tools: { kustomize, env: process.env, noCache: true, ...(kustomizeBuildOptions ? { kustomizeBuildOptions } : {}) },
    });
    expect(r.sourceType).toBe('Kustomize');
    return r.objects.map((o) => o.object);
  }

  /** What kustomize builds after running Argo CD's edit commands in a copy of the work tree (at the commit). */
  function oracle(edits: string[][], path = OVERLAY, buildArgs: string[] = []): unknown[] {
    const copy = mkdtempSync(join(tmpdir(), 'kgitops-kustomize-oracle-'));
    try {
      cpSync(fx.repo, copy, { recursive: true, filter: (src) => !src.endsWith('/.git') });
      for (const args of edits) execFileSync(kustomize, args, { cwd: join(copy, path), stdio: ['ignore', 'pipe', 'pipe'] });
      const out = execFileSync(kustomize, ['build', path, ...buildArgs], { cwd: copy, encoding: 'utf8' });
      return parseManifests(out, 'kustomize build').map((o) => o.object);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }

  const cases: [string, Partial<KustomizeOptions>, () => string[][]][] = [
    ['namePrefix', { namePrefix: 'staging-' }, () => [['edit', 'set', 'nameprefix', '--', 'staging-']]],
    ['nameSuffix', { nameSuffix: '-v2' }, () => [['edit', 'set', 'namesuffix', '--', '-v2']]],
    [
      'images (new name and tag, tag only, digest)',
      { images: ['registry.example/guestbook-ui=mirror.example/gb:1.0', 'busybox:1.37', 'alpine@sha256:' + 'a'.repeat(64)] },
      () => [['edit', 'set', 'image', 'registry.example/guestbook-ui=mirror.example/gb:1.0', 'busybox:1.37', 'alpine@sha256:' + 'a'.repeat(64)]],
    ],
    [
      'images keeping a field with *',
      { images: ['registry.example/guestbook-ui=mirror.example/gb:*'] },
      () => [['edit', 'set', 'image', 'registry.example/guestbook-ui=mirror.example/gb:*']],
    ],
    ['replicas', { replicas: [{ name: 'guestbook-ui', count: 5 }] }, () => [['edit', 'set', 'replicas', 'guestbook-ui=5']]],
    [
      'commonLabels with envsubst',
      { commonLabels: { team: 'blue', rev: 'r-$ARGOCD_APP_REVISION_SHORT' } },
      () => [['edit', 'add', 'label', 'team:blue', `rev:r-${sha.slice(0, 7)}`]],
    ],
    [
      'forceCommonLabels over an overlay label',
      { commonLabels: { env: 'staging' }, forceCommonLabels: true },
      () => [['edit', 'add', 'label', '--force', 'env:staging']],
    ],
    [
      'labelWithoutSelector',
      { commonLabels: { team: 'blue' }, labelWithoutSelector: true },
      () => [['edit', 'add', 'label', '--without-selector', 'team:blue']],
    ],
    [
      'labelWithoutSelector with labelIncludeTemplates',
      { commonLabels: { team: 'blue' }, labelWithoutSelector: true, labelIncludeTemplates: true },
      () => [['edit', 'add', 'label', '--without-selector', '--include-templates', 'team:blue']],
    ],
    ['commonAnnotations kept verbatim', { commonAnnotations: { owner: '$ARGOCD_APP_NAME' } }, () => [['edit', 'add', 'annotation', 'owner:$ARGOCD_APP_NAME']]],
    [
      'commonAnnotationsEnvsubst',
      { commonAnnotations: { owner: '$ARGOCD_APP_NAME' }, commonAnnotationsEnvsubst: true },
      () => [['edit', 'add', 'annotation', 'owner:shop']],
    ],
    ['namespace', { namespace: 'guestbook-prod' }, () => [['edit', 'set', 'namespace', '--', 'guestbook-prod']]],
    [
      'patches',
      { patches: [{ target: { kind: 'Service' }, patch: SERVICE_PATCH }] },
      () => [['edit', 'add', 'patch', '--kind', 'Service', '--patch', SERVICE_PATCH]],
    ],
    ['components', { components: ['../../components/monitoring'] }, () => [['edit', 'add', 'component', '../../components/monitoring']]],
    [
      'YAML 1.1 words (on, yes, n, Off, 0o17) as keys and values stay strings, as kustomize edit writes them',
      { images: ['busybox:0o17'], commonLabels: { on: 'yes', l: 'n' }, commonAnnotations: { n: 'v', yes: 'Off' }, namespace: 'on' },
      () => [
        ['edit', 'set', 'image', 'busybox:0o17'],
        ['edit', 'add', 'label', 'on:yes', 'l:n'],
        ['edit', 'add', 'annotation', 'n:v', 'yes:Off'],
        ['edit', 'set', 'namespace', '--', 'on'],
      ],
    ],
    [
      'all at once, in Argo CD order',
      {
        namePrefix: 'a-',
        nameSuffix: '-z',
        images: ['busybox:1.37'],
        replicas: [{ name: 'guestbook-ui', count: 3 }],
        commonLabels: { team: 'blue' },
        commonAnnotations: { owner: 'me' },
        namespace: 'ns1',
        components: ['../../components/monitoring'],
      },
      () => [
        ['edit', 'set', 'nameprefix', '--', 'a-'],
        ['edit', 'set', 'namesuffix', '--', '-z'],
        ['edit', 'set', 'image', 'busybox:1.37'],
        ['edit', 'set', 'replicas', 'guestbook-ui=3'],
        ['edit', 'add', 'label', 'team:blue'],
        ['edit', 'add', 'annotation', 'owner:me'],
        ['edit', 'set', 'namespace', '--', 'ns1'],
        ['edit', 'add', 'component', '../../components/monitoring'],
      ],
    ],
  ];

  it('renders the overlay with no options exactly as kustomize build does', async () => {
    const plain = oracle([]);
    expect(plain.length).toBe(3);
    expect(await ours({})).toEqual(plain);
  });

  it.each(cases)('%s', async (_name, options, edits) => {
    const want = oracle(edits());
    expect(want).not.toEqual(oracle([])); // the option changes something
    expect(await ours(options)).toEqual(want);
  });

  it('refuses a label the kustomization already has unless forceCommonLabels, as kustomize edit does', async () => {
    expect(() => oracle([['edit', 'add', 'label', 'env:staging']])).toThrow();
    await expect(ours({ commonLabels: { env: 'staging' } })).rejects.toThrow(/label env already in kustomization file/);
  });

  it('ignoreMissingComponents drops a component that does not exist; without it the render fails', async () => {
    expect(await ours({ components: ['../../components/none', '../../components/monitoring'], ignoreMissingComponents: true })).toEqual(
      oracle([['edit', 'add', 'component', '../../components/monitoring']]),
    );
    await expect(ours({ components: ['../../components/none'] })).rejects.toThrow(/components\/none/);
  });

  it("build options (Argo CD's kustomize.buildOptions) are passed to kustomize build", async () => {
    const loose = 'kustomize-guestbook/overlays/loose';
    await expect(ours({}, loose)).rejects.toThrow(/kustomize build failed for .*overlays\/loose: .*(security|restrict)/i);
    const want = oracle([], loose, ['--load-restrictor', 'LoadRestrictionsNone']);
    expect(want).toHaveLength(1);
    expect(await ours({}, loose, ' --load-restrictor  LoadRestrictionsNone ')).toEqual(want);
  });
});
