// Rendered sources through Argo CD's own repo-server and through kubectl-gitops's renderer: the project's example
// app (examples/shop, a directory), a Kustomize source (namePrefix, labels, a configMapGenerator whose name
// carries a content hash) and a local Helm chart with values. kubectl-gitops syncs each; Argo CD, rendering the
// same commit itself, must find the same objects Synced and Healthy, resource by resource.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, repoRoot, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, bothVerdicts, differences } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const kustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namePrefix: k-
labels:
  - pairs: {team: payments}
    includeSelectors: false
resources: [deployment.yaml]
configMapGenerator:
  - name: limits
    literals: [max=10, min=1]
`;
const kustomizeDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: pay
spec:
  replicas: 1
  selector:
    matchLabels: {app: pay}
  template:
    metadata:
      labels: {app: pay}
    spec:
      containers:
        - name: pay
          image: nginx:1.27
          envFrom: [{configMapRef: {name: limits}}]
`;
const chart = `apiVersion: v2
name: board
version: 0.1.0
`;
const values = `replicas: 2
greeting: hello
`;
const template = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-board
  labels: {chart: {{ .Chart.Name }}}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: board}
  template:
    metadata:
      labels: {app: board}
    spec:
      containers:
        - name: board
          image: nginx:1.27
          env: [{name: GREETING, value: {{ .Values.greeting | quote }}}]
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-board
spec:
  selector: {app: board}
  ports: [{port: 80}]
`;

// The build environment (Argo CD's controller/state.go, reposerver newEnv): ARGOCD_APP_NAMESPACE is the destination
// namespace, not the Application's own (argocd), so a render that differed would read OutOfSync in Argo CD.
const buildEnvTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: build-env
data:
  ns: {{ .Values.ns | quote }}
  app: {{ .Values.app | quote }}
  rev: {{ .Values.rev | quote }}
`;
const BUILD_ENV_PARAMETERS = {
  helm: {
    parameters: [
      { name: 'ns', value: '$ARGOCD_APP_NAMESPACE' },
      { name: 'app', value: '$ARGOCD_APP_NAME' },
      { name: 'rev', value: '$ARGOCD_APP_REVISION_SHORT' },
    ],
  },
};

describe('rendered sources through Argo CD and through kubectl-gitops', () => {
  const id = randomBytes(3).toString('hex');
  let fx: GitFixture;
  let repoURL: string;
  const namespaces: string[] = [];

  beforeAll(async () => {
    fx = new GitFixture();
    const shop = join(repoRoot, 'examples', 'shop', 'manifests');
    for (const f of readdirSync(shop)) fx.write(`shop/${f}`, readFileSync(join(shop, f), 'utf8'));
    fx.write('kustomize/kustomization.yaml', kustomization);
    fx.write('kustomize/deployment.yaml', kustomizeDeployment);
    fx.write('helm/Chart.yaml', chart);
    fx.write('helm/values.yaml', values);
    fx.write('helm/templates/board.yaml', template);
    fx.write('buildenv/Chart.yaml', 'apiVersion: v2\nname: buildenv\nversion: 0.1.0\n');
    fx.write('buildenv/values.yaml', 'ns: unset\napp: unset\nrev: unset\n');
    fx.write('buildenv/templates/cm.yaml', buildEnvTemplate);
    fx.commit('sources');
    repoURL = pathToFileURL(fx.repo).href;
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    for (const ns of namespaces) await deleteNamespace(ns);
  }, T);

  it.each([
    ['shop', 'the example app (directory)'],
    ['kustomize', 'a Kustomize source'],
    ['helm', 'a Helm chart'],
    ['buildenv', 'a Helm chart whose parameters read the build environment'],
  ])(
    '%s: %s synced by kubectl-gitops reads Synced and Healthy in Argo CD, resource by resource',
    async (path) => {
      const ns = await createTestNamespace(`conf-render-${path}`);
      namespaces.push(ns);
      const name = `render-${path}-${id}`;
      await applyApplication(application({ name, repoURL, path, namespace: ns, ...(path === 'buildenv' ? { source: BUILD_ENV_PARAMETERS } : {}) }));
      const synced = await runPlugin(['sync', name, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
      expect(synced.code).toBe(0);
      const status = await runPlugin(['status', name, '--app-namespace', 'argocd', '--no-record', '--wait', '--timeout', '90s', '-o', 'kv']);
      expect(status.code).toBe(0);
      const { argo, ours } = await bothVerdicts(name);
      expect(differences(argo, ours, ns).sort()).toEqual(expectedDifferences(`render/${path}`));
      expect([argo.sync, argo.health, ours.sync, ours.health]).toEqual(['Synced', 'Healthy', 'Synced', 'Healthy']);
      expect(Object.keys(argo.resources).length).toBeGreaterThanOrEqual(path === 'buildenv' ? 1 : 2);
      expect(Object.entries(argo.resources).filter(([, r]) => r.status !== 'Synced')).toEqual([]);
      if (path === 'buildenv') {
        // what both sides rendered: the destination namespace and the app's name, never the Application's own namespace
        const cm = JSON.parse(await kubectlOk(['get', 'configmap', 'build-env', '-n', ns, '-o', 'json'])) as { data: Record<string, string> };
        expect(cm.data).toEqual({ ns, app: name, rev: fx.git(['rev-parse', '--short=7', 'HEAD']) });
      }
    },
    T,
  );
});
