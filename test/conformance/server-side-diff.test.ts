// Server-side diff through Argo CD's own controller and through kubectl-gitops: two Applications annotated
// `argocd.argoproj.io/compare-options: ServerSideDiff=true` (synced server-side, one by each tool) deploy a Deployment
// that declares values the API server stores in its own form (an env var's `value: ""`, memory `1024Mi`,
// `hostNetwork: false`). Both are compared from the API server's dry-run of the apply: Synced after each sync; after
// `kubectl set image` by hand, the same verdict again.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, bothVerdicts, differences, onBothSides, rolledOut, summaries } from './support/argocd.js';
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
          env: [{name: EMPTY, value: ""}]
          resources: {limits: {memory: 1024Mi}}
`;

describe('ServerSideDiff through Argo CD and through kubectl-gitops', () => {
  const id = randomBytes(3).toString('hex');
  const argoApp = `ssd-a-${id}`;
  const ourApp = `ssd-k-${id}`;
  let fx: GitFixture;
  let nsArgo: string;
  let nsOurs: string;
  const pairs = () =>
    [
      [argoApp, nsArgo],
      [ourApp, nsOurs],
    ] as const;
  const annotated = (app: Record<string, unknown>) => {
    const meta = app.metadata as Record<string, unknown>;
    return { ...app, metadata: { ...meta, annotations: { 'argocd.argoproj.io/compare-options': 'ServerSideDiff=true' } } };
  };
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
    nsArgo = await createTestNamespace('conf-ssd-a');
    nsOurs = await createTestNamespace('conf-ssd-k');
    for (const [name, namespace] of pairs())
      await applyApplication(annotated(application({ name, repoURL, path: 'app', namespace, syncOptions: ['ServerSideApply=true'] })));
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (nsArgo) await deleteNamespace(nsArgo);
    if (nsOurs) await deleteNamespace(nsOurs);
  }, T);

  it(
    'after each sync: both Synced',
    async () => {
      expect((await argoSync(argoApp)).status?.operationState?.phase).toBe('Succeeded');
      expect((await runPlugin(['sync', ourApp, '--app-namespace', 'argocd', '--no-record', '-o', 'kv'])).code).toBe(0);
      for (const [app, ns] of pairs()) {
        const both = await compare(app, ns, 'server-side-diff/after-sync');
        expect(summaries(both, ns)).toEqual(onBothSides({ app: 'Synced', 'apps/Deployment/<ns>/web': 'Synced' }));
      }
    },
    T,
  );

  it(
    'an image set by hand: the same verdict in both',
    async () => {
      for (const [app, ns] of pairs()) {
        // From Synced (the previous step's verdict for this app).
        await kubectlOk(['set', 'image', 'deployment/web', '-n', ns, 'web=nginx:1.28']);
        const both = await compare(app, ns, 'server-side-diff/after-set-image');
        // The dry-run of the apply would set the image back: drift, not a comparison error.
        expect(summaries(both, ns)).toEqual(onBothSides({ app: 'OutOfSync', 'apps/Deployment/<ns>/web': 'OutOfSync' }));
      }
    },
    T,
  );
});
