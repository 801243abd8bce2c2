// `appset generate` through the built binary on the local control plane: goTemplate through the embedded Go engine
// (Go's text/template and sprig, built to WebAssembly), a matrix of a git directories generator (a GitFixture) and a
// list, the ApplicationSet read by name from the cluster, a clusters generator over a cluster Secret made here, and a
// pullRequest generator refused with exit 4. The engine's functions are checked directly against Go's behaviour.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOTEMPLATE_WASM_ENV, goTemplateEngine } from '../../src/workflows/appset/engine.js';
import { GitFixture } from '../support/git-source.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, repoRoot, runPlugin } from './support/index.js';

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
    "the README's example (examples/shop/appset.yaml): two Applications, the prod one automated through templatePatch",
    async () => {
      const res = await runPlugin(['appset', 'generate', join(repoRoot, 'examples', 'shop', 'appset.yaml'), '-o', 'json']);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
      const items = (JSON.parse(res.stdout) as { items: { metadata: { name: string }; spec: { destination: object; syncPolicy?: object } }[] }).items;
      expect(items.map((a) => [a.metadata.name, a.spec.destination, a.spec.syncPolicy])).toEqual([
        ['shop-dev', { server: 'https://kubernetes.default.svc', namespace: 'shop-dev' }, undefined],
        ['shop-prod', { server: 'https://kubernetes.default.svc', namespace: 'shop-prod' }, { automated: { prune: true, selfHeal: true } }],
      ]);
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

  test(
    'a cluster Secret made by kubectl apply keeps its body in last-applied-configuration: that annotation is not given to the template (Argo CD gives it; {{ toJson .metadata }} would print the token)',
    async () => {
      const token = `token-${Date.now().toString(36)}-planted`;
      await kubectlOk(['apply', '-f', '-'], {
        stdin: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: 'applied-cluster',
            namespace: ns,
            labels: { 'argocd.argoproj.io/secret-type': 'cluster', env: 'applied' },
            annotations: { 'example.com/owner': 'platform' },
          },
          stringData: { name: 'applied', server: 'https://10.9.9.9:6443', config: JSON.stringify({ bearerToken: token }) },
        }),
      });
      const live = JSON.parse(await kubectlOk(['get', 'secret', 'applied-cluster', '-n', ns, '-o', 'json'])) as {
        metadata: { annotations: Record<string, string> };
      };
      expect(live.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).toContain(token);
      const file = join(fx.root, 'clusters-meta.json');
      writeFileSync(
        file,
        JSON.stringify(
          appset(
            'clusters-meta',
            [{ clusters: { selector: { matchLabels: { env: 'applied' } } } }],
            {
              metadata: {
                name: '{{ .nameNormalized }}',
                annotations: { meta: '{{ toJson .metadata }}', owner: '{{ index .metadata.annotations "example.com/owner" }}' },
              },
              spec: { project: 'default', destination: { server: '{{ .server }}', namespace: 'x' } },
            },
            { goTemplateOptions: [] },
          ),
        ),
      );
      const res = await runPlugin(['appset', 'generate', file, '--argocd-namespace', ns, '-o', 'json']);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
      const items = (JSON.parse(res.stdout) as { items: { metadata: { name: string; annotations: Record<string, string> } }[] }).items;
      expect(items.map((a) => [a.metadata.name, a.metadata.annotations.owner])).toEqual([['applied', 'platform']]);
      expect(JSON.parse(items[0]!.metadata.annotations.meta!)).toEqual({
        labels: { 'argocd.argoproj.io/secret-type': 'cluster', env: 'applied' },
        annotations: { 'example.com/owner': 'platform' },
      });
      expect(res.stdout).not.toContain(token);
      expect(res.stdout).not.toContain('last-applied-configuration');
    },
    T,
  );
});

/** A Git fixture with two apps (apps/a and apps/b, a ConfigMap each) and a test namespace, for the describe block it is called in. */
function twoApps(prefix: string): { readonly fx: GitFixture; readonly ns: string } {
  const state = {} as { fx: GitFixture; ns: string };
  beforeAll(async () => {
    state.fx = new GitFixture();
    state.fx.write('apps/a/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: "1"}\n');
    state.fx.write('apps/b/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {v: "1"}\n');
    state.fx.commit('apps');
    state.ns = await createTestNamespace(prefix);
  }, T);
  afterAll(async () => {
    state.fx?.cleanup();
    if (state.ns) await deleteNamespace(state.ns);
  }, T);
  return state;
}

describe('appset sync', () => {
  const setup = twoApps('appset-sync');

  /** The ApplicationSet `shop` in the test namespace: one Application per element, the default resources finalizer. */
  const shop = (elements: string[], extra: object = {}) =>
    JSON.stringify({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'ApplicationSet',
      metadata: { name: 'shop', namespace: setup.ns },
      spec: {
        generators: [{ list: { elements: elements.map((app) => ({ app })) } }],
        template: {
          metadata: { name: 'shop-{{app}}', labels: { app: '{{app}}' } },
          spec: {
            source: { repoURL: setup.fx.repo, path: 'apps/{{app}}', targetRevision: 'main' },
            destination: { server: 'https://kubernetes.default.svc', namespace: setup.ns },
          },
        },
        ...extra,
      },
    });
  interface App {
    metadata: {
      name: string;
      uid: string;
      annotations?: Record<string, string>;
      finalizers?: string[];
      ownerReferences?: object[];
      managedFields?: { manager: string }[];
    };
    spec: { project: string; source: { path: string } };
  }
  const apps = async () =>
    (JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', '-n', setup.ns, '-o', 'json', '--show-managed-fields'])) as { items: App[] }).items.sort(
      (x, y) => x.metadata.name.localeCompare(y.metadata.name),
    );

  test(
    'creates, updates (keeping what the controller keeps) and deletes the Applications as the controller, owned by the live ApplicationSet',
    async () => {
      await applyYaml(shop(['a', 'b']));
      const uid = (JSON.parse(await kubectlOk(['get', 'applicationsets.argoproj.io', 'shop', '-n', setup.ns, '-o', 'json'])) as App).metadata.uid;
      const head = [`APPLICATIONSET=${setup.ns}/shop`, 'POLICY=sync', 'OWNED=true'];

      const dry = await runPlugin(['appset', 'sync', 'shop', '--app-namespace', setup.ns, '--dry-run', '-o', 'kv']);
      expect({ code: dry.code, stderr: dry.stderr }).toEqual({ code: 0, stderr: '' });
      expect(dry.stdout).toBe([...head, `CREATE=${setup.ns}/shop-a`, `CREATE=${setup.ns}/shop-b`, 'DRY_RUN=true', ''].join('\n'));
      expect(await apps()).toEqual([]);

      const first = await runPlugin(['appset', 'sync', 'shop', '--app-namespace', setup.ns, '-o', 'kv']);
      expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
      expect(first.stdout).toBe([...head, `CREATED=${setup.ns}/shop-a`, `CREATED=${setup.ns}/shop-b`, ''].join('\n'));
      const made = await apps();
      expect(made.map((a) => [a.metadata.name, a.spec.project, a.spec.source.path, a.metadata.finalizers, a.metadata.ownerReferences])).toEqual(
        ['a', 'b'].map((x) => [
          `shop-${x}`,
          'default',
          `apps/${x}`,
          ['resources-finalizer.argocd.argoproj.io'],
          [{ apiVersion: 'argoproj.io/v1alpha1', kind: 'ApplicationSet', name: 'shop', uid, controller: true, blockOwnerDeletion: true }],
        ]),
      );
      expect(made.map((a) => a.metadata.managedFields?.map((f) => f.manager))).toEqual([
        ['argocd-applicationset-controller'],
        ['argocd-applicationset-controller'],
      ]);

      // By hand: a refresh asked for (the controller keeps that annotation) and the path changed (it puts it back);
      // and b is no longer generated.
      await kubectlOk(['annotate', 'applications.argoproj.io', 'shop-a', '-n', setup.ns, 'argocd.argoproj.io/refresh=hard', 'note=mine']);
      await kubectlOk(['patch', 'applications.argoproj.io', 'shop-a', '-n', setup.ns, '--type', 'merge', '-p', '{"spec":{"source":{"path":"elsewhere"}}}']);
      await applyYaml(shop(['a']));
      const second = await runPlugin(['appset', 'sync', '-f', '-', '--app-namespace', setup.ns, '-o', 'kv'], { stdin: shop(['a']) });
      expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
      expect(second.stdout).toMatch(
        new RegExp(
          `^${[...head, `UPDATED=${setup.ns}/shop-a`, `DELETED=${setup.ns}/shop-b its deletion finished as delete would: 0 object\\(s\\) deleted .*`].join('\n')}\n$`,
        ),
      );
      const after = await apps();
      expect(after.map((a) => [a.metadata.name, a.metadata.uid, a.spec.source.path, a.metadata.annotations])).toEqual([
        ['shop-a', made[0]!.metadata.uid, 'apps/a', { 'argocd.argoproj.io/refresh': 'hard' }],
      ]);

      const again = await runPlugin(['appset', 'sync', 'shop', '--app-namespace', setup.ns, '-o', 'json']);
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({
        schemaVersion: 1,
        applicationSet: `${setup.ns}/shop`,
        origin: `ApplicationSet ${setup.ns}/shop`,
        policy: 'sync',
        dryRun: false,
        owned: true,
        results: [{ app: `${setup.ns}/shop-a`, action: 'unchanged', done: true }],
        invalid: [],
        warnings: [],
      });
    },
    T,
  );

  test(
    'a create or update that fails stops the deletes of the round, as the controller returns before deleteInCluster: the Application no longer generated stays',
    async () => {
      const guard = (elements: string[]) => {
        const set = JSON.parse(shop(elements)) as { metadata: { name: string }; spec: { template: { metadata: { name: string } } } };
        set.metadata.name = 'guard';
        set.spec.template.metadata.name = 'guard-{{app}}';
        return JSON.stringify(set);
      };
      await applyYaml(guard(['x', 'y']));
      expect((await runPlugin(['appset', 'sync', 'guard', '--app-namespace', setup.ns, '-o', 'kv'])).code).toBe(0);
      const before = (await apps()).filter((a) => a.metadata.name.startsWith('guard-'));
      expect(before.map((a) => a.metadata.name)).toEqual(['guard-x', 'guard-y']);
      // y is no longer generated, and the new one's name is not a valid Kubernetes name: the API server refuses it.
      await applyYaml(guard(['x', 'Bad_Name']));
      const res = await runPlugin(['appset', 'sync', 'guard', '--app-namespace', setup.ns, '-o', 'kv']);
      expect(res.code).toBe(3);
      const lines = res.stdout.trimEnd().split('\n');
      expect(lines.filter((l) => l.startsWith('WRITE_FAILED='))).toEqual([
        expect.stringMatching(new RegExp(`^WRITE_FAILED=${setup.ns}/guard-Bad_Name create `)),
        `WRITE_FAILED=${setup.ns}/guard-y delete not deleted: writing ${setup.ns}/guard-Bad_Name failed, and the ApplicationSet controller deletes nothing in such a round`,
      ]);
      expect(lines.some((l) => l.startsWith('DELETED='))).toBe(false);
      const after = (await apps()).filter((a) => a.metadata.name.startsWith('guard-'));
      expect(after.map((a) => [a.metadata.name, a.metadata.uid])).toEqual(before.map((a) => [a.metadata.name, a.metadata.uid]));
    },
    T,
  );

  test(
    'applicationsSync create-only: a changed template updates nothing and deletes nothing; an Application another ApplicationSet owns is refused (exit 4)',
    async () => {
      const changed = JSON.parse(shop(['a', 'c'], { syncPolicy: { applicationsSync: 'create-only' } })) as {
        spec: { template: { spec: { source: { path: string } } } };
      };
      changed.spec.template.spec.source.path = 'changed/{{app}}';
      await applyYaml(JSON.stringify(changed));
      const before = await apps();
      const res = await runPlugin(['appset', 'sync', 'shop', '--app-namespace', setup.ns, '-o', 'kv']);
      expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
      expect(res.stdout).toBe(
        [
          `APPLICATIONSET=${setup.ns}/shop`,
          'POLICY=create-only',
          'OWNED=true',
          `UNCHANGED=${setup.ns}/shop-a differs; applicationsSync create-only: not updated`,
          `CREATED=${setup.ns}/shop-c`,
          '',
        ].join('\n'),
      );
      const after = await apps();
      expect(after.find((a) => a.metadata.name === 'shop-a')).toEqual(before.find((a) => a.metadata.name === 'shop-a'));

      const other = JSON.parse(shop(['c'])) as { metadata: { name: string } };
      other.metadata.name = 'rival';
      await applyYaml(JSON.stringify(other));
      const refused = await runPlugin(['appset', 'sync', 'rival', '--app-namespace', setup.ns, '-o', 'kv']);
      expect(refused.code).toBe(4);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(`Application ${setup.ns}/shop-c is already owned by another controller (ApplicationSet shop): nothing was written`);
      expect(await apps()).toEqual(after);
    },
    T,
  );

  test(
    'an Application whose AppProject does not exist is not written (nor deleted), as validateGeneratedApplications leaves it out; the others are',
    async () => {
      const projects = JSON.stringify({
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'ApplicationSet',
        metadata: { name: 'projects', namespace: setup.ns },
        spec: {
          generators: [
            {
              list: {
                elements: [
                  { app: 'p1', project: 'default' },
                  { app: 'p2', project: 'no-such-project' },
                ],
              },
            },
          ],
          template: {
            metadata: { name: 'proj-{{app}}' },
            spec: {
              project: '{{project}}',
              source: { repoURL: setup.fx.repo, path: 'apps/a', targetRevision: 'main' },
              destination: { server: 'https://kubernetes.default.svc', namespace: setup.ns },
            },
          },
        },
      });
      await applyYaml(projects);
      const res = await runPlugin(['appset', 'sync', 'projects', '--app-namespace', setup.ns, '-o', 'kv']);
      expect(res.code).toBe(0);
      expect(res.stdout).toBe(
        [
          `APPLICATIONSET=${setup.ns}/projects`,
          'POLICY=sync',
          'OWNED=true',
          `CREATED=${setup.ns}/proj-p1`,
          `INVALID=${setup.ns}/proj-p2 application references project no-such-project which does not exist`,
          '',
        ].join('\n'),
      );
      expect(res.stderr).toContain(`Application ${setup.ns}/proj-p2 is not written: application references project no-such-project which does not exist`);
      const names = (await apps()).map((a) => a.metadata.name).filter((n) => n.startsWith('proj-'));
      expect(names).toEqual(['proj-p1']);
    },
    T,
  );
});

describe('-f with an ApplicationSet file: each generated Application, as --all', () => {
  const setup = twoApps('appset-f');

  test(
    'sync -f, status -f and diff -f act on each Application the ApplicationSet generates: one document, a SUMMARY line each, the highest exit code',
    async () => {
      const file = join(setup.fx.root, 'set.yaml');
      writeFileSync(
        file,
        JSON.stringify({
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'ApplicationSet',
          metadata: { name: 'pair', namespace: setup.ns },
          spec: {
            generators: [{ list: { elements: [{ app: 'a' }, { app: 'b' }] } }],
            template: {
              metadata: { name: 'pair-{{app}}' },
              spec: {
                project: 'default',
                source: { repoURL: setup.fx.repo, path: 'apps/{{app}}', targetRevision: 'main' },
                destination: { server: 'https://kubernetes.default.svc', namespace: setup.ns },
              },
            },
          },
        }),
      );
      const sync = await runPlugin(['sync', '-f', file, '-o', 'kv']);
      expect(sync.code).toBe(0);
      const lines = sync.stdout.trim().split('\n');
      expect(lines.filter((l) => l.startsWith('APP=') || l.startsWith('SUMMARY='))).toEqual([
        'APP=pair-a',
        'APP=pair-b',
        'SUMMARY=pair-a 0',
        'SUMMARY=pair-b 0',
      ]);
      const data = async (name: string) => (JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', setup.ns, '-o', 'json'])) as { data: object }).data;
      expect([await data('a'), await data('b')]).toEqual([{ v: '1' }, { v: '1' }]);

      // Drift in one app only: status says so for that one; diff exits 1 (the highest).
      await kubectlOk(['patch', 'configmap', 'b', '-n', setup.ns, '--type', 'merge', '-p', '{"data":{"v":"2"}}']);
      const status = await runPlugin(['status', '-f', file, '-o', 'kv']);
      expect(status.code).toBe(0);
      expect(status.stdout.split('\n').filter((l) => /^(APP|SUMMARY|SYNC)=/.test(l))).toEqual([
        'APP=pair-a',
        'SYNC=Synced',
        'APP=pair-b',
        'SYNC=OutOfSync',
        'SUMMARY=pair-a 0',
        'SUMMARY=pair-b 0',
      ]);
      const diff = await runPlugin(['diff', '-f', file, '-o', 'json']);
      expect(diff.code).toBe(1);
      expect((JSON.parse(diff.stdout) as { items: { app: string; exitCode: number }[] }).items.map((i) => [i.app, i.exitCode])).toEqual([
        ['pair-a', 0],
        ['pair-b', 1],
      ]);
    },
    T,
  );
});

describe('appset sync --recursive', () => {
  const setup = twoApps('appset-rec');

  const set = (extra: object = {}) =>
    JSON.stringify({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'ApplicationSet',
      metadata: { name: 'rec', namespace: setup.ns },
      spec: {
        generators: [{ list: { elements: [{ app: 'a' }, { app: 'b' }] } }],
        template: {
          metadata: { name: 'rec-{{app}}' },
          spec: {
            project: 'default',
            source: { repoURL: setup.fx.repo, path: 'apps/{{app}}', targetRevision: 'main' },
            destination: { server: 'https://kubernetes.default.svc', namespace: setup.ns },
          },
        },
        syncPolicy: { preserveResourcesOnDeletion: true },
        ...extra,
      },
    });

  test(
    'writes the Applications, then syncs each (their objects applied, their status recorded)',
    async () => {
      await applyYaml(set());
      const res = await runPlugin(['appset', 'sync', 'rec', '--recursive', '--app-namespace', setup.ns, '-o', 'kv']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      expect(res.stdout).toBe(
        [
          `APPLICATIONSET=${setup.ns}/rec`,
          'POLICY=sync',
          'OWNED=true',
          `CREATED=${setup.ns}/rec-a`,
          `CREATED=${setup.ns}/rec-b`,
          `SYNC_APP=${setup.ns}/rec-a synced 1`,
          `SYNC_APP=${setup.ns}/rec-b synced 1`,
          'APPS=2',
          'APPS_NOT_SYNCED=0',
          '',
        ].join('\n'),
      );
      const data = async (name: string) => (JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', setup.ns, '-o', 'json'])) as { data: object }).data;
      expect([await data('a'), await data('b')]).toEqual([{ v: '1' }, { v: '1' }]);
      const phases = JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', '-n', setup.ns, '-o', 'json'])) as {
        items: { metadata: { name: string }; status?: { operationState?: { phase?: string }; sync?: { status?: string } } }[];
      };
      expect(phases.items.map((a) => [a.metadata.name, a.status?.operationState?.phase, a.status?.sync?.status])).toEqual([
        ['rec-a', 'Succeeded', 'Synced'],
        ['rec-b', 'Succeeded', 'Synced'],
      ]);
    },
    T,
  );

  test(
    'a matrix of a git directories and a list generator: generated, written, synced and recorded, each app in its environment',
    async () => {
      const envs = { dev: await createTestNamespace('appset-matrix-dev'), prod: await createTestNamespace('appset-matrix-prod') };
      try {
        await applyYaml(
          JSON.stringify({
            apiVersion: 'argoproj.io/v1alpha1',
            kind: 'ApplicationSet',
            metadata: { name: 'matrix', namespace: setup.ns },
            spec: {
              goTemplate: true,
              generators: [
                {
                  matrix: {
                    generators: [
                      { git: { repoURL: setup.fx.repo, revision: 'main', directories: [{ path: 'apps/*' }] } },
                      { list: { elements: Object.entries(envs).map(([env, ns]) => ({ env, ns })) } },
                    ],
                  },
                },
              ],
              template: {
                metadata: { name: '{{ .path.basename }}-{{ .env }}' },
                spec: {
                  project: 'default',
                  source: { repoURL: setup.fx.repo, path: '{{ .path.path }}', targetRevision: 'main' },
                  destination: { server: 'https://kubernetes.default.svc', namespace: '{{ .ns }}' },
                },
              },
              syncPolicy: { preserveResourcesOnDeletion: true },
            },
          }),
        );
        const res = await runPlugin(['appset', 'sync', 'matrix', '--recursive', '--app-namespace', setup.ns, '-o', 'kv']);
        expect([res.code, res.stderr]).toEqual([0, '']);
        expect(res.stdout.split('\n').filter((l) => /^(CREATED|SYNC_APP)=/.test(l))).toEqual([
          `CREATED=${setup.ns}/a-dev`,
          `CREATED=${setup.ns}/a-prod`,
          `CREATED=${setup.ns}/b-dev`,
          `CREATED=${setup.ns}/b-prod`,
          `SYNC_APP=${setup.ns}/a-dev synced 1`,
          `SYNC_APP=${setup.ns}/a-prod synced 1`,
          `SYNC_APP=${setup.ns}/b-dev synced 1`,
          `SYNC_APP=${setup.ns}/b-prod synced 1`,
        ]);
        for (const ns of Object.values(envs))
          expect(await kubectlOk(['get', 'configmaps', 'a', 'b', '-n', ns, '-o', 'jsonpath={.items[*].data.v}'])).toBe('1 1');
        const recorded = JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', '-n', setup.ns, '-o', 'json'])) as {
          items: { metadata: { name: string }; status?: { operationState?: { phase?: string }; sync?: { status?: string } } }[];
        };
        expect(
          recorded.items
            .filter((a) => /-(dev|prod)$/.test(a.metadata.name))
            .map((a) => [a.metadata.name, a.status?.operationState?.phase, a.status?.sync?.status]),
        ).toEqual([
          ['a-dev', 'Succeeded', 'Synced'],
          ['a-prod', 'Succeeded', 'Synced'],
          ['b-dev', 'Succeeded', 'Synced'],
          ['b-prod', 'Succeeded', 'Synced'],
        ]);
      } finally {
        await Promise.all(Object.values(envs).map((ns) => deleteNamespace(ns)));
      }
    },
    T,
  );
});

describe('appset sync --recursive with a RollingSync strategy', () => {
  const setup = twoApps('appset-roll');
  const roll = (steps: object[]) =>
    JSON.stringify({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'ApplicationSet',
      metadata: { name: 'roll', namespace: setup.ns },
      spec: {
        generators: [
          {
            list: {
              elements: [
                { app: 'a', env: 'dev' },
                { app: 'b', env: 'prod' },
                { app: 'c', env: 'prod' },
                { app: 'd', env: 'lab' },
              ],
            },
          },
        ],
        template: {
          metadata: { name: 'roll-{{app}}', labels: { env: '{{env}}' } },
          spec: {
            project: 'default',
            source: { repoURL: setup.fx.repo, path: 'apps/{{app}}', targetRevision: 'main' },
            destination: { server: 'https://kubernetes.default.svc', namespace: setup.ns },
          },
        },
        strategy: { type: 'RollingSync', rollingSync: { steps } },
        syncPolicy: { preserveResourcesOnDeletion: true },
      },
    });
  const rollout = (stdout: string) => stdout.split('\n').filter((l) => /^(STEP|EXCLUDED|ROLLOUT_STOPPED)=/.test(l));
  interface Op {
    metadata: { name: string };
    status?: { operationState?: { phase: string; startedAt: string; finishedAt: string } };
  }

  test(
    "syncs step by step, maxUpdate 1 one Application at a time, each waited for until Healthy (the API server's timestamps); leaves out what no step selects",
    async () => {
      for (const app of ['c', 'd']) setup.fx.write(`apps/${app}/cm.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${app}}\ndata: {v: "1"}\n`);
      setup.fx.commit('apps c and d');
      await applyYaml(
        roll([
          { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
          { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }], maxUpdate: 1 },
        ]),
      );
      const res = await runPlugin(['appset', 'sync', 'roll', '--recursive', '--app-namespace', setup.ns, '-o', 'kv']);
      expect([res.code, res.stderr]).toEqual([0, '']);
      expect(rollout(res.stdout)).toEqual([
        `STEP=${setup.ns}/roll-a 1 synced Synced Healthy`,
        `STEP=${setup.ns}/roll-b 2 synced Synced Healthy`,
        `STEP=${setup.ns}/roll-c 2 synced Synced Healthy`,
        `EXCLUDED=${setup.ns}/roll-d`,
      ]);
      const ops = Object.fromEntries(
        (JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', '-n', setup.ns, '-o', 'json'])) as { items: Op[] }).items.map((a) => [
          a.metadata.name,
          a.status?.operationState,
        ]),
      );
      expect([ops['roll-a']?.phase, ops['roll-b']?.phase, ops['roll-c']?.phase, ops['roll-d']]).toEqual(['Succeeded', 'Succeeded', 'Succeeded', undefined]);
      // Step 2 starts once step 1 is done; with maxUpdate 1 its second Application once its first is done.
      expect(Date.parse(ops['roll-b']!.startedAt)).toBeGreaterThanOrEqual(Date.parse(ops['roll-a']!.finishedAt));
      expect(Date.parse(ops['roll-c']!.startedAt)).toBeGreaterThanOrEqual(Date.parse(ops['roll-b']!.finishedAt));
      expect((await kubectl(['get', 'configmap', 'd', '-n', setup.ns])).stderr).toContain('NotFound');
    },
    T,
  );

  test(
    'a step of maxUpdate 0 syncs none and waits for its Applications to be synced by hand: not within --timeout, the rollout stops there (exit 3)',
    async () => {
      await applyYaml(
        roll([
          { matchExpressions: [{ key: 'env', operator: 'In', values: ['lab'] }], maxUpdate: 0 },
          { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
        ]),
      );
      const res = await runPlugin(['appset', 'sync', 'roll', '--recursive', '--app-namespace', setup.ns, '--timeout', '3s', '-o', 'kv']);
      expect(res.code).toBe(3);
      expect(rollout(res.stdout)).toEqual([
        `STEP=${setup.ns}/roll-d 1 unhealthy OutOfSync Healthy`,
        `STEP=${setup.ns}/roll-a 2 not-synced - -`,
        `EXCLUDED=${setup.ns}/roll-b`,
        `EXCLUDED=${setup.ns}/roll-c`,
        `ROLLOUT_STOPPED=step 1 has maxUpdate 0: its Applications are synced by hand, and ${setup.ns}/roll-d is OutOfSync and Healthy: sync it, then run again`,
      ]);
      expect((await kubectl(['get', 'configmap', 'd', '-n', setup.ns])).stderr).toContain('NotFound');
      // Synced by hand, the held step lets the rollout through.
      expect((await runPlugin(['sync', 'roll-d', '--app-namespace', setup.ns])).code).toBe(0);
      const again = await runPlugin(['appset', 'sync', 'roll', '--recursive', '--app-namespace', setup.ns, '--timeout', '30s', '-o', 'kv']);
      expect(again.code).toBe(0);
      expect(rollout(again.stdout).slice(0, 2)).toEqual([
        `STEP=${setup.ns}/roll-d 1 not-synced Synced Healthy`,
        `STEP=${setup.ns}/roll-a 2 synced Synced Healthy`,
      ]);
    },
    T,
  );
});
