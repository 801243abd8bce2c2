// Profiles one kubectl-gitops command: bundles src/main.ts with esbuild (source map on, otherwise as
// plugin/build.mjs does), runs it under `node --cpu-prof`, and prints where the time goes — idle
// (waiting for the API server), garbage collection, and the top functions by self time with their
// src/ file:line — plus the same grouped by source file and by the nearest src/ caller — and every API
// request it made (traced by a preloaded wrapper of https.request), grouped into phases.
//
// Usage: node test/bench/profile.mjs [--top N] -- <kubectl-gitops arguments...>
//   e.g. node test/bench/profile.mjs -- sync -f APP.yaml --desired DIR -o kv --kubeconfig KC
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Preloaded into the profiled process: records every https request (method, path, status, start and end). */
const TRACER = `
const https = require('node:https');
const fs = require('node:fs');
const t0 = performance.now();
const out = [];
const orig = https.request;
https.request = function (...args) {
  const o = typeof args[0] === 'object' && !(args[0] instanceof URL) ? args[0] : args[1] ?? {};
  const rec = { method: o.method ?? 'GET', path: o.path ?? '', start: performance.now() - t0 };
  const req = orig.apply(this, args);
  req.on('response', (res) => { rec.status = res.statusCode; res.on('end', () => { rec.end = performance.now() - t0; }); });
  out.push(rec);
  return req;
};
process.on('exit', () => fs.writeFileSync(process.env.KG_TRACE_FILE, JSON.stringify(out)));
`;

/** Summarises traced requests: count and time span per phase of the same method and resource. */
function requestSummary(trace) {
  const groups = new Map();
  for (const r of trace) {
    const path = r.path.split('?')[0];
    const resource = path
      .replace(/\/namespaces\/[^/]+/, '/namespaces/*')
      .split('/')
      .slice(0, 7)
      .join('/');
    const dry = /dryRun=All/.test(r.path) ? ' dry-run' : '';
    const key = `${r.method}${dry} ${r.method === 'PATCH' || r.method === 'DELETE' ? resource.replace(/\/[^/]+$/, '/*') : resource}`;
    const g = groups.get(key) ?? { n: 0, first: Infinity, last: 0, statuses: new Set() };
    g.n++;
    g.first = Math.min(g.first, r.start);
    g.last = Math.max(g.last, r.end ?? r.start);
    g.statuses.add(r.status);
    groups.set(key, g);
  }
  const lines = [...groups]
    .sort((a, b) => a[1].first - b[1].first)
    .map(([k, g]) => `${String(g.n).padStart(6)}  ${g.first.toFixed(0).padStart(6)}–${g.last.toFixed(0).padStart(6)} ms  [${[...g.statuses].join(',')}]  ${k}`);
  const first = Math.min(...trace.map((r) => r.start));
  const last = Math.max(...trace.map((r) => r.end ?? r.start));
  return `\n${trace.length} API requests, from ${first.toFixed(0)} ms to ${last.toFixed(0)} ms after start (count, span, statuses, what):\n${lines.join('\n')}\n`;
}

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
    writeFileSync(join(dir, 'tracer.cjs'), TRACER);
    const traceFile = join(dir, 'trace.json');
    const t0 = performance.now();
    const run = spawnSync(
      process.execPath,
      ['--require', join(dir, 'tracer.cjs'), '--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '500', bundle, ...args],
      {
        env: { ...process.env, NO_COLOR: '1', KG_TRACE_FILE: traceFile },
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      },
    );
    const wall = performance.now() - t0;
    process.stdout.write(
      `exit ${run.status}; wall ${wall.toFixed(0)} ms; stdout ${run.stdout.length} bytes; last stderr: ${run.stderr.trim().split('\n').slice(-2).join(' | ')}\n`,
    );
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
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const srcOf = new Map();
    const nearestSrc = (id) => {
      if (srcOf.has(id)) return srcOf.get(id);
      const n = byId.get(id);
      const loc = where(n.callFrame);
      const v = loc.startsWith('src/')
        ? `${n.callFrame.functionName || '(anonymous)'}  ${loc}`
        : parent.has(id)
          ? nearestSrc(parent.get(id))
          : '(no src/ frame: start-up, idle, GC)';
      srcOf.set(id, v);
      return v;
    };
    const bySrc = new Map();
    const fns = new Map();
    const files = new Map();
    for (const [id, us] of self) {
      const cf = byId.get(id).callFrame;
      const loc = where(cf);
      const key = `${cf.functionName || '(anonymous)'}  ${loc}`;
      const src = nearestSrc(id);
      bySrc.set(src, (bySrc.get(src) ?? 0) + us);
      fns.set(key, (fns.get(key) ?? 0) + us);
      const fileKey = loc.replace(/:\d+$/, '').replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*/, '$1');
      files.set(fileKey, (files.get(fileKey) ?? 0) + us);
    }
    const pct = (us) => `${(us / 1000).toFixed(0).padStart(6)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%`;
    process.stdout.write(`\nprofiled ${(total / 1000).toFixed(0)} ms; top ${top} functions by self time:\n`);
    for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(us)}  ${k}\n`);
    process.stdout.write(`\nby file / package:\n`);
    for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(us)}  ${k}\n`);
    process.stdout.write(`\nself time by the nearest src/ function on the stack (what our code spends, libraries included):\n`);
    for (const [k, us] of [...bySrc].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(us)}  ${k}\n`);
    // Inclusive time: each sample counted once for every src/ function on its stack (what a call costs with its callees).
    const inclusive = new Map();
    for (const [id, us] of self) {
      const seen = new Set();
      for (let at = id; at !== undefined; at = parent.get(at)) {
        const n = byId.get(at);
        const loc = where(n.callFrame);
        if (loc.startsWith('src/')) seen.add(`${n.callFrame.functionName || '(anonymous)'}  ${loc}`);
      }
      for (const k of seen) inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
    process.stdout.write(`\ninclusive time of src/ functions (callees included):\n`);
    for (const [k, us] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top)) process.stdout.write(`${pct(us)}  ${k}\n`);
    if (existsSync(traceFile)) process.stdout.write(requestSummary(JSON.parse(readFileSync(traceFile, 'utf8'))));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`profile: ${e.stack ?? e}\n`);
  process.exitCode = 1;
});
