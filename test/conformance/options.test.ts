// The rules around what counts, through Argo CD's own controller and through kubectl-gitops on the same
// Application: ignoreDifferences by jsonPointers, jqPathExpressions and managedFieldsManagers; an extra
// object with Prune=false and one with IgnoreExtraneous; and what each lists as requiring pruning.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, bothVerdicts, differences, rolledOut } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  replicas: 1
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
        - name: api
          image: nginx:1.27
`;
const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: tuning
data:
  level: "1"
`;

describe('ignoreDifferences, Prune=false and IgnoreExtraneous through Argo CD and through kubectl-gitops', () => {
  const app = `options-${randomBytes(3).toString('hex')}`;
  let fx: GitFixture;
  let ns: string;

  const compare = async (step: string) => {
    const { argo, ours } = await bothVerdicts(app);
    expect(differences(argo, ours, ns).sort()).toEqual(expectedDifferences(step));
    return { argo, ours };
  };
  const extra = (name: string, annotations: Record<string, string>) =>
    kubectlOk(['apply', '-n', ns, '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, annotations: { 'argocd.argoproj.io/tracking-id': `${app}:/ConfigMap:${ns}/${name}`, ...annotations } },
        data: { left: 'over' },
      }),
    });

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/deployment.yaml', deployment);
    fx.write('app/configmap.yaml', configMap);
    fx.commit('app');
    ns = await createTestNamespace('conf-options');
    await applyApplication(
      application({
        name: app,
        repoURL: pathToFileURL(fx.repo).href,
        path: 'app',
        namespace: ns,
        ignoreDifferences: [
          { group: 'apps', kind: 'Deployment', jsonPointers: ['/spec/replicas'] },
          { group: 'apps', kind: 'Deployment', jqPathExpressions: ['.spec.template.spec.containers[] | select(.name == "api") | .image'] },
          { kind: 'ConfigMap', name: 'tuning', managedFieldsManagers: ['conformance-editor'] },
        ],
      }),
    );
    const synced = await runPlugin(['sync', app, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
    expect(synced.code).toBe(0);
    await rolledOut('api', ns);
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  it(
    'drift on ignored fields (jsonPointers, jqPathExpressions, managedFieldsManagers): both Synced',
    async () => {
      await kubectlOk(['scale', 'deployment/api', '-n', ns, '--replicas=2']);
      await kubectlOk(['set', 'image', 'deployment/api', '-n', ns, 'api=nginx:1.28']);
      await kubectlOk(['apply', '--server-side', '--force-conflicts', '--field-manager=conformance-editor', '-n', ns, '-f', '-'], {
        stdin: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tuning' }, data: { level: '9' } }),
      });
      await rolledOut('api', ns);
      const { argo } = await compare('options/ignored-drift');
      expect(argo.sync).toBe('Synced');
    },
    T,
  );

  it(
    'an extra object with IgnoreExtraneous: requires pruning, yet the app stays Synced in both, and in `diff`',
    async () => {
      await extra('tolerated', { 'argocd.argoproj.io/compare-options': 'IgnoreExtraneous' });
      const { argo } = await compare('options/ignore-extraneous');
      expect(argo.sync).toBe('Synced');
      expect(argo.resources[`/ConfigMap/${ns}/tolerated`]).toMatchObject({ status: 'OutOfSync', requiresPruning: true });
      const diff = await runPlugin(['diff', app, '--app-namespace', 'argocd', '-o', 'kv']);
      expect(kvValues(diff.stdout).SYNC).toEqual(['Synced']);
      expect(diff.code).toBe(0);
    },
    T,
  );

  it(
    'an extra object with Prune=false as well: the same verdicts, and prune lists what Argo CD lists',
    async () => {
      await extra('kept', { 'argocd.argoproj.io/sync-options': 'Prune=false' });
      const { argo } = await compare('options/prune-false');
      expect(argo.resources[`/ConfigMap/${ns}/kept`]).toMatchObject({ status: 'OutOfSync', requiresPruning: true });
      const argoPrune = Object.entries(argo.resources)
        .filter(([, r]) => r.requiresPruning)
        .map(([k]) => k.split('/').pop())
        .sort();
      expect(argoPrune).toEqual(['kept', 'tolerated']);
      const prune = kvValues((await runPlugin(['prune', app, '--app-namespace', 'argocd', '-o', 'kv'])).stdout);
      const ours = [...(prune.PRUNE ?? []), ...(prune.PRUNE_SKIPPED ?? []).map((l) => l.split(' ')[0]!)].map((k) => k.split('/').pop()).sort();
      expect(ours).toEqual(argoPrune);
      expect(prune.PRUNE_SKIPPED?.[0]).toMatch(/^ConfigMap\/kept /);
    },
    T,
  );
});
