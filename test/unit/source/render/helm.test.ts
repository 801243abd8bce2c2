// Helm sources as Argo CD renders them: the `helm template` arguments and their order, value precedence, Argo CD's
// escaping of --set values, value files resolved inside the repository only, the dependency build on Helm's
// missing-dependency error (driven through a stand-in helm script that records its arguments).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseSourceOptions, type HelmOptions } from '../../../../src/app/source-options.js';
import { InputError } from '../../../../src/model/errors.js';
import {
  apiVersionStrings,
  cleanSetParameter,
  findHelm,
  isMissingDependency,
  kubeVersionArg,
  renderHelm,
  resolveValueFile,
  templateArgs,
  templateOptions,
  type HelmRender,
} from '../../../../src/source/render/helm.js';

const helmOf = (helm: Record<string, unknown>): HelmOptions => parseSourceOptions({ helm } as never, 'spec.source', 'app.yaml').helm!;

describe('spec.source.helm parsed', () => {
  it('reads every field; valuesObject wins over values; a parameter value may be a number', () => {
    const h = helmOf({
      valueFiles: ['a.yaml'],
      values: 'x: 1\n',
      valuesObject: { y: 2 },
      parameters: [
        { name: 'replicas', value: 3 },
        { name: 's', value: 'v', forceString: true },
      ],
      fileParameters: [{ name: 'f', path: 'files/f.txt' }],
      releaseName: 'rel',
      skipCrds: true,
      ignoreMissingValueFiles: true,
    });
    expect(h).toMatchObject({ valueFiles: ['a.yaml'], values: '{"y":2}', releaseName: 'rel', skipCrds: true, ignoreMissingValueFiles: true, skipTests: false });
    expect(h.parameters).toEqual([
      { name: 'replicas', value: '3', forceString: false },
      { name: 's', value: 'v', forceString: true },
    ]);
    expect(helmOf({ values: 'x: 1\n' }).values).toBe('x: 1\n');
    // Any valuesObject wins, `{}` too (ValuesYAML: non-nil Raw); a null one leaves values.
    expect(helmOf({ values: 'x: 1\n', valuesObject: {} }).values).toBe('{}');
    expect(helmOf({ values: 'x: 1\n', valuesObject: null }).values).toBe('x: 1\n');
    expect(() => helmOf({ valueFiles: 'a.yaml' })).toThrow(/spec\.source\.helm\.valueFiles: must be a list of strings/);
    expect(() => helmOf({ version: 'v2' })).toThrow(/spec\.source\.helm\.version: must be v3/);
  });
});

describe('helm template arguments', () => {
  it("are Argo CD's, in its order", () => {
    const args = templateArgs({
      releaseName: 'shop',
      namespace: 'prod',
      kubeVersion: '1.35.4',
      set: [['a', '1']],
      setString: [['b', 'x,y']],
      setFile: [['c', '/r/f.txt']],
      values: ['/r/chart/values-prod.yaml', '/tmp/v.yaml'],
      apiVersions: ['v1', 'v1/ConfigMap'],
      skipCrds: false,
      skipSchemaValidation: true,
      skipTests: true,
    });
    expect(args).toEqual([
      'template',
      '.',
      '--name-template',
      'shop',
      '--namespace',
      'prod',
      '--kube-version',
      '1.35.4',
      '--set',
      'a=1',
      '--set-string',
      'b=x\\,y',
      '--set-file',
      'c=/r/f.txt',
      '--values',
      '/r/chart/values-prod.yaml',
      '--values',
      '/tmp/v.yaml',
      '--api-versions',
      'v1',
      '--api-versions',
      'v1/ConfigMap',
      '--include-crds',
      '--skip-schema-validation',
      '--skip-tests',
    ]);
    const bare = templateArgs({
      releaseName: 'a',
      namespace: '',
      kubeVersion: '',
      set: [],
      setString: [],
      setFile: [],
      values: [],
      apiVersions: [],
      skipCrds: true,
      skipSchemaValidation: false,
      skipTests: false,
    });
    expect(bare).toEqual(['template', '.', '--name-template', 'a']);
  });

  it('escape commas in --set values as Argo CD does, except a {list} and an escaped comma', () => {
    expect(cleanSetParameter('a,b')).toBe('a\\,b');
    expect(cleanSetParameter('a\\,b')).toBe('a\\,b');
    expect(cleanSetParameter('{a,b}')).toBe('{a,b}');
    expect(cleanSetParameter(',')).toBe('\\,');
  });

  it('take the kube version without its v or suffix, and every group/version and group/version/Kind', () => {
    expect(kubeVersionArg('v1.35.4')).toBe('1.35.4');
    expect(kubeVersionArg('1.29')).toBe('1.29');
    expect(kubeVersionArg('v1.30.2-eks-1234')).toBe('1.30.2');
    expect(kubeVersionArg('')).toBe('');
    expect(() => kubeVersionArg('latest')).toThrow(InputError);
    // As k8s ParseGeneric(...).String() (reposerver parseKubeVersion): the controller's `1.35` / `1.30+` (major.minor of
    // /version), every number given, leading zeros dropped past the first; one number, a leading zero first, blanks refused.
    expect(kubeVersionArg('1.35')).toBe('1.35');
    expect(kubeVersionArg('1.30+')).toBe('1.30');
    expect(kubeVersionArg(' v1.2.3.4')).toBe('1.2.3.4');
    expect(kubeVersionArg('1.035.00')).toBe('1.35.0');
    for (const bad of ['1', '01.30', ' ', '1.35\nx', '1.18446744073709551616']) expect(() => kubeVersionArg(bad)).toThrow(InputError);
    expect(
      apiVersionStrings([
        { group: 'apps', version: 'v1', kind: 'Deployment' },
        { group: '', version: 'v1', kind: 'ConfigMap' },
        { group: 'apps', version: 'v1', kind: 'ReplicaSet' },
      ]),
    ).toEqual(['apps/v1', 'apps/v1/Deployment', 'apps/v1/ReplicaSet', 'v1', 'v1/ConfigMap']);
  });
});

describe('value files and options resolved', () => {
  let root: string;
  let chart: string;
  let other: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'kgitops-helm-test-'));
    chart = join(root, 'charts', 'shop');
    mkdirSync(chart, { recursive: true });
    writeFileSync(join(chart, 'values-prod.yaml'), 'a: 1\n');
    writeFileSync(join(root, 'common.yaml'), 'b: 1\n');
    mkdirSync(join(root, 'envs', 'prod'), { recursive: true });
    writeFileSync(join(root, 'envs', 'prod', 'shop-app.yaml'), 'c: 1\n');
    other = mkdtempSync(join(tmpdir(), 'kgitops-helm-outside-'));
    writeFileSync(join(other, 'secret.yaml'), 'd: 1\n');
    mkdirSync(join(other, 'vals'));
    writeFileSync(join(other, 'vals', 'shop.yaml'), 'e: 1\n');
    symlinkSync(join(other, 'secret.yaml'), join(chart, 'link.yaml'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  });

  const render = (helm: Record<string, unknown> | undefined, extra: Partial<HelmRender> = {}): HelmRender => ({
    chartDir: chart,
    repoRoot: root,
    appName: 'shop-app',
    namespace: 'dest',
    helm: helm ? helmOf(helm) : undefined,
    capabilities: { kubeVersion: '1.35', apiVersions: ['v1', 'v1/ConfigMap'] },
    refs: new Map(),
    env: { ARGOCD_APP_NAME: 'shop-app' },
    tool: '/bin/false',
    processEnv: {},
    origin: 'repo@abc1234:charts/shop',
    ...extra,
  });

  it('relative to the chart, absolute from the repository root, URLs as they are; outside the repository refused', () => {
    expect(resolveValueFile(chart, root, 'values-prod.yaml', 'w')).toEqual({ path: join(chart, 'values-prod.yaml'), remote: false });
    expect(resolveValueFile(chart, root, '../../common.yaml', 'w').path).toBe(join(root, 'common.yaml'));
    expect(resolveValueFile(chart, root, '/envs/prod/shop-app.yaml', 'w').path).toBe(join(root, 'envs/prod/shop-app.yaml'));
    expect(resolveValueFile(chart, root, 'https://example.com/v.yaml', 'w')).toEqual({ path: 'https://example.com/v.yaml', remote: true });
    expect(() => resolveValueFile(chart, root, '../../../x.yaml', 'w')).toThrow(/file '..\/..\/..\/x.yaml' resolved to outside repository root/);
    expect(() => resolveValueFile(chart, root, 'file:///etc/passwd', 'w')).toThrow(/the URL scheme 'file' is not allowed/);
  });

  it('URL schemes are those of argocd-cm helm.valuesFileSchemes (any case), for value files and file parameters alike', () => {
    const url = 'http://example.com/v.yaml';
    expect(resolveValueFile(chart, root, url, 'w', ['HTTPS', 'Http'])).toEqual({ path: url, remote: true });
    expect(() => resolveValueFile(chart, root, url, 'w', ['https'])).toThrow(
      "w: the URL scheme 'http' is not allowed (argocd-cm helm.valuesFileSchemes: https)",
    );
    expect(() => resolveValueFile(chart, root, 'https://example.com/v.yaml', 'w', [])).toThrow(/scheme 'https' is not allowed .*: none\)/);
    const httpsOnly = { valueFileSchemes: ['https'] };
    expect(() => templateOptions(render({ valueFiles: [url] }, httpsOnly), undefined)).toThrow(
      /valueFiles http:\/\/example\.com\/v\.yaml: the URL scheme 'http' is not allowed/,
    );
    expect(() => templateOptions(render({ fileParameters: [{ name: 'f', path: url }] }, httpsOnly), undefined)).toThrow(/the URL scheme 'http' is not allowed/);
    expect(templateOptions(render({ valueFiles: [url] }), undefined).values).toEqual([url]);
  });

  it("defaults: the app's name as release, the destination namespace, the cluster's capabilities, CRDs included", () => {
    const o = templateOptions(render(undefined), undefined);
    expect(o).toMatchObject({
      releaseName: 'shop-app',
      namespace: 'dest',
      kubeVersion: '1.35',
      apiVersions: ['v1', 'v1/ConfigMap'],
      skipCrds: false,
      values: [],
    });
  });

  it('valueFiles in order, then the values file; parameters and file parameters; overrides of name, namespace and capabilities', () => {
    const o = templateOptions(
      render({
        valueFiles: ['values-prod.yaml', '/envs/prod/${ARGOCD_APP_NAME}.yaml', '../../common.yaml', 'values-prod.yaml'],
        parameters: [
          { name: 'a', value: '$ARGOCD_APP_NAME' },
          { name: 'a', value: 'later' },
          { name: 'b', value: 'x', forceString: true },
        ],
        fileParameters: [{ name: 'cfg', path: '../../common.yaml' }],
        releaseName: 'rel',
        namespace: 'other',
        kubeVersion: '1.29.0',
        apiVersions: ['x/v1'],
      }),
      '/tmp/values.yaml',
    );
    // Each entry as given, a repeated one too (Argo CD v3.2 de-duplicates nothing; Helm's last wins).
    expect(o.values).toEqual([
      join(chart, 'values-prod.yaml'),
      join(root, 'envs/prod/shop-app.yaml'),
      join(root, 'common.yaml'),
      join(chart, 'values-prod.yaml'),
      '/tmp/values.yaml',
    ]);
    expect(o.set).toEqual([['a', 'later']]);
    expect(o.setString).toEqual([['b', 'x']]);
    expect(o.setFile).toEqual([['cfg', join(root, 'common.yaml')]]);
    expect(o).toMatchObject({ releaseName: 'rel', namespace: 'other', kubeVersion: '1.29.0', apiVersions: ['x/v1'] });
    // Parameter values see the app's variables.
    expect(templateOptions(render({ parameters: [{ name: 'n', value: '$ARGOCD_APP_NAME' }] }), undefined).set).toEqual([['n', 'shop-app']]);
  });

  it('a missing value file is exit 2 unless ignoreMissingValueFiles; a link out of the repository and a glob are refused', () => {
    expect(() => templateOptions(render({ valueFiles: ['nope.yaml'] }), undefined)).toThrow(
      /^helm template failed for repo@abc1234:charts\/shop: spec\.source\.helm\.valueFiles nope\.yaml: open nope\.yaml: no such file or directory/,
    );
    expect(templateOptions(render({ valueFiles: ['nope.yaml', 'values-prod.yaml'], ignoreMissingValueFiles: true }), undefined).values).toEqual([
      join(chart, 'values-prod.yaml'),
    ]);
    expect(() => templateOptions(render({ valueFiles: ['link.yaml'] }), undefined)).toThrow(/resolved to outside repository root/);
  });

  it('glob characters are no pattern (Argo CD v3.2): a literal file name, skipped when missing with ignoreMissingValueFiles, else helm fails', () => {
    mkdirSync(join(root, 'vals'), { recursive: true });
    for (const f of ['vals/b.yaml', 'vals/a.yaml']) writeFileSync(join(root, f), 'k: 1\n');
    const v = (files: string[], ignore = false) =>
      templateOptions(render({ valueFiles: files, ignoreMissingValueFiles: ignore }), undefined).values.map((p) => p.slice(root.length + 1));
    expect(() => v(['/vals/*.yaml'])).toThrow(/^helm template failed for .*valueFiles \/vals\/\*\.yaml: open vals\/\*\.yaml: no such file or directory/);
    expect(v(['/vals/*.yaml', '/vals/a.yaml', '/vals/[ab].yaml'], true)).toEqual(['vals/a.yaml']);
    // A file whose name holds glob characters is taken as it is.
    writeFileSync(join(root, 'vals', '*.yaml'), 'k: 2\n');
    expect(v(['/vals/*.yaml'])).toEqual(['vals/*.yaml']);
    // [a, b, a]: all three, in order.
    expect(v(['/vals/a.yaml', '/vals/b.yaml', '/vals/a.yaml'])).toEqual(['vals/a.yaml', 'vals/b.yaml', 'vals/a.yaml']);
  });

  it('$ref/path resolves in the referenced source, and may not leave it', () => {
    const refs = new Map([['$values', { root: other, label: 'values-repo@1234567' }]]);
    const o = templateOptions(render({ valueFiles: ['$values/vals/shop.yaml'] }, { refs }), undefined);
    expect(o.values).toEqual([join(other, 'vals/shop.yaml')]);
    expect(() => templateOptions(render({ valueFiles: ['$values/../x.yaml'] }, { refs }), undefined)).toThrow(/resolved to outside repository root/);
    expect(() => templateOptions(render({ valueFiles: ['$values/none.yaml'] }, { refs }), undefined)).toThrow(
      /open none\.yaml: no such file or directory in values-repo@1234567/,
    );
  });

  it('finds helm by flag, environment or PATH; a missing one is exit 2 naming it', () => {
    expect(() => findHelm(undefined, { PATH: '' })).toThrow(/needs helm, and it is not on PATH/);
    expect(() => findHelm('/no/such/helm', {})).toThrow(/the helm binary \/no\/such\/helm \(--helm\) is not an executable file/);
    expect(() => findHelm(undefined, { KUBECTL_GITOPS_HELM: '/no/helm' })).toThrow(/KUBECTL_GITOPS_HELM/);
    expect(findHelm('/bin/sh', {})).toBe('/bin/sh');
  });

  it("knows Helm's missing-dependency words", () => {
    expect(isMissingDependency('Error: found in Chart.yaml, but missing in charts/ directory: common')).toBe(true);
    expect(isMissingDependency('Error: parse error')).toBe(false);
  });

  describe('running helm (a stand-in script)', () => {
    let fake: string;
    let log: string;
    beforeAll(() => {
      fake = join(root, 'fake-helm');
      log = join(root, 'calls.log');
      // Fails `template` with the missing-dependency error until `dependency build` made charts/.
      writeFileSync(
        fake,
        `#!/bin/sh\necho "$*" >> "${log}"\ncase "$1" in\n  dependency) mkdir -p charts; exit 0;;\n  template) if [ -d charts ] || [ -n "$NO_DEPS" ]; then printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: made\\n'; exit 0; fi\n    echo "Error: An error occurred while checking for chart dependencies. You may need to run \\\`helm dependency build\\\` to fetch missing dependencies: found in Chart.yaml, but missing in charts/ directory: common" >&2; exit 1;;\nesac\nexit 3\n`,
      );
      chmodSync(fake, 0o755);
    });

    it('builds the dependencies once on the missing-dependency error, then templates again', async () => {
      writeFileSync(log, '');
      const out = await renderHelm(render({ values: 'k: v\n' }, { tool: fake }));
      expect(out).toContain('name: made');
      const calls = readFileSync(log, 'utf8').trim().split('\n');
      expect(calls.map((c) => c.split(' ')[0])).toEqual(['template', 'dependency', 'template']);
      expect(calls[1]).toBe('dependency build');
      expect(calls[0]).toMatch(
        /^template \. --name-template shop-app --namespace dest --kube-version 1\.35 --values \S+values\.yaml --api-versions v1 --api-versions v1\/ConfigMap --include-crds$/,
      );
      rmSync(join(chart, 'charts'), { recursive: true, force: true });
    });

    it("a failure is exit 2 with Helm's words and the origin, temporary paths hidden", async () => {
      const failing = join(root, 'failing-helm');
      writeFileSync(failing, `#!/bin/sh\necho "Error: template: shop/templates/a.yaml:3:4: bad in $PWD/templates/a.yaml" >&2\nexit 1\n`);
      chmodSync(failing, 0o755);
      const err = await renderHelm(render(undefined, { tool: failing })).catch((e: unknown) => e as InputError);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(
        'helm template failed for repo@abc1234:charts/shop: Error: template: shop/templates/a.yaml:3:4: bad in templates/a.yaml',
      );
    });

    it('a helm that overruns ARGOCD_EXEC_TIMEOUT is stopped: exit 2 naming the source and the limit', async () => {
      const hanging = join(root, 'hanging-helm');
      writeFileSync(hanging, '#!/bin/sh\necho "Pulling dependencies" >&2\nexec sleep 30\n');
      chmodSync(hanging, 0o755);
      const err = await renderHelm(render(undefined, { tool: hanging, processEnv: { PATH: process.env.PATH, ARGOCD_EXEC_TIMEOUT: '300ms' } })).catch(
        (e: unknown) => e as InputError,
      );
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toBe(
        "helm template failed for repo@abc1234:charts/shop: Pulling dependencies\nstopped after 0.3 s, its time limit (ARGOCD_EXEC_TIMEOUT, as Argo CD's repo-server)",
      );
    });
  });
});
