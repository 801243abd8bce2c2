// `sync --watch --all` (issue #32): one process keeps every automated Application of a namespace reconciled — it heals
// a scaled Deployment of one app and a ConfigMap edited by hand in another, picks up an Application created while it
// runs, stops the loop of one deleted, never touches an app whose syncPolicy is not automated, follows a deny sync
// window (the automated app of a frozen AppProject is never synced), reads a commit pushed while it runs (the loops
// share their Git reads for a while, then read anew), and stops on SIGTERM.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubeconfigPath, kubectl, kubectlOk, waitFor } from './support/index.js';
import { WatchProcess } from './support/watch-process.js';

const TIMEOUT = 180_000;

describe('sync --watch --all', () => {
  let fx: GitFixture;
  let ns: string;
  let watch: WatchProcess | undefined;

  const freeze = `freeze-${Math.random().toString(36).slice(2, 8)}`;
  const app = (name: string, automated: boolean, project = 'default') =>
    applicationYaml({
      name,
      namespace: ns,
      spec: {
        project,
        source: { repoURL: fx.repo, path: `apps/${name}`, targetRevision: 'main' },
        destination: inCluster(ns),
        ...(automated ? { syncPolicy: { automated: { selfHeal: true, prune: true } } } : {}),
      },
    });
  const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {color: blue}\n`;
  const exists = async (kind: string, name: string) => (await kubectl(['get', kind, name, '-n', ns])).code === 0;
  const json = async (kind: string, name: string) => JSON.parse(await kubectlOk(['get', kind, name, '-n', ns, '-o', 'json']));

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write(
      'apps/web/deploy.yaml',
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: registry.local/web:1}]}
`,
    );
    fx.write('apps/conf/cm.yaml', configMap('conf'));
    fx.write('apps/manual/cm.yaml', configMap('manual'));
    fx.write('apps/late/cm.yaml', configMap('late'));
    fx.write('apps/frozen/cm.yaml', configMap('frozen'));
    fx.commit('apps');
    ns = await createTestNamespace('watch-all');
    // An AppProject whose deny window is always active: its automated app's loop runs, and never syncs.
    await applyYaml(
      `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: ${freeze}, namespace: argocd}\nspec:\n  sourceNamespaces: ['*']\n  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  syncWindows:\n  - {kind: deny, schedule: '* * * * *', duration: 1h, applications: ['*'], description: freeze}\n`,
    );
    await applyYaml([app('web', true), app('conf', true), app('manual', false), app('frozen', true, freeze)].join('---\n'));
  }, TIMEOUT);

  afterAll(async () => {
    await watch?.stop('SIGTERM');
    fx?.cleanup();
    await kubectl(['delete', 'appproject', freeze, '-n', 'argocd', '--ignore-not-found']);
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'heals two apps, picks up a new one, forgets a deleted one, leaves the manual one alone, honours a deny window, stops on SIGTERM',
    async () => {
      watch = new WatchProcess(['--all', '--app-namespace', ns, '--interval', '2s', '-v'], kubeconfigPath());
      const w = watch;
      await w.line((l) => l.action === 'app' && l.object === `${ns}/manual` && l.result === 'skipped', 'the manual app to be left alone');
      for (const name of ['web', 'conf']) await w.line((l) => l.action === 'app' && l.object === `${ns}/${name}` && l.result === 'started', `${name}'s loop`);
      await waitFor(async () => (await exists('deployment', 'web')) && (await exists('configmap', 'conf')), { what: 'the first syncs', timeoutMs: 60_000 });
      // Every event of an app's loop carries the app.
      await w.line((l) => l.app === `${ns}/web` && l.action === 'sync' && l.object === 'Deployment/web', "web's sync event");

      await kubectlOk(['scale', 'deployment', 'web', '-n', ns, '--replicas', '3']);
      await kubectlOk(['patch', 'configmap', 'conf', '-n', ns, '--type', 'merge', '-p', '{"data":{"color":"red"}}']);
      await waitFor(async () => (await json('deployment', 'web')).spec.replicas === 1 && (await json('configmap', 'conf')).data.color === 'blue', {
        what: 'both heals',
        timeoutMs: 60_000,
      });
      await w.line((l) => l.app === `${ns}/web` && l.action === 'heal', "web's heal");
      await w.line((l) => l.app === `${ns}/conf` && l.action === 'heal', "conf's heal");

      await applyYaml(app('late', true));
      await w.line((l) => l.action === 'app' && l.object === `${ns}/late` && l.result === 'started', 'the new app picked up');
      await waitFor(() => exists('configmap', 'late'), { what: "the new app's sync", timeoutMs: 60_000 });

      await kubectlOk(['delete', 'application', 'conf', '-n', ns]);
      await w.line((l) => l.action === 'app' && l.object === `${ns}/conf` && l.result === 'stopped', "the deleted app's loop stopped");
      const since = w.lines.length;
      const patchedAt = Date.now();
      await kubectlOk(['patch', 'configmap', 'conf', '-n', ns, '--type', 'merge', '-p', '{"data":{"color":"green"}}']);
      // Its loop is gone: the change stays, while the others are still reconciled. A drift of web made after conf's
      // patch is healed first (the same process and machinery that would have healed conf, given the same chance, with
      // the positive path's allowance), and at least three intervals pass since the patch.
      await kubectlOk(['scale', 'deployment', 'web', '-n', ns, '--replicas', '2']);
      await w.line((l) => l.app === `${ns}/web` && l.action === 'heal', "web's heal of a drift made after conf's patch", since, 60_000);
      await waitFor(async () => (await json('deployment', 'web')).spec.replicas === 1, { what: "web's heal", timeoutMs: 60_000 });
      await new Promise((r) => setTimeout(r, Math.max(0, patchedAt + 6_000 - Date.now())));
      expect((await json('configmap', 'conf')).data.color).toBe('green');
      // (A round in progress when the loop was told to stop may still end, interrupted before its first write.)
      expect(
        w.lines.slice(since).filter((l) => l.app === `${ns}/conf` && l.action === 'heal' && l.result !== 'interrupted' && l.result !== 'not-applied'),
      ).toEqual([]);

      // The frozen app's loop ran and was refused by its project's deny window every time: nothing of it was applied.
      await w.line((l) => l.app === `${ns}/frozen` && l.action === 'refused', "the frozen app's refusal");
      expect(w.lines.filter((l) => l.app === `${ns}/frozen` && l.action === 'refused')[0]?.message).toMatch(/deny window/);
      expect(await exists('configmap', 'frozen')).toBe(false);
      // The manual app was never synced: its ConfigMap was never created, and its Application records no operation.
      expect(await exists('configmap', 'manual')).toBe(false);
      expect((await json('application', 'manual')).status?.operationState).toBeUndefined();

      // Every loop reads the process's one watch-fed cache of the cluster (kube/cluster-cache.ts): once it holds the
      // types, a poll of web (the source, the Application, its project, its prune-candidate scan) asks the API server
      // nothing. A look's count is the shared connection's while it ran, so another loop's write can add to it, never
      // take away: polls that made 0 requests can only come from the cache (without it each poll made about thirty).
      const polls = w.lines.filter((l) => l.app === `${ns}/web` && l.action === 'refresh' && l.result === 'poll');
      expect(polls.filter((l) => l.requests === 0).length).toBeGreaterThanOrEqual(3);

      // A push is seen by the next polls: the loops share one read of Git for a while (GIT_READS_TTL_MS, or the
      // --interval when shorter, 2 s here), then read it anew.
      const pushedAt = w.lines.length;
      fx.write('apps/late/cm.yaml', configMap('late').replace('blue', 'green'));
      const pushed = fx.commit('late goes green');
      await w.line((l) => l.app === `${ns}/late` && l.action === 'revision' && l.revision === pushed, "late's poll reading the new commit", pushedAt, 60_000);
      await waitFor(async () => (await json('configmap', 'late')).data.color === 'green', { what: 'the pushed change synced', timeoutMs: 60_000 });

      // A refresh asked through the Application's annotation (`argocd app get --refresh`) reaches that app's loop through
      // the process's one watch of the Applications; served, the annotation is removed.
      const askedAt = w.lines.length;
      await kubectlOk(['annotate', 'application', 'late', '-n', ns, 'argocd.argoproj.io/refresh=normal']);
      await w.line((l) => l.app === `${ns}/late` && l.action === 'app' && l.result === 'refreshed', "late's refresh served", askedAt);
      expect(
        w.lines
          .slice(askedAt)
          .filter((l) => l.action === 'app' && l.result !== 'refreshed')
          .map((l) => `${l.app} ${l.result}: ${l.message}`),
      ).toEqual([`${ns}/late refresh-requested: argocd.argoproj.io/refresh=normal: looking now`]);
      expect((await json('application', 'late')).metadata.annotations?.['argocd.argoproj.io/refresh']).toBeUndefined();

      // A sync requested through the manual app's operation field (what `argocd app sync` writes) is run once by the
      // process, recorded as initiated by the user who asked, and the field is removed; the app stays manual.
      const requestedAt = w.lines.length;
      const operation = { initiatedBy: { username: 'alice' }, sync: { syncOptions: ['CreateNamespace=true'] } };
      await kubectlOk(['patch', 'application', 'manual', '-n', ns, '--type', 'merge', '-p', JSON.stringify({ operation })]);
      await w.line((l) => l.app === `${ns}/manual` && l.action === 'app' && l.result === 'operation-succeeded', 'the requested sync', requestedAt, 60_000);
      expect(await exists('configmap', 'manual')).toBe(true);
      const manual = await json('application', 'manual');
      expect([manual.operation, manual.status.operationState.phase, manual.status.operationState.operation.initiatedBy]).toEqual([
        undefined,
        'Succeeded',
        { username: 'alice' },
      ]);
      expect(w.lines.slice(requestedAt).filter((l) => l.app === `${ns}/manual` && l.result === 'operation').length).toBeGreaterThanOrEqual(1);
      expect(w.lines.slice(requestedAt).filter((l) => l.app === `${ns}/manual` && /^operation-/.test(String(l.result))).length).toBe(1);

      const exit = await w.stop('SIGTERM');
      expect(exit).toEqual({ code: 0, signal: null });
      expect(w.lines[w.lines.length - 1]).toMatchObject({ action: 'stop', result: 'stopped' });
      // -v's summaries only (nothing else on stderr): the loops' shared caches said once, with what they watched.
      const summaries = w.stderr.trim().split('\n');
      expect(summaries.every((l) => /^watch: \d+ API requests, \d+ retried, in \d+ ms/.test(l))).toBe(true);
      expect(summaries.filter((l) => l.includes('from one watch-fed cache per cluster (1 cluster,'))).toHaveLength(1);
    },
    TIMEOUT,
  );
});
