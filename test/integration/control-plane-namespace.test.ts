// Argo CD installed in a namespace other than `argocd` (`--argocd-namespace`, as openshift-gitops): the Applications live
// in the control-plane namespace, so their tracking marks carry the bare app name. A child Application (with Argo CD's
// resources finalizer) that its parent's `sync --prune` deletes is finished as `delete` finishes it, its objects deleted
// under that same namespace's rule; before 2026-12-07 the finishing looked for `<ns>_<name>` marks, deleted nothing and
// reported the deletion done, and `sync --recursive`, `status --recursive`, `list` and `status -A` compared the children
// against those marks too (found by an audit).
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin } from './support/index.js';

const TIMEOUT = 180_000;

describe('a control plane outside argocd (--argocd-namespace)', () => {
  let fx: GitFixture;
  let ns: string;

  const app = (name: string, path: string, finalizer = false) =>
    applicationYaml({
      name,
      namespace: ns,
      ...(finalizer ? { finalizers: ['resources-finalizer.argocd.argoproj.io'] } : {}),
      spec: { source: { repoURL: fx.repo, path, targetRevision: 'main' }, destination: inCluster(ns) },
    });
  const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns, '--argocd-namespace', ns, '--timeout', '90s', '-o', 'kv']);

  beforeAll(async () => {
    fx = new GitFixture();
    ns = await createTestNamespace('control-plane');
    fx.write('kid/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kid-cm}\ndata: {v: "1"}\n');
    fx.write('root/keep.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: root-cm}\ndata: {v: "1"}\n');
    fx.write('root/kid.yaml', app('kid', 'kid', true));
    fx.commit('root and kid');
    await applyYaml(app('root', 'root'));
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'a child pruned by its parent is finished with its objects, marked with the bare app name',
    async () => {
      const first = await plugin(['sync', 'root', '--recursive']);
      expect(first.code).toBe(0);
      const mark = await kubectlOk(['get', 'configmap', 'kid-cm', '-n', ns, '-o', 'jsonpath={.metadata.annotations.argocd\\.argoproj\\.io/tracking-id}']);
      expect(mark).toBe(`kid:/ConfigMap:${ns}/kid-cm`);
      // The fleet's verdicts read the same marks: list and status --recursive say what status APP says.
      const listed = await runPlugin(['list', '--app-namespace', ns, '--argocd-namespace', ns, '-o', 'kv']);
      expect(
        listed.stdout
          .split('\n')
          .filter((l) => l.startsWith('APP='))
          .map((l) => l.split(' ').slice(0, 3).join(' ')),
      ).toEqual([`APP=${ns}/kid Synced Healthy`, `APP=${ns}/root Synced Healthy`]);
      const tree = await plugin(['status', 'root', '--recursive', '--no-record']);
      expect(tree.stdout).toMatch(new RegExp(`^CHILD=${ns}/kid 1 Synced Healthy`, 'm'));

      fx.remove('root/kid.yaml');
      fx.commit('kid leaves the root');
      const pruned = await plugin(['sync', 'root', '--prune']);
      expect(pruned.code).toBe(0);
      expect(kvValues(pruned.stdout).PRUNED).toEqual([
        'Application/kid its deletion finished as delete would: 1 object(s) deleted (cascade foreground), the Application deleted',
      ]);
      expect((await kubectl(['get', 'configmap', 'kid-cm', '-n', ns])).stderr).toContain('NotFound');
      expect((await kubectl(['get', 'application', 'kid', '-n', ns])).stderr).toContain('NotFound');
      expect((await kubectl(['get', 'configmap', 'root-cm', '-n', ns])).code).toBe(0);
    },
    TIMEOUT,
  );
});
