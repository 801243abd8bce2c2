// The build environment Argo CD gives a render, end to end on the local control plane: for an Application that lives
// outside the control plane's namespace, ARGOCD_APP_NAME is Argo CD's instance name (`<namespace>_<name>`) and
// ARGOCD_APP_NAMESPACE is the destination namespace (not the Application's own), in a Helm parameter, a Kustomize
// commonAnnotations envsubst and a Jsonnet ext var alike (Argo CD's controller/state.go asks its repo-server with
// `AppName: app.InstanceName(...)` and `Namespace: app.Spec.Destination.Namespace`).
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from './support/index.js';

const T = 150_000;

const FILES: Record<string, string> = {
  'helm/Chart.yaml': 'apiVersion: v2\nname: envchart\nversion: 0.1.0\n',
  'helm/values.yaml': 'ns: unset\napp: unset\n',
  'helm/templates/cm.yaml': [
    'apiVersion: v1',
    'kind: ConfigMap',
    'metadata:',
    '  name: from-helm',
    'data:',
    '  ns: {{ .Values.ns | quote }}',
    '  app: {{ .Values.app | quote }}',
    '  release: {{ .Release.Namespace | quote }}',
    '',
  ].join('\n'),
  'kustomize/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n',
  'kustomize/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-kustomize\ndata:\n  k: v\n',
  'jsonnet/cm.jsonnet': "{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-jsonnet' }, data: { ns: std.extVar('ns'), app: std.extVar('app') } }\n",
};

describe('the build environment of a render (ARGOCD_APP_NAME, ARGOCD_APP_NAMESPACE), as Argo CD sets it', () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    for (const [path, text] of Object.entries(FILES)) fx.write(path, text);
    fx.commit('build env');
    ns = await createTestNamespace('build-env');
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  /** An Application named `name` in the namespace `team-apps` (outside `argocd`) deploying `path` into the test namespace. */
  function appFile(name: string, path: string, source: Record<string, unknown>): string {
    const file = join(fx.root, `${name}.yaml`);
    writeFileSync(
      file,
      applicationYaml({
        name,
        namespace: 'team-apps',
        spec: { project: 'default', source: { repoURL: fx.repo, path, targetRevision: 'main', ...source }, destination: inCluster(ns) },
      }),
    );
    return file;
  }

  async function data(name: string): Promise<Record<string, string>> {
    const o = JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'json'])) as {
      data: Record<string, string>;
      metadata: { annotations?: Record<string, string> };
    };
    return { ...o.data, ...(o.metadata.annotations ?? {}) };
  }

  it.each([
    [
      'helm',
      'from-helm',
      {
        helm: {
          parameters: [
            { name: 'ns', value: '$ARGOCD_APP_NAMESPACE' },
            { name: 'app', value: '$ARGOCD_APP_NAME' },
          ],
        },
      },
    ],
    [
      'kustomize',
      'from-kustomize',
      { kustomize: { commonAnnotations: { ns: '$ARGOCD_APP_NAMESPACE', app: '$ARGOCD_APP_NAME' }, commonAnnotationsEnvsubst: true } },
    ],
    [
      'jsonnet',
      'from-jsonnet',
      {
        directory: {
          jsonnet: {
            extVars: [
              { name: 'ns', value: '$ARGOCD_APP_NAMESPACE' },
              { name: 'app', value: '${ARGOCD_APP_NAME}' },
            ],
          },
        },
      },
    ],
  ])(
    '%s: the destination namespace and the instance name reach the rendered object',
    async (path, object, source) => {
      const file = appFile(`env-${path}`, path, source);
      const res = await runPlugin(['sync', '-f', file, '-o', 'kv']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const got = await data(object);
      expect(got.ns).toBe(ns);
      expect(got.app).toBe(`team-apps_env-${path}`);
      if (path === 'helm') expect(got.release).toBe(ns);
      // The id that marks what was applied uses the same instance name, so the render and the mark agree.
      const mark = JSON.parse(await kubectlOk(['get', 'configmap', object, '-n', ns, '-o', 'json'])) as {
        metadata: { annotations: Record<string, string> };
      };
      expect(mark.metadata.annotations['argocd.argoproj.io/tracking-id']).toBe(`team-apps_env-${path}:/ConfigMap:${ns}/${object}`);
    },
    T,
  );

  it(
    'ARGOCD_APP_SOURCE_PATH is spec.source.path as written (a trailing slash kept), as Argo CD passes it',
    async () => {
      const file = appFile('env-path', 'kustomize/', {
        kustomize: { commonAnnotations: { path: '$ARGOCD_APP_SOURCE_PATH' }, commonAnnotationsEnvsubst: true },
      });
      const res = await runPlugin(['manifests', '-f', file, '-o', 'json']);
      expect(res.stderr).toBe('');
      expect(res.code).toBe(0);
      const items = (JSON.parse(res.stdout) as { items: { metadata: { name: string; annotations?: Record<string, string> } }[] }).items;
      expect(items.find((o) => o.metadata.name === 'from-kustomize')?.metadata.annotations?.path).toBe('kustomize/');
    },
    T,
  );
});
