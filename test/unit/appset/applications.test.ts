// ApplicationSets expanded whole: the controller's own additions (template.go GenerateApplications and utils.go
// RenderTemplateParams: the resources finalizer unless finalizers are set or syncPolicy.preserveResourcesOnDeletion,
// the ApplicationSet's namespace), templatePatch (template/patch.go), duplicate names (applicationset_controller.go).
import {
  applyTemplatePatch,
  asWritten,
  generateApplications,
  parseApplicationSet,
  RESOURCES_FINALIZER,
  type ApplicationSetSpec,
} from '../../../src/appset/applications.js';
import { GeneratorError, RefusedGeneratorError, type GeneratorInputs } from '../../../src/appset/generators.js';

const noInputs: GeneratorInputs = {
  gitFiles: async () => [],
  gitRead: async () => new Map(),
  clusterSecrets: async () => [],
};

// Generators-List.md's guestbook example, without goTemplate
const GUESTBOOK = {
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'ApplicationSet',
  metadata: { name: 'guestbook', namespace: 'argocd' },
  spec: {
    generators: [
      {
        list: {
          elements: [
            { cluster: 'engineering-dev', url: 'https://1.2.3.4' },
            { cluster: 'engineering-prod', url: 'https://2.4.6.8' },
          ],
        },
      },
    ],
    template: {
      metadata: { name: '{{cluster}}-guestbook', labels: { '{{cluster}}': 'yes' } },
      spec: {
        project: 'my-project',
        source: { repoURL: 'https://github.com/infra-team/cluster-deployments.git', targetRevision: 'HEAD', path: 'guestbook/{{cluster}}' },
        destination: { server: '{{url}}', namespace: 'guestbook' },
      },
    },
  },
};

function spec(obj: unknown): ApplicationSetSpec {
  const s = parseApplicationSet(obj, 'argocd');
  if (typeof s === 'string') throw new Error(s);
  return s;
}

describe('generateApplications', () => {
  it('renders one Application per parameter set, with the resources finalizer, in the ApplicationSet namespace', async () => {
    const { applications } = await generateApplications(spec(GUESTBOOK), noInputs, undefined);
    expect(applications).toEqual([
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Application',
        metadata: { name: 'engineering-dev-guestbook', namespace: 'argocd', labels: { 'engineering-dev': 'yes' }, finalizers: [RESOURCES_FINALIZER] },
        spec: {
          project: 'my-project',
          source: { repoURL: 'https://github.com/infra-team/cluster-deployments.git', targetRevision: 'HEAD', path: 'guestbook/engineering-dev' },
          destination: { server: 'https://1.2.3.4', namespace: 'guestbook' },
        },
      },
      expect.objectContaining({ metadata: expect.objectContaining({ name: 'engineering-prod-guestbook' }) }),
    ]);
  });

  it('template namespace is replaced by the ApplicationSet namespace (app.Namespace = applicationSetInfo.Namespace)', async () => {
    const set = structuredClone(GUESTBOOK) as typeof GUESTBOOK & { spec: { template: { metadata: Record<string, unknown> } } };
    set.spec.template.metadata.namespace = 'elsewhere';
    set.metadata.namespace = 'team-a';
    const { applications } = await generateApplications(spec(set), noInputs, undefined);
    expect(applications.map((a) => (a.metadata as { namespace: string }).namespace)).toEqual(['team-a', 'team-a']);
  });

  it('no finalizer added when the template has finalizers, or with preserveResourcesOnDeletion (TestRenderTemplateParamsFinalizers)', async () => {
    const own = structuredClone(GUESTBOOK) as unknown as { spec: { template: { metadata: Record<string, unknown> }; syncPolicy?: unknown } };
    own.spec.template.metadata.finalizers = ['mine'];
    expect((await generateApplications(spec(own), noInputs, undefined)).applications.map((a) => (a.metadata as { finalizers?: string[] }).finalizers)).toEqual([
      ['mine'],
      ['mine'],
    ]);
    const keep = structuredClone(GUESTBOOK) as unknown as { spec: { syncPolicy?: unknown } };
    keep.spec.syncPolicy = { preserveResourcesOnDeletion: true };
    expect((await generateApplications(spec(keep), noInputs, undefined)).applications.map((a) => (a.metadata as { finalizers?: string[] }).finalizers)).toEqual(
      [undefined, undefined],
    );
  });

  it('Applications of a name made twice are all left out, as invalid (validateGeneratedApplications, then validApps)', async () => {
    const dup = structuredClone(GUESTBOOK) as unknown as {
      spec: { generators: { list: { elements: object[] } }[]; template: { metadata: Record<string, unknown> } };
    };
    dup.spec.template.metadata.name = '{{name}}';
    dup.spec.generators[0]?.list.elements.splice(0, 2, { name: 'same' }, { name: 'other' }, { name: 'same' });
    const r = await generateApplications(spec(dup), noInputs, undefined);
    expect(r.applications.map((a) => (a.metadata as { name: string }).name)).toEqual(['other']);
    expect(r.invalid).toEqual([{ name: 'argocd/same', error: 'ApplicationSet guestbook contains applications with duplicate name: same' }]);
  });

  it('refuses pullRequest by name, even nested', async () => {
    const pr = structuredClone(GUESTBOOK) as unknown as { spec: { generators: unknown[] } };
    pr.spec.generators = [{ matrix: { generators: [{ list: { elements: [] } }, { pullRequest: { github: { owner: 'o', repo: 'r' } } }] } }];
    const err = await generateApplications(spec(pr), noInputs, undefined).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefusedGeneratorError);
    expect((err as RefusedGeneratorError).generator).toBe('pullRequest');
  });

  it('templatePatch: rendered per parameter set, merged in, the project kept (template/patch.go)', async () => {
    const set = structuredClone(GUESTBOOK) as unknown as { spec: Record<string, unknown> };
    set.spec.templatePatch =
      'spec:\n  project: hijack\n  syncPolicy:\n    automated:\n      prune: true\nmetadata:\n  annotations:\n    cluster: "{{cluster}}"\n';
    const { applications } = await generateApplications(spec(set), noInputs, undefined);
    expect(applications[0]).toEqual(
      expect.objectContaining({
        metadata: expect.objectContaining({ annotations: { cluster: 'engineering-dev' }, finalizers: [RESOURCES_FINALIZER] }),
        spec: expect.objectContaining({ project: 'my-project', syncPolicy: { automated: { prune: true } } }),
      }),
    );
  });

  it("a generator error names Argo CD's message", async () => {
    const bad = structuredClone(GUESTBOOK) as unknown as { spec: { generators: unknown[] } };
    bad.spec.generators = [{ merge: { generators: [{ list: { elements: [] } }] } }];
    await expect(generateApplications(spec(bad), noInputs, undefined)).rejects.toThrow(GeneratorError);
  });
});

describe('asWritten (the Application as the controller encodes its typed object)', () => {
  const metadata = { name: 'a', namespace: 'argocd' };
  it('gives every directory source a jsonnet ({} when absent), in source and sources', () => {
    expect(
      asWritten({
        metadata,
        spec: {
          project: 'default',
          destination: { server: 's' },
          source: { repoURL: 'r', path: 'a', directory: { recurse: true } },
          sources: [
            { repoURL: 'r', directory: {} },
            { repoURL: 'r', directory: { jsonnet: { tlas: [{ name: 'x', value: 'y' }] } } },
            { repoURL: 'r', helm: {} },
          ],
        },
      }).spec,
    ).toEqual({
      project: 'default',
      destination: { server: 's' },
      source: { repoURL: 'r', path: 'a', directory: { recurse: true, jsonnet: {} } },
      sources: [
        { repoURL: 'r', directory: { jsonnet: {} } },
        { repoURL: 'r', directory: { jsonnet: { tlas: [{ name: 'x', value: 'y' }] } } },
        { repoURL: 'r', helm: {} },
      ],
    });
  });

  it('leaves out omitempty zero values, keeps empty structs, pointers to zero scalars, raw values and map entries', () => {
    expect(
      asWritten({
        metadata: { ...metadata, labels: {}, annotations: { empty: '' }, finalizers: [] },
        spec: {
          project: 'default',
          destination: { server: 's', namespace: '' },
          revisionHistoryLimit: 0,
          source: { repoURL: 'r', path: '', directory: { recurse: false, include: '*.yaml' }, helm: { skipCrds: false, valuesObject: { a: '', b: [] } } },
          syncPolicy: { syncOptions: [], retry: { limit: 0, backoff: { factor: 0, duration: '' } }, automated: { prune: false, enabled: false } },
          ignoreDifferences: [],
        },
      }),
    ).toEqual({
      metadata: { ...metadata, annotations: { empty: '' } },
      spec: {
        project: 'default',
        destination: { server: 's' },
        revisionHistoryLimit: 0,
        source: { repoURL: 'r', directory: { include: '*.yaml', jsonnet: {} }, helm: { valuesObject: { a: '', b: [] } } },
        syncPolicy: { retry: { backoff: { factor: 0 } }, automated: { enabled: false } },
      },
    });
  });

  it("writes the fields without omitempty: project (then default), destination, a source's repoURL, required list item fields", () => {
    expect(asWritten({ metadata, spec: { source: { path: 'p', plugin: { env: [{ name: 'A' }] }, kustomize: { replicas: [{ name: 'web' }] } } } }).spec).toEqual(
      {
        project: 'default',
        destination: {},
        source: { repoURL: '', path: 'p', plugin: { env: [{ name: 'A', value: '' }] }, kustomize: { replicas: [{ name: 'web', count: 0 }] } },
      },
    );
  });

  it('is applied to every generated Application', async () => {
    const set = structuredClone(GUESTBOOK) as unknown as { spec: { template: { spec: { source: Record<string, unknown> } } } };
    set.spec.template.spec.source.directory = { recurse: false };
    const { applications } = await generateApplications(spec(set), noInputs, undefined);
    expect(applications.map((a) => (a.spec as { source: Record<string, unknown> }).source)).toEqual([
      { repoURL: 'https://github.com/infra-team/cluster-deployments.git', targetRevision: 'HEAD', path: 'guestbook/engineering-dev' },
      { repoURL: 'https://github.com/infra-team/cluster-deployments.git', targetRevision: 'HEAD', path: 'guestbook/engineering-prod' },
    ]);
  });

  it('normalizes as NormalizeApplicationSpec: empty sync policy, zero kustomize, helm and directory dropped in source, not in sources', () => {
    const src = (extra: Record<string, unknown>) => ({ repoURL: 'r', ...extra });
    const zeroes = { kustomize: { forceCommonLabels: true }, helm: { skipCrds: false }, directory: { recurse: false } };
    expect(asWritten({ metadata, spec: { project: 'p', destination: {}, source: src(zeroes), syncPolicy: { syncOptions: [] } } }).spec).toEqual({
      project: 'p',
      destination: {},
      source: src({}),
    });
    expect(asWritten({ metadata, spec: { project: 'p', destination: {}, sources: [src(zeroes)], syncPolicy: {} } }).spec).toEqual({
      project: 'p',
      destination: {},
      sources: [src({ kustomize: { forceCommonLabels: true }, helm: {}, directory: { jsonnet: {} } })],
    });
    expect(
      asWritten({
        metadata,
        spec: {
          project: 'p',
          destination: {},
          source: src({ directory: { exclude: 'x', jsonnet: { libs: [] } }, helm: { valuesObject: {} } }),
          syncPolicy: { retry: {} },
        },
      }).spec,
    ).toEqual({
      project: 'p',
      destination: {},
      source: src({ directory: { exclude: 'x', jsonnet: {} }, helm: { valuesObject: {} } }),
      syncPolicy: { retry: {} },
    });
  });
});

describe('applyTemplatePatch', () => {
  it('null deletes, lists are replaced, finalizers united', () => {
    const app = { metadata: { name: 'a', finalizers: ['x'] }, spec: { project: 'p', source: { path: 'a' }, ignoreDifferences: [{ kind: 'A' }] } };
    expect(applyTemplatePatch(app, '{"metadata":{"finalizers":["y"]},"spec":{"source":null,"ignoreDifferences":[{"kind":"B"}]}}')).toEqual({
      metadata: { name: 'a', finalizers: ['x', 'y'] },
      spec: { project: 'p', ignoreDifferences: [{ kind: 'B' }] },
    });
  });
});

describe('parseApplicationSet', () => {
  it('says what is wrong', () => {
    expect(parseApplicationSet({ kind: 'Application', apiVersion: 'argoproj.io/v1alpha1' }, 'argocd')).toMatch(/expected kind ApplicationSet/);
    expect(parseApplicationSet({ kind: 'ApplicationSet', apiVersion: 'argoproj.io/v1alpha1', spec: { generators: 'x' } }, 'argocd')).toMatch(/generators/);
  });
});
