// `npm run bench`: kubectl-gitops side by side with kubectl and with the API server's own limit, on the
// same generated objects in one local control plane, runs alternated; writes test/bench/RESULTS.md.
//
// Environment (all optional):
//   BENCH_SIZES=100,1000,5000   app sizes          BENCH_RUNS=3          runs per tool and scenario
//   BENCH_STARTUP_RUNS=10       runs of start-up   BENCH_PRUNE_OBJECTS=10000  unrelated objects (0: skip the prune scan)
//   BENCH_FIRST_RUNS_LARGE=1    runs of the first-apply scenario at 5,000+ objects (each needs the namespace emptied)
//   BENCH_SCENARIOS=diff,sync-noop,...  only these scenario ids (see SCENARIO_IDS)
//   BENCH_KUBECONFIG=PATH       use this cluster instead of starting the bench's own control plane
//   BENCH_KEEP_CLUSTER=1        leave the bench's own control plane running at the end
//   BENCH_PLUGIN=PATH           the binary to measure (default plugin/kubectl-gitops, built when missing)
//   BENCH_KAPP=PATH|none        kapp to compare with (default: built from its Go module by test/bench/build-kapp)
//   BENCH_OUT=PATH              where to write the markdown (default test/bench/RESULTS.md)
//   BENCH_DIR=PATH              where the generated apps go (default a fresh temp folder, removed at the end)
// `node test/bench/run.mjs --render RESULTS.json` re-renders the markdown from a saved run.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appObjects, writeApp } from './generate.mjs';
import { makeClient } from './kube.mjs';
import { cleanupMeasure, measure, median } from './measure.mjs';
import { countSet, drift, emptySet, ensureNamespace, fillUnrelated, seed } from './setup.mjs';
import { renderResults } from './report.mjs';
import { kubectlPath as clusterKubectl, startCluster as startBenchCluster, stopCluster } from './cluster.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const NODE = process.execPath;
const FM = 'argocd-controller';

export const SCENARIO_IDS = ['startup', 'sync-first', 'diff', 'diff-ss', 'sync-noop', 'sync-noop-oos', 'status', 'diff-drift', 'diff-ss-drift', 'prune'];

const env = process.env;
const SIZES = (env.BENCH_SIZES ?? '100,1000,5000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => n > 0);
const RUNS = Number(env.BENCH_RUNS ?? 3);
const STARTUP_RUNS = Number(env.BENCH_STARTUP_RUNS ?? 10);
const PRUNE_OBJECTS = Number(env.BENCH_PRUNE_OBJECTS ?? 10000);
// A first apply needs the namespace emptied before every run (minutes at 5,000 objects on 2 cores).
const FIRST_RUNS_LARGE = Number(env.BENCH_FIRST_RUNS_LARGE ?? 1);
const firstRuns = (size) => (size >= 5000 ? Math.min(RUNS, FIRST_RUNS_LARGE) : RUNS);
const ONLY = env.BENCH_SCENARIOS ? new Set(env.BENCH_SCENARIOS.split(',').map((s) => s.trim())) : undefined;
const OUT = resolve(env.BENCH_OUT ?? join(HERE, 'RESULTS.md'));
const wanted = (id) => !ONLY || ONLY.has(id);
const log = (msg) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** The binary to measure, copied into the work folder so that a rebuild by someone else mid-run changes nothing. */
function pluginPath(work) {
  const p = resolve(env.BENCH_PLUGIN ?? join(ROOT, 'plugin', 'kubectl-gitops'));
  if (!existsSync(p)) {
    log('plugin/kubectl-gitops is missing: npm run build');
    execFileSync(NODE, [join(ROOT, 'plugin', 'build.mjs')], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  }
  const copy = join(work, 'kubectl-gitops');
  copyFileSync(p, copy);
  chmodSync(copy, 0o755);
  return copy;
}

/** kapp built from its Go module (test/bench/build-kapp, cached by version), or why there is none. */
function kappPath() {
  if (env.BENCH_KAPP === 'none') return { why: 'BENCH_KAPP=none' };
  if (env.BENCH_KAPP) return { path: resolve(env.BENCH_KAPP) };
  try {
    const out = execFileSync(join(HERE, 'build-kapp'), { stdio: ['ignore', 'pipe', 'inherit'] })
      .toString()
      .trim()
      .split('\n');
    return { path: out[out.length - 1] };
  } catch (e) {
    return { why: `test/bench/build-kapp failed (${e.message.split('\n')[0]})` };
  }
}

function machine(kubectl, plugin, kapp) {
  const sh = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
    } catch {
      return 'unknown';
    }
  };
  return {
    date: new Date().toISOString(),
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memGiB: (totalmem() / 2 ** 30).toFixed(1),
    freeGiB: (freemem() / 2 ** 30).toFixed(1),
    load: loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
    kubectl: sh(kubectl, ['version', '--client']).split('\n')[0],
    ours: sh(plugin, ['version']).split('\n')[0],
    kapp: kapp.path ? sh(kapp.path, ['version']).split('\n')[0] : `not measured: ${kapp.why}`,
    node: process.version,
    commit: sh('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']),
  };
}

/**
 * Runs every tool of a scenario `runs` times, alternating which tool goes first, with an untimed
 * `before(tool)` hook; returns {tool: {ms: [], rssKb: [], errors: [], notes: Set}}.
 */
async function runScenario(title, tools, runs) {
  const res = Object.fromEntries(tools.map((t) => [t.tool, { ms: [], rssKb: [], errors: [], notes: new Set(), label: t.label }]));
  for (let r = 0; r < runs; r++) {
    const order = tools.map((_, i) => tools[(i + r) % tools.length]);
    for (const t of order) {
      if (t.before) await t.before();
      const m = await measure(t.cmd, t.args, { env: t.env });
      const slot = res[t.tool];
      if (!t.ok.includes(m.code)) {
        const why = (m.stderr.trim() || m.stdout.trim()).split('\n').slice(-1)[0]?.slice(0, 200) ?? '';
        slot.errors.push(`exit ${m.code}: ${why}`);
        log(`  ${title} ${t.tool} run ${r + 1}: FAILED exit ${m.code}: ${why}`);
        continue;
      }
      if (t.limit) {
        const j = JSON.parse(m.stdout.trim().split('\n').pop());
        slot.ms.push(j.ms);
        slot.requests = j.requests;
        slot.items = j.items;
      } else {
        slot.ms.push(m.ms);
        slot.rssKb.push(m.rssKb);
      }
      const note = t.check?.(m);
      if (note) slot.notes.add(note);
      log(
        `  ${title} ${t.tool} run ${r + 1}: ${(t.limit ? slot.ms.at(-1) : m.ms).toFixed(0)} ms${t.limit ? '' : `, ${(m.rssKb / 1024).toFixed(0)} MB`}${note ? ` (${note})` : ''}`,
      );
    }
  }
  for (const [tool, s] of Object.entries(res)) if (s.ms.length) log(`${title} ${tool}: median ${median(s.ms).toFixed(0)} ms`);
  return Object.fromEntries(Object.entries(res).map(([k, v]) => [k, { ...v, notes: [...v.notes] }]));
}

const countLines = (text, prefix) => text.split('\n').filter((l) => l.startsWith(prefix)).length;

async function main() {
  const cluster = startBenchCluster(env, log);
  const kc = cluster.kubeconfig;
  const kubectl = clusterKubectl(kc, env);
  const work = env.BENCH_DIR ? resolve(env.BENCH_DIR) : mkdtempSync(join(tmpdir(), 'kgitops-bench-'));
  mkdirSync(work, { recursive: true });
  const plugin = pluginPath(work);
  const toolEnv = { ...env, KUBECONFIG: kc, NO_COLOR: '1' };
  const client = makeClient(kc);
  const kapp = kappPath();
  const info = { ...machine(kubectl, plugin, kapp), runs: RUNS, startupRuns: STARTUP_RUNS, sizes: SIZES };
  log(`machine: ${info.nproc} cpus (${info.cpu}), ${info.memGiB} GiB, load ${info.load}; ours: ${info.ours}; ${info.kubectl}; kapp: ${info.kapp}`);
  const results = [];
  const push = (id, size, title, res, extra = {}) => results.push({ id, size, title, res, ...extra });
  const ours = (args, ok, check) => ({ tool: 'ours', cmd: plugin, args: [...args, '--kubeconfig', kc], env: toolEnv, ok, check });
  const kube = (args, ok, check, extraEnv = {}) => ({
    tool: 'kubectl',
    cmd: kubectl,
    args: [...args, '--kubeconfig', kc],
    env: { ...toolEnv, ...extraEnv },
    ok,
    check,
  });
  const appArgs = (a) => ['-f', a.appFile, '--desired', a.manifests, '-o', 'kv'];
  // kapp deploys its own copy of each app (same objects, namespace NS-kapp): it labels what it owns
  // and refuses objects another tool applied. `--wait=false`: our sync and kubectl apply don't wait.
  const kappTool = (a, args, ok, check) => ({
    tool: 'kapp',
    cmd: kapp.path,
    args: ['deploy', '-a', a.app, '-n', a.namespace, '--into-ns', a.namespace, '-f', a.manifests, '--kubeconfig', kc, '--color=false', '--wait=false', ...args],
    env: toolEnv,
    ok,
    check,
  });
  const withKapp = (...tools) => tools.filter(Boolean);
  const kappDiff = (a, check) => kappTool(a, ['--diff-run', '--diff-exit-status', '--diff-changes'], [2, 3], check);
  const kappOps = (m) => /Op:\s+(\d+) create, (\d+) delete, (\d+) update, (\d+) noop/.exec(m.stdout)?.slice(1).map(Number);
  const kappSeed = async (a) => {
    const t = kappTool(a, ['-y']);
    const m = await measure(t.cmd, t.args, { env: toolEnv });
    if (m.code !== 0) throw new Error(`kapp deploy of ${a.app} into ${a.namespace}: ${(m.stderr.trim() || m.stdout.trim()).split('\n').slice(-3).join(' ')}`);
  };
  const limit = (args, tool = 'limit') => ({ tool, cmd: NODE, args: [join(HERE, 'limit.mjs'), kc, ...args], env: toolEnv, ok: [0], limit: true });
  // The least a diff that also reports the app's extras must read (shown beside the plain limit, which lists the declared kinds only).
  const scanLimit = (ns) => limit(['diff-scan', ns], 'limitScan');

  try {
    if (wanted('startup')) {
      log('scenario startup');
      const res = await runScenario(
        'startup',
        [
          { tool: 'ours', cmd: plugin, args: ['--help'], env: toolEnv, ok: [0] },
          { tool: 'kubectl', cmd: kubectl, args: ['version', '--client'], env: toolEnv, ok: [0] },
          // The floor of any Node program: the same Node 24 starting an empty script.
          { tool: 'floor', cmd: join(ROOT, 'node_modules', 'node', 'bin', 'node'), args: ['-e', '0'], env: toolEnv, ok: [0] },
        ],
        STARTUP_RUNS,
      );
      push('startup', 0, 'start-up (`--help` / `kubectl version --client` / bare `node -e 0`)', res);
    }

    for (const size of SIZES) {
      const app = `bench-${size}`;
      const steady = writeApp(join(work, app), appObjects(size, { app, namespace: app }), app, app);
      const firstApp = `${app}-first`;
      const first = writeApp(join(work, firstApp), appObjects(size, { app: firstApp, namespace: firstApp }), firstApp, firstApp);
      await ensureNamespace(client, steady.namespace);
      await ensureNamespace(client, first.namespace);
      log(`size ${size}: seeding ${steady.namespace} (server-side apply with force as ${FM}, resets any earlier drift)`);
      await seed(client, steady.namespace, steady.objects);
      // kapp's copies: the same objects in NS-kapp, deployed by kapp itself.
      const kSteady = kapp.path ? writeApp(join(work, `${app}-kapp`), appObjects(size, { app, namespace: `${app}-kapp` }), app, `${app}-kapp`) : undefined;
      const kFirst = kapp.path
        ? writeApp(join(work, `${firstApp}-kapp`), appObjects(size, { app: firstApp, namespace: `${firstApp}-kapp` }), firstApp, `${firstApp}-kapp`)
        : undefined;
      if (kapp.path) {
        await ensureNamespace(client, kSteady.namespace);
        await ensureNamespace(client, kFirst.namespace);
        log(`size ${size}: kapp deploy into ${kSteady.namespace}`);
        await kappSeed(kSteady);
      }

      if (wanted('sync-first')) {
        log(`scenario sync-first ${size}`);
        const clean = () => emptySet(client, first.namespace, firstApp);
        const kClean = () => emptySet(client, kFirst.namespace, firstApp);
        const res = await runScenario(
          `sync-first ${size}`,
          withKapp(
            {
              ...ours(['sync', ...appArgs(first)], [0], (m) =>
                /APPLIED=(\d+)/.exec(m.stdout)?.[1] !== String(size) ? `APPLIED=${/APPLIED=(\d+)/.exec(m.stdout)?.[1] ?? '?'}` : undefined,
              ),
              before: clean,
            },
            { ...kube(['apply', '--server-side', '--field-manager', FM, '-n', first.namespace, '-f', first.manifests], [0]), before: clean },
            kapp.path && {
              ...kappTool(kFirst, ['-y'], [0], (m) =>
                kappOps(m)?.[0] !== size ? `kapp Op: ${kappOps(m)?.join('/') ?? '?'} (create/delete/update/noop)` : undefined,
              ),
              before: kClean,
            },
            { ...limit(['ssa', first.namespace, first.json, 'apply']), before: clean },
          ),
          firstRuns(size),
        );
        push('sync-first', size, 'sync, first apply (fresh namespace)', res);
        await emptySet(client, first.namespace, firstApp);
        if (kapp.path) await emptySet(client, kFirst.namespace, firstApp);
      }
      const diffCheck = (wantDrift) => (m) => {
        const drifted = m.code === 1;
        return drifted === wantDrift ? undefined : wantDrift ? 'reported no drift' : 'reported drift';
      };
      if (wanted('diff')) {
        log(`scenario diff ${size}`);
        const res = await runScenario(
          `diff ${size}`,
          withKapp(
            ours(['diff', ...appArgs(steady)], [0, 1], diffCheck(false)),
            kube(
              ['diff', '--server-side', '--force-conflicts', '--field-manager', FM, '-n', steady.namespace, '-f', steady.manifests],
              [0, 1],
              diffCheck(false),
            ),
            kapp.path && kappDiff(kSteady, (m) => (m.code !== 2 ? `kapp reported changes (Op: ${kappOps(m)?.join('/') ?? '?'})` : undefined)),
            limit(['list', steady.namespace]),
            scanLimit(steady.namespace),
          ),
          RUNS,
        );
        push('diff', size, 'diff, no drift', res);
      }
      if (wanted('diff-ss')) {
        log(`scenario diff-ss ${size}`);
        const res = await runScenario(
          `diff-ss ${size}`,
          [ours(['diff', '--server-side', ...appArgs(steady)], [0, 1], diffCheck(false)), limit(['ssa', steady.namespace, steady.json, 'dry'])],
          RUNS,
        );
        push('diff-ss', size, 'diff --server-side, no drift', res, { kubectlFrom: 'diff' });
      }
      if (wanted('sync-noop')) {
        log(`scenario sync-noop ${size}`);
        const res = await runScenario(
          `sync-noop ${size}`,
          withKapp(
            ours(['sync', ...appArgs(steady)], [0]),
            kube(['apply', '--server-side', '--field-manager', FM, '-n', steady.namespace, '-f', steady.manifests], [0]),
            kapp.path &&
              kappTool(kSteady, ['-y'], [0], (m) => {
                const ops = kappOps(m);
                return !ops || ops[0] + ops[1] + ops[2] !== 0
                  ? `kapp Op: ${ops?.join('/') ?? '?'} (create/delete/update/noop), expected no changes`
                  : undefined;
              }),
            limit(['ssa', steady.namespace, steady.json, 'apply']),
          ),
          RUNS,
        );
        push('sync-noop', size, 'sync, no-op re-sync', res);
      }
      if (wanted('sync-noop-oos')) {
        // The same no-op sync with ApplyOutOfSyncOnly=true: only objects whose diff is not empty are applied
        // (none here), which is what kapp deploy does by default. kubectl and kapp: the row above.
        log(`scenario sync-noop-oos ${size}`);
        const res = await runScenario(
          `sync-noop-oos ${size}`,
          [
            ours(['sync', '-f', steady.oosAppFile, '--desired', steady.manifests, '-o', 'kv'], [0], (m) =>
              /^APPLIED=0$/m.test(m.stdout) ? undefined : `${/^APPLIED=.*$/m.exec(m.stdout)?.[0] ?? 'no APPLIED line'}, expected APPLIED=0`,
            ),
            limit(['list', steady.namespace]),
            scanLimit(steady.namespace),
          ],
          RUNS,
        );
        push('sync-noop-oos', size, 'sync, no-op, ApplyOutOfSyncOnly=true', res, { kubectlFrom: 'sync-noop' });
      }
      if (wanted('status')) {
        log(`scenario status ${size}`);
        const res = await runScenario(
          `status ${size}`,
          [
            ours(['status', ...appArgs(steady)], [0, 1], (m) =>
              /^SYNC=Synced$/m.test(m.stdout) ? undefined : `status said ${/^SYNC=.*$/m.exec(m.stdout)?.[0] ?? 'no SYNC line'}`,
            ),
            limit(['status', steady.namespace]),
            limit(['status-scan', steady.namespace], 'limitScan'),
          ],
          RUNS,
        );
        push('status', size, 'status (sync + health, live tree)', res);
      }
      if (wanted('diff-drift') || wanted('diff-ss-drift')) {
        const drifted = await drift(client, steady.namespace, steady.objects);
        if (kapp.path) await drift(client, kSteady.namespace, kSteady.objects);
        log(`size ${size}: drifted ${drifted.length} objects under manager bench-drifter${kapp.path ? " (and the same in kapp's copy)" : ''}`);
        const driftCheck = (m) => (m.code !== 1 ? 'reported no drift' : undefined);
        if (wanted('diff-drift')) {
          const res = await runScenario(
            `diff-drift ${size}`,
            withKapp(
              ours(['diff', ...appArgs(steady)], [0, 1], driftCheck),
              kube(['diff', '--server-side', '--force-conflicts', '--field-manager', FM, '-n', steady.namespace, '-f', steady.manifests], [0, 1], driftCheck),
              kapp.path &&
                kappDiff(kSteady, (m) =>
                  kappOps(m)?.[2] !== drifted.length
                    ? `kapp Op: ${kappOps(m)?.join('/') ?? '?'} (create/delete/update/noop), expected ${drifted.length} updates`
                    : undefined,
                ),
              limit(['list', steady.namespace]),
              scanLimit(steady.namespace),
            ),
            RUNS,
          );
          push('diff-drift', size, 'diff, 10% drifted', res);
        }
        if (wanted('diff-ss-drift')) {
          const res = await runScenario(
            `diff-ss-drift ${size}`,
            [ours(['diff', '--server-side', ...appArgs(steady)], [0, 1], driftCheck), limit(['ssa', steady.namespace, steady.json, 'dry'])],
            RUNS,
          );
          push('diff-ss-drift', size, 'diff --server-side, 10% drifted', res, { kubectlFrom: 'diff-drift' });
        }
        await seed(client, steady.namespace, steady.objects); // take the drift back
        if (kapp.path) await kappSeed(kSteady);
      }
    }

    if (PRUNE_OBJECTS > 0 && wanted('prune')) {
      const app = 'bench-prune';
      const all = appObjects(100, { app, namespace: app, pods: 0 });
      const full = writeApp(join(work, `${app}-all`), all, app, app);
      // Ten declared objects disappear from the desired set: they are the prune candidates.
      const scan = writeApp(
        join(work, app),
        all.filter((_, i) => i % 10 !== 5),
        app,
        app,
      );
      await ensureNamespace(client, app);
      log(`prune: filling ${app} with ${PRUNE_OBJECTS} unrelated ConfigMaps`);
      log(`prune: created ${await fillUnrelated(client, app, PRUNE_OBJECTS)} missing ones`);
      const applyset = ['apply', '--prune', `--applyset=${app}`, '--server-side', '--field-manager', FM, '-n', app];
      // The ApplySet parent and part-of labels exist only after one real kubectl apply of the whole set.
      const setup = await measure(kubectl, [...applyset, '-f', full.manifests, '--kubeconfig', kc], { env: { ...toolEnv, KUBECTL_APPLYSET: 'true' } });
      if (setup.code !== 0) throw new Error(`preparing the ApplySet: ${setup.stderr.trim()}`);
      log(`prune: ${await countSet(client, app, app)} app objects + ${PRUNE_OBJECTS} unrelated in ${app}`);
      const want = all.length - scan.objects.length;
      // kapp's copy: the same app deployed by kapp among its own 10,000 unrelated ConfigMaps; its
      // `--diff-run` with the ten objects gone is its prune scan (it would delete exactly those).
      const kNs = `${app}-kapp`;
      const kAll = appObjects(100, { app, namespace: kNs, pods: 0 });
      const kScan = kapp.path
        ? writeApp(
            join(work, kNs),
            kAll.filter((_, i) => i % 10 !== 5),
            app,
            kNs,
          )
        : undefined;
      if (kapp.path) {
        await ensureNamespace(client, kNs);
        log(`prune: filling ${kNs} with ${PRUNE_OBJECTS} unrelated ConfigMaps: created ${await fillUnrelated(client, kNs, PRUNE_OBJECTS)} missing ones`);
        await kappSeed(writeApp(join(work, `${kNs}-all`), kAll, app, kNs));
      }
      const res = await runScenario(
        'prune',
        withKapp(
          ours(['prune', ...appArgs(scan)], [0, 1], (m) =>
            countLines(m.stdout, 'PRUNE=') !== want ? `${countLines(m.stdout, 'PRUNE=')} PRUNE lines, expected ${want}` : undefined,
          ),
          kube(
            [...applyset, '--dry-run=server', '-f', scan.manifests],
            [0],
            (m) => {
              const pruned = m.stdout.split('\n').filter((l) => / pruned/.test(l)).length;
              return pruned !== want ? `${pruned} pruned, expected ${want}` : undefined;
            },
            { KUBECTL_APPLYSET: 'true' },
          ),
          kapp.path &&
            kappDiff(kScan, (m) =>
              kappOps(m)?.[1] !== want ? `kapp Op: ${kappOps(m)?.join('/') ?? '?'} (create/delete/update/noop), expected ${want} deletes` : undefined,
            ),
          limit(['prune-scan', app]),
        ),
        RUNS,
      );
      push('prune', PRUNE_OBJECTS, `prune scan (${all.length}-object app among ${PRUNE_OBJECTS} unrelated ConfigMaps)`, res);
    }
  } finally {
    client.close();
    info.loadEnd = loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
    const md = renderResults({ info, results, runs: RUNS, startupRuns: STARTUP_RUNS, sizes: SIZES });
    writeFileSync(OUT, md);
    writeFileSync(OUT.replace(/\.md$/, '') + '.json', JSON.stringify({ info, results }, null, 1));
    log(`wrote ${OUT}`);
    if (!env.BENCH_DIR) rmSync(work, { recursive: true, force: true });
    cleanupMeasure();
    stopCluster(cluster, env, log);
  }
}

/** `node run.mjs --render FILE.json`: re-renders the markdown from a saved run (e.g. after editing analysis.md). */
async function renderOnly(file) {
  const { info, results } = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(OUT, renderResults({ info, results, runs: info.runs ?? RUNS, startupRuns: info.startupRuns ?? STARTUP_RUNS, sizes: info.sizes ?? SIZES }));
  log(`wrote ${OUT} from ${file}`);
}

(process.argv[2] === '--render' ? renderOnly(process.argv[3]) : main()).catch((e) => {
  process.stderr.write(`bench: ${e.stack ?? e}\n`);
  process.exitCode = 1;
});
