// The request budget (issue #36's regression gate): the API requests each command makes, by method and path shape, for
// a fixed Git-sourced app at two sizes, measured on the local control plane from the plugin's own `--v=6` log. The
// committed budget (test/fixtures/request-budget.json) is written only by scripts/write-request-budget.mjs, which
// measures with this module; test/integration/request-budget.test.ts measures again and fails on any growth.
// Times are not measured here: they belong to the bench (test/bench).
import { GitFixture } from '../../support/git-source.js';
import { applicationYaml, inCluster } from '../../support/application.js';
import { applyYaml, createTestNamespace, deleteNamespace, runPlugin } from './index.js';

/** The committed budget, relative to the repository root. */
export const BUDGET_FILE = 'test/fixtures/request-budget.json';

/** The sizes of the app measured: objects in Git (a third each ConfigMaps, Services and Deployments). */
export const SIZES = [3, 30] as const;

/** The commands measured, in the order they run on each app (the first sync creates every object, the second changes nothing). */
const COMMANDS: readonly { name: string; args: readonly string[] }[] = [
  { name: 'sync-first', args: ['sync', 'budget'] },
  { name: 'sync-noop', args: ['sync', 'budget'] },
  { name: 'status', args: ['status', 'budget'] },
  { name: 'diff', args: ['diff', 'budget'] },
  { name: 'diff-server-side', args: ['diff', 'budget', '--server-side'] },
  { name: 'prune', args: ['prune', 'budget'] },
  { name: 'list', args: ['list'] },
];

/** Requests per shape, per `<command>@<size>`. */
export type Measured = Record<string, Record<string, number>>;

/**
 * API groups other suites create CustomResourceDefinitions in while this one runs (`*.test`, reserved by RFC 2606, and
 * the example domains): their discovery and their LISTs come and go with those suites, so they are left out; the
 * types of Kubernetes and Argo CD, which every run has, are counted.
 */
const TRANSIENT_GROUP = /(\.test|\.example|example\.(com|org|net|io))$/;

/** Query parameters whose value changes what the request is (a dry run is not an apply); the others count by name only. */
const VALUED_PARAMS = new Set(['dryRun', 'watch']);

/**
 * A request's shape: the method, the path with the measured namespaces as `{ns}` and object names as `{name}`, and the
 * query's parameter names (sorted; `dryRun` and `watch` with their value). Undefined for a transient group's request.
 */
export function requestShape(method: string, url: string, namespaces: readonly string[]): string | undefined {
  const u = new URL(url, 'https://api.invalid');
  const segs = u.pathname.split('/').filter(Boolean);
  let base: number;
  if (segs[0] === 'api') base = 2;
  else if (segs[0] === 'apis') {
    if (segs[1] !== undefined && TRANSIENT_GROUP.test(segs[1])) return undefined;
    base = 3;
  } else base = segs.length; // /version, /openapi/...: as they are
  const out = segs.slice(0, base);
  let rest = segs.slice(base);
  if (rest[0] === 'namespaces' && rest[1] !== undefined) {
    out.push('namespaces', namespaces.includes(rest[1]) ? '{ns}' : rest[1]);
    rest = rest.slice(2);
  }
  // [resource, name?, subresource?]
  if (rest[0] !== undefined) out.push(rest[0]);
  if (rest[1] !== undefined) out.push(namespaces.includes(rest[1]) ? '{ns}' : '{name}');
  out.push(...rest.slice(2));
  const params = [...new Set(u.searchParams.keys())].sort().map((k) => (VALUED_PARAMS.has(k) ? `${k}=${u.searchParams.get(k)}` : k));
  return `${method} /${out.join('/')}${params.length > 0 ? `?${params.join('&')}` : ''}`;
}

/** The requests a `--v=6` log shows (lines `I <METHOD> <URL> <status|failed…> in <n> ms`), counted by shape. */
export function countShapes(log: string, namespaces: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of log.split('\n')) {
    const m = /^I (GET|POST|PUT|PATCH|DELETE|HEAD) (\S+) /.exec(line);
    if (!m) continue;
    const shape = requestShape(m[1]!, m[2]!, namespaces);
    if (shape !== undefined) counts[shape] = (counts[shape] ?? 0) + 1;
  }
  return counts;
}

/** What grew against the budget: a shape with more requests than budgeted (or none budgeted), or a command not in it. */
export function budgetGrowth(measured: Measured, budget: Measured): string[] {
  const out: string[] = [];
  for (const [command, shapes] of Object.entries(measured)) {
    const allowed = budget[command];
    if (allowed === undefined) {
      out.push(`${command}: not in the budget`);
      continue;
    }
    for (const [shape, n] of Object.entries(shapes)) {
      const b = allowed[shape] ?? 0;
      if (n > b) out.push(`${command}: ${shape}: ${n} requests, budget ${b}`);
    }
  }
  return out;
}

/** The total requests of each command, for the summary line. */
export function totals(m: Measured): Record<string, number> {
  return Object.fromEntries(Object.entries(m).map(([c, shapes]) => [c, Object.values(shapes).reduce((a, b) => a + b, 0)]));
}

/** The budget file's text: stable (sorted) so a change shows as a small diff. */
export function formatBudget(m: Measured): string {
  const sorted = Object.fromEntries(
    Object.keys(m)
      .sort()
      .map((c) => [
        c,
        Object.fromEntries(
          Object.keys(m[c]!)
            .sort()
            .map((s) => [s, m[c]![s]!]),
        ),
      ]),
  );
  return `${JSON.stringify(
    {
      schemaVersion: 1,
      writtenBy: 'node scripts/write-request-budget.mjs (never by the test that reads it)',
      sizes: SIZES,
      totals: totals(sorted),
      commands: sorted,
    },
    null,
    2,
  )}\n`;
}

/** The budget as committed. */
export function parseBudget(text: string): Measured {
  const doc = JSON.parse(text) as { schemaVersion?: number; commands?: Measured };
  if (doc.schemaVersion !== 1 || doc.commands === undefined) throw new Error(`${BUDGET_FILE}: not a budget of schemaVersion 1`);
  return doc.commands;
}

const workload = (n: number): Record<string, string> => {
  const files: Record<string, string> = {};
  for (let i = 0; i < n / 3; i++) {
    files[`cm-${i}.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-${i}}\ndata: {v: "${i}"}\n`;
    files[`svc-${i}.yaml`] =
      `apiVersion: v1\nkind: Service\nmetadata: {name: svc-${i}}\nspec:\n  selector: {app: web-${i}}\n  ports: [{port: 80, targetPort: 8080}]\n`;
    files[`deploy-${i}.yaml`] =
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-${i}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web-${i}}}\n  template:\n    metadata: {labels: {app: web-${i}}}\n    spec:\n      containers: [{name: web, image: registry.local/web:1}]\n`;
  }
  return files;
};

/**
 * Measures every command on an app of each size, each app alone in a namespace of its own (the namespace is also
 * where its Application lives). Throws when a command fails (exit above 1), naming it.
 */
export async function measureRequests(): Promise<Measured> {
  const measured: Measured = {};
  for (const size of SIZES) {
    const fx = new GitFixture();
    let ns: string | undefined;
    try {
      for (const [file, text] of Object.entries(workload(size))) fx.write(`app/${file}`, text);
      fx.commit('app');
      ns = await createTestNamespace(`budget-${size}`);
      await applyYaml(
        applicationYaml({
          name: 'budget',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'app', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      for (const c of COMMANDS) {
        const res = await runPlugin([...c.args, '--app-namespace', ns, '--v=6', '-o', 'kv']);
        if (res.code > 1) throw new Error(`${c.args.join(' ')} (${c.name}@${size}) exited ${res.code}: ${res.stderr.slice(-2000)}`);
        measured[`${c.name}@${size}`] = countShapes(res.stderr, [ns]);
      }
    } finally {
      fx.cleanup();
      if (ns) await deleteNamespace(ns);
    }
  }
  return measured;
}
