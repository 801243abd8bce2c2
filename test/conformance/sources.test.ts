// Multi-source Applications (spec.sources) through Argo CD's own controller and repo-server and through
// kubectl-gitops: a Helm chart whose value file comes from another repository by a `ref` source (`$config/…`), two
// directory sources from two repositories, and one repository read twice (a directory and the same repository's
// chart). Each app is synced once by Argo CD and once by kubectl-gitops (two Applications, two namespaces); both tools
// must read each other's sync Synced and Healthy, resource by resource, of the same commits (Argo CD's
// `status.sync.revisions`, our `sources[].revision`), and a Deployment scaled by hand OutOfSync on that Deployment.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, bothVerdicts, differences, onBothSides, rolledOut, summaries } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const deployment = (name: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
`;
const chart = 'apiVersion: v2\nname: board\nversion: 0.1.0\n';
const chartValues = 'replicas: 1\ngreeting: from-the-chart\n';
const chartTemplate = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-board
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Release.Name }}-board}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}-board}
    spec:
      containers:
        - name: board
          image: nginx:1.27
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-greeting
data:
  greeting: {{ .Values.greeting | quote }}
`;

describe('multi-source Applications through Argo CD and through kubectl-gitops', () => {
  const id = randomBytes(3).toString('hex');
  let app: GitFixture;
  let config: GitFixture;
  const namespaces: string[] = [];

  beforeAll(async () => {
    app = new GitFixture();
    app.write('web/deployment.yaml', deployment('web'));
    app.write('chart/Chart.yaml', chart);
    app.write('chart/values.yaml', chartValues);
    app.write('chart/templates/board.yaml', chartTemplate);
    app.commit('app');
    config = new GitFixture();
    config.write('values/prod.yaml', 'replicas: 2\ngreeting: from-the-config-repository\n');
    config.write('extra/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\ndata:\n  k: v\n');
    config.write('extra/deployment.yaml', deployment('extra'));
    config.commit('config');
  }, T);

  afterAll(async () => {
    app?.cleanup();
    config?.cleanup();
    for (const ns of namespaces) await deleteNamespace(ns);
  }, T);

  const appURL = () => pathToFileURL(app.repo).href;
  const configURL = () => pathToFileURL(config.repo).href;
  const cases: [string, () => Record<string, unknown>[], string, Record<string, string>][] = [
    [
      'helm-ref',
      () => [
        { repoURL: appURL(), path: 'chart', targetRevision: 'HEAD', helm: { releaseName: 'shop', valueFiles: ['$config/values/prod.yaml'] } },
        { repoURL: configURL(), targetRevision: 'HEAD', ref: 'config' },
      ],
      'shop-board',
      { 'apps/Deployment/<ns>/shop-board': 'Synced', '/ConfigMap/<ns>/shop-greeting': 'Synced' },
    ],
    [
      'two-repos',
      () => [
        { repoURL: appURL(), path: 'web', targetRevision: 'HEAD' },
        { repoURL: configURL(), path: 'extra', targetRevision: 'HEAD' },
      ],
      'web',
      { 'apps/Deployment/<ns>/web': 'Synced', 'apps/Deployment/<ns>/extra': 'Synced', '/ConfigMap/<ns>/extra': 'Synced' },
    ],
    [
      'one-repo-twice',
      () => [
        { repoURL: appURL(), path: 'web', targetRevision: 'HEAD' },
        { repoURL: appURL(), path: 'chart', targetRevision: 'HEAD', helm: { releaseName: 'second' } },
      ],
      'second-board',
      { 'apps/Deployment/<ns>/web': 'Synced', 'apps/Deployment/<ns>/second-board': 'Synced', '/ConfigMap/<ns>/second-greeting': 'Synced' },
    ],
  ];

  it.each(cases)(
    '%s: synced by Argo CD and by kubectl-gitops, each read Synced and Healthy by both, then a scaled Deployment OutOfSync in both',
    async (which, sources, scaled, synced) => {
      for (const by of ['argo', 'ours'] as const) {
        const ns = await createTestNamespace(`conf-src-${by === 'argo' ? 'a' : 'k'}`);
        namespaces.push(ns);
        const name = `src-${which}-${by === 'argo' ? 'a' : 'k'}-${id}`;
        await applyApplication(application({ name, repoURL: '', path: '', namespace: ns, sources: sources() }));
        if (by === 'argo') expect((await argoSync(name)).status?.operationState?.phase).toBe('Succeeded');
        else {
          const res = await runPlugin(['sync', name, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
          expect(res.code).toBe(0);
          // the commit of each source, in spec.sources order
          expect(res.stdout).toContain(
            `REVISION=${sources()
              .map((s) => (s.repoURL === appURL() ? app : config).git(['rev-parse', 'HEAD']))
              .join(',')}\n`,
          );
        }
        for (const d of ['web', 'extra', 'shop-board', 'second-board'].filter((n) => Object.keys(synced).some((k) => k.endsWith(`/${n}`))))
          await rolledOut(d, ns);
        const after = await bothVerdicts(name);
        expect(differences(after.argo, after.ours, ns).sort()).toEqual(expectedDifferences(`sources/${which}`));
        expect(summaries(after, ns)).toEqual(onBothSides({ app: 'Synced', ...synced }));
        expect([after.argo.health, after.ours.health]).toEqual(['Healthy', 'Healthy']);
        if (which === 'helm-ref') {
          // the chart's values came from the other repository, on both sides
          const cm = JSON.parse(await kubectlOk(['get', 'configmap', 'shop-greeting', '-n', ns, '-o', 'json'])) as { data: Record<string, string> };
          expect(cm.data.greeting).toBe('from-the-config-repository');
        }

        await kubectlOk(['scale', `deployment/${scaled}`, '-n', ns, '--replicas=3']);
        await rolledOut(scaled, ns);
        const drifted = await bothVerdicts(name);
        expect(differences(drifted.argo, drifted.ours, ns).sort()).toEqual(expectedDifferences(`sources/${which}`));
        expect(summaries(drifted, ns)).toEqual(onBothSides({ ...synced, app: 'OutOfSync', [`apps/Deployment/<ns>/${scaled}`]: 'OutOfSync' }));
      }
    },
    T,
  );
});
