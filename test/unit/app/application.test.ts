import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/temp-dir.js';
import { isDeletionApproved, loadApplicationFile, parseApplication, parseSyncOptions } from '../../../src/app/application.js';
import { InputError } from '../../../src/model/errors.js';
import { application, applicationYaml, inCluster } from '../../support/application.js';

const SPEC = {
  source: { repoURL: 'https://git.example.com/shop.git', path: 'k8s', targetRevision: 'main' },
  destination: inCluster('shop'),
};
const base = application({ spec: SPEC });
const withSpec = (extra: Record<string, unknown>) => application({ spec: { ...SPEC, ...extra } });

describe('parseApplication', () => {
  it("reads the Application's operation for status --wait --operation: a requested one (top-level `operation`) and status.operationState", () => {
    expect(parseApplication(base, 'cluster').operation).toBeUndefined();
    const state = { phase: 'Running', message: 'Waiting for pruning confirmation of v1/ConfigMap/old', startedAt: '2026-01-01T00:00:00Z' };
    expect(parseApplication({ ...base, status: { operationState: state } }, 'cluster').operation).toEqual({
      requested: false,
      phase: 'Running',
      message: 'Waiting for pruning confirmation of v1/ConfigMap/old',
      startedAt: '2026-01-01T00:00:00Z',
    });
    const done = { ...state, phase: 'Succeeded', message: '', finishedAt: '2026-01-01T00:00:05Z', syncResult: { revision: 'abc123' } };
    expect(parseApplication({ ...base, operation: { sync: {} }, status: { operationState: done } }, 'cluster').operation).toEqual({
      requested: true,
      phase: 'Succeeded',
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: '2026-01-01T00:00:05Z',
      revision: 'abc123',
    });
    // Several sources: their revisions, in order.
    const multi = { ...done, syncResult: { revisions: ['abc123', 'def456'] } };
    expect(parseApplication({ ...base, status: { operationState: multi } }, 'cluster').operation?.revision).toBe('abc123,def456');
    expect(parseApplication({ ...base, operation: { sync: {} } }, 'cluster').operation).toEqual({ requested: true });
    // Anything malformed is left out, never an error: the record is Argo CD's controller's as much as ours.
    expect(parseApplication({ ...base, status: { operationState: 'x' } }, 'cluster').operation).toBeUndefined();
    expect(parseApplication({ ...base, status: { operationState: { phase: 3 } } }, 'cluster').operation).toEqual({ requested: false });
  });

  it('reads the stored conditions, each with its type and message, for status to show', () => {
    expect(parseApplication(base, 'cluster').conditions).toBeUndefined();
    const status = { conditions: [{ type: 'ComparisonError', message: 'rendering failed', lastTransitionTime: 't' }, { type: 'SyncError' }, 'junk'] };
    expect(parseApplication({ ...base, status }, 'cluster').conditions).toEqual([
      { type: 'ComparisonError', message: 'rendering failed' },
      { type: 'SyncError', message: '' },
    ]);
  });

  it('keeps every entry of spec.sources (the first also as source), how many there are, and the rendering keys as written, with no warning', () => {
    const app = parseApplication(
      withSpec({
        sources: [
          { repoURL: 'https://git.example.com/a.git', path: 'a', helm: { releaseName: 'x' } },
          { repoURL: 'https://git.example.com/b.git', ref: 'values', targetRevision: 'v1' },
        ],
      }),
      'app.yaml',
    );
    expect(app.source).toEqual({
      repoURL: 'https://git.example.com/a.git',
      path: 'a',
      options: { helm: expect.objectContaining({ releaseName: 'x', valueFiles: [] }) },
    });
    expect(app.sources).toEqual([
      { ...app.source, sourceOptions: { helm: { releaseName: 'x' } } },
      { repoURL: 'https://git.example.com/b.git', ref: 'values', targetRevision: 'v1', sourceOptions: { ref: 'values' } },
    ]);
    expect(app.sourcesCount).toBe(2);
    expect(app.sourceOptions).toEqual({ helm: { releaseName: 'x' } });
    expect(app.warnings).toEqual([]);
    // spec.sources wins over spec.source, as in Argo CD; an empty list does not.
    expect(parseApplication(withSpec({ sources: [] }), 'app.yaml').source.path).toBe('k8s');
    expect(() => parseApplication(withSpec({ sources: ['x'] }), 'app.yaml')).toThrow(/spec\.sources\[0\]: must be a map/);
    expect(() => parseApplication(withSpec({ sources: [{ helm: { valueFiles: 'a' } }] }), 'app.yaml')).toThrow(/spec\.sources\[0\]\.helm\.valueFiles/);
  });

  it('reads the model with defaults: manual sync, default sync options', () => {
    const app = parseApplication(base, 'app.yaml');
    expect(app).toEqual({
      name: 'shop',
      namespace: 'argocd',
      source: { repoURL: 'https://git.example.com/shop.git', path: 'k8s', targetRevision: 'main' },
      sourcesCount: 0,
      sourceOptions: {},
      destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
      syncOptions: {
        createNamespace: false,
        pruneLast: false,
        serverSideApply: false,
        applyOutOfSyncOnly: false,
        respectIgnoreDifferences: false,
        failOnSharedResource: false,
        prunePropagationPolicy: 'foreground',
        prune: true,
      },
      ignoreDifferences: [],
      warnings: [],
      origin: 'app.yaml',
    });
  });

  it('warns of a field Argo CD does not have (a misspelling), in spec, syncPolicy and automated, and reads the rest', () => {
    const app = parseApplication(
      withSpec({ syncPolicyy: { automated: {} }, syncPolicy: { automatd: {}, automated: { prun: true, enabled: true } } }),
      'app.yaml',
    );
    expect(app.warnings).toEqual([
      'Application spec.syncPolicyy: unknown field, ignored (the API server would drop it; kubectl apply warns of it)',
      'Application spec.syncPolicy.automatd: unknown field, ignored (the API server would drop it; kubectl apply warns of it)',
      'Application spec.syncPolicy.automated.prun: unknown field, ignored (the API server would drop it; kubectl apply warns of it)',
    ]);
    expect(app.automated).toEqual({ prune: false, selfHeal: false, allowEmpty: false });
    expect(parseApplication(base, 'app.yaml').warnings).toEqual([]);
  });

  it('reads managedNamespaceMetadata (maps of strings), with no warning; a value that is no string is refused', () => {
    const metadata = { labels: { team: 'shop' }, annotations: { owner: 'me' } };
    const app = parseApplication(withSpec({ syncPolicy: { syncOptions: ['CreateNamespace=true'], managedNamespaceMetadata: metadata } }), 'a');
    expect(app.managedNamespaceMetadata).toEqual(metadata);
    expect(app.warnings).toEqual([]);
    expect(parseApplication(withSpec({ syncPolicy: { managedNamespaceMetadata: {} } }), 'a').managedNamespaceMetadata).toEqual({});
    expect(() => parseApplication(withSpec({ syncPolicy: { managedNamespaceMetadata: { labels: { n: 1 } } } }), 'a')).toThrow(
      /spec\.syncPolicy\.managedNamespaceMetadata\.labels\.n: must be a string, got 1/,
    );
  });

  it("managedNamespaceMetadata that differs from the last sync's (syncResult) makes the app OutOfSync, said (HasChangedManagedNamespaceMetadata)", () => {
    const metadata = { labels: { team: 'shop' } };
    const withResult = (recorded: unknown) => ({
      ...withSpec({ syncPolicy: { syncOptions: ['CreateNamespace=true'], managedNamespaceMetadata: metadata } }),
      status: {
        operationState: { phase: 'Succeeded', syncResult: { revision: 'abc', ...(recorded !== undefined ? { managedNamespaceMetadata: recorded } : {}) } },
      },
    });
    const changed = parseApplication(withResult({ labels: { team: 'web' } }) as never, 'a');
    expect(changed.managedNamespaceMetadataChanged).toBe(true);
    expect(changed.warnings).toEqual([
      'spec.syncPolicy.managedNamespaceMetadata differs from the one the last sync applied (status.operationState.syncResult): the app is OutOfSync until it is synced, as in Argo CD',
    ]);
    expect(parseApplication(withResult(undefined) as never, 'a').managedNamespaceMetadataChanged).toBe(true);
    const same = parseApplication(withResult({ labels: { team: 'shop' }, annotations: {} }) as never, 'a');
    expect([same.managedNamespaceMetadataChanged, same.warnings]).toEqual([undefined, []]);
    // Never synced (no syncResult): nothing to compare with.
    expect(parseApplication(withSpec({ syncPolicy: { managedNamespaceMetadata: metadata } }), 'a').managedNamespaceMetadataChanged).toBeUndefined();
  });

  it('reads the namespaces status.resources records, for the prune scan (once each, sorted; cluster-scoped and malformed entries left out)', () => {
    expect(parseApplication(base, 'cluster').recordedNamespaces).toBeUndefined();
    const resources = [
      { group: 'argoproj.io', kind: 'Application', namespace: 'argocd', name: 'child' },
      { kind: 'ConfigMap', namespace: 'shop', name: 'a' },
      { kind: 'ConfigMap', namespace: 'shop', name: 'b' },
      { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' },
      { kind: 'Secret', namespace: 7, name: 'odd' },
      'not an entry',
    ];
    expect(parseApplication({ ...base, status: { resources } } as never, 'cluster').recordedNamespaces).toEqual(['argocd', 'shop']);
    expect(parseApplication({ ...base, status: { resources: [] } } as never, 'cluster').recordedNamespaces).toBeUndefined();
  });

  it('reads automated with prune/selfHeal/allowEmpty false when absent', () => {
    const app = parseApplication(withSpec({ syncPolicy: { automated: { selfHeal: true } } }), 'a');
    expect(app.automated).toEqual({ prune: false, selfHeal: true, allowEmpty: false });
  });

  it('reads ignoreDifferences', () => {
    const app = parseApplication(
      withSpec({
        ignoreDifferences: [
          { group: 'apps', kind: 'Deployment', name: 'orders', jsonPointers: ['/spec/replicas'], managedFieldsManagers: ['kube-controller-manager'] },
        ],
      }),
      'a',
    );
    expect(app.ignoreDifferences).toEqual([
      {
        group: 'apps',
        kind: 'Deployment',
        name: 'orders',
        jsonPointers: ['/spec/replicas'],
        jqPathExpressions: [],
        managedFieldsManagers: ['kube-controller-manager'],
      },
    ]);
  });

  it.each([
    [{ ...base, kind: 'Deployment' }, /not an Argo CD Application/],
    [{ ...base, metadata: { namespace: 'x' } }, /app\.yaml: Application metadata\.name: is missing/],
    // Names the API server would refuse (a `:` would also break every tracking-id made from it), and bad namespaces.
    [{ ...base, metadata: { name: 'shop:x' } }, /app\.yaml: Application metadata\.name: "shop:x" is not a valid name/],
    [{ ...base, metadata: { name: 'Shop' } }, /metadata\.name: "Shop" is not a valid name/],
    [{ ...base, metadata: { name: 'a'.repeat(254) } }, /metadata\.name: "a{80}…" is not a valid name/],
    [{ ...base, metadata: { name: 'shop', namespace: 'Argo_CD' } }, /metadata\.namespace: "Argo_CD" is not a valid namespace/],
    [withSpec({ destination: { namespace: 7 } }), /spec\.destination\.namespace: must be a string/],
    [withSpec({ syncPolicy: { automated: { prune: 'yes' } } }), /spec\.syncPolicy\.automated\.prune: must be true or false/],
    [withSpec({ syncPolicy: { syncOptions: 'CreateNamespace=true' } }), /spec\.syncPolicy\.syncOptions: must be a list of strings/],
    [
      withSpec({ ignoreDifferences: [{ group: 'apps', kind: 'Deployment', jsonPointers: ['spec/replicas'] }] }),
      /spec\.ignoreDifferences\[0\]\.jsonPointers\[0\]: "spec\/replicas" is not a JSON pointer: it must start with \//,
    ],
    [withSpec({ ignoreDifferences: [{ group: 'apps', jsonPointers: ['/x'] }] }), /spec\.ignoreDifferences\[0\]\.kind: is required/],
    [withSpec({ ignoreDifferences: {} }), /spec\.ignoreDifferences: must be a list/],
  ])('rejects %j naming the file and field', (obj, re) => {
    expect(() => parseApplication(obj, 'app.yaml')).toThrow(InputError);
    expect(() => parseApplication(obj, 'app.yaml')).toThrow(re);
  });
});

describe('parseSyncOptions', () => {
  it('parses every supported option', () => {
    const warnings: string[] = [];
    const o = parseSyncOptions(
      [
        'CreateNamespace=true',
        'PruneLast=true',
        'ServerSideApply=true',
        'ApplyOutOfSyncOnly=true',
        'RespectIgnoreDifferences=true',
        'FailOnSharedResource=true',
        'PrunePropagationPolicy=orphan',
        'Prune=false',
      ],
      (w) => warnings.push(w),
    );
    expect(o).toEqual({
      createNamespace: true,
      pruneLast: true,
      serverSideApply: true,
      applyOutOfSyncOnly: true,
      respectIgnoreDifferences: true,
      failOnSharedResource: true,
      prunePropagationPolicy: 'orphan',
      prune: false,
    });
    expect(warnings).toEqual([]);
  });

  it('reads repeated options as Argo CD does: PrunePropagationPolicy background over foreground over orphan; an entry that turns an option away from its default wins wherever it is', () => {
    const none = () => undefined;
    expect(parseSyncOptions(['PrunePropagationPolicy=background', 'PrunePropagationPolicy=orphan'], none).prunePropagationPolicy).toBe('background');
    expect(parseSyncOptions(['PrunePropagationPolicy=orphan', 'PrunePropagationPolicy=foreground'], none).prunePropagationPolicy).toBe('foreground');
    expect(parseSyncOptions(['PrunePropagationPolicy=orphan'], none).prunePropagationPolicy).toBe('orphan');
    expect(parseSyncOptions(['Replace=true', 'Replace=false'], none).replace).toBe(true);
    expect(parseSyncOptions(['ServerSideApply=false', 'ServerSideApply=true'], none).serverSideApply).toBe(true);
    expect(parseSyncOptions(['Validate=false', 'Validate=true'], none).validate).toBe(false);
    expect(parseSyncOptions(['CreateNamespace=true', 'CreateNamespace=false'], none).createNamespace).toBe(true);
  });

  it('reads Prune=confirm as the app-level confirmation (pruning stays on), with no warning', () => {
    const warnings: string[] = [];
    const o = parseSyncOptions(['Prune=confirm'], (w) => warnings.push(w));
    expect([o.prune, o.pruneConfirm, warnings]).toEqual([true, true, []]);
  });

  it('reads the first Delete= entry as the app-level deletion default (Argo CD GetOptionValue), warning of a bad value', () => {
    const warnings: string[] = [];
    expect(parseSyncOptions(['Delete=false', 'Delete=true'], (w) => warnings.push(w)).delete).toBe('false');
    expect(parseSyncOptions(['Delete=confirm'], (w) => warnings.push(w)).delete).toBe('confirm');
    expect(parseSyncOptions(['Delete=never'], (w) => warnings.push(w)).delete).toBeUndefined();
    expect(warnings).toEqual(['syncOptions Delete=never: expected Delete=false, Delete=confirm or Delete=true; ignored']);
  });

  it('turns unsupported or malformed options into warnings, never silence', () => {
    const warnings: string[] = [];
    const o = parseSyncOptions(['Validate=false', 'PrunePropagationPolicy=sideways', 'CreateNamespace=yes', 'Replace=true', 'Recreate=true'], (w) =>
      warnings.push(w),
    );
    expect(o.prunePropagationPolicy).toBe('foreground');
    expect(o.createNamespace).toBe(false);
    // Replace and Validate are read (the app-level defaults of the per-resource options).
    expect([o.replace, o.validate]).toEqual([true, false]);
    expect(warnings).toEqual([
      'syncOptions PrunePropagationPolicy=sideways: PrunePropagationPolicy must be foreground, background or orphan; using foreground',
      'syncOptions CreateNamespace=yes: expected CreateNamespace=true or CreateNamespace=false; ignored',
      'syncOptions Recreate=true: not supported by kubectl-gitops; ignored',
    ]);
  });
});

describe('loadApplicationFile', () => {
  const dir = tempDir('app');
  it('reads YAML and compiles jq expressions, naming the rule that does not compile', async () => {
    const good = join(dir, 'good.yaml');
    writeFileSync(good, applicationYaml({ namespace: null, spec: { ignoreDifferences: [{ kind: 'ConfigMap', jqPathExpressions: ['.data.x'] }] } }));
    const seen: string[] = [];
    const app = await loadApplicationFile(good, { compileJq: async (e) => (seen.push(e), undefined) });
    expect(app.ignoreDifferences[0]!.jqPathExpressions).toEqual(['.data.x']);
    expect(seen).toEqual(['.data.x']);
    await expect(loadApplicationFile(good, { compileJq: async () => 'syntax error, unexpected end' })).rejects.toThrow(
      /good\.yaml: Application spec\.ignoreDifferences\[0\]\.jqPathExpressions\[0\] "\.data\.x" does not compile: syntax error/,
    );
  });

  it('refuses a file of several Applications (one -f, one Application), and reads one followed by an empty document', async () => {
    const two = join(dir, 'two.yaml');
    writeFileSync(two, `${applicationYaml({ name: 'a', spec: {} })}---\n${applicationYaml({ name: 'b', spec: {} })}`);
    await expect(loadApplicationFile(two)).rejects.toThrow(/two\.yaml: holds 2 YAML documents; -f takes one Application/);
    const trailing = join(dir, 'trailing.yaml');
    writeFileSync(trailing, `${applicationYaml({ name: 'a', spec: {} })}---\n`);
    expect((await loadApplicationFile(trailing)).name).toBe('a');
  });

  it('reports YAML errors with line and column, and missing files', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: argoproj.io/v1alpha1\nkind: [Application\n');
    await expect(loadApplicationFile(bad)).rejects.toThrow(/bad\.yaml:3:1: invalid YAML/);
    await expect(loadApplicationFile(join(dir, 'none.yaml'))).rejects.toThrow(/reading Application file .*ENOENT/);
    // `-`: standard input, only where the caller gives a reader of it.
    await expect(loadApplicationFile('-')).rejects.toThrow('reading the Application from standard input (-f -): no standard input available');
    await expect(loadApplicationFile('-', { io: { readStdin: async () => 'kind: Application\nmetadata: {name: [\n' } })).rejects.toThrow(
      /^<stdin>:3:1: invalid YAML/,
    );
  });
});

describe('parseApplication: the source options, typed', () => {
  it('reads directory and kustomize options with their defaults', () => {
    const app = parseApplication(
      withSpec({
        project: 'shop',
        source: {
          repoURL: 'r',
          path: 'p',
          directory: { recurse: true, include: '*.yaml', jsonnet: { tlas: [{ name: 't', value: '1', code: true }], libs: ['lib'] } },
        },
      }),
      'a',
    );
    expect(app.project).toBe('shop');
    expect(app.source.options?.directory).toEqual({
      recurse: true,
      include: '*.yaml',
      exclude: '',
      jsonnet: { tlas: [{ name: 't', value: '1', code: true }], extVars: [], libs: ['lib'] },
    });
    const k = parseApplication(
      withSpec({ source: { repoURL: 'r', kustomize: { namePrefix: 'a-', replicas: [{ name: 'x', count: '3' }], commonLabels: { a: 'b' } } } }),
      'a',
    );
    expect(k.source.options?.kustomize).toMatchObject({
      namePrefix: 'a-',
      replicas: [{ name: 'x', count: 3 }],
      commonLabels: { a: 'b' },
      images: [],
      forceCommonLabels: false,
    });
  });

  it('refuses options of the wrong type, naming the field', () => {
    expect(() => parseApplication(withSpec({ source: { repoURL: 'r', directory: { recurse: 'yes' } } }), 'a.yaml')).toThrow(
      /a\.yaml: Application spec\.source\.directory\.recurse: must be true or false/,
    );
    expect(() => parseApplication(withSpec({ source: { repoURL: 'r', kustomize: { replicas: [{ name: 'x', count: 'many' }] } } }), 'a')).toThrow(
      /spec\.source\.kustomize\.replicas\[0\]\.count/,
    );
    expect(() => parseApplication(withSpec({ source: { repoURL: 'r', kustomize: { commonLabels: { a: 1 } } } }), 'a')).toThrow(
      /commonLabels\.a: must be a string/,
    );
    expect(() => parseApplication(withSpec({ source: { repoURL: 'r', directory: { jsonnet: { extVars: [{ value: 'x' }] } } } }), 'a')).toThrow(
      /extVars\[0\]\.name: is required/,
    );
  });
});

describe('the approval of a prune waiting for confirmation (Argo CD IsDeletionConfirmed)', () => {
  const app = (annotations: Record<string, string>, operationState?: Record<string, unknown>) =>
    parseApplication(
      {
        ...application({ spec: { destination: inCluster('shop') }, ...(operationState ? { status: { operationState } } : {}) }),
        metadata: { name: 'shop', namespace: 'argocd', annotations },
      },
      'app.yaml',
    );
  const now = Date.parse('2026-12-03T10:00:00.400Z');
  const waiting = { phase: 'Running', message: 'Waiting for pruning confirmation of v1/ConfigMap/a', startedAt: '2026-12-03T09:00:00.000Z' };

  it('approves when the annotation is not before the start of the operation (this run, or the stored one it continues)', () => {
    const at = (t: string, op?: Record<string, unknown>) => isDeletionApproved(app({ 'argocd.argoproj.io/deletion-approved': t }, op), now);
    expect(at('2026-12-03T10:00:00Z')).toBe(true); // the same second as the run's start
    expect(at('2026-12-03T09:59:59Z')).toBe(false); // before this run: an approval of something earlier
    expect(at('2026-12-03T09:30:00Z', waiting)).toBe(true); // after the waiting operation started
    expect(at('2026-12-03T08:59:00Z', waiting)).toBe(false);
    expect(at('2026-12-03T09:30:00Z', { ...waiting, phase: 'Succeeded' })).toBe(false); // nothing waits: this run's start counts
  });

  it('never approves without the annotation or with a time that does not parse', () => {
    expect(isDeletionApproved(app({}, waiting), now)).toBe(false);
    expect(isDeletionApproved(app({ 'argocd.argoproj.io/deletion-approved': 'yes' }, waiting), now)).toBe(false);
    expect(isDeletionApproved(app({ 'argocd.argoproj.io/deletion-approved': '2026-12-03 10:00' }, waiting), now)).toBe(false);
  });
});

describe("the Application's compare-options", () => {
  const annotated = (value: string) => ({ ...base, metadata: { ...base.metadata, annotations: { 'argocd.argoproj.io/compare-options': value } } });
  it('reads ServerSideDiff=true|false and IncludeMutationWebhook=true among other options; nothing else', () => {
    expect(parseApplication(annotated('IgnoreExtraneous, ServerSideDiff=true'), 'cluster').compareOptions).toEqual({
      serverSideDiff: true,
    });
    expect(parseApplication(annotated('ServerSideDiff=false'), 'cluster').compareOptions).toEqual({ serverSideDiff: false });
    expect(parseApplication(annotated('ServerSideDiff=true,IncludeMutationWebhook=true'), 'cluster').compareOptions).toEqual({
      serverSideDiff: true,
      includeMutationWebhook: true,
    });
    expect(parseApplication(annotated('IgnoreExtraneous'), 'cluster').compareOptions).toBeUndefined();
    expect(parseApplication(base, 'cluster').compareOptions).toBeUndefined();
  });
});

describe('spec.sourceHydrator', () => {
  const hydrated = withSpec({
    sourceHydrator: {
      drySource: { repoURL: 'https://git.example.com/dry.git', path: 'app', targetRevision: 'main' },
      syncSource: { targetBranch: 'environments/dev', path: 'dev' },
    },
    sources: [{ repoURL: 'https://other', path: 'x' }],
  });
  it("is synced from the dry repoURL at syncSource.targetBranch and path, over spec.source and spec.sources (Argo CD's GetSource)", () => {
    const app = parseApplication(hydrated, 'cluster');
    expect(app.source).toMatchObject({ repoURL: 'https://git.example.com/dry.git', path: 'dev', targetRevision: 'environments/dev' });
    expect([app.sourcesCount, app.sources]).toEqual([0, undefined]);
    expect(app.hydrator).toEqual({
      drySource: { repoURL: 'https://git.example.com/dry.git', path: 'app', targetRevision: 'main' },
      syncSource: { targetBranch: 'environments/dev', path: 'dev' },
    });
  });
  it('names what is missing', () => {
    expect(() => parseApplication(withSpec({ sourceHydrator: { drySource: { repoURL: 'x' } } }), 'cluster')).toThrow(
      'cluster: Application spec.sourceHydrator.syncSource: is missing',
    );
    expect(() => parseApplication(withSpec({ sourceHydrator: { drySource: { repoURL: 'x' }, syncSource: { path: 'p' } } }), 'cluster')).toThrow(
      'cluster: Application spec.sourceHydrator.syncSource.targetBranch: is missing',
    );
  });
});
