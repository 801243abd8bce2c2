// `appset generate` through the built binary on the local control plane: goTemplate through the embedded Go engine
// (Go's text/template and sprig, built to WebAssembly), a matrix of a git directories generator (a GitFixture) and a
// list, the ApplicationSet read by name from the cluster, a clusters generator over a cluster Secret made here, and a
// pullRequest generator refused with exit 4. The engine's functions are checked directly against Go's behaviour.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOTEMPLATE_WASM_ENV, goTemplateEngine } from '../../src/workflows/appset/engine.js';
import { GitFixture } from '../support/git-source.js';
import { applyYaml, createTestNamespace, deleteNamespace, repoRoot, runPlugin } from './support/index.js';

const T = 180_000;

// The ApplicationSet CRD is the local control plane's (test/cluster/manifests/argocd.yaml), as the Application one.

describe('the Go template engine (plugin/gotemplate)', () => {
  const wasm = process.env[GOTEMPLATE_WASM_ENV] ?? join(repoRoot, 'plugin', '.sea', 'gotemplate.wasm');
  const engine = goTemplateEngine({ [GOTEMPLATE_WASM_ENV]: wasm });
  const params = { path: { basename: 'My_App', segments: ['apps', 'My_App'] }, env: 'prod', n: 3, obj: { a: 1, b: ['x'] } };
  const one = async (text: string, options: string[] = []) => (await engine([{ text, params }], options))[0];

  beforeAll(() => {
    if (!existsSync(wasm)) throw new Error(`${wasm} is missing: npm run build makes it`);
  });

  test('sprig and Argo CD functions behave as in Go', async () => {
    const items = [
      '{{ upper .env }}',
      '{{ .missing | default "dflt" }}',
      '{{ .path.basename | normalize }}',
      '{{ toYaml .obj }}',
      '{{ (fromYaml "a: 1\\nb: two").b }}',
      '{{ index .path.segments 1 }}',
      '{{ .n }}',
      '{{ .missing }}',
      '{{ slugify "Hello World" }}',
      '{{ list 1 2 | toJson }}',
    ];
    const got = await engine(
      items.map((text) => ({ text, params })),
      [],
    );
    expect(got).toEqual([
      { output: 'PROD' },
      { output: 'dflt' },
      { output: 'my-app' },
      { output: 'a: 1\nb:\n- x' },
      { output: 'two' },
      { output: 'My_App' },
      { output: '3' },
      { output: '<no value>' }, // Go's default missingkey
      { output: 'hello-world' },
      { output: '[1,2]' },
    ]);
  });

  test("missingkey=error fails with Go's message; env is not offered", async () => {
    expect(await one('{{ .missing }}', ['missingkey=error'])).toEqual({
      error: 'failed to execute go template {{ .missing }}: template: :1:3: executing "" at <.missing>: map has no entry for key "missing"',
    });
    expect(await one('{{ env "HOME" }}')).toEqual({ error: expect.stringContaining('function "env" not defined') });
  });
});

describe('appset generate', () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('apps/guestbook/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gb}\n');
    fx.write('apps/Web_Shop/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n');
    fx.write('.ci/x/skip.yaml', 'x: 1\n');
    fx.commit('apps');
    ns = await createTestNamespace('appset');
  }, T);
  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  const appset = (name: string, generators: unknown[], template: object, extra: object = {}) => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    metadata: { name, namespace: ns },
    spec: { goTemplate: true, goTemplateOptions: ['missingkey=error'], generators, template, ...extra },
  });
  // missingkey=error holds for every set: a key only some sets have fails the others, in Argo CD too
  test(
    'missingkey=error: a key one parameter set lacks fails, naming the template (exit 2)',
    async () => {
      const file = join(fx.root, 'missing.json');
      const set = appset(
        'missing',
        [{ list: { elements: [{ env: 'dev' }, { env: 'prod', auto: true }] } }],
        { metadata: { name: '{{ .env }}' }, spec: {} },
        {
          templatePatch: '{{ if .auto }}{}{{ end }}',
        },
      );
      writeFileSync(file, JSON.stringify(set));
      const res = await runPlugin(['appset', 'generate', file]);
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain(
        `${file}: failed to execute go template {{ if .auto }}{}{{ end }}: template: :1:6: executing "" at <.auto>: map has no entry for key "auto"`,
      );
    },
    T,
  );
  const matrixSet = () =>
    appset(
      'matrix',
      [
        {
          matrix: {
            generators: [
              { git: { repoURL: fx.repo, revision: 'main', directories: [{ path: 'apps/*' }] } },
              {
                list: {
                  elements: [
                    { env: 'dev', auto: false },
                    { env: 'prod', auto: true },
                  ],
                },
              },
            ],
          },
        },
      ],
      {
        metadata: { name: '{{ .path.basename | normalize }}-{{ .env }}', labels: { env: '{{ upper .env }}' } },
        spec: {
          project: 'default',
          source: { repoURL: fx.repo, path: '{{ .path.path }}', targetRevision: 'main' },
          destination: { server: 'https://kubernetes.default.svc', namespace: '{{ .env }}-{{ index .path.segments 1 | lower }}' },
        },
      },
      { templatePatch: '{{- if .auto }}\nspec:\n  syncPolicy:\n    automated: {prune: true}\n{{- end }}\n' },
    );
  const expected = () => {
    const app = (dir: string, name: string, env: string, auto: boolean) => ({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: { name: `${name}-${env}`, namespace: ns, labels: { env: env.toUpperCase() }, finalizers: ['resources-finalizer.argocd.argoproj.io'] },
      spec: {
        project: 'default',
        source: { repoURL: fx.repo, path: `apps/${dir}`, targetRevision: 'main' },
        destination: { server: 'https://kubernetes.default.svc', namespace: `${env}-${dir.toLowerCase()}` },
        ...(auto ? { syncPolicy: { automated: { prune: true } } } : {}),
      },
    });
    // WalkDir's order: Web_Shop before guestbook (byte order); each folder with each list element
    return [
      app('Web_Shop', 'web-shop', 'dev', false),
      app('Web_Shop', 'web-shop', 'prod', true),
      app('guestbook', 'guestbook', 'dev', false),
      app('guestbook', 'guestbook', 'prod', true),
    ];
  };

  test(
    'a matrix of git directories and a list, goTemplate, from a file: the exact Applications',
    async () => {
      const file = join(fx.root, 'matrix.json');
      writeFileSync(file, JSON.stringify(matrixSet()));
      const res = await runPlugin(['appset', 'generate', '-f', file, '-o', 'json']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual({ apiVersion: 'v1', kind: 'List', items: expected() });
    },
    T,
  );

  test(
    'by NAME from the cluster (--app-namespace), -o kv',
    async () => {
      await applyYaml(JSON.stringify(matrixSet()));
      const res = await runPlugin(['appset', 'generate', 'matrix', '--app-namespace', ns, '-o', 'kv']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(res.stdout).toBe([`APPLICATIONSET=${ns}/matrix`, ...expected().map((a) => `APPLICATION=${ns}/${a.metadata.name}`), 'COUNT=4', ''].join('\n'));
      const missing = await runPlugin(['appset', 'generate', 'nope', '--app-namespace', ns]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain(`ApplicationSet ${ns}/nope not found`);
    },
    T,
  );

  test(
    'a pullRequest generator is refused by name: exit 4, nothing printed',
    async () => {
      const file = join(fx.root, 'pr.json');
      writeFileSync(file, JSON.stringify(appset('pr', [{ pullRequest: { github: { owner: 'o', repo: 'r' } } }], { metadata: { name: 'x' }, spec: {} })));
      const res = await runPlugin(['appset', 'generate', file]);
      expect(res.code).toBe(4);
      expect(res.stdout).toBe('');
      expect(res.stderr).toContain('pullRequest');
      expect(res.stderr).toContain(file);
    },
    T,
  );

  test(
    'a clusters generator reads the cluster Secrets of --argocd-namespace, with in-cluster',
    async () => {
      await applyYaml(
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'staging-cluster', namespace: ns, labels: { 'argocd.argoproj.io/secret-type': 'cluster', env: 'staging' } },
          stringData: { name: 'Staging_1', server: 'https://10.1.2.3:6443', config: '{"bearerToken":"secret"}' },
        }),
      );
      const file = join(fx.root, 'clusters.json');
      writeFileSync(
        file,
        JSON.stringify(
          // in-cluster has no metadata parameter (cluster.go): without missingkey=error it is simply empty
          {
            ...appset(
              'clusters',
              [{ clusters: { values: { tier: '{{ if .metadata }}{{ .metadata.labels.env }}{{ else }}none{{ end }}' } } }],
              {
                metadata: { name: '{{ .nameNormalized }}' },
                spec: { project: 'default', destination: { server: '{{ .server }}', namespace: '{{ .values.tier }}' } },
              },
              { goTemplateOptions: [] },
            ),
          },
        ),
      );
      const res = await runPlugin(['appset', 'generate', file, '--argocd-namespace', ns, '-o', 'json']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const items = (JSON.parse(res.stdout) as { items: { metadata: { name: string }; spec: { destination: object } }[] }).items;
      expect(items.map((a) => [a.metadata.name, a.spec.destination])).toEqual([
        ['in-cluster', { server: 'https://kubernetes.default.svc', namespace: 'none' }],
        ['staging-1', { server: 'https://10.1.2.3:6443', namespace: 'staging' }],
      ]);
      expect(res.stdout).not.toContain('bearerToken');
    },
    T,
  );
});
