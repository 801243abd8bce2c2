// App-of-apps across two real clusters (issue #32: "children on other destinations go through their own destination
// resolution"): a parent on the shared local control plane whose child Application deploys to a second control plane of
// its own (its own etcd and API server, started by test/cluster/up under a state folder beside the first one's, stopped
// afterwards). With a kubeconfig that holds both contexts, `sync PARENT --recursive` applies the child Application on the
// first cluster and the child's objects on the second, where the child's destination points; nothing of the child's
// lands on the first. `status --recursive` compares the child on its own cluster (a change by hand there shows), and a
// kubeconfig without the second context refuses the child (exit 4) with nothing applied there.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse, stringify } from 'yaml';
import { GitFixture } from '../support/git-source.js';
import { tempDir } from '../support/temp-dir.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, clusterBin, createTestNamespace, deleteNamespace, kubeconfigPath, kubectl, pluginPath, repoRoot, run } from './support/index.js';

const TIMEOUT = 240_000;

interface Kubeconfig {
  clusters: { name: string; cluster: { server: string } & Record<string, unknown> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace?: string } }[];
  users: { name: string; user: Record<string, unknown> }[];
  'current-context'?: string;
}

describe('app-of-apps across two clusters', () => {
  const secondState = `${dirname(kubeconfigPath())}-second`;
  const up = (script: 'up' | 'down') =>
    spawnSync('bash', [join(repoRoot, 'test', 'cluster', script)], {
      env: { ...process.env, KGITOPS_CLUSTER_STATE: secondState, KGITOPS_CLUSTER_BIN: clusterBin() },
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
  let fx: GitFixture;
  let ns: string;
  let secondKubeconfig: string;
  let secondServer: string;
  let both: string;
  let firstOnly: string;
  let work: string;

  const plugin = (args: string[], kubeconfig: string) => run(pluginPath, [...args, '--kubeconfig', kubeconfig]);
  const onSecond = (args: string[]) => run(join(clusterBin(), 'kubectl'), [...args, '--kubeconfig', secondKubeconfig]);

  beforeAll(async () => {
    const started = up('up');
    if (started.status !== 0) throw new Error(`starting the second control plane: test/cluster/up exited ${started.status ?? started.signal}`);
    secondKubeconfig = started.stdout.trim().split('\n').pop() ?? '';
    work = tempDir('second-cluster');
    // One kubeconfig with both clusters' contexts (the second's names suffixed), the first one current.
    const first = parse(await kubectlOk(['config', 'view', '--raw', '--flatten'])) as Kubeconfig;
    const second = parse((await onSecondOk(['config', 'view', '--raw', '--flatten'])) as string) as Kubeconfig;
    const rename = (n: string) => `${n}-second`;
    secondServer = second.clusters[0]!.cluster.server;
    const merged: Kubeconfig = {
      ...first,
      clusters: [...first.clusters, ...second.clusters.map((c) => ({ ...c, name: rename(c.name) }))],
      users: [...first.users, ...second.users.map((u) => ({ ...u, name: rename(u.name) }))],
      contexts: [
        ...first.contexts,
        ...second.contexts.map((c) => ({ name: rename(c.name), context: { ...c.context, cluster: rename(c.context.cluster), user: rename(c.context.user) } })),
      ],
    };
    both = join(work, 'both.yaml');
    writeFileSync(both, stringify(merged));
    firstOnly = join(work, 'first.yaml');
    writeFileSync(firstOnly, stringify(first));

    fx = new GitFixture();
    ns = await createTestNamespace('two-clusters');
    fx.write('children/far/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: far-settings}\ndata: {where: second}\n');
    fx.write('children/near/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: near-settings}\ndata: {where: first}\n');
    const child = (name: string, path: string, destination: { server: string; namespace: string }) =>
      applicationYaml({
        name,
        namespace: ns,
        spec: {
          source: { repoURL: fx.repo, path, targetRevision: 'main' },
          destination,
          syncPolicy: { syncOptions: ['CreateNamespace=true'] },
        },
      });
    fx.write(
      'root/apps.yaml',
      [child('far', 'children/far', { server: secondServer, namespace: ns }), child('near', 'children/near', inCluster(ns))].join('---\n'),
    );
    fx.commit('two clusters');
    await applyYaml(
      applicationYaml({
        name: 'root',
        namespace: ns,
        spec: { source: { repoURL: fx.repo, path: 'root', targetRevision: 'main' }, destination: inCluster(ns) },
      }),
    );
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
    up('down');
  }, TIMEOUT);

  async function kubectlOk(args: string[]): Promise<string> {
    const res = await kubectl(args);
    if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
    return res.stdout;
  }

  async function onSecondOk(args: string[]): Promise<string> {
    const res = await onSecond(args);
    if (res.code !== 0) throw new Error(`kubectl (second cluster) ${args.join(' ')}: ${res.stderr}`);
    return res.stdout;
  }

  test(
    'without the second context the far child is refused (exit 4) and nothing of it is applied anywhere',
    async () => {
      const res = await plugin(['sync', 'root', '--recursive', '--app-namespace', ns, '-o', 'json'], firstOnly);
      expect(res.code).toBe(4);
      const report = JSON.parse(res.stdout) as { children: { name: string; outcome: string; message?: string }[] };
      expect(report.children[0]).toMatchObject({ name: 'far', outcome: 'refused' });
      expect(report.children[0]?.message).toContain(secondServer);
      expect((await onSecond(['get', 'configmap', 'far-settings', '-n', ns])).code).not.toBe(0);
      expect((await kubectl(['get', 'configmap', 'far-settings', '-n', ns])).code).not.toBe(0);
    },
    TIMEOUT,
  );

  test(
    'with both contexts: the far child deploys to the second cluster, the near one to the first, each where its destination says',
    async () => {
      const res = await plugin(['sync', 'root', '--recursive', '--app-namespace', ns, '-o', 'json'], both);
      expect(res.code).toBe(0);
      expect(res.stderr.trim().split('\n')).toEqual([`syncing child Application ${ns}/far (wave 0)`, `syncing child Application ${ns}/near (wave 0)`]);
      const report = JSON.parse(res.stdout) as { children: { name: string; outcome: string; sync?: string; health?: string }[] };
      expect(report.children.map((c) => [c.name, c.outcome, c.sync, c.health])).toEqual([
        ['far', 'synced', 'Synced', 'Healthy'],
        ['near', 'synced', 'Synced', 'Healthy'],
      ]);
      // The child Applications live on the first cluster (the parent's destination), their objects where theirs point.
      expect(JSON.parse(await kubectlOk(['get', 'application', 'far', '-n', ns, '-o', 'json'])).status?.sync?.status).toBe('Synced');
      expect(JSON.parse(await onSecondOk(['get', 'configmap', 'far-settings', '-n', ns, '-o', 'json'])).data).toEqual({ where: 'second' });
      expect((await kubectl(['get', 'configmap', 'far-settings', '-n', ns])).code).not.toBe(0);
      expect(JSON.parse(await kubectlOk(['get', 'configmap', 'near-settings', '-n', ns, '-o', 'json'])).data).toEqual({ where: 'first' });
      expect((await onSecond(['get', 'configmap', 'near-settings', '-n', ns])).code).not.toBe(0);

      // status --recursive compares the far child on the second cluster: a change by hand there shows.
      await onSecondOk(['patch', 'configmap', 'far-settings', '-n', ns, '--type', 'merge', '-p', '{"data":{"where":"by hand"}}']);
      const status = await plugin(['status', 'root', '--recursive', '--no-record', '--app-namespace', ns, '-o', 'json'], both);
      expect(status.code).toBe(0);
      const children = (JSON.parse(status.stdout) as { children: { name: string; sync: string }[] }).children;
      expect(children.map((c) => [c.name, c.sync])).toEqual([
        ['far', 'OutOfSync'],
        ['near', 'Synced'],
      ]);
    },
    TIMEOUT,
  );
});
