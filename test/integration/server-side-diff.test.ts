// Server-side diff when the Application asks for it (Argo CD's compare-options ServerSideDiff=true, or the controller's
// controller.diff.server.side in argocd-cmd-params-cm, which an app's ServerSideDiff=false turns off): status and diff
// compare what the API server predicts for our apply (a dry-run PATCH per live object, seen in the -v 6 log) with live.
// The desired Deployment sets an env var to "" (the server stores it without `value`) and memory as 1024Mi (stored 1Gi).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import { createTestNamespace, deleteNamespace, kubectlOk, kvValues, runPlugin } from './support/index.js';

const TIMEOUT = 180_000;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.local/web:1
        env: [{name: EMPTY, value: ""}]
        resources: {limits: {memory: 1024Mi}}
`;

describe('ServerSideDiff', () => {
  let ns: string;
  let root: string;
  let desired: string;
  /** The one Application (shop) written with other compare-options to another file, named `name`. */
  const app = (name: string, compareOptions?: string) => {
    const file = join(root, `${name}.yaml`);
    const annotations = compareOptions ? `, annotations: {argocd.argoproj.io/compare-options: "${compareOptions}"}` : '';
    writeFileSync(
      file,
      `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop, namespace: ${ns}${annotations}}\nspec:\n  project: default\n  source: {repoURL: ${root}, path: desired}\n  destination: {server: https://kubernetes.default.svc, namespace: ${ns}}\n`,
    );
    return file;
  };
  /** status of an Application file: its SYNC and DRIFT lines, and how many dry-run PATCHes the -v 6 log shows. */
  const status = async (file: string, extra: string[] = []) => {
    const res = await runPlugin(['status', '-f', file, '--desired', desired, '--v=6', '-o', 'kv', ...extra]);
    expect(res.code).toBeLessThanOrEqual(1);
    const kv = kvValues(res.stdout);
    return { sync: kv.SYNC, dryRuns: res.stderr.split('\n').filter((l) => /^I PATCH \S+dryRun=All/.test(l)).length };
  };

  beforeAll(async () => {
    ns = await createTestNamespace('ssd');
    root = tempDir('kgitops-ssd');
    desired = join(root, 'desired');
    mkdirSync(desired);
    writeFileSync(join(desired, 'deploy.yaml'), DEPLOYMENT);
    const synced = await runPlugin(['sync', '-f', app('plain'), '--desired', desired, '-o', 'kv']);
    expect({ code: synced.code, out: synced.stdout }).toEqual({ code: 0, out: 'APPLIED=1\nPHASE=Succeeded\n' });
  }, TIMEOUT);
  afterAll(async () => {
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'the API server stored what we sent in its own form: Synced by server-side diff, with one dry-run; the client-side comparison sends none',
    async () => {
      const live = JSON.parse(await kubectlOk(['get', 'deployment', 'web', '-n', ns, '-o', 'json'])) as {
        spec: { template: { spec: { containers: { env: unknown; resources: unknown }[] } } };
      };
      expect(live.spec.template.spec.containers[0]).toMatchObject({ env: [{ name: 'EMPTY' }], resources: { limits: { memory: '1Gi' } } });
      expect(await status(app('ssd', 'ServerSideDiff=true'))).toEqual({ sync: ['Synced'], dryRuns: 1 });
      // Client-side, the same verdict without a request: the empty value is one the Deployment's Go type omits, and
      // 1024Mi is 1Gi (Argo CD's normalization of known types).
      expect(await status(app('plain'))).toEqual({ sync: ['Synced'], dryRuns: 0 });
      // diff reads the same option (no --server-side needed).
      const diff = await runPlugin(['diff', '-f', app('ssd', 'ServerSideDiff=true'), '--desired', desired, '-o', 'kv']);
      expect({ code: diff.code, out: diff.stdout }).toEqual({ code: 0, out: 'SYNC=Synced\n' });
    },
    TIMEOUT,
  );

  test(
    "the controller's setting turns it on for every app, an app's ServerSideDiff=false off; a change by hand is OutOfSync by server-side diff",
    async () => {
      const params = join(root, 'cmd-params.yaml');
      writeFileSync(params, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: argocd-cmd-params-cm}\ndata: {controller.diff.server.side: "true"}\n`);
      expect(await status(app('by-controller'), ['--argocd-cmd-params-cm', params])).toEqual({ sync: ['Synced'], dryRuns: 1 });
      expect((await status(app('opted-out', 'ServerSideDiff=false'), ['--argocd-cmd-params-cm', params])).dryRuns).toBe(0);

      await kubectlOk(['set', 'image', 'deployment/web', 'web=registry.local/web:2', '-n', ns]);
      const res = await runPlugin(['diff', '-f', app('ssd', 'ServerSideDiff=true'), '--desired', desired, '-o', 'kv']);
      expect(res.code).toBe(1);
      expect(kvValues(res.stdout).DRIFT).toEqual(['Deployment/web spec.template.spec.containers[name=web].image']);
    },
    TIMEOUT,
  );
});
