// Prune=confirm on the local control plane, as Argo CD runs it: a sync applies, holds every prune and stays Running
// ("Waiting for pruning confirmation of ...", exit 3) until the deletion is approved, by the Application's
// argocd.argoproj.io/deletion-approved annotation written after the waiting operation started, or by --confirm-prune.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectl, kubectlOk, kvValues, runPlugin } from './support/index.js';

const T = 150_000;

const cm = (name: string, annotations: Record<string, string> = {}) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations: ${JSON.stringify(annotations)}\ndata:\n  k: v\n`;

/** A time as Kubernetes and `date -u +%FT%TZ` write it (whole seconds). */
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');

describe('Prune=confirm: nothing is pruned until the deletion is approved', () => {
  let fx: GitFixture;
  let ns: string;

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('app/a.yaml', cm('keep-a'));
    fx.write('app/b.yaml', cm('drop-b'));
    fx.write('app/c.yaml', cm('drop-c'));
    fx.write('annotated/a.yaml', cm('ann-a'));
    fx.write('annotated/b.yaml', cm('ann-b', { 'argocd.argoproj.io/sync-options': 'Prune=confirm' }));
    fx.commit('v1');
    ns = await createTestNamespace('prune-confirm');
  }, T);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, T);

  const exists = async (name: string) => (await kubectl(['get', 'configmap', name, '-n', ns, '-o', 'name'])).code === 0;
  const operation = async () =>
    (JSON.parse(await kubectlOk(['get', 'application', 'confirmed', '-n', ns, '-o', 'json'])) as { status?: { operationState?: Record<string, unknown> } })
      .status?.operationState ?? {};

  test(
    'app-level Prune=confirm: applied, held and Running (exit 3); an approval older than the wait does not count; one written after it prunes',
    async () => {
      await applyYaml(
        applicationYaml({
          name: 'confirmed',
          namespace: ns,
          spec: {
            source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' },
            destination: inCluster(ns),
            syncPolicy: { syncOptions: ['Prune=confirm'] },
          },
        }),
      );
      const plugin = (args: string[]) => runPlugin([...args, '--app-namespace', ns]);
      expect((await plugin(['sync', 'confirmed', '-o', 'kv'])).code).toBe(0);
      fx.remove('app/b.yaml');
      fx.remove('app/c.yaml');
      fx.commit('drop b and c');

      const held = await plugin(['sync', 'confirmed', '--prune', '-o', 'kv']);
      expect(held.code).toBe(3);
      const kv = kvValues(held.stdout);
      expect(kv.APPLIED).toEqual(['1']);
      expect(kv.PRUNE_WAITING).toEqual(['Waiting for pruning confirmation of v1/ConfigMap/drop-c and 1 more resources']);
      expect(kv.PRUNED).toBeUndefined();
      expect(kv.NEXT_COMMAND?.[0]).toMatch(/^kubectl gitops sync confirmed --prune -o kv --app-namespace \S+ --kubeconfig \S+ --confirm-prune$/);
      expect([await exists('drop-b'), await exists('drop-c')]).toEqual([true, true]);
      const waiting = await operation();
      expect([waiting.phase, waiting.message, 'finishedAt' in waiting]).toEqual([
        'Running',
        'Waiting for pruning confirmation of v1/ConfigMap/drop-c and 1 more resources',
        false,
      ]);

      // An approval dated before the waiting operation started approves something earlier, not this.
      const started = Date.parse(waiting.startedAt as string);
      await kubectlOk(['annotate', 'application', 'confirmed', '-n', ns, `argocd.argoproj.io/deletion-approved=${rfc3339(started - 60_000)}`]);
      const stale = await plugin(['sync', 'confirmed', '--prune', '-o', 'kv']);
      expect(stale.code).toBe(3);
      expect([await exists('drop-b'), await exists('drop-c')]).toEqual([true, true]);

      await kubectlOk(['annotate', 'application', 'confirmed', '-n', ns, '--overwrite', `argocd.argoproj.io/deletion-approved=${rfc3339(Date.now())}`]);
      const approved = await plugin(['sync', 'confirmed', '--prune', '-o', 'kv']);
      expect(approved.stderr).toBe('');
      expect(approved.code).toBe(0);
      expect(kvValues(approved.stdout).PRUNED?.sort()).toEqual(['ConfigMap/drop-b', 'ConfigMap/drop-c']);
      expect([await exists('drop-b'), await exists('drop-c'), await exists('keep-a')]).toEqual([false, false, true]);
      expect((await operation()).phase).toBe('Succeeded');
    },
    T,
  );

  test(
    'an object annotated Prune=confirm holds the whole prune of a file app; --confirm-prune approves it; the prune command never deletes it',
    async () => {
      const file = join(fx.root, 'annotated.yaml');
      writeFileSync(
        file,
        applicationYaml({ name: 'annotated', spec: { source: { repoURL: fx.repo, path: 'annotated', targetRevision: 'main' }, destination: inCluster(ns) } }),
      );
      expect((await runPlugin(['sync', '-f', file, '-o', 'kv'])).code).toBe(0);
      fx.remove('annotated/a.yaml');
      fx.remove('annotated/b.yaml');
      fx.write('annotated/c.yaml', cm('ann-c'));
      fx.commit('drop the annotated app objects');

      const held = await runPlugin(['sync', '-f', file, '--prune', '-o', 'json']);
      expect(held.code).toBe(3);
      const report = JSON.parse(held.stdout) as { prune: { waiting?: string; results: { name: string; outcome: string; message?: string }[] } };
      expect(report.prune.waiting).toBe('Waiting for pruning confirmation of v1/ConfigMap/ann-b');
      expect(report.prune.results.map((r) => `${r.name} ${r.outcome}`).sort()).toEqual(['ann-a skipped', 'ann-b skipped']);
      expect([await exists('ann-a'), await exists('ann-b'), await exists('ann-c')]).toEqual([true, true, true]);

      const pruneCmd = await runPlugin(['prune', '-f', file, '--confirm', '-o', 'kv']);
      expect(pruneCmd.code).toBe(0);
      expect(kvValues(pruneCmd.stdout).PRUNE_SKIPPED?.[0]).toMatch(/^ConfigMap\/ann-b Prune=confirm: pruned only by a sync whose deletion is approved/);
      expect(await exists('ann-b')).toBe(true);

      const approved = await runPlugin(['sync', '-f', file, '--prune', '--confirm-prune', '-o', 'kv']);
      expect(approved.code).toBe(0);
      expect(kvValues(approved.stdout).PRUNED).toEqual(['ConfigMap/ann-b']);
      expect(await exists('ann-b')).toBe(false);
    },
    T,
  );
});
