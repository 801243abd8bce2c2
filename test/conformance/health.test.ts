// Broken Deployments through Argo CD's own controller and through kubectl-gitops: one no node can take
// (Progressing) and one past its progress deadline (Degraded), health status and message per resource
// and for the app.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, bothVerdicts, differences, liveObject, onBothSides, pollFor, summaries } from './support/argocd.js';
import { expectedDifferences } from './support/known-differences.js';

const T = 240_000;

const unschedulable = (name: string, deadline?: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
${deadline ? `  progressDeadlineSeconds: ${deadline}\n` : ''}  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      nodeSelector: {conformance.example/none: "true"}
      containers:
        - name: main
          image: nginx:1.27
`;

describe('broken Deployments through Argo CD and through kubectl-gitops', () => {
  const app = `health-${randomBytes(3).toString('hex')}`;
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/stuck.yaml', unschedulable('stuck'));
    fx.write('app/late.yaml', unschedulable('late', 5));
    fx.commit('app');
    ns = await createTestNamespace('conf-health');
    await applyApplication(application({ name: app, repoURL: pathToFileURL(fx.repo).href, path: 'app', namespace: ns }));
    const synced = await runPlugin(['sync', app, '--app-namespace', 'argocd', '--no-record', '-o', 'kv']);
    expect(synced.code).toBe(0);
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  it(
    'a pod no node takes, and a Deployment past its progress deadline: the same health and messages',
    async () => {
      // The deployment controller marks `late` once its 5 s deadline has passed.
      await pollFor('the progress deadline of deployment/late', async () => {
        const d = await liveObject('deployment', 'late', ns);
        const progressing = (d?.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Progressing');
        return progressing?.reason === 'ProgressDeadlineExceeded' ? true : undefined;
      });
      const { argo, ours } = await bothVerdicts(app);
      expect(differences(argo, ours, ns).sort()).toEqual(expectedDifferences('health/broken'));
      expect(argo.resources[`apps/Deployment/${ns}/late`]?.health).toBe('Degraded');
      expect(argo.resources[`apps/Deployment/${ns}/stuck`]?.health).toBe('Progressing');
      expect(summaries({ argo, ours }, ns)).toEqual(
        onBothSides({ app: 'Synced', 'apps/Deployment/<ns>/late': 'Synced', 'apps/Deployment/<ns>/stuck': 'Synced' }),
      );
      expect([argo.health, ours.health]).toEqual(['Degraded', 'Degraded']);
    },
    T,
  );
});
