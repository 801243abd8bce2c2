// `node test/bench/dashboard.mjs`: how fast the dashboard's pages are in Debian's headless Chromium once the apps are
// compared: the app page of an app with 1,000 live objects (250 Deployments, each with a ReplicaSet and two Pods) and
// the list of 100 Applications. The server and the page are the real ones (src/dashboard/), fed from fixture reports
// built with the real status report and view code, so only the serving and the browser are timed (the comparison is
// what `status` costs and is measured by the other benches). Each run is a fresh page load: from navigation start to
// the last node (or row) being in the DOM, as the browser's clock says. Also times building the app view in Node.
// Writes test/bench/DASHBOARD.md and DASHBOARD.json. Environment: BENCH_RUNS=7, BENCH_OUT.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const OUT = resolve(process.env.BENCH_OUT ?? join(HERE, 'DASHBOARD.md'));
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const log = (msg) => process.stderr.write(`[dashboard bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** The fixture source, bundled from TypeScript so the real report, view and server code run. */
const ENTRY = `
import { buildStatusReport } from './src/health/report.ts';
import { appView } from './src/dashboard/view.ts';
import { startDashboardServer } from './src/dashboard/server.ts';

const app = (name) => ({ name, namespace: 'argocd', source: { repoURL: 'https://git.example.com/shop.git', path: name, targetRevision: 'main' }, destination: { server: 'https://kubernetes.default.svc', namespace: name }, sourcesCount: 0, sourceOptions: {}, syncOptions: {}, ignoreDifferences: [], warnings: [], origin: 'cluster' });

export function bigReport(deployments) {
  const resources = [];
  const children = [];
  for (let i = 0; i < deployments; i++) {
    const name = 'svc-' + String(i).padStart(4, '0');
    const live = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: 'big', uid: 'd' + i, generation: 1 }, spec: { replicas: 2 }, status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } };
    resources.push({ key: { group: 'apps', kind: 'Deployment', namespace: 'big', name }, comparison: i % 50 === 0 ? 'drifted' : 'in-sync', live, ...(i % 50 === 0 ? { driftedFields: 1 } : {}) });
    children.push({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: name + '-5d8f', namespace: 'big', uid: 'r' + i, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name, uid: 'd' + i }] }, spec: { replicas: 2 }, status: { replicas: 2, readyReplicas: 2, availableReplicas: 2 } });
    for (const p of ['a', 'b']) children.push({ apiVersion: 'v1', kind: 'Pod', metadata: { name: name + '-5d8f-' + p, namespace: 'big', uid: 'p' + i + p, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: name + '-5d8f', uid: 'r' + i }] }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
  }
  return buildStatusReport({ app: app('big'), resources, children });
}

export async function serve(token, deployments, apps) {
  const t0 = performance.now();
  const report = bigReport(deployments);
  const row = (name, sync, health) => ({ id: 'argocd/' + name, name, namespace: 'argocd', project: 'default', labels: { team: 't' + (name.length % 3) }, sync, health, revision: '4f2a9c1e0b7d6a5c3e2f1a0b9c8d7e6f5a4b3c2d', destination: { server: 'https://kubernetes.default.svc', namespace: name }, lastSync: '2026-01-01T00:00:00Z', comparedAt: '2026-01-01T00:00:01Z' });
  const big = appView(row('big', report.sync.status, report.health.status), report, undefined, [], new Date());
  const viewMs = performance.now() - t0;
  const rows = [big.row];
  for (let i = 1; i < apps; i++) rows.push(row('app-' + String(i).padStart(3, '0'), i % 7 === 0 ? 'OutOfSync' : 'Synced', i % 11 === 0 ? 'Degraded' : 'Healthy'));
  const source = {
    list: () => ({ apps: rows, loading: false }),
    app: (id) => (id === 'argocd/big' ? big : undefined),
    node: async () => undefined,
    refresh: () => undefined,
    subscribe: () => () => undefined,
  };
  const server = await startDashboardServer({ source, address: '127.0.0.1', port: 0, token });
  return { server, viewMs, nodes: big.nodes.length, viewBytes: JSON.stringify(big).length, listBytes: JSON.stringify(source.list()).length };
}
`;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-bench-'));
  const file = join(dir, 'entry.mjs');
  await build({
    stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: file,
    logLevel: 'error',
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  const mod = await import(file);
  const token = 'b'.repeat(48);
  const { server, viewMs, nodes, viewBytes, listBytes } = await mod.serve(token, 250, 100);
  log(`serving ${nodes} nodes (view built in ${viewMs.toFixed(0)} ms, ${Math.round(viewBytes / 1024)} KB JSON) and 100 apps at ${server.url}`);
  const profile = mkdtempSync(join(tmpdir(), 'dashboard-bench-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: FLAGS,
    viewport: { width: 1600, height: 1000 },
  });
  const page = await context.newPage();
  const origin = server.url.replace(/\/\?token=.*$/, '');
  const timed = async (url, selector, count) => {
    await page.goto('about:blank');
    await page.goto(url);
    await page.waitForFunction(([s, n]) => document.querySelectorAll(s).length >= n, [selector, count], { timeout: 60_000, polling: 'raf' });
    // Navigation start to now, then one more frame so the nodes are laid out and painted.
    return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now()))));
  };
  const appRuns = [];
  const listRuns = [];
  for (let i = 0; i < RUNS; i++) {
    appRuns.push(await timed(`${origin}/?token=${token}#/app/argocd/big`, '#map g.node', nodes));
    listRuns.push(await timed(`${origin}/?token=${token}`, 'tbody tr', 100));
    log(`run ${i + 1}: app page ${appRuns[i].toFixed(0)} ms, list ${listRuns[i].toFixed(0)} ms`);
  }
  const version = await context.browser()?.version();
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: loadavg().map((l) => Number(l.toFixed(2))) },
    chromium: version ?? 'unknown',
    runs: RUNS,
    appPage: {
      objects: nodes - 1,
      medianMs: Math.round(median(appRuns)),
      maxMs: Math.round(Math.max(...appRuns)),
      viewJsonKB: Math.round(viewBytes / 1024),
      viewBuildMs: Math.round(viewMs),
    },
    list: { apps: 100, medianMs: Math.round(median(listRuns)), maxMs: Math.round(Math.max(...listRuns)), jsonKB: Math.round(listBytes / 1024) },
  };
  writeFileSync(OUT.replace(/\.md$/, '.json'), JSON.stringify(result, null, 2) + '\n');
  writeFileSync(
    OUT,
    `# Dashboard page speed (test/bench/dashboard.mjs)

Measured ${result.date.slice(0, 10)} on ${result.machine.cpus} cores (${result.machine.model}), load ${result.machine.loadavg.join(' ')}, Chromium ${result.chromium} (Debian, headless), ${RUNS} fresh page loads each; navigation start to the last node/row in the DOM plus one frame.

| page | size | median | slowest | target (issue #23) |
|---|---|---|---|---|
| app page, live map | ${result.appPage.objects} objects (250 Deployments → ReplicaSet → 2 Pods), ${result.appPage.viewJsonKB} KB JSON | ${result.appPage.medianMs} ms | ${result.appPage.maxMs} ms | < 2 s |
| app list | ${result.list.apps} Applications, ${result.list.jsonKB} KB JSON | ${result.list.medianMs} ms | ${result.list.maxMs} ms | < 1 s after the first comparison |

Building the app view (graph, layout, SVG) for ${result.appPage.objects} objects in Node: ${result.appPage.viewBuildMs} ms (once per comparison, not per page load).
The comparison itself is not in these numbers: the dashboard serves the last comparison, which costs what \`status\` costs.
`,
  );
  log(`wrote ${OUT}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
