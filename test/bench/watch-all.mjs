// `node test/bench/watch-all.mjs`: `kubectl gitops sync --watch --all` beside Argo CD's own application controller
// (issue #32), on one control plane that test/argocd/up starts with Argo CD (its own state folder, apart from the
// conformance suite's). APPS Applications of one Deployment each are reconciled by Argo CD (in argocd, automated with
// selfHeal), APPS more by one `sync --watch --all -l` process (in argocd too, with Argo CD's skip-reconcile annotation,
// so that its controller leaves them alone). Once every app is synced, HEALS times for each tool in turn, round robin over different apps (so
// that neither tool's self-heal back-off comes into it): `spec.replicas` of one Deployment set to 3 by hand, and the
// time from that write until it reads 1 again (polled every 25 ms). Prints the median and the worst per tool, the time
// each took to sync its apps first, and the peak RSS of our process and of Argo CD's controller and repo-server, as one
// JSON line on stdout; removes what it made and stops Argo CD (unless BENCH_KEEP_CLUSTER).
//
// Environment (all optional): BENCH_APPS=100  BENCH_HEALS=20  BENCH_PLUGIN=PATH (default plugin/kubectl-gitops)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { makeClient } from './kube.mjs';
import { median } from './measure.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const env = process.env;
const APPS = Number(env.BENCH_APPS ?? 100);
const HEALS = Number(env.BENCH_HEALS ?? 20);
const PLUGIN = resolve(env.BENCH_PLUGIN ?? join(ROOT, 'plugin', 'kubectl-gitops'));
const STATE = join(homedir(), '.cache', 'kubectl-gitops', 'bench-argocd');
const log = (msg) => process.stderr.write(`[bench watch-all ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const pad = (n) => String(n).padStart(3, '0');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Peak and current resident memory of a process, in MiB, from /proc. */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field) => Math.round(Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024);
  return { rssMiB: mib('VmRSS'), peakMiB: mib('VmHWM') };
}

/** A Git repository with apps/app-NNN/ holding one Deployment `web-NNN` each. */
function writeRepo(dir) {
  const repo = join(dir, 'repo');
  for (let a = 0; a < APPS; a++) {
    const d = join(repo, 'apps', `app-${pad(a)}`);
    mkdirSync(d, { recursive: true });
    writeFileSync(
      join(d, 'deploy.yaml'),
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web-${pad(a)}}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web-${pad(a)}}}\n  template:\n    metadata: {labels: {app: web-${pad(a)}}}\n    spec: {containers: [{name: web, image: registry.local/web:1}]}\n`,
    );
  }
  const git = (args) =>
    execFileSync('git', args, {
      cwd: repo,
      env: { ...env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@example.invalid' },
      stdio: 'ignore',
    });
  git(['init', '--quiet', '--initial-branch=main']);
  git(['add', '-A']);
  git(['commit', '--quiet', '-m', 'bench']);
  return repo;
}

/** Waits until `check` returns true, polling every `every` ms, failing after `limitMs`. */
async function until(what, check, limitMs, every = 500) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what}: not reached after ${limitMs} ms`);
    await sleep(every);
  }
}

async function main() {
  log(`starting Argo CD and its control plane in ${STATE} (test/argocd/up)`);
  const upEnv = { ...env, KGITOPS_ARGOCD_STATE: STATE };
  const envFile = execFileSync('bash', [join(ROOT, 'test', 'argocd', 'up')], { env: upEnv, stdio: ['ignore', 'pipe', 'inherit'] })
    .toString()
    .trim()
    .split('\n')
    .pop();
  const argo = Object.fromEntries(
    readFileSync(envFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
  const kubeconfig = argo.KUBECONFIG;
  const kubectl = existsSync(join(argo.KGITOPS_ARGOCD_BIN, 'kubectl')) ? join(argo.KGITOPS_ARGOCD_BIN, 'kubectl') : 'kubectl';
  const childEnv = { ...env, KUBECONFIG: kubeconfig, NO_COLOR: '1' };
  const k = (args, input) => execFileSync(kubectl, args, { env: childEnv, input, stdio: ['pipe', 'pipe', 'inherit'], maxBuffer: 64 << 20 }).toString();
  const pidOf = (name) => Number(readFileSync(join(STATE, 'pids', `${name}.pid`), 'utf8').trim());
  const client = makeClient(kubeconfig);
  const work = mkdtempSync(join(tmpdir(), 'kgitops-bench-watch-all-'));
  const tag = Math.random().toString(36).slice(2, 8);
  const label = `kgitops-bench-watch-all=${tag}`;
  const ns = { argo: `bench-wa-argo-${tag}`, ours: `bench-wa-ours-${tag}` };
  const project = `bench-wa-${tag}`;
  let ours;
  try {
    const repo = pathToFileURL(writeRepo(work)).href;
    for (const n of Object.values(ns)) k(['create', 'namespace', n]);
    for (const n of Object.values(ns)) k(['label', 'namespace', n, label]);
    // Both sets of Applications live in argocd (Argo CD reconciles no other namespace, and kubectl-gitops, as Argo CD,
    // refuses one there); ours carry Argo CD's skip-reconcile annotation, so that its controller leaves them to our loop.
    k(
      ['apply', '-f', '-'],
      `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: ${project}, namespace: argocd}\nspec:\n  sourceNamespaces: ['*']\n  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: '*'}]\n  clusterResourceWhitelist: [{group: '*', kind: '*'}]\n`,
    );
    const app = (a, set, dest) =>
      `apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: ${set}-${pad(a)}\n  namespace: argocd\n  labels: {kgitops-bench-watch-all: ${tag}, kgitops-bench-set: ${set}-${tag}}\n${set === 'ours' ? '  annotations: {argocd.argoproj.io/skip-reconcile: "true"}\n' : ''}spec:\n  project: ${project}\n  source: {repoURL: '${repo}', path: apps/app-${pad(a)}, targetRevision: main}\n  destination: {server: https://kubernetes.default.svc, namespace: ${dest}}\n  syncPolicy: {automated: {selfHeal: true}}\n`;
    const deployments = async (n) => (await client.request('GET', `/apis/apps/v1/namespaces/${n}/deployments`)).items.length;

    // Argo CD's apps: created, then synced by its controller (automated).
    let started = Date.now();
    k(['apply', '-f', '-'], Array.from({ length: APPS }, (_, a) => app(a, 'argo', ns.argo)).join('---\n'));
    await until(
      "Argo CD's first sync of every app",
      async () => {
        const apps = (await client.request('GET', `/apis/argoproj.io/v1alpha1/namespaces/argocd/applications?labelSelector=kgitops-bench-set%3Dargo-${tag}`))
          .items;
        return apps.length === APPS && apps.every((x) => x.status?.sync?.status === 'Synced' && x.status?.operationState?.phase === 'Succeeded');
      },
      900_000,
    );
    const argoFirstMs = Date.now() - started;
    log(`Argo CD synced its ${APPS} apps in ${(argoFirstMs / 1000).toFixed(1)} s`);

    // Ours: one sync --watch --all over its namespace of Applications.
    k(['apply', '-f', '-'], Array.from({ length: APPS }, (_, a) => app(a, 'ours', ns.ours)).join('---\n'));
    started = Date.now();
    ours = spawn(PLUGIN, ['sync', '--watch', '--all', '--app-namespace', 'argocd', '-l', `kgitops-bench-set=ours-${tag}`, '--interval', '3m', '-o', 'json'], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    ours.stderr.on('data', (c) => (stderr += c.toString()));
    ours.stdout.resume();
    await until(
      "kubectl-gitops's first sync of every app",
      async () => {
        if (ours.exitCode !== null) throw new Error(`sync --watch --all exited ${ours.exitCode}: ${stderr.slice(0, 2000)}`);
        return (await deployments(ns.ours)) === APPS;
      },
      900_000,
    );
    const oursFirstMs = Date.now() - started;
    log(`kubectl-gitops synced its ${APPS} apps in ${(oursFirstMs / 1000).toFixed(1)} s`);
    await sleep(5_000); // both settled: the first syncs' records written, the loops waiting

    // The heals, one tool after the other, each time another app.
    const heal = async (n, a) => {
      const path = `/apis/apps/v1/namespaces/${n}/deployments/web-${pad(a)}`;
      await client.request('PATCH', path, { body: { spec: { replicas: 3 } }, contentType: 'application/merge-patch+json' });
      const t0 = performance.now();
      for (;;) {
        if ((await client.request('GET', path)).spec.replicas === 1) return performance.now() - t0;
        if (performance.now() - t0 > 120_000) throw new Error(`${n}/web-${pad(a)} not healed within 120 s`);
        await sleep(25);
      }
    };
    const heals = { argo: [], ours: [] };
    for (const tool of ['argo', 'ours']) {
      for (let h = 0; h < HEALS; h++) {
        const ms = await heal(ns[tool], (h * 7) % APPS);
        heals[tool].push(Math.round(ms));
        await sleep(300);
      }
      log(
        `${tool === 'argo' ? "Argo CD's controller" : 'kubectl-gitops'}: ${HEALS} heals, median ${median(heals[tool]).toFixed(0)} ms, worst ${Math.max(...heals[tool])} ms`,
      );
    }
    const memory = {
      ours: memoryOf(ours.pid),
      argocdController: memoryOf(pidOf('argocd-application-controller')),
      argocdRepoServer: memoryOf(pidOf('argocd-repo-server')),
    };
    log(
      `peak RSS: kubectl-gitops ${memory.ours.peakMiB} MiB; Argo CD's application controller ${memory.argocdController.peakMiB} MiB (its repo-server ${memory.argocdRepoServer.peakMiB} MiB)`,
    );
    const result = {
      apps: APPS,
      heals: HEALS,
      cores: cpus().length,
      loadavg: loadavg()[0],
      argocdVersion: argo.KGITOPS_ARGOCD_VERSION,
      firstSyncMs: { argocd: argoFirstMs, ours: oursFirstMs },
      healMs: {
        argocd: { median: Math.round(median(heals.argo)), worst: Math.max(...heals.argo) },
        ours: { median: Math.round(median(heals.ours)), worst: Math.max(...heals.ours) },
      },
      healRatio: Number((median(heals.ours) / median(heals.argo)).toFixed(2)),
      peakRssMiB: { ours: memory.ours.peakMiB, argocdController: memory.argocdController.peakMiB, argocdRepoServer: memory.argocdRepoServer.peakMiB },
      runsMs: heals,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    if (ours && ours.exitCode === null) {
      ours.kill('SIGTERM');
      await new Promise((r) => (ours.exitCode === null ? ours.once('exit', r) : r()));
    }
    log('removing what it made');
    try {
      k(['delete', 'applications', '-A', '-l', label]);
    } catch (err) {
      log(`cleanup: ${err.message}`);
    }
    try {
      k(['delete', 'namespace', '-l', label, '--wait=false']);
      k(['delete', 'appproject', project, '-n', 'argocd', '--ignore-not-found']);
    } catch (err) {
      log(`cleanup: ${err.message}`);
    }
    client.close();
    rmSync(work, { recursive: true, force: true });
    if (!env.BENCH_KEEP_CLUSTER) {
      log('stopping Argo CD and its control plane (test/argocd/down)');
      execFileSync('bash', [join(ROOT, 'test', 'argocd', 'down')], { env: upEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    }
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
