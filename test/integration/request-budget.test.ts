// The performance gate CI runs (issue #36): request counts, cheap to assert and steady where times are not. Each
// command's requests (from `-v`) must stay within a budget stated in the cluster's own terms: T, the number of types
// the API server serves with `list` (read here with kubectl, so a CRD another suite added moves both sides). A scan
// lists each type once; a change that lists a type twice per app, or reads per object what it reads per type, exceeds
// the budget and fails here. The second test holds every measured command to the committed budget file, request shape
// by request shape (support/request-budget.ts). The bench (test/bench) measures the times, side by side with kubectl and kapp.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectlOk, repoRoot, runPlugin } from './support/index.js';
import { BUDGET_FILE, budgetGrowth, measureRequests, parseBudget, SIZES, totals } from './support/request-budget.js';

const TIMEOUT = 180_000;

describe('request budgets', () => {
  let fx: GitFixture;
  let ns: string;

  const requests = async (args: string[]): Promise<number> => {
    const res = await runPlugin([...args, '--app-namespace', ns, '-v', '-o', 'kv']);
    if (res.code > 1) throw new Error(`${args.join(' ')} exited ${res.code}: ${res.stderr}`);
    const m = /^\w[\w -]*: (\d+) API requests/m.exec(res.stderr);
    if (!m) throw new Error(`${args.join(' ')}: no request summary on stderr:\n${res.stderr}`);
    return Number(m[1]);
  };
  /**
   * T: the types the scans read (every served type with the `list` and `watch` verbs, in its preferred version: as
   * Argo CD's cluster cache, a type that cannot be watched is never scanned).
   */
  const listableTypes = async () => (await kubectlOk(['api-resources', '--verbs=list,watch', '-o', 'name'])).trim().split('\n').length;

  beforeAll(async () => {
    fx = new GitFixture();
    for (const name of ['a', 'b', 'c']) fx.write(`app/${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: budget-${name}}\ndata: {v: "1"}\n`);
    fx.commit('app');
    ns = await createTestNamespace('request-budget');
    await applyYaml(
      applicationYaml({
        name: 'budget',
        namespace: ns,
        spec: { source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) },
      }),
    );
    const first = await runPlugin(['sync', 'budget', '--app-namespace', ns, '-o', 'kv']);
    if (first.code !== 0) throw new Error(`sync exited ${first.code}: ${first.stderr}`);
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'status, diff, prune and sync --prune list each type at most once; a sync with nothing to change makes a dozen requests',
    async () => {
      const t = await listableTypes();
      const counts = {
        status: await requests(['status', 'budget', '--no-record']),
        diff: await requests(['diff', 'budget']),
        prune: await requests(['prune', 'budget']),
        syncPrune: await requests(['sync', 'budget', '--prune', '--no-record']),
        sync: await requests(['sync', 'budget', '--no-record']),
      };
      process.stdout.write(`[request budget] T=${t} ${JSON.stringify(counts)}\n`);
      // The scans: one LIST per listable and watchable type (fewer: Argo CD's default exclusions), plus discovery, the Application,
      // the AppProject, argocd-cm and argocd-cmd-params-cm.
      expect(counts.status).toBeLessThanOrEqual(t + 6);
      expect(counts.diff).toBeLessThanOrEqual(t + 6);
      expect(counts.prune).toBeLessThanOrEqual(t + 6);
      // sync --prune: the scan, the access reviews of its kinds, and the server-side dry-run and apply of what changed.
      expect(counts.syncPrune).toBeLessThanOrEqual(t + 12);
      // Without --prune no scan: the Application, its settings, its one LIST of ConfigMaps, the access reviews.
      expect(counts.sync).toBeLessThanOrEqual(16);
      // And the scan is really there: not fewer than a LIST per namespaced type of the destination would be.
      expect(counts.status).toBeGreaterThan(t / 2);
    },
    TIMEOUT,
  );
});

describe('the committed request budget', () => {
  test(
    `sync (first and no-op), status, diff, diff --server-side, prune and list of an app of ${SIZES.join(' and ')} objects send no request the budget does not allow`,
    async () => {
      const budget = parseBudget(readFileSync(join(repoRoot, BUDGET_FILE), 'utf8'));
      const measured = await measureRequests();
      process.stdout.write(`[request budget] measured ${JSON.stringify(totals(measured))}; budget ${JSON.stringify(totals(budget))}\n`);
      // Every measured command is budgeted, and none grew; fewer requests pass (write the budget again to keep the gain).
      expect(Object.keys(measured).sort()).toEqual(Object.keys(budget).sort());
      expect(budgetGrowth(measured, budget)).toEqual([]);
      // A read costs no more at 30 objects than at 3 (a kind with one object may be read by a GET, with several by one
      // LIST): only the writes (the syncs' applies, the server-side diff's dry-runs) grow with the app.
      const sum = totals(measured);
      for (const c of ['status', 'diff', 'prune', 'list']) expect([c, sum[`${c}@30`]! <= sum[`${c}@3`]!]).toEqual([c, true]);
    },
    TIMEOUT * 3,
  );
});
