// How lists are compared, through Argo CD's own controller and through kubectl-gitops: after a sync (Argo CD's
// default client-side one, whose object carries a last-applied configuration, and kubectl-gitops's server-side
// one, whose object carries none), a sidecar, an env var and a port added by hand leave both Synced (those lists
// merge by key); an argument added to `args` (an atomic list) makes both OutOfSync. The Deployment declares empty
// values its stored object leaves out (an env var's `value: ""`, `workingDir: ""`, `hostNetwork: false`): both Synced
// after the sync all the same (kubectl-gitops said OutOfSync before it dropped them as Argo CD's normalization does).
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, bothVerdicts, differences, liveObject, onBothSides, rolledOut, summaries } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      hostNetwork: false
      containers:
        - name: web
          image: nginx:1.27
          args: [--a]
          env: [{name: MODE, value: conformance}, {name: EMPTY, value: ""}]
          workingDir: ""
          ports: [{containerPort: 80}]
`;

const patch = (ns: string, body: object) => kubectlOk(['patch', 'deployment', 'web', '-n', ns, '--type=strategic', '-p', JSON.stringify(body)]);
const containers = (list: object[]) => ({ spec: { template: { spec: { containers: list } } } });

describe('lists through Argo CD and through kubectl-gitops', () => {
  const id = randomBytes(3).toString('hex');
  const clientApp = `lists-c-${id}`;
  const ourApp = `lists-k-${id}`;
  let fx: GitFixture;
  let nsClient: string;
  let nsOurs: string;

  const compare = async (app: string, ns: string, step: string) => {
    await rolledOut('web', ns);
    const { argo, ours } = await bothVerdicts(app);
    expect(differences(argo, ours, ns).sort()).toEqual(expectedDifferences(step));
    return { argo, ours };
  };

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/deployment.yaml', deployment);
    fx.commit('app');
    const repoURL = pathToFileURL(fx.repo).href;
    nsClient = await createTestNamespace('conf-lists-c');
    nsOurs = await createTestNamespace('conf-lists-k');
    await applyApplication(application({ name: clientApp, repoURL, path: 'app', namespace: nsClient }));
    await applyApplication(application({ name: ourApp, repoURL, path: 'app', namespace: nsOurs }));
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (nsClient) await deleteNamespace(nsClient);
    if (nsOurs) await deleteNamespace(nsOurs);
  }, T);

  it(
    'after each sync: both Synced',
    async () => {
      expect((await argoSync(clientApp)).status?.operationState?.phase).toBe('Succeeded');
      expect((await runPlugin(['sync', ourApp, '--app-namespace', 'argocd', '--no-record', '-o', 'kv'])).code).toBe(0);
      for (const [app, ns] of [
        [clientApp, nsClient],
        [ourApp, nsOurs],
      ] as const) {
        const both = await compare(app, ns, 'lists/after-sync');
        expect(summaries(both, ns)).toEqual(onBothSides({ app: 'Synced', 'apps/Deployment/<ns>/web': 'Synced' }));
      }
    },
    T,
  );

  it(
    'a sidecar, an env var and a port added by hand: both Synced, with and without a last-applied configuration',
    async () => {
      for (const [app, ns] of [
        [clientApp, nsClient],
        [ourApp, nsOurs],
      ] as const) {
        await patch(ns, containers([{ name: 'proxy', image: 'envoy:1' }]));
        await kubectlOk(['set', 'env', 'deployment/web', '-n', ns, '-c', 'web', 'DEBUG=1']);
        await patch(ns, containers([{ name: 'web', ports: [{ containerPort: 9090 }] }]));
        // The additions are there (a Synced verdict must not come from drift that never happened).
        const spec = (await liveObject('deployment', 'web', ns))?.spec?.template?.spec;
        const web = spec?.containers?.find((c: { name: string }) => c.name === 'web');
        expect({
          containers: spec?.containers?.map((c: { name: string }) => c.name).sort(),
          env: web?.env?.map((e: { name: string }) => e.name),
          ports: web?.ports?.map((p: { containerPort: number }) => p.containerPort).sort(),
        }).toEqual({ containers: ['proxy', 'web'], env: ['MODE', 'EMPTY', 'DEBUG'], ports: [80, 9090] });
        const both = await compare(app, ns, 'lists/after-hand-additions');
        expect(summaries(both, ns)).toEqual(onBothSides({ app: 'Synced', 'apps/Deployment/<ns>/web': 'Synced' }));
      }
    },
    T,
  );

  it(
    'an argument added to args (an atomic list): both OutOfSync on the Deployment',
    async () => {
      for (const [app, ns] of [
        [clientApp, nsClient],
        [ourApp, nsOurs],
      ] as const) {
        // From Synced: the previous step read both apps Synced, the additions kept.
        await patch(ns, containers([{ name: 'web', args: ['--a', '--b'] }]));
        const both = await compare(app, ns, 'lists/after-args');
        expect(summaries(both, ns)).toEqual(onBothSides({ app: 'OutOfSync', 'apps/Deployment/<ns>/web': 'OutOfSync' }));
      }
    },
    T,
  );
});
