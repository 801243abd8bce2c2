// App-of-apps handed over to Argo CD (issue #32): a parent whose render is two child Applications in two waves, synced
// with `kubectl gitops sync --recursive` before any Argo CD sees the parent, reads Synced and Healthy in Argo CD —
// the children at a hard refresh, the parent at its first reconciliation — and Argo CD's own syncs of the parent and a
// child recreate nothing.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GitFixture } from '../support/git-source.js';
import { createTestNamespace, deleteNamespace, runPlugin } from '../integration/support/index.js';
import { applyApplication, application, argoSync, argoVerdict, firstReconciliation, hardRefresh, liveObject } from './support/argocd.js';

const T = 240_000;

describe('app-of-apps synced by kubectl-gitops, then Argo CD', () => {
  const id = randomBytes(3).toString('hex');
  let fx: GitFixture;
  let ns: string;

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  it(
    'sync --recursive: parent and children Synced and Healthy in Argo CD at once, and its syncs recreate nothing',
    async () => {
      fx = new GitFixture();
      ns = await createTestNamespace('conf-app-of-apps');
      const repoURL = pathToFileURL(fx.repo).href;
      const children = [
        { name: `child-a-${id}`, path: 'children/a', wave: 0 },
        { name: `child-b-${id}`, path: 'children/b', wave: 1 },
      ];
      for (const c of children) {
        fx.write(`${c.path}/cm.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${c.name}}\ndata: {wave: "${c.wave}"}\n`);
      }
      // The children as Argo CD users write them: Applications in argocd, each with its sync wave.
      const childApps = children.map((c) => {
        const app = application({ name: c.name, repoURL, path: c.path, namespace: ns }) as { metadata: Record<string, unknown> };
        app.metadata.annotations = { 'argocd.argoproj.io/sync-wave': String(c.wave) };
        return JSON.stringify(app);
      });
      fx.write('root/apps.yaml', childApps.join('\n---\n'));
      fx.commit('app of apps');

      // The parent lives only in a file while kubectl-gitops syncs it (no Argo CD sees it yet); its children are
      // Applications in argocd, which Argo CD compares (manual policy: it never syncs them) as soon as they exist.
      const parentName = `root-${id}`;
      const parent = application({ name: parentName, repoURL, path: 'root', namespace: 'argocd' });
      const file = join(fx.root, 'root.yaml');
      writeFileSync(file, JSON.stringify(parent));
      const synced = await runPlugin(['sync', '-f', file, '--recursive', '--timeout', '2m', '-o', 'json']);
      expect({ code: synced.code, errors: synced.stderr.split('\n').filter((l) => /^error/.test(l)) }).toEqual({ code: 0, errors: [] });
      const report = JSON.parse(synced.stdout) as { children: { name: string; outcome: string }[] };
      expect(report.children.map((c) => [c.name, c.outcome])).toEqual(children.map((c) => [c.name, 'synced']));

      const uids = async () => [
        ...(await Promise.all(children.map(async (c) => String((await liveObject('configmap', c.name, ns))?.metadata?.uid)))),
        ...(await Promise.all(children.map(async (c) => String((await liveObject('applications.argoproj.io', c.name, 'argocd'))?.metadata?.uid)))),
      ];
      const before = await uids();

      for (const c of children) {
        const child = await hardRefresh(c.name);
        expect([c.name, child.status?.sync?.status, child.status?.health?.status]).toEqual([c.name, 'Synced', 'Healthy']);
      }
      await applyApplication(parent);
      const first = await firstReconciliation(parentName);
      expect([first.status?.sync?.status, first.status?.health?.status]).toEqual(['Synced', 'Healthy']);
      expect(argoVerdict(first).resources).toEqual(
        expect.objectContaining(
          Object.fromEntries(children.map((c) => [`argoproj.io/Application/argocd/${c.name}`, expect.objectContaining({ status: 'Synced' })])),
        ),
      );

      // Argo CD's own syncs (client-side apply over our server-side apply) of the parent and of a child.
      for (const name of [parentName, children[0]!.name]) expect((await argoSync(name)).status?.operationState?.phase).toBe('Succeeded');
      expect(await uids()).toEqual(before);
      const after = await hardRefresh(parentName);
      expect([after.status?.sync?.status, after.status?.health?.status]).toEqual(['Synced', 'Healthy']);
    },
    T,
  );
});
