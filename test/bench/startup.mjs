// Start-up benchmark: `kubectl-gitops --help` (and `version`) against `kubectl version --client`,
// run alternately on the same machine; prints median, min, max and the ratio of medians.
//
// Usage: node test/bench/startup.mjs [--runs 40] [--warmup 5] [--json]
// kubectl: $KUBECTL, else $KGITOPS_CLUSTER_BIN/kubectl, else the newest one test/cluster/build made.
// Also checks, on the bundle itself, that `--help` loads none of the built-in modules that only the
// cluster code (client-node) needs.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, homedir, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : def;
};
const RUNS = opt('--runs', 40);
const WARMUP = opt('--warmup', 5);

function findKubectl() {
  if (process.env.KUBECTL) return process.env.KUBECTL;
  if (process.env.KGITOPS_CLUSTER_BIN) return join(process.env.KGITOPS_CLUSTER_BIN, 'kubectl');
  const base = join(homedir(), '.cache', 'kubectl-gitops', 'cluster');
  const found = existsSync(base)
    ? readdirSync(base)
        .map((d) => join(base, d, 'bin', 'kubectl'))
        .filter((p) => existsSync(p))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    : [];
  if (!found[0]) throw new Error('finding kubectl: set KUBECTL, or build the local control plane (test/cluster/build)');
  return found[0];
}

const BASH = existsSync('/bin/bash') ? '/bin/bash' : null;

/**
 * One run, timed by bash's `time` (millisecond resolution, bash's own start-up excluded): wall
 * time and the CPU time (user + system) the command used, which a loaded machine disturbs less
 * than wall time. The output goes nowhere, as in hyperfine -N --output=null.
 */
function once(cmd) {
  if (!BASH) {
    const t0 = process.hrtime.bigint();
    const res = spawnSync(cmd[0], cmd.slice(1), { stdio: 'ignore', env: { PATH: '/usr/bin:/bin', HOME: tmpdir() } });
    if (res.status !== 0) throw new Error(`running ${cmd.join(' ')}: exit ${res.status}`);
    return { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpu: NaN };
  }
  const script = 'TIMEFORMAT="%3R %3U %3S"; time "$@" >/dev/null 2>/dev/null';
  const res = spawnSync(BASH, ['-c', script, 'bench', ...cmd], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin', HOME: tmpdir() } });
  if (res.status !== 0) throw new Error(`running ${cmd.join(' ')}: exit ${res.status}`);
  const [real, user, sys] = res.stderr.toString().trim().split('\n').pop().split(' ').map(Number);
  return { ms: real * 1000, cpu: (user + sys) * 1000 };
}

function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length, runs: s.length };
}

/** Built-in modules `--help` loads when the bundle runs under plain Node (the SEA runs the same code). */
function helpBuiltins() {
  const main = join(ROOT, 'plugin', '.sea', 'out', 'main.cjs');
  if (!existsSync(main)) return null;
  const probe = join(tmpdir(), `kgitops-probe-${process.pid}.cjs`);
  writeFileSync(
    probe,
    `process.on('exit', () => require('fs').writeSync(3, JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)))));`,
  );
  const res = spawnSync(process.execPath, ['-r', probe, main, '--help'], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
  return JSON.parse(res.output[3].toString());
}

const plugin = join(ROOT, 'plugin', 'kubectl-gitops');
if (!existsSync(plugin)) throw new Error('plugin/kubectl-gitops is missing: npm run build');
const kubectl = findKubectl();
const cases = [
  { name: 'kubectl-gitops --help', cmd: [plugin, '--help'] },
  { name: 'kubectl-gitops version', cmd: [plugin, 'version'] },
  { name: 'kubectl version --client', cmd: [kubectl, 'version', '--client'] },
];

const load0 = loadavg()[0];
for (let i = 0; i < WARMUP; i++) for (const c of cases) once(c.cmd);
const times = cases.map(() => []);
const cpu = cases.map(() => []);
for (let i = 0; i < RUNS; i++) {
  // alternate, so load hits every command alike
  cases.forEach((c, j) => {
    const r = once(c.cmd);
    times[j].push(r.ms);
    cpu[j].push(r.cpu);
  });
}
const load1 = loadavg()[0];

const results = cases.map((c, j) => ({ name: c.name, ...stats(times[j]), cpuMedian: stats(cpu[j]).median }));
const kube = results[2];
const ratio = (r) => r.median / kube.median;
const builtins = helpBuiltins();
// (net is not in the list: node:tty, which the colour policy uses, loads it.)
const clusterOnly = ['tls', 'https', 'http2', 'http', 'zlib'];
const report = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, loadavg: [load0, load1] },
  kubectl: execFileSync(kubectl, ['version', '--client']).toString().split('\n')[0],
  plugin: execFileSync(plugin, ['version']).toString().trim(),
  results: results.map((r) => ({ ...r, ratioToKubectl: ratio(r), cpuRatioToKubectl: r.cpuMedian / kube.cpuMedian })),
  helpLoadsClusterBuiltins: builtins ? builtins.filter((m) => clusterOnly.includes(m)) : 'bundle not found',
};

if (args.includes('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const f = (x) => x.toFixed(1).padStart(7);
  console.log(`${report.date}  ${report.machine.cpus} cores (${report.machine.model}), load ${load0.toFixed(2)} -> ${load1.toFixed(2)}`);
  console.log(`${report.plugin}; ${report.kubectl}; ${RUNS} alternating runs after ${WARMUP} warm-up rounds\n`);
  console.log(`wall time, ms:\n${'command'.padEnd(26)} median     min     max    mean  ratio to kubectl (medians)   CPU median (user+sys)`);
  for (const r of results) {
    const cpuRatio = r.cpuMedian / kube.cpuMedian;
    console.log(
      `${r.name.padEnd(26)}${f(r.median)} ${f(r.min)} ${f(r.max)} ${f(r.mean)}  ${ratio(r).toFixed(2).padEnd(29)}${f(r.cpuMedian)} (${cpuRatio.toFixed(2)})`,
    );
  }
  console.log(`\n--help loads cluster-only built-ins: ${JSON.stringify(report.helpLoadsClusterBuiltins)}`);
}
