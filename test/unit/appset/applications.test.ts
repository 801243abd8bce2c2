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
  it('null deletes, lists are replaced, finalizers merged', () => {
    const app = { metadata: { name: 'a', finalizers: ['x'] }, spec: { project: 'p', source: { path: 'a' }, ignoreDifferences: [{ kind: 'A' }] } };
    expect(applyTemplatePatch(app, '{"metadata":{"finalizers":["y"]},"spec":{"source":null,"ignoreDifferences":[{"kind":"B"}]}}')).toEqual({
      metadata: { name: 'a', finalizers: ['y', 'x'] },
      spec: { project: 'p', ignoreDifferences: [{ kind: 'B' }] },
    });
  });

  // The messages and orders below are those of template/patch.go applyTemplatePatch built from v3.2.11 (with
  // apimachinery v0.34) and run on the same Application and patch.
  const app = () => ({ metadata: { name: 'a', finalizers: ['f'] }, spec: { project: 'p', source: { repoURL: 'r' } } });
  const refusal = (patch: string) => {
    try {
      applyTemplatePatch(app(), patch);
    } catch (e) {
      expect(e).toBeInstanceOf(GeneratorError);
      return (e as Error).message;
    }
    throw new Error('the patch was taken');
  };

  it("refuses a number for a helm parameter's string value, with Argo CD's message", () => {
    expect(refusal('spec:\n  source:\n    targetRevision: 1.10\n    helm:\n      parameters:\n      - name: replicas\n        value: 3\n')).toBe(
      'invalid templatePatch "{\\"spec\\":{\\"source\\":{\\"helm\\":{\\"parameters\\":[{\\"name\\":\\"replicas\\",\\"value\\":3}]},\\"targetRevision\\":1.1}}}": ' +
        'json: cannot unmarshal number into Go struct field HelmParameter.spec.source.helm.parameters.value of type string',
    );
  });

  it('refuses targetRevision 1.10 (a number) and names the patch as given when it is JSON', () => {
    expect(refusal('spec:\n  source:\n    targetRevision: 1.10\n')).toBe(
      'invalid templatePatch "{\\"spec\\":{\\"source\\":{\\"targetRevision\\":1.1}}}": json: cannot unmarshal number into Go struct field ApplicationSource.spec.source.targetRevision of type string',
    );
    expect(refusal('{"spec":\n\t{"info":[{"value":1}]}}\n')).toBe(
      'invalid templatePatch "{\\"spec\\":\\n\\t{\\"info\\":[{\\"value\\":1}]}}\\n": json: cannot unmarshal number into Go struct field Info.spec.info.value of type string',
    );
  });

  it('refuses a string where a bool is expected, and a fraction or an out-of-range count where an int is', () => {
    expect(refusal('spec:\n  syncPolicy:\n    automated:\n      prune: "true"\n')).toMatch(
      /: json: cannot unmarshal string into Go struct field SyncPolicyAutomated\.spec\.syncPolicy\.automated\.prune of type bool$/,
    );
    expect(refusal('spec:\n  revisionHistoryLimit: 1.5\n')).toMatch(
      /cannot unmarshal number 1\.5 into Go struct field ApplicationSpec\.spec\.revisionHistoryLimit of type int64$/,
    );
    // IntOrString's own UnmarshalJSON fails at once, ahead of the error saved for namePrefix
    expect(refusal('spec:\n  source:\n    kustomize:\n      namePrefix: 3\n      replicas: [{name: x, count: true}]\n')).toMatch(
      /cannot unmarshal bool into Go struct field KustomizeReplica\.spec\.source\.kustomize\.replicas\.count of type int32$/,
    );
    expect(refusal('metadata:\n  labels: {a: 1}\n')).toMatch(/cannot unmarshal number into Go struct field ObjectMeta\.metadata\.labels of type string$/);
    expect(refusal('status: 3\noperation: []\n')).toMatch(/cannot unmarshal array into Go struct field Application\.operation of type v1alpha1\.Operation$/);
    expect(refusal('[1]')).toBe('invalid templatePatch "[1]": json: cannot unmarshal array into Go value of type v1alpha1.Application');
  });

  it('takes null for any field, unknown fields of any type, and YAML as go-yaml v2 reads it', () => {
    const patched = applyTemplatePatch(
      app(),
      'spec:\n  syncPolicy:\n    automated:\n      prune: null\n  source:\n    targetRevision: null\n    path: 1:20\n    chart: 2001-12-14\n  unknownField: 3\n  revisionHistoryLimit: 1e3\nstatus: {unknown: 3}\n',
    );
    expect(patched.spec).toMatchObject({
      project: 'p',
      syncPolicy: { automated: {} },
      source: { repoURL: 'r', path: '1:20', chart: '2001-12-14' },
      revisionHistoryLimit: 1000,
    });
  });

  it('merges finalizers in strategic merge order', () => {
    const withFinalizers = (finalizers: string[]) => ({ metadata: { name: 'a', finalizers }, spec: { project: 'p' } });
    const finalizersOf = (a: Record<string, unknown>) => (a.metadata as { finalizers: unknown }).finalizers;
    expect(finalizersOf(applyTemplatePatch(withFinalizers(['b-fin', 'a-fin']), 'metadata:\n  finalizers: [zzz, a-fin, "000"]\n'))).toEqual([
      'zzz',
      'b-fin',
      'a-fin',
      '000',
    ]);
    expect(finalizersOf(applyTemplatePatch(withFinalizers([RESOURCES_FINALIZER]), 'metadata:\n  finalizers: [custom]\n'))).toEqual([
      'custom',
      RESOURCES_FINALIZER,
    ]);
    // the patch's list deduplicated; the template's own duplicate rewrites the order the list is merged by
    expect(finalizersOf(applyTemplatePatch(withFinalizers(['x', 'y', 'x', 'z', 'y']), 'metadata:\n  finalizers: [c, d, e]\n'))).toEqual([
      'c',
      'x',
      'y',
      'z',
      'd',
      'e',
    ]);
    expect(finalizersOf(applyTemplatePatch(withFinalizers(['a', 'a', 'b']), 'metadata:\n  finalizers: [c]\n'))).toEqual(['a', 'c', 'b']);
    // no finalizers to merge with (an empty list is left out of the Application's JSON): the patch's list as it is
    expect(finalizersOf(applyTemplatePatch(withFinalizers([]), 'metadata:\n  finalizers: [c, c]\n'))).toEqual(['c', 'c']);
  });
});

describe('parseApplicationSet', () => {
  it('says what is wrong', () => {
    expect(parseApplicationSet({ kind: 'Application', apiVersion: 'argoproj.io/v1alpha1' }, 'argocd')).toMatch(/expected kind ApplicationSet/);
    expect(parseApplicationSet({ kind: 'ApplicationSet', apiVersion: 'argoproj.io/v1alpha1', spec: { generators: 'x' } }, 'argocd')).toMatch(/generators/);
  });
});
