// ApplicationSets through Argo CD's own ApplicationSet controller and through `kubectl gitops appset generate` (issue
// #33): each fixture is applied in argocd, the controller writes its Applications, and they must equal, field for field,
// what `appset generate NAME -o json` prints for the same ApplicationSet read from the cluster: apiVersion, kind,
// metadata.name, namespace, labels, annotations, finalizers and the whole spec. Only what the API server and the
// controllers add on write is left out (ownerReferences, uid, resourceVersion, creationTimestamp, managedFields,
// generation, status, operation). The generated Applications never sync (no automated policy) and use the default
// AppProject; the git generators read a file:// repository made here, through Argo CD's repo-server.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { kubectl, kubectlOk, runPlugin, TEST_RUN_LABEL, testRunId } from '../integration/support/index.js';
import { pollFor } from './support/argocd.js';

const T = 180_000;

type Obj = Record<string, unknown>;

interface LiveApplication {
  apiVersion: string;
  kind: string;
  metadata: Obj & { name: string; ownerReferences?: { kind: string; name: string }[] };
  spec: Obj;
}

interface LiveAppSet {
  status?: { conditions?: { type: string; status: string; message: string; reason?: string }[] };
}

/** What the API server and the controllers add when they write an Application: left out of the comparison. */
const WRITTEN_BY_SERVER = ['ownerReferences', 'uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation'];

/** An Application as compared: the fields a generator decides. */
function compared(app: LiveApplication): Obj {
  const metadata: Obj = { ...app.metadata };
  for (const k of WRITTEN_BY_SERVER) delete metadata[k];
  return { apiVersion: app.apiVersion, kind: app.kind, metadata, spec: app.spec };
}

const byName = (a: Obj, b: Obj) => String((a.metadata as Obj).name).localeCompare(String((b.metadata as Obj).name));

/** Waits until Argo CD's controller says the ApplicationSet's Applications are written (or fails with its error). */
async function controllerDone(name: string): Promise<void> {
  await pollFor(`the ApplicationSet controller's reconciliation of ${name}`, async () => {
    const set = JSON.parse(await kubectlOk(['get', 'applicationsets.argoproj.io', name, '-n', 'argocd', '-o', 'json'])) as LiveAppSet;
    const conditions = set.status?.conditions ?? [];
    const error = conditions.find((c) => c.type === 'ErrorOccurred' && c.status === 'True');
    if (error) throw new Error(`Argo CD's ApplicationSet controller failed on ${name}: ${error.message}`);
    return conditions.some((c) => c.type === 'ResourcesUpToDate' && c.status === 'True') ? true : undefined;
  });
}

/** The Applications Argo CD's controller made for the ApplicationSet (those it owns), as compared. */
async function argoApplications(name: string): Promise<Obj[]> {
  const list = JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', '-n', 'argocd', '-o', 'json'])) as { items: LiveApplication[] };
  return list.items
    .filter((a) => a.metadata.ownerReferences?.some((o) => o.kind === 'ApplicationSet' && o.name === name))
    .map(compared)
    .sort(byName);
}

/** What `kubectl gitops appset generate NAME -o json` prints for the ApplicationSet in argocd. */
async function ourApplications(name: string): Promise<Obj[]> {
  const res = await runPlugin(['appset', 'generate', name, '--app-namespace', 'argocd', '-o', 'json']);
  expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  return (JSON.parse(res.stdout) as { items: Obj[] }).items.sort(byName);
}

describe('appset generate against Argo CD’s ApplicationSet controller', () => {
  const id = randomBytes(3).toString('hex');
  const run = testRunId();
  let fx: GitFixture;
  let repoURL: string;
  const made: string[] = [];
  const clusterSecret = `conf-appset-cluster-${id}`;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('apps/guestbook/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: guestbook}\n');
    fx.write('apps/Web_Shop/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\n');
    fx.write('apps/old/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old}\n');
    fx.write('apps/.hidden/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hidden}\n');
    fx.write('config/dev/config.json', JSON.stringify({ env: 'dev', cluster: { name: 'in-cluster', replicas: 1 }, tags: ['a', 'b'] }));
    fx.write('config/prod/config.json', JSON.stringify({ env: 'prod', cluster: { name: 'in-cluster', replicas: 3 }, tags: ['c'] }));
    fx.write('config/qa/config.yaml', 'env: qa\ncluster:\n  name: in-cluster\n  replicas: 2\ntags: []\n');
    fx.commit('apps and config');
    repoURL = pathToFileURL(fx.repo).href;
    // A cluster as Argo CD stores one: a labelled Secret in argocd (the clusters generators read it beside in-cluster).
    // Created, not applied: `kubectl apply` would keep its body, token included, in last-applied-configuration, which
    // Argo CD hands to the template and this tool does not (appset.md; test/integration/appset.test.ts).
    await kubectlOk(['create', '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: clusterSecret,
          namespace: 'argocd',
          labels: { 'argocd.argoproj.io/secret-type': 'cluster', env: 'staging', [TEST_RUN_LABEL]: run },
          annotations: { 'example.com/owner': 'platform' },
        },
        type: 'Opaque',
        stringData: { name: `Staging_${id}`, server: `https://staging-${id}.example.invalid`, config: '{"tlsClientConfig":{"insecure":true}}' },
      }),
    });
  }, T);

  afterAll(async () => {
    for (const name of made) await kubectl(['delete', 'applicationsets.argoproj.io', name, '-n', 'argocd', '--ignore-not-found', '--wait=false']);
    await kubectl(['delete', 'secret', clusterSecret, '-n', 'argocd', '--ignore-not-found']);
    fx?.cleanup();
  }, T);

  const labels = { [TEST_RUN_LABEL]: run };
  const appSet = (name: string, spec: Obj): Obj => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'ApplicationSet',
    metadata: { name, namespace: 'argocd', labels },
    spec,
  });
  const destination = { server: 'https://kubernetes.default.svc', namespace: `conf-appset-${id}` };

  /** Applies the ApplicationSet, waits for Argo CD's controller, and compares its Applications with ours. */
  async function conforms(name: string, spec: Obj, count: number): Promise<Obj[]> {
    made.push(name);
    await kubectlOk(['apply', '-f', '-'], { stdin: JSON.stringify(appSet(name, spec)) });
    await controllerDone(name);
    const argo = await argoApplications(name);
    const ours = await ourApplications(name);
    expect(ours).toEqual(argo);
    expect(argo.length).toBe(count);
    return argo;
  }

  /**
   * Applies an ApplicationSet Argo CD will not expand: its controller writes no Application and says why in the
   * ErrorOccurred condition; `appset generate` exits 2 with the same words.
   */
  async function refusedLikeArgo(name: string, spec: Obj, words: string): Promise<void> {
    made.push(name);
    await kubectlOk(['apply', '-f', '-'], { stdin: JSON.stringify(appSet(name, spec)) });
    const message = await pollFor(`the ApplicationSet controller's error on ${name}`, async () => {
      const set = JSON.parse(await kubectlOk(['get', 'applicationsets.argoproj.io', name, '-n', 'argocd', '-o', 'json'])) as LiveAppSet;
      return set.status?.conditions?.find((c) => c.type === 'ErrorOccurred' && c.status === 'True')?.message;
    });
    expect(message).toContain(words);
    expect(await argoApplications(name)).toEqual([]);
    const res = await runPlugin(['appset', 'generate', name, '--app-namespace', 'argocd', '-o', 'json']);
    expect({ code: res.code, stdout: res.stdout }).toEqual({ code: 2, stdout: '' });
    expect(res.stderr).toContain(words);
  }

  test(
    "refused by both: a number in a list element without goTemplate, a key missing under missingkey=error, index of the in-cluster default's nil labels",
    async () => {
      const template = (name: string) => ({
        metadata: { name, labels },
        spec: { project: 'default', source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook' }, destination },
      });
      await refusedLikeArgo(
        `refuse-number-${id}`,
        { generators: [{ list: { elements: [{ n: 'a' }, { n: 'b', replicas: 2 }] } }], template: template(`refuse-number-{{n}}-${id}`) },
        'error parsing value as string',
      );
      await refusedLikeArgo(
        `refuse-missing-${id}`,
        {
          goTemplate: true,
          goTemplateOptions: ['missingkey=error'],
          generators: [{ list: { elements: [{ n: 'a', team: 'x' }, { n: 'b' }] } }],
          template: template(`refuse-missing-{{ .n }}-{{ .team }}-${id}`),
        },
        'map has no entry for key "team"',
      );
      // the in-cluster default has no labels: Go's index of a nil map value fails
      await refusedLikeArgo(
        `refuse-nil-${id}`,
        {
          goTemplate: true,
          generators: [{ clusters: {} }],
          template: template(`refuse-nil-{{ index .metadata.labels "env" | default "none" }}-${id}`),
        },
        'error calling index: index of untyped nil',
      );
    },
    T,
  );

  test(
    'list: elements with values, fasttemplate {{param}} in names, labels, annotations and the spec; zero values as Go writes them',
    async () => {
      const name = `list-${id}`;
      await conforms(
        name,
        {
          generators: [
            {
              list: {
                elements: [
                  { cluster: 'engineering-dev', url: 'https://kubernetes.default.svc', replicas: '2', values: { team: 'shop' } },
                  { cluster: 'engineering-prod', url: 'https://kubernetes.default.svc', values: { team: 'ops' } },
                ],
              },
            },
          ],
          template: {
            metadata: {
              name: `{{cluster}}-${id}`,
              labels: { ...labels, cluster: '{{cluster}}', team: '{{values.team}}' },
              annotations: { 'example.com/replicas': '{{replicas}}', 'example.com/unknown': '{{nope}}', 'example.com/empty': '' },
            },
            spec: {
              project: 'default',
              source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook', directory: { recurse: false, include: '*.yaml' } },
              destination: { server: '{{url}}', namespace: `{{cluster}}-${id}` },
              // zero values: left out where Go's omitempty leaves them out, kept behind pointers
              revisionHistoryLimit: 0,
              ignoreDifferences: [],
              syncPolicy: { syncOptions: [], retry: { limit: 0, backoff: { duration: '5s', factor: 0 } } },
            },
          },
        },
        2,
      );
    },
    T,
  );

  test(
    'clusters: the in-cluster default beside a labelled cluster Secret, and a selector that picks only the Secret',
    async () => {
      const template = (prefix: string) => ({
        metadata: {
          name: `${prefix}-{{nameNormalized}}`,
          labels,
          annotations: { server: '{{server}}', env: '{{metadata.labels.env}}', owner: '{{metadata.annotations.example.com/owner}}', tier: '{{values.tier}}' },
        },
        spec: {
          project: 'default',
          source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook' },
          destination: { name: '{{name}}', namespace: `c-${id}` },
        },
      });
      await conforms(`clusters-${id}`, { generators: [{ clusters: { values: { tier: 'x' } } }], template: template(`all-${id}`) }, 2);
      await conforms(
        `clusters-sel-${id}`,
        { generators: [{ clusters: { selector: { matchLabels: { env: 'staging' } } } }], template: template(`sel-${id}`) },
        1,
      );
    },
    T,
  );

  test(
    'git directories (with an exclude and a hidden folder) and git files (JSON and YAML, flattened), over a file:// repository',
    async () => {
      await conforms(
        `gitdirs-${id}`,
        {
          generators: [
            {
              git: {
                repoURL,
                revision: 'HEAD',
                directories: [{ path: 'apps/*' }, { path: 'apps/old', exclude: true }],
              },
            },
          ],
          template: {
            metadata: { name: `{{path.basenameNormalized}}-${id}`, labels: { ...labels, base: '{{path.basename}}', first: '{{path[0]}}' } },
            spec: { project: 'default', source: { repoURL, targetRevision: 'HEAD', path: '{{path}}' }, destination },
          },
        },
        2,
      );
      await conforms(
        `gitfiles-${id}`,
        {
          generators: [{ git: { repoURL, revision: 'HEAD', files: [{ path: 'config/**/config.json' }, { path: 'config/*/config.yaml' }] } }],
          template: {
            metadata: {
              name: `files-{{env}}-${id}`,
              labels: { ...labels, replicas: '{{cluster.replicas}}', dir: '{{path.basename}}' },
              annotations: { file: '{{path.filename}}', tags: '{{tags}}' },
            },
            spec: {
              project: 'default',
              source: { repoURL, targetRevision: 'HEAD', path: '{{path}}' },
              destination: { name: '{{cluster.name}}', namespace: '{{env}}' },
            },
          },
        },
        3,
      );
    },
    T,
  );

  test(
    'matrix of git directories × list, and merge of two lists by a key (goTemplate)',
    async () => {
      await conforms(
        `matrix-${id}`,
        {
          goTemplate: true,
          goTemplateOptions: ['missingkey=error'],
          generators: [
            {
              matrix: {
                generators: [
                  { git: { repoURL, revision: 'HEAD', directories: [{ path: 'apps/*' }], pathParamPrefix: 'app' } },
                  { list: { elements: [{ env: 'dev' }, { env: 'prod', replicas: 3 }] } },
                ],
              },
            },
          ],
          template: {
            metadata: { name: `{{ .app.path.basename | normalize }}-{{ .env }}-${id}`, labels: { ...labels, env: '{{ .env }}' } },
            spec: {
              project: 'default',
              source: { repoURL, targetRevision: 'HEAD', path: '{{ .app.path.path }}' },
              destination: { server: 'https://kubernetes.default.svc', namespace: '{{ .env }}-{{ index .app.path.segments 1 | lower }}' },
            },
          },
        },
        6,
      );
      await conforms(
        `merge-${id}`,
        {
          goTemplate: true,
          generators: [
            {
              merge: {
                mergeKeys: ['app'],
                generators: [
                  {
                    list: {
                      elements: [
                        { app: 'a', env: 'dev', size: 'small' },
                        { app: 'b', env: 'dev', size: 'small' },
                        { app: 'c', env: 'dev', size: 'small' },
                      ],
                    },
                  },
                  {
                    list: {
                      elements: [
                        { app: 'b', size: 'large' },
                        { app: 'z', size: 'huge' },
                      ],
                    },
                  },
                ],
              },
            },
          ],
          template: {
            metadata: { name: `merge-{{ .app }}-${id}`, labels: { ...labels, size: '{{ .size }}', env: '{{ .env }}' } },
            spec: { project: 'default', source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook' }, destination },
          },
        },
        3,
      );
    },
    T,
  );

  test(
    'goTemplate with sprig functions and missingkey=error, and a templatePatch',
    async () => {
      await conforms(
        `sprig-${id}`,
        {
          goTemplate: true,
          goTemplateOptions: ['missingkey=error'],
          generators: [
            {
              list: {
                elements: [
                  { name: 'Payments_API', team: 'core', replicas: 2, auto: true, tags: ['x', 'y'] },
                  { name: 'web.Front', team: 'Growth Team', replicas: 1, auto: false, tags: [] },
                ],
              },
            },
          ],
          template: {
            metadata: {
              name: `{{ .name | normalize }}-${id}`,
              labels: { ...labels, team: '{{ .team | slugify }}', upper: '{{ upper .team | replace " " "_" | trunc 6 }}' },
              annotations: {
                hash: '{{ sha256sum .name | trunc 8 }}',
                tags: '{{ toJson .tags }}',
                yaml: '{{ toYaml (dict "a" .replicas "b" (list 1 2)) }}',
                joined: '{{ join "," .tags | default "none" }}',
                ternary: '{{ ternary "big" "small" (gt (int .replicas) 1) }}',
              },
            },
            spec: {
              project: 'default',
              source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook', directory: { recurse: true } },
              destination,
            },
          },
          templatePatch: [
            '{{- if .auto }}',
            'metadata:',
            '  annotations:',
            '    patched: "yes"',
            'spec:',
            '  source:',
            '    targetRevision: main',
            '  syncPolicy:',
            '    syncOptions: [CreateNamespace=true, "Replicas={{ .replicas }}"]',
            '{{- end }}',
            '',
          ].join('\n'),
        },
        2,
      );
    },
    T,
  );

  test(
    'goTemplate over git files (nested, not flattened) and clusters, elementsYaml, a selector on a generator, a merge inside a matrix',
    async () => {
      await conforms(
        `gofiles-${id}`,
        {
          goTemplate: true,
          goTemplateOptions: ['missingkey=error'],
          generators: [{ git: { repoURL, revision: 'HEAD', files: [{ path: 'config/*/config.*' }], values: { owner: '{{ .env }}-team' } } }],
          template: {
            metadata: {
              name: `gofiles-{{ .env }}-${id}`,
              labels: { ...labels, replicas: '{{ .cluster.replicas }}', seg: '{{ index .path.segments 1 }}' },
              annotations: { tags: '{{ toJson .tags }}', owner: '{{ .values.owner }}', file: '{{ .path.filename }}/{{ .path.basenameNormalized }}' },
            },
            spec: {
              project: 'default',
              source: { repoURL, targetRevision: 'HEAD', path: '{{ .path.path }}' },
              destination: { name: '{{ .cluster.name }}', namespace: '{{ .env }}' },
            },
          },
        },
        3,
      );
      await conforms(
        `goclusters-${id}`,
        {
          goTemplate: true,
          generators: [{ clusters: { values: { suffix: 'x' } } }],
          template: {
            metadata: {
              name: `goclusters-{{ .nameNormalized }}-${id}`,
              labels,
              annotations: { meta: '{{ toJson .metadata }}', server: '{{ .server }}', suffix: '{{ .values.suffix }}' },
            },
            spec: {
              project: 'default',
              source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook' },
              destination: { server: '{{ .server }}', namespace: `c-${id}` },
            },
          },
        },
        2,
      );
      await conforms(
        `yamlsel-${id}`,
        {
          goTemplate: true,
          generators: [
            {
              list: { elementsYaml: '- {app: a, tier: front, n: 1}\n- {app: b, tier: back, n: 2}\n- {app: c, tier: back, n: 3}\n' },
              selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] },
            },
          ],
          template: {
            // YAML 1.1, as Go's yaml reads elementsYaml: the key n is the boolean false, so .n has no value
            metadata: { name: `yamlsel-{{ .app }}-${id}`, labels, annotations: { n: '{{ .n }}', all: '{{ toJson . }}' } },
            spec: { project: 'default', source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook' }, destination },
          },
        },
        2,
      );
      await conforms(
        `matrixmerge-${id}`,
        {
          goTemplate: true,
          generators: [
            {
              matrix: {
                generators: [
                  {
                    merge: {
                      mergeKeys: ['app'],
                      generators: [
                        {
                          list: {
                            elements: [
                              { app: 'a', size: 's' },
                              { app: 'b', size: 's' },
                            ],
                          },
                        },
                        { list: { elements: [{ app: 'b', size: 'l' }] } },
                      ],
                    },
                  },
                  { list: { elements: [{ env: 'dev' }, { env: 'prod' }] } },
                ],
              },
            },
          ],
          template: {
            metadata: { name: `mm-{{ .app }}-{{ .env }}-${id}`, labels: { ...labels, size: '{{ .size }}' } },
            spec: { project: 'default', source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook' }, destination },
          },
        },
        4,
      );
    },
    T,
  );

  test(
    'the spec normalized as the controller writes it: zero sync policy, zero source types in source but not in sources',
    async () => {
      const zeroes = { kustomize: { forceCommonLabels: true }, helm: { skipCrds: false }, directory: { recurse: false } };
      await conforms(
        `normalize-${id}`,
        {
          generators: [{ list: { elements: [{ n: 'one' }, { n: 'two' }] } }],
          template: {
            metadata: { name: `normalize-{{n}}-${id}`, labels },
            spec: {
              project: 'default',
              source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook', ...zeroes },
              destination,
              syncPolicy: { syncOptions: [] },
            },
          },
        },
        2,
      );
      await conforms(
        `normalize-sources-${id}`,
        {
          generators: [{ list: { elements: [{ n: 'one' }] } }],
          template: {
            metadata: { name: `normalize-sources-{{n}}-${id}`, labels },
            spec: { project: 'default', sources: [{ repoURL, targetRevision: 'HEAD', path: 'apps/guestbook', ...zeroes }], destination, syncPolicy: {} },
          },
        },
        1,
      );
    },
    T,
  );

  test(
    'finalizers: the default one, none under preserveResourcesOnDeletion, and the template’s own',
    async () => {
      const template = (name: string, extra: Obj = {}) => ({
        metadata: { name, labels, ...extra },
        spec: { project: 'default', source: { repoURL, targetRevision: 'HEAD', path: 'apps/guestbook' }, destination },
      });
      const generators = [{ list: { elements: [{ n: '1' }] } }];
      const [dflt] = await conforms(`fin-default-${id}`, { generators, template: template(`fin-default-{{n}}-${id}`) }, 1);
      expect((dflt!.metadata as Obj).finalizers).toEqual(['resources-finalizer.argocd.argoproj.io']);
      const [kept] = await conforms(
        `fin-preserve-${id}`,
        { generators, syncPolicy: { preserveResourcesOnDeletion: true }, template: template(`fin-preserve-{{n}}-${id}`) },
        1,
      );
      expect((kept!.metadata as Obj).finalizers).toBeUndefined();
      const [own] = await conforms(
        `fin-own-${id}`,
        { generators, template: template(`fin-own-{{n}}-${id}`, { finalizers: ['resources-finalizer.argocd.argoproj.io/background'] }) },
        1,
      );
      expect((own!.metadata as Obj).finalizers).toEqual(['resources-finalizer.argocd.argoproj.io/background']);
    },
    T,
  );
});
