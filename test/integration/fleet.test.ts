// Many Applications at once (issue #32's first promise): `list` and `status -A`/`-l` read one snapshot of the cluster
// for all their apps (kube/snapshot.ts), so the requests `list -v` counts are the same for 5 apps and for 25, in one
// destination namespace or in 25; and what they say of each app is what `status APP` says (drift in one, a prune
// candidate in another, a Degraded Job in a third). `sync --all` reads one watch-fed cache (kube/cluster-cache.ts): its
// reads are the same for 5 apps and for 25.
import { GitFixture } from '../support/git-source.js';
import { applicationYaml, inCluster } from '../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, kubectlOk, runPlugin, waitFor } from './support/index.js';

const TIMEOUT = 300_000;
const pad = (i: number) => String(i).padStart(2, '0');

interface Row {
  name: string;
  namespace: string;
  sync: string;
  health: string;
  error?: string;
}

describe('a fleet of Applications, read from one snapshot', () => {
  let fx: GitFixture;
  const namespaces: string[] = [];
  /** Application namespaces: 5 apps into one namespace, 25 into one, 25 into 25. */
  let five: string;
  let many: string;
  let spread: string;

  const newNamespace = async (prefix: string) => {
    const ns = await createTestNamespace(prefix);
    namespaces.push(ns);
    return ns;
  };

  const app = (appNs: string, i: number, destination: string, path = `apps/n-${pad(i)}`, labels?: Record<string, string>) =>
    applicationYaml({
      name: `app-${pad(i)}`,
      namespace: appNs,
      ...(labels ? { labels } : {}),
      spec: { source: { repoURL: fx.repo, path, targetRevision: 'main' }, destination: inCluster(destination) },
    });

  const syncAll = async (appNs: string) => {
    const res = await runPlugin(['sync', '--all', '--app-namespace', appNs, '-o', 'kv']);
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 0, stderr: '' });
  };

  /** `list -v` of one Application namespace: its rows, and the requests its summary line counts. */
  const listed = async (args: string[]): Promise<{ rows: Row[]; requests: number; apps: number; line: string }> => {
    const res = await runPlugin(['list', ...args, '-v', '-o', 'json']);
    expect(res.code).toBe(0);
    const line = /^list: .*$/m.exec(res.stderr)?.[0] ?? '';
    const m =
      /^list: (\d+) API requests, \d+ retried, in \d+ ms, for (\d+) Applications? from one snapshot per cluster \(1 cluster, \d+ cluster-wide LISTs\)/.exec(
        line,
      );
    if (!m) throw new Error(`no fleet summary on stderr:\n${res.stderr}`);
    return { rows: (JSON.parse(res.stdout) as { apps: Row[] }).apps, requests: Number(m[1]), apps: Number(m[2]), line };
  };

  const servedTypes = async () => (await kubectlOk(['api-resources', '--cached=false', '-o', 'name'])).split('\n').length;

  beforeAll(async () => {
    fx = new GitFixture();
    for (let i = 0; i < 25; i++) {
      fx.write(`apps/n-${pad(i)}/x.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-${pad(i)}-x}\ndata: {v: "1"}\n`);
      fx.write(`apps/n-${pad(i)}/y.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-${pad(i)}-y}\ndata: {v: "1"}\n`);
    }
    // app-02's later path: its y ConfigMap left out of Git, so the live one is a prune candidate.
    fx.write('apps/n-02-less/x.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-02-x}\ndata: {v: "1"}\n`);
    // A Job whose pod kwok fails (test/cluster/manifests/kwok-stages.yaml): Degraded once the Job controller says so.
    fx.write(
      'apps/failing/job.yaml',
      `apiVersion: batch/v1
kind: Job
metadata: {name: c-03-job}
spec:
  backoffLimit: 0
  template:
    metadata: {labels: {kgitops.test/kwok-fate: fail}}
    spec: {restartPolicy: Never, containers: [{name: run, image: registry.local/job:1}]}
`,
    );
    fx.commit('fleet');
    five = await newNamespace('fleet-five');
    many = await newNamespace('fleet-many');
    spread = await newNamespace('fleet-spread');
    const docs: string[] = [];
    for (let i = 0; i < 5; i++) docs.push(app(five, i, five, undefined, { 'kgitops-fleet': five }));
    for (let i = 0; i < 25; i++) docs.push(app(many, i, many));
    for (let i = 0; i < 25; i++) docs.push(app(spread, i, await newNamespace(`fleet-spread-${pad(i)}`)));
    await applyYaml(docs.join('---\n'));
    for (const appNs of [five, many, spread]) await syncAll(appNs);
  }, TIMEOUT);

  afterAll(async () => {
    fx?.cleanup();
    for (const ns of namespaces) await deleteNamespace(ns);
  }, TIMEOUT);

  test(
    'list costs the same requests for 5 apps as for 25, in one destination namespace or in 25, and says so with -v',
    async () => {
      // Another suite may add a CRD meanwhile (one more type to list): then the three are read again.
      let counts: number[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const before = await servedTypes();
        const runs = [await listed(['--app-namespace', five]), await listed(['--app-namespace', many]), await listed(['--app-namespace', spread])];
        for (const r of runs.slice(1)) expect(r.rows.map((x) => [x.sync, x.health])).toEqual(Array.from({ length: 25 }, () => ['Synced', 'Healthy']));
        expect(runs.map((r) => r.apps)).toEqual([5, 25, 25]);
        expect(runs[0]!.line).toContain('the count does not grow with the number of Applications');
        counts = runs.map((r) => r.requests);
        if ((await servedTypes()) === before) break;
      }
      expect(counts[1]).toBe(counts[0]);
      expect(counts[2]).toBe(counts[0]);
      // One app's status costs about as much: the fleet pays for one read of the cluster, not one per app.
      const one = await runPlugin(['status', 'app-00', '--app-namespace', many, '--no-record', '-v', '-o', 'json']);
      const single = Number(/^status: (\d+) API requests/m.exec(one.stderr)?.[1]);
      expect(counts[0]).toBeLessThan(2 * single);
      process.stdout.write(`[fleet] list: ${counts.join(', ')} requests for 5, 25 and 25-in-25-namespaces apps; status of one app: ${single}\n`);
    },
    TIMEOUT,
  );

  test(
    'sync --all reads the cluster once, from one watch-fed cache: with nothing to change, as many reads for 5 apps as for 25',
    async () => {
      /** `sync --all -v 6` with nothing to change: its reads (GETs, the watches' included) and its writes, from the request log. */
      const synced = async (appNs: string) => {
        const res = await runPlugin(['sync', '--all', '--app-namespace', appNs, '--no-record', '-o', 'kv', '-v', '6']);
        expect(res.code).toBe(0);
        const requests = res.stderr.split('\n').filter((l) => /^I (GET|POST|PATCH|PUT|DELETE) https:\/\//.test(l));
        const summary = /^sync: .*$/m.exec(res.stderr)?.[0] ?? '';
        return { reads: requests.filter((l) => l.startsWith('I GET ')).length, writes: requests.filter((l) => !l.startsWith('I GET ')).length, summary };
      };
      let runs: Awaited<ReturnType<typeof synced>>[] = [];
      // Another suite may add a CRD meanwhile (one more type to list): then both are read again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const before = await servedTypes();
        runs = [await synced(five), await synced(many)];
        if ((await servedTypes()) === before) break;
      }
      const [a, b] = runs as [Awaited<ReturnType<typeof synced>>, Awaited<ReturnType<typeof synced>>];
      expect(b.reads).toBe(a.reads);
      // What grows is the writes: each app's applies (Argo CD's sync applies every object) and permission checks.
      expect(b.writes).toBeGreaterThan(a.writes);
      expect(b.summary).toMatch(
        /^sync: \d+ API requests, \d+ retried, in \d+ ms, for 25 Applications from one watch-fed cache per cluster \(1 cluster, \d+ types/,
      );
      process.stdout.write(
        `[fleet] sync --all with nothing to change: ${a.reads} reads and ${a.writes} writes for 5 apps, ${b.reads} and ${b.writes} for 25\n`,
      );
    },
    TIMEOUT,
  );

  test(
    'list --stored shows what the status records, as kubectl get applications does, with the age, in the same requests for 5 apps as for 25',
    async () => {
      const stored = async (appNs: string) => {
        const res = await runPlugin(['list', '--stored', '--app-namespace', appNs, '-v', '-o', 'json']);
        expect(res.code).toBe(0);
        const requests = Number(/^list: (\d+) API requests/m.exec(res.stderr)?.[1]);
        return { report: JSON.parse(res.stdout) as { stored: boolean; apps: (Row & { age?: string; created?: string })[] }, requests };
      };
      const [a, b] = [await stored(five), await stored(many)];
      expect(a.requests).toBe(b.requests);
      expect(b.report.stored).toBe(true);
      const kubectlSays = (
        await kubectlOk(['get', 'applications', '-n', many, '-o', 'jsonpath={range .items[*]}{.status.sync.status} {.status.health.status}{"\\n"}{end}'])
      )
        .trim()
        .split('\n');
      expect(b.report.apps.map((r) => `${r.sync} ${r.health}`)).toEqual(kubectlSays);
      expect(kubectlSays).toEqual(Array.from({ length: 25 }, () => 'Synced Healthy'));
      for (const r of b.report.apps) expect([typeof r.created, r.age]).toEqual(['string', expect.stringMatching(/^\d+(s|m\d*s?)$/)]);
    },
    TIMEOUT,
  );

  test(
    'list and status -A -l say of each app what status APP says: drift, a prune candidate, a Degraded Job',
    async () => {
      await kubectlOk(['patch', 'configmap', 'c-01-x', '-n', five, '--type', 'merge', '-p', '{"data":{"v":"by hand"}}']);
      await kubectlOk(['patch', 'application', 'app-02', '-n', five, '--type', 'merge', '-p', '{"spec":{"source":{"path":"apps/n-02-less"}}}']);
      await kubectlOk(['patch', 'application', 'app-03', '-n', five, '--type', 'merge', '-p', '{"spec":{"source":{"path":"apps/failing"}}}']);
      const failing = await runPlugin(['sync', 'app-03', '--app-namespace', five, '--prune', '-o', 'kv']);
      expect(failing.stderr).toBe('');
      const rows = await waitFor(
        async () => {
          const r = (await listed(['--app-namespace', five])).rows;
          return r.find((x) => x.name === 'app-03')?.health === 'Degraded' ? r : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 1000, what: "app-03's Job to fail" },
      );
      expect(rows.map((r) => [r.name, r.sync, r.health, r.error])).toEqual([
        ['app-00', 'Synced', 'Healthy', undefined],
        ['app-01', 'OutOfSync', 'Healthy', undefined],
        ['app-02', 'OutOfSync', 'Healthy', undefined],
        ['app-03', 'Synced', 'Degraded', undefined],
        ['app-04', 'Synced', 'Healthy', undefined],
      ]);
      const byLabel = await runPlugin(['status', '-A', '-l', `kgitops-fleet=${five}`, '-o', 'json']);
      expect(byLabel.code).toBe(0);
      expect((JSON.parse(byLabel.stdout) as { apps: Row[] }).apps.map((r) => [r.namespace, r.name, r.sync, r.health])).toEqual(
        rows.map((r) => [five, r.name, r.sync, r.health]),
      );
      for (const r of rows) {
        const one = await runPlugin(['status', r.name, '--app-namespace', five, '--no-record', '-o', 'json']);
        expect(one.code).toBe(0);
        const report = JSON.parse(one.stdout) as {
          sync: { status: string };
          health: { status: string };
          resources: { name: string; requiresPruning?: boolean }[];
        };
        expect([r.name, report.sync.status, report.health.status]).toEqual([r.name, r.sync, r.health]);
        if (r.name === 'app-02') expect(report.resources.find((x) => x.name === 'c-02-y')).toMatchObject({ requiresPruning: true });
      }
    },
    TIMEOUT,
  );
});
