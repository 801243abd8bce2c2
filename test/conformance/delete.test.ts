// Deleting an Application, through Argo CD's own controller and through kubectl-gitops: the same app synced into two
// namespaces, one deleted by Argo CD (its resources finalizer, `kubectl delete application`), the other by
// `kubectl gitops delete`. Afterwards the same objects remain in both: Delete=false and Helm's keep, the PostDelete
// hook whose policy keeps it, and the unmarked bystander; the waves, the other PostDelete hook (HookSucceeded) and the
// Application are gone. And an app Argo CD synced, with a hook it made from generateName, deleted by kubectl-gitops:
// nothing is left (Argo CD's deletion takes every object its mark names).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, pollFor } from './support/argocd.js';

const T = 300_000;

const cm = (name: string, annotations: Record<string, string> = {}) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations: ${JSON.stringify(annotations)}\ndata:\n  k: v\n`;

/** The namespace's ConfigMaps and Services (the root CA ConfigMap left out), as `Kind/name`, sorted. */
async function remaining(ns: string): Promise<string[]> {
  const list = JSON.parse(await kubectlOk(['get', 'configmaps,services', '-n', ns, '-o', 'json'])) as { items: { kind: string; metadata: { name: string } }[] };
  return list.items
    .filter((o) => o.metadata.name !== 'kube-root-ca.crt')
    .map((o) => `${o.kind}/${o.metadata.name}`)
    .sort();
}

describe('deleting an Application', () => {
  const id = randomBytes(3).toString('hex');
  let fx: GitFixture;
  const namespaces: string[] = [];

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/w0.yaml', cm('wave-0'));
    fx.write('app/w1.yaml', cm('wave-1', { 'argocd.argoproj.io/sync-wave': '1' }));
    fx.write(
      'app/svc.yaml',
      `apiVersion: v1\nkind: Service\nmetadata: {name: svc, annotations: {argocd.argoproj.io/sync-wave: "2"}}\nspec:\n  selector: {app: none}\n  ports: [{port: 80}]\n`,
    );
    fx.write('app/stay.yaml', cm('stay', { 'argocd.argoproj.io/sync-options': 'Delete=false' }));
    fx.write('app/helm-keep.yaml', cm('helm-keep', { 'helm.sh/resource-policy': 'keep' }));
    fx.write('app/post-kept.yaml', cm('post-kept', { 'argocd.argoproj.io/hook': 'PostDelete', 'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation' }));
    fx.write(
      'app/post-removed.yaml',
      cm('post-removed', { 'argocd.argoproj.io/hook': 'PostDelete', 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' }),
    );
    // An app whose PreSync hook is declared with generateName only: Argo CD's sync marks it before naming it.
    fx.write('generated/plain.yaml', cm('plain'));
    fx.write(
      'generated/hook.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: gen-\n  annotations: {argocd.argoproj.io/hook: PreSync}\ndata:\n  k: v\n',
    );
    fx.commit('app');
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    for (const ns of namespaces) await deleteNamespace(ns);
  }, T);

  it(
    'the same objects remain after Argo CD deletes the app and after kubectl-gitops does',
    async () => {
      const repoURL = pathToFileURL(fx.repo).href;
      const nsArgo = await createTestNamespace('conf-delete-a');
      const nsOurs = await createTestNamespace('conf-delete-k');
      namespaces.push(nsArgo, nsOurs);
      for (const ns of [nsArgo, nsOurs]) await kubectlOk(['create', 'configmap', 'bystander', '-n', ns, '--from-literal=k=v']);
      const expected = ['ConfigMap/bystander', 'ConfigMap/helm-keep', 'ConfigMap/post-kept', 'ConfigMap/stay'];

      // Argo CD: synced by its controller, then deleted as `kubectl delete application` with the resources finalizer.
      const argoName = `del-argo-${id}`;
      const argoApp = application({ name: argoName, repoURL, path: 'app', namespace: nsArgo });
      (argoApp.metadata as Record<string, unknown>).finalizers = ['resources-finalizer.argocd.argoproj.io'];
      await applyApplication(argoApp);
      expect((await argoSync(argoName)).status?.operationState?.phase).toBe('Succeeded');
      expect(await remaining(nsArgo)).toEqual([
        'ConfigMap/bystander',
        'ConfigMap/helm-keep',
        'ConfigMap/stay',
        'ConfigMap/wave-0',
        'ConfigMap/wave-1',
        'Service/svc',
      ]);
      // Argo CD adds its post-delete finalizers once it has seen the PostDelete hooks in a comparison.
      await pollFor('the post-delete finalizer', async () => {
        const app = JSON.parse(await kubectlOk(['get', 'applications.argoproj.io', argoName, '-n', 'argocd', '-o', 'json'])) as {
          metadata: { finalizers?: string[] };
        };
        return app.metadata.finalizers?.includes('post-delete-finalizer.argocd.argoproj.io') ? true : undefined;
      });
      await kubectlOk(['delete', 'applications.argoproj.io', argoName, '-n', 'argocd', '--wait=false']);
      await pollFor(
        "Argo CD's deletion of the app",
        async () => ((await kubectl(['get', 'applications.argoproj.io', argoName, '-n', 'argocd'])).code !== 0 ? true : undefined),
        180_000,
      );

      // kubectl-gitops: the same app from a file (no Argo CD sees it), synced, then deleted.
      const ourName = `del-ours-${id}`;
      const file = join(fx.root, `${ourName}.yaml`);
      writeFileSync(file, JSON.stringify(application({ name: ourName, repoURL, path: 'app', namespace: nsOurs })));
      expect((await runPlugin(['sync', '-f', file, '-o', 'kv'])).code).toBe(0);
      const deleted = await runPlugin(['delete', '-f', file, '--yes', '-o', 'kv']);
      expect(deleted.stderr).toBe('');
      expect(deleted.code).toBe(0);
      expect(kvValues(deleted.stdout).DELETED).toEqual(['Service/svc', 'ConfigMap/wave-1', 'ConfigMap/wave-0']);

      expect(await remaining(nsArgo)).toEqual(expected);
      expect(await remaining(nsOurs)).toEqual(expected);
    },
    T,
  );

  it(
    "an app Argo CD synced, whose hook it made from generateName, deleted by kubectl-gitops: nothing of it is left, as after Argo CD's own deletion",
    async () => {
      const repoURL = pathToFileURL(fx.repo).href;
      const ns = await createTestNamespace('conf-delete-g');
      namespaces.push(ns);
      const name = `del-gen-${id}`;
      await applyApplication(application({ name, repoURL, path: 'generated', namespace: ns }));
      expect((await argoSync(name)).status?.operationState?.phase).toBe('Succeeded');
      const made = (await remaining(ns)).filter((o) => o.startsWith('ConfigMap/gen-'));
      expect(made).toHaveLength(1);
      // its tracking-id has no name (`app:/ConfigMap:ns/`): until 2026-12-07 `delete` took it for a copied mark and left it
      const deleted = await runPlugin(['delete', name, '--app-namespace', 'argocd', '--yes', '-o', 'kv']);
      expect(deleted.code).toBe(0);
      expect(kvValues(deleted.stdout).DELETED?.sort()).toEqual(['ConfigMap/plain', made[0]].sort());
      expect(await remaining(ns)).toEqual([]);
    },
    T,
  );
});
