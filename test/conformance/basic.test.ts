// The same small app (a ConfigMap, a Deployment, a Service) through Argo CD's own controller and through
// kubectl-gitops: before a sync, after each tool's sync (the objects and the fields each one owns), after
// drift made by hand (scale, set image, an extra object with the app's mark), after a field removed from
// Git, and the prune candidates. Argo CD's verdict is read from the Application after a hard refresh. Each drift
// step starts from the app synced again and read Synced by both, and expects each side's verdict outright (the
// app's and every resource's), not only that the two agree.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, bothVerdicts, differences, liveObject, onBothSides, rolledOut, summaries } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const deployment = (env: boolean) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          ports: [{containerPort: 80}]
${env ? '          env: [{name: MODE, value: conformance}]\n' : ''}          resources:
            requests: {cpu: 100m, memory: 64Mi}
`;
const service = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 80}]
`;
const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  greeting: hello
`;

/** managedFields by manager and operation (status writers left out), for comparing what each sync owns. */
function owned(obj: Record<string, any> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const e of (obj?.metadata?.managedFields ?? []) as { manager: string; operation: string; subresource?: string; fieldsV1: unknown }[]) {
    if (e.subresource) continue;
    out[`${e.manager} ${e.operation}`] = e.fieldsV1;
  }
  return out;
}

describe('one small app through Argo CD and through kubectl-gitops', () => {
  const id = randomBytes(3).toString('hex');
  const argoApp = `basic-a-${id}`;
  const ourApp = `basic-k-${id}`;
  const clientApp = `basic-c-${id}`;
  let fx: GitFixture;
  let nsArgo: string;
  let nsOurs: string;
  let nsClient: string;
  let repoURL: string;

  const compare = async (app: string, ns: string, step: string) => {
    const { argo, ours } = await bothVerdicts(app);
    expect(differences(argo, ours, ns).sort()).toEqual(expectedDifferences(step));
    return { argo, ours };
  };
  /** The app's three objects with one sync status each, and the app's own. */
  const all = (app: string, deployment = app) => ({
    app,
    '/ConfigMap/<ns>/settings': 'Synced',
    'apps/Deployment/<ns>/web': deployment,
    '/Service/<ns>/web': 'Synced',
  });
  /**
   * Puts kubectl-gitops's copy back to Git (a sync with --prune that takes over what `kubectl` changed) and checks that
   * both read it Synced, so that the drift step after it starts from nothing out of sync.
   */
  const reset = async (step: string) => {
    const repaired = await runPlugin(['sync', ourApp, '--app-namespace', 'argocd', '--no-record', '--prune', '--force-conflicts', '-o', 'kv']);
    expect(repaired.code).toBe(0);
    await rolledOut('web', nsOurs);
    expect(summaries(await compare(ourApp, nsOurs, step), nsOurs)).toEqual(onBothSides(all('Synced', 'Synced')));
  };

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/configmap.yaml', configMap);
    fx.write('app/deployment.yaml', deployment(true));
    fx.write('app/service.yaml', service);
    fx.commit('app');
    repoURL = pathToFileURL(fx.repo).href;
    nsArgo = await createTestNamespace('conf-basic-a');
    nsOurs = await createTestNamespace('conf-basic-k');
    nsClient = await createTestNamespace('conf-basic-c');
    await applyApplication(application({ name: argoApp, repoURL, path: 'app', namespace: nsArgo, syncOptions: ['ServerSideApply=true'] }));
    await applyApplication(application({ name: ourApp, repoURL, path: 'app', namespace: nsOurs }));
    await applyApplication(application({ name: clientApp, repoURL, path: 'app', namespace: nsClient }));
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (nsArgo) await deleteNamespace(nsArgo);
    if (nsOurs) await deleteNamespace(nsOurs);
    if (nsClient) await deleteNamespace(nsClient);
  }, T);

  it(
    'before any sync: both OutOfSync, every resource missing',
    async () => {
      const both = await compare(argoApp, nsArgo, 'basic/before-sync');
      expect(summaries(both, nsArgo)).toEqual(
        onBothSides({ app: 'OutOfSync', '/ConfigMap/<ns>/settings': 'OutOfSync', 'apps/Deployment/<ns>/web': 'OutOfSync', '/Service/<ns>/web': 'OutOfSync' }),
      );
    },
    T,
  );

  it(
    "after each tool's sync: both Synced and Healthy, and each sync owns the same fields",
    async () => {
      const synced = await argoSync(argoApp);
      expect(synced.status?.operationState?.phase).toBe('Succeeded');
      const ours = await runPlugin(['sync', ourApp, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
      expect(ours.code).toBe(0);
      await rolledOut('web', nsArgo);
      await rolledOut('web', nsOurs);

      for (const [app, ns] of [
        [argoApp, nsArgo],
        [ourApp, nsOurs],
      ] as const) {
        const both = await compare(app, ns, 'basic/after-sync');
        expect(summaries(both, ns)).toEqual(onBothSides(all('Synced')));
        expect([both.argo.health, both.ours.health]).toEqual(['Healthy', 'Healthy']);
      }
      // Argo CD applied server-side (ServerSideApply=true), as kubectl-gitops always does: the same manager
      // owns the same fields of every object.
      for (const [kind, name] of [
        ['deployment', 'web'],
        ['service', 'web'],
        ['configmap', 'settings'],
      ]) {
        const a = owned(await liveObject(kind!, name!, nsArgo));
        const k = owned(await liveObject(kind!, name!, nsOurs));
        expect(Object.keys(a)).toContain('argocd-controller Apply');
        expect(k).toEqual(a);
      }
    },
    T,
  );

  it(
    "after Argo CD's default (client-side) sync: Synced and Healthy in both, the fields owned by an Update (C3)",
    async () => {
      const synced = await argoSync(clientApp);
      expect(synced.status?.operationState?.phase).toBe('Succeeded');
      await rolledOut('web', nsClient);
      const both = await compare(clientApp, nsClient, 'basic/after-client-side-sync');
      expect(summaries(both, nsClient)).toEqual(onBothSides(all('Synced')));
      expect([both.argo.health, both.ours.health]).toEqual(['Healthy', 'Healthy']);
      const lines: string[] = [];
      for (const [kind, name] of [
        ['deployment', 'web'],
        ['service', 'web'],
        ['configmap', 'settings'],
      ]) {
        const a = Object.keys(owned(await liveObject(kind!, name!, nsClient))).sort();
        const k = Object.keys(owned(await liveObject(kind!, name!, nsOurs))).sort();
        if (JSON.stringify(a) !== JSON.stringify(k)) lines.push(`${kind} managers: Argo CD client-side ${a.join(', ')}, kubectl-gitops ${k.join(', ')}`);
      }
      expect(lines.sort()).toEqual(expectedDifferences('basic/managers-client-side'));
    },
    T,
  );

  it(
    'after a scale by hand (from Synced): both OutOfSync on the Deployment, and only there',
    async () => {
      await reset('basic/before-scale');
      await kubectlOk(['scale', 'deployment/web', '-n', nsOurs, '--replicas=3']);
      const both = await compare(ourApp, nsOurs, 'basic/after-scale');
      expect(summaries(both, nsOurs)).toEqual(onBothSides(all('OutOfSync', 'OutOfSync')));
    },
    T,
  );

  it(
    'after a set image by hand (from Synced again, the scale undone): both OutOfSync on the Deployment, and only there',
    async () => {
      await reset('basic/before-set-image');
      await kubectlOk(['set', 'image', 'deployment/web', '-n', nsOurs, 'web=nginx:1.28']);
      await rolledOut('web', nsOurs);
      expect((await liveObject('deployment', 'web', nsOurs))?.spec?.replicas).toBe(2);
      const both = await compare(ourApp, nsOurs, 'basic/after-set-image');
      expect(summaries(both, nsOurs)).toEqual(onBothSides(all('OutOfSync', 'OutOfSync')));
    },
    T,
  );

  it(
    'an extra object with the mark (from Synced): both list it as requiring pruning, and prune lists what Argo CD lists',
    async () => {
      await reset('basic/before-extra');
      await kubectlOk(['apply', '-n', nsOurs, '-f', '-'], {
        stdin: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'leftover', annotations: { 'argocd.argoproj.io/tracking-id': `${ourApp}:/ConfigMap:${nsOurs}/leftover` } },
          data: { a: 'b' },
        }),
      });
      const both = await compare(ourApp, nsOurs, 'basic/after-extra');
      expect(summaries(both, nsOurs)).toEqual(onBothSides({ ...all('OutOfSync', 'Synced'), '/ConfigMap/<ns>/leftover': 'OutOfSync, requires pruning' }));
      const prune = await runPlugin(['prune', ourApp, '--app-namespace', 'argocd', '-o', 'kv']);
      expect(kvValues(prune.stdout).PRUNE).toEqual(['ConfigMap/leftover']);
    },
    T,
  );

  it(
    'a field removed from Git (env) after a sync (all three copies Synced first): both OutOfSync on the Deployment',
    async () => {
      // Repair the drift first (kubectl-gitops sync with --prune), so the removed field is the only change; the two
      // copies Argo CD synced were never touched since, and must read Synced as well.
      await reset('basic/after-repair');
      expect(summaries(await compare(argoApp, nsArgo, 'basic/before-field-removed-argo-synced'), nsArgo)).toEqual(onBothSides(all('Synced')));
      expect(summaries(await compare(clientApp, nsClient, 'basic/before-field-removed-client-side'), nsClient)).toEqual(onBothSides(all('Synced')));
      fx.write('app/deployment.yaml', deployment(false));
      fx.commit('no env');
      // Both apps read the same repository: the one kubectl-gitops synced (Argo CD cannot see the removal there: C1),
      // and the one Argo CD synced server-side.
      const ours = await compare(ourApp, nsOurs, 'basic/after-field-removed');
      expect(summaries(ours, nsOurs)).toEqual({ argo: all('Synced'), ours: all('OutOfSync', 'OutOfSync') });
      const argo = await compare(argoApp, nsArgo, 'basic/after-field-removed-argo-synced');
      expect(summaries(argo, nsArgo)).toEqual(onBothSides(all('OutOfSync', 'OutOfSync')));
      // Argo CD applied this one client-side: both see the removal through last-applied-configuration (the
      // three-way rule; this suite found the disagreement before main's removed-field fix for client-side objects).
      const client = await compare(clientApp, nsClient, 'basic/after-field-removed-client-side');
      expect(summaries(client, nsClient)).toEqual(onBothSides(all('OutOfSync', 'OutOfSync')));
    },
    T,
  );
});
