// Profiles one kubectl-gitops command: bundles src/main.ts with esbuild (source map on, otherwise as
// plugin/build.mjs does), runs it under `node --cpu-prof`, and prints where the time goes — idle
// (waiting for the API server), garbage collection, and the top functions by self time with their
// src/ file:line — plus the same grouped by source file.
//
// Usage: node test/bench/profile.mjs [--top N] -- <kubectl-gitops arguments...>
//   e.g. node test/bench/profile.mjs -- sync -f APP.yaml --desired DIR -o kv --kubeconfig KC
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Bundles the CLI with a source map into dir; returns the bundle path. */
async function bundleWithMap(dir) {
  const outfile = join(dir, 'kubectl-gitops.cjs');
  await build({
    entryPoints: [join(ROOT, 'src', 'main.ts')],
    absWorkingDir: ROOT,
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    minifySyntax: true,
    sourcemap: 'external',
    logLevel: 'warning',
    define: { 'import.meta.url': '__kg_import_meta_url', __KGITOPS_VERSION__: '"bench"', __KGITOPS_COMMIT__: '"bench"' },
    banner: { js: 'var __kg_import_meta_url=require("url").pathToFileURL(__filename).href;' },
  });
  return outfile;
}

/** Self time per profile node, from the sample deltas. */
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + dt);
  }
  return { byId, self };
}

async function main() {
  const argv = process.argv.slice(2);
  const sep = argv.indexOf('--');
  const own = sep < 0 ? [] : argv.slice(0, sep);
  const args = sep < 0 ? argv : argv.slice(sep + 1);
  const top = own.includes('--top') ? Number(own[own.indexOf('--top') + 1]) : 25;
  const dir = mkdtempSync(join(tmpdir(), 'kgitops-profile-'));
  try {
    const bundle = await bundleWithMap(dir);
    const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
    const t0 = performance.now();
    const run = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '500', bundle, ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    const wall = performance.now() - t0;
    process.stdout.write(`exit ${run.status}; wall ${wall.toFixed(0)} ms; stdout ${run.stdout.length} bytes; last stderr: ${run.stderr.trim().split('\n').slice(-2).join(' | ')}\n`);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('profiling: no .cpuprofile written');
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const { byId, self } = selfTimes(profile);
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    const where = (cf) => {
      if (!cf.url.endsWith('kubectl-gitops.cjs')) return cf.url ? cf.url.replace(/^node:/, 'node:') : '(native)';
      const e = map.findEntry(cf.lineNumber, cf.columnNumber);
      return e?.originalSource ? `${relative(ROOT, fileURLToPath(new URL(e.originalSource, `file://${dir}/`)))}:${e.originalLine + 1}` : 'bundle';
    };
    const fns = new Map();
    const files = new Map();
    for (const [id, us] of self) {
      const cf = byId.get(id).callFrame;
      const loc = where(cf);
      const key = `${cf.functionName || '(anonymous)'}  ${loc}`;
      fns.set(key, (fns.get(key) ?? 0) + us);
      const fileKey = loc.replace(/:\d+$/, '').replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*/, '$1');
      files.set(fileKey, (files.get(fileKey) ?? 0) + us);
    }
    const pct = (us) => `${(us / 1000).toFixed(0).padStart(6)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%`;
    process.stdout.write(`\nprofiled ${(total / 1000).toFixed(0)} ms; top ${top} functions by self time:\n`);
    for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(us)}  ${k}\n`);
    process.stdout.write(`\nby file / package:\n`);
    for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(us)}  ${k}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`profile: ${e.stack ?? e}\n`);
  process.exitCode = 1;
});
