// `node test/bench/list.mjs`: `kubectl gitops list` (every app compared live) against `kubectl get applications`
// (the stored status) over N Applications of M ConfigMaps each, each app in its own destination namespace.
// Sets up with `kubectl gitops sync --all` (also timed), syncs all again with nothing to change beside its peer (one
// `kubectl apply --server-side` per app), runs both listing tools alternately, then times `dashboard` from its start
// until every app is compared (its peak RSS then) and a second round of every app from its caches, prints the medians
// and the ratios as one JSON line on stdout, and removes everything it made. (`status -A`/`-l` run list's workflow.)
// Last, every Application is made automated and `sync --watch --all` is started: the time until each app's loop has
// compared it once (its `ACTION=revision` line) and the process's memory then, with a watch-fed cache of everything the
// apps declare (BENCH_WATCH_ALL=0 leaves this out).
//
// Environment (all optional):
//   BENCH_KUBECONFIG=PATH   the cluster (default: test/cluster/up, which starts or reuses the shared local control plane)
//   BENCH_APPS=100  BENCH_OBJECTS=20  BENCH_RUNS=3   BENCH_PLUGIN=PATH (default plugin/kubectl-gitops)  BENCH_WATCH_ALL=1
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measure, median } from './measure.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const env = process.env;
const APPS = Number(env.BENCH_APPS ?? 100);
const OBJECTS = Number(env.BENCH_OBJECTS ?? 20);
const RUNS = Number(env.BENCH_RUNS ?? 3);
const PLUGIN = resolve(env.BENCH_PLUGIN ?? join(ROOT, 'plugin', 'kubectl-gitops'));
const log = (msg) => process.stderr.write(`[bench list ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

function kubeconfigPath() {
  if (env.BENCH_KUBECONFIG) return resolve(env.BENCH_KUBECONFIG);
  const out = execFileSync(join(ROOT, 'test', 'cluster', 'up'), { stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim()
    .split('\n');
  return out[out.length - 1];
}

function kubectlPath(kubeconfig) {
  const f = join(dirname(kubeconfig), 'cluster.env');
  const m = existsSync(f) ? /^KGITOPS_CLUSTER_BIN=(.*)$/m.exec(readFileSync(f, 'utf8')) : null;
  return m && existsSync(join(m[1], 'kubectl')) ? join(m[1], 'kubectl') : 'kubectl';
}

const pad = (n, w) => String(n).padStart(w, '0');

/** A Git repository with apps/app-NNN/ holding OBJECTS ConfigMaps each; returns its path. */
function writeRepo(dir) {
  const repo = join(dir, 'repo');
  for (let a = 0; a < APPS; a++) {
    const d = join(repo, 'apps', `app-${pad(a, 3)}`);
    mkdirSync(d, { recursive: true });
    const docs = [];
    for (let o = 0; o < OBJECTS; o++)
      docs.push(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${pad(o, 2)}\ndata:\n  app: app-${pad(a, 3)}\n  n: "${o}"\n`);
    writeFileSync(join(d, 'all.yaml'), docs.join('---\n'));
  }
  const git = (args) =>
    execFileSync('git', args, {
      cwd: repo,
      env: {
        ...env,
        GIT_AUTHOR_NAME: 'bench',
        GIT_AUTHOR_EMAIL: 'bench@example.invalid',
        GIT_COMMITTER_NAME: 'bench',
        GIT_COMMITTER_EMAIL: 'bench@example.invalid',
      },
      stdio: 'ignore',
    });
  git(['init', '--quiet', '--initial-branch=main']);
  git(['add', '-A']);
  git(['commit', '--quiet', '-m', 'bench']);
  return repo;
}

/** A process's resident memory now and at its peak (KiB), from /proc. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rssKb: kb('VmRSS'), peakKb: kb('VmHWM') };
}

/**
 * Starts `kubectl gitops dashboard` for the namespace and polls its /api/apps until every Application has been compared
 * (loading over, a comparedAt on each row): the time from the spawn and its memory then (its clusters' caches hold
 * what every app read). Then asks for a new round of every app (POST /api/refresh) and times it until every row's
 * comparedAt has moved: a round read from the cache its watches kept. Then stops it.
 */
async function dashboardUntilCompared(appNs, childEnv) {
  const started = performance.now();
  const child = spawn(PLUGIN, ['dashboard', '--app-namespace', appNs, '--interval', '10m'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const url = await new Promise((resolveUrl, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c.toString();
        const m = /^Dashboard: (\S+)$/m.exec(out);
        if (m) resolveUrl(new URL(m[1]));
      });
      child.on('exit', (code) => reject(new Error(`dashboard exited ${code}`)));
    });
    const token = url.searchParams.get('token');
    const api = `${url.origin}/api/apps?token=${token}`;
    const until = async (done, what) => {
      for (;;) {
        const body = await (await fetch(api)).json();
        if (!body.loading && body.apps.length === APPS && done(body.apps)) return body.apps;
        if (performance.now() - started > 600_000) throw new Error(`the dashboard did not ${what} within 10 minutes`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const first = await until((apps) => apps.every((a) => a.comparedAt), 'compare every app');
    const ms = performance.now() - started;
    const memory = memoryOf(child.pid);
    const before = new Map(first.map((a) => [a.id, a.comparedAt]));
    const again = performance.now();
    const res = await fetch(`${url.origin}/api/refresh?token=${token}`, { method: 'POST' });
    if (res.status !== 202) throw new Error(`POST /api/refresh answered ${res.status}`);
    await until((apps) => apps.every((a) => a.comparedAt && a.comparedAt !== before.get(a.id)), 'compare every app again');
    return { ms, roundMs: performance.now() - again, ...memory };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode === null ? child.once('exit', r) : r()));
  }
}

/**
 * Starts `kubectl gitops sync --watch --all` over the namespace's (automated) Applications and reads its `-o kv` lines
 * until every app's loop has said its first comparison (`APP=… ACTION=revision`): the time from the spawn, and the
 * process's memory then and at its peak so far. Then stops it (SIGTERM) and checks it stopped cleanly.
 */
async function watchAllUntilCompared(appNs, childEnv) {
  const started = performance.now();
  const child = spawn(PLUGIN, ['sync', '--watch', '--all', '--app-namespace', appNs, '-o', 'kv'], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr += c.toString();
  });
  const exited = new Promise((r) => child.once('exit', (code) => r(code)));
  try {
    const result = await new Promise((resolveDone, reject) => {
      const compared = new Set();
      let buffered = '';
      const timer = setTimeout(() => reject(new Error(`sync --watch --all: ${compared.size} of ${APPS} apps compared after 10 minutes`)), 600_000);
      child.stdout.on('data', (c) => {
        buffered += c.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          const m = /^TIME=\S+ APP=(\S+) ACTION=(revision|sync|error|refused)\b/.exec(line);
          if (!m) continue;
          if (m[2] !== 'revision') {
            clearTimeout(timer);
            reject(new Error(`sync --watch --all: an app in sync did ${m[2]}: ${line}`));
            return;
          }
          compared.add(m[1]);
          if (compared.size === APPS) {
            clearTimeout(timer);
            resolveDone({ ms: performance.now() - started, ...memoryOf(child.pid) });
            return;
          }
        }
      });
      exited.then((code) => reject(new Error(`sync --watch --all exited ${code} with ${compared.size} of ${APPS} compared: ${stderr.slice(0, 2000)}`)));
    });
    return result;
  } finally {
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0 && code !== null) log(`sync --watch --all exited ${code} on SIGTERM: ${stderr.slice(0, 1000)}`);
  }
}

async function main() {
  const kubeconfig = kubeconfigPath();
  const kubectl = kubectlPath(kubeconfig);
  const childEnv = { ...env, KUBECONFIG: kubeconfig, NO_COLOR: '1' };
  const k = (args, input) => execFileSync(kubectl, args, { env: childEnv, input, stdio: ['pipe', 'pipe', 'inherit'], maxBuffer: 64 << 20 }).toString();
  const work = mkdtempSync(join(tmpdir(), 'kgitops-bench-list-'));
  const tag = Math.random().toString(36).slice(2, 8);
  const appNs = `bench-list-${tag}`;
  const label = `kgitops-bench-list=${tag}`;
  try {
    const repo = writeRepo(work);
    k(['create', 'namespace', appNs]);
    k(['label', 'namespace', appNs, label]);
    const apps = [];
    for (let a = 0; a < APPS; a++) {
      const name = `app-${pad(a, 3)}`;
      apps.push(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: ${name}, namespace: ${appNs}, labels: {kgitops-bench-list: ${tag}}}
spec:
  source: {repoURL: ${repo}, path: apps/${name}, targetRevision: main}
  destination: {server: https://kubernetes.default.svc, namespace: ${appNs}-${pad(a, 3)}}
  syncPolicy: {syncOptions: [CreateNamespace=true]}
`);
    }
    k(['apply', '-f', '-'], apps.join('---\n'));
    log(`${APPS} Applications of ${OBJECTS} ConfigMaps each in ${appNs}; syncing them all (kubectl gitops sync --all)`);
    const setup = await measure(PLUGIN, ['sync', '--all', '--app-namespace', appNs, '-o', 'kv', '-v'], { env: childEnv });
    if (setup.code !== 0) throw new Error(`sync --all exited ${setup.code}: ${setup.stderr.slice(0, 2000)}`);
    // -v: one summary per session (the Applications' listing, then each app's sync): their sum is the command's requests.
    const syncAllRequests = [...setup.stderr.matchAll(/^sync: (\d+) API requests/gm)].reduce((n, m) => n + Number(m[1]), 0);
    // A second sync --all, with nothing to change: what a no-op pass over the fleet costs.
    const again = await measure(PLUGIN, ['sync', '--all', '--app-namespace', appNs, '-o', 'kv', '-v', '--no-record'], { env: childEnv });
    if (again.code !== 0) throw new Error(`the second sync --all exited ${again.code}: ${again.stderr.slice(0, 2000)}`);
    const noopSyncAllRequests = [...again.stderr.matchAll(/^sync: (\d+) API requests/gm)].reduce((n, m) => n + Number(m[1]), 0);
    log(`sync --all again, nothing to change: ${(again.ms / 1000).toFixed(1)} s, ${noopSyncAllRequests} requests (the first: ${syncAllRequests})`);
    // Its peer: what a user without the tool runs, one `kubectl apply --server-side` per app directory, in turn (under a
    // field manager of its own: under argocd-controller its apply, which carries no tracking-id, would remove ours).
    const applyStarted = performance.now();
    for (let a = 0; a < APPS; a++) {
      const res = await measure(
        kubectl,
        ['apply', '--server-side', '--field-manager', 'bench-kubectl', '-n', `${appNs}-${pad(a, 3)}`, '-f', join(repo, 'apps', `app-${pad(a, 3)}`)],
        { env: childEnv },
      );
      if (res.code !== 0) throw new Error(`kubectl apply --server-side (app ${a}) exited ${res.code}: ${res.stderr.slice(0, 1000)}`);
    }
    const kubectlApplyAllMs = performance.now() - applyStarted;
    log(
      `${APPS} kubectl apply --server-side runs, nothing to change: ${(kubectlApplyAllMs / 1000).toFixed(1)} s (sync --all: ${(again.ms / 1000).toFixed(1)} s)`,
    );
    for (let a = 0; a < APPS; a++) k(['label', 'namespace', `${appNs}-${pad(a, 3)}`, label]);
    log(`sync --all: ${(setup.ms / 1000).toFixed(1)} s`);
    const runs = { get: [], list: [], requests: [] };
    for (let r = 0; r < RUNS; r++) {
      const get = await measure(kubectl, ['get', 'applications', '-n', appNs], { env: childEnv });
      if (get.code !== 0 || get.stdout.split('\n').filter((l) => /\sSynced\s+Healthy/.test(l)).length !== APPS)
        throw new Error(`kubectl get applications: not ${APPS} Synced/Healthy rows:\n${get.stdout.slice(0, 2000)}`);
      const list = await measure(PLUGIN, ['list', '--app-namespace', appNs, '-o', 'kv', '-v'], { env: childEnv });
      // -v's summary: the requests of the whole command (one snapshot of the cluster for every app).
      const said = /^list: (\d+) API requests/m.exec(list.stderr);
      if (!said) throw new Error(`list -v printed no request summary:\n${list.stderr.slice(0, 2000)}`);
      runs.requests.push(Number(said[1]));
      const synced = list.stdout.split('\n').filter((l) => / Synced /.test(l)).length;
      if (list.code !== 0 || synced !== APPS)
        throw new Error(`list: ${synced} of ${APPS} Synced (exit ${list.code}):\n${list.stdout.slice(0, 2000)}${list.stderr.slice(0, 2000)}`);
      runs.get.push(get.ms);
      runs.list.push(list.ms);
      log(
        `run ${r + 1}: kubectl get applications ${get.ms.toFixed(0)} ms, kubectl gitops list ${list.ms.toFixed(0)} ms, ${said[1]} requests (rss ${(list.rssKb / 1024).toFixed(0)} MiB)`,
      );
    }
    // The dashboard: from its start until every app is compared (its JSON API says so), as a user waits for the page.
    const dashboardRuns = [];
    const dashboardRounds = [];
    const dashboardRss = [];
    for (let r = 0; r < RUNS; r++) {
      const d = await dashboardUntilCompared(appNs, childEnv);
      dashboardRuns.push(d.ms);
      dashboardRounds.push(d.roundMs);
      dashboardRss.push(d.peakKb);
      log(
        `run ${r + 1}: dashboard, ${APPS} apps compared after ${d.ms.toFixed(0)} ms (rss ${(d.rssKb / 1024).toFixed(0)} MiB, peak ${(d.peakKb / 1024).toFixed(0)} MiB); every app again, from its caches, in ${d.roundMs.toFixed(0)} ms`,
      );
    }
    // sync --watch --all over the same apps, made automated (a re-apply of their manifests with syncPolicy.automated).
    let watchAll;
    if (env.BENCH_WATCH_ALL !== '0') {
      k(
        ['apply', '-f', '-'],
        apps
          .map((a) => a.replace('syncPolicy: {syncOptions: [CreateNamespace=true]}', 'syncPolicy: {automated: {}, syncOptions: [CreateNamespace=true]}'))
          .join('---\n'),
      );
      watchAll = await watchAllUntilCompared(appNs, childEnv);
      log(
        `sync --watch --all: every one of ${APPS} apps compared after ${watchAll.ms.toFixed(0)} ms (rss ${(watchAll.rssKb / 1024).toFixed(0)} MiB, peak ${(watchAll.peakKb / 1024).toFixed(0)} MiB)`,
      );
    }
    const get = median(runs.get);
    const list = median(runs.list);
    const result = {
      apps: APPS,
      objectsPerApp: OBJECTS,
      runs: RUNS,
      cores: cpus().length,
      loadavg: loadavg()[0],
      syncAllMs: Math.round(setup.ms),
      getApplicationsMs: Math.round(get),
      listMs: Math.round(list),
      ratio: Number((list / get).toFixed(1)),
      listRequests: runs.requests[0],
      syncAllRequests,
      noopSyncAllMs: Math.round(again.ms),
      noopSyncAllRequests,
      kubectlApplyAllMs: Math.round(kubectlApplyAllMs),
      noopSyncAllRatio: Number((again.ms / kubectlApplyAllMs).toFixed(2)),
      dashboardComparedMs: Math.round(median(dashboardRuns)),
      dashboardRoundMs: Math.round(median(dashboardRounds)),
      dashboardPeakRssMiB: Math.round(median(dashboardRss) / 1024),
      ...(watchAll
        ? {
            watchAllComparedMs: Math.round(watchAll.ms),
            watchAllRssMiB: Math.round(watchAll.rssKb / 1024),
            watchAllPeakRssMiB: Math.round(watchAll.peakKb / 1024),
          }
        : {}),
      runsMs: { ...runs, dashboard: dashboardRuns, dashboardRound: dashboardRounds },
    };
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    log('removing the namespaces it made');
    try {
      k(['delete', 'namespace', '-l', label, '--wait=false']);
    } catch (err) {
      log(`cleanup: ${err.message}`);
    }
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
