// `npm run build`: bundles src/main.ts with esbuild and turns it into a Node single executable (plugin/kubectl-gitops).
//
// Steps: esbuild (split into a small start-up script and lazily loaded chunks, all CommonJS, version
// and commit stamped) -> SEA blob (`node --experimental-sea-config`): the start-up script as a V8
// startup snapshot (or with the V8 code cache), the chunks as SEA assets (their code caches are made
// at run time, see loader()) -> a copy of the pinned Node 24 binary, stripped -> postject injects
// the blob -> check that it runs with an empty environment.
// The functions are exported so plugin/package.mjs can build cross-platform executables the same way.
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const WORK = join(ROOT, 'plugin', '.sea');
/** The fuse string Node looks for to know a SEA blob was injected (fixed by Node). */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
export const NODE_BIN = join(ROOT, 'node_modules', 'node', 'bin', 'node');
const POSTJECT_CLI = join(ROOT, 'node_modules', 'postject', 'dist', 'cli.js');

/** Version from package.json and the short git commit ("unknown" outside a git checkout). */
export function buildInfo() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  let commit = 'unknown';
  try {
    commit =
      execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim() || 'unknown';
  } catch {
    // not a git checkout (e.g. a source tarball): keep "unknown"
  }
  return { version: pkg.version, commit };
}

/**
 * While a startup snapshot is built, process.stdout/stderr must not be opened (an open stream is a
 * handle V8 cannot serialize), but yargs reads process.stdout.columns when it loads. Stand-ins serve
 * that read and the real lazy getters are put back just before the heap is serialized.
 */
const SNAPSHOT_GUARD = `(function () {
  var snap = require("v8").startupSnapshot;
  if (!(snap && snap.isBuildingSnapshot())) return;
  ["stdout", "stderr"].forEach(function (name) {
    var real = Object.getOwnPropertyDescriptor(process, name);
    var fake = Object.assign(new (require("events"))(), {
      columns: undefined, isTTY: false, fd: name === "stdout" ? 1 : 2,
      write: function (chunk, enc, cb) { if (name === "stderr") process._rawDebug(String(chunk).replace(/\\n$/, "")); if (typeof cb === "function") cb(); else if (typeof enc === "function") enc(); return true; },
    });
    Object.defineProperty(process, name, { configurable: true, enumerable: real.enumerable, get: function () { return fake; } });
    snap.addSerializeCallback(function () { Object.defineProperty(process, name, real); });
  });
  // string-width (under yargs' help) makes an Intl.Segmenter when it loads; ICU objects cannot be
  // serialized either, so segmenters made now create the real one on first use, and forget it again
  // before the heap is serialized.
  var RealSegmenter = Intl.Segmenter, lazy = [];
  function LazySegmenter(locales, options) { this.args = [locales, options]; this.real = null; lazy.push(this); }
  LazySegmenter.prototype.get = function () { return this.real || (this.real = new RealSegmenter(this.args[0], this.args[1])); };
  LazySegmenter.prototype.segment = function (text) { return this.get().segment(text); };
  LazySegmenter.prototype.resolvedOptions = function () { return this.get().resolvedOptions(); };
  LazySegmenter.supportedLocalesOf = RealSegmenter.supportedLocalesOf;
  Intl.Segmenter = LazySegmenter;
  snap.addSerializeCallback(function () {
    lazy.forEach(function (s) { s.real = null; });
    Intl.Segmenter = RealSegmenter;
  });
})();
`;

/**
 * The prelude of the entry script: a small CommonJS loader for the other chunks, which live beside
 * the entry (plugin/.sea/out) or, inside the executable, as SEA assets. Only the chunks a command
 * actually imports are ever read and compiled.
 */
function loader(outdir, buildId) {
  return `${SNAPSHOT_GUARD}var __kg_build_id = ${JSON.stringify(buildId)};
var __kg_mods = Object.create(null), __kg_scripts = Object.create(null), __kg_outdir = ${JSON.stringify(outdir)};
function __kg_building() {
  var v8 = require("v8");
  return !!(v8.startupSnapshot && v8.startupSnapshot.isBuildingSnapshot());
}
function __kg_chunk(name) {
  var path = require("path");
  if (!__kg_building()) {
    var sea = require("node:sea");
    if (sea.isSea()) return { file: path.join(path.dirname(process.execPath), name), source: sea.getAsset(name, "utf8") };
  }
  // Not __dirname: a bundled ESM module (yargs) declares its own top-level __dirname in this scope.
  var file = path.join(__kg_outdir, name);
  return { file: file, source: require("fs").readFileSync(file, "utf8") };
}
// V8 code caches of the chunks, per build, in the user's cache folder: made at the first run that
// loads a chunk (written when the process exits), used by the next ones. V8 checks each cache and
// rejects one that does not fit; any file error just means compiling from source.
function __kg_cache_dir() {
  var env = process.env, path = require("path");
  var base = env.XDG_CACHE_HOME || (env.HOME ? path.join(env.HOME, ".cache") : "");
  return base && !env.KGITOPS_NO_CODE_CACHE ? path.join(base, "kubectl-gitops", "code-cache", __kg_build_id) : "";
}
function __kg_read_cache(name) {
  var dir = __kg_cache_dir();
  if (!dir) return undefined;
  try { return require("fs").readFileSync(require("path").join(dir, name + ".cache")); } catch (e) { return undefined; }
}
var __kg_cache_writer = false;
function __kg_write_caches_at_exit() {
  if (__kg_cache_writer) return;
  __kg_cache_writer = true;
  process.on("exit", function () {
    var dir = __kg_cache_dir(), fs = require("fs"), path = require("path");
    if (!dir) return;
    Object.keys(__kg_scripts).forEach(function (name) {
      var s = __kg_scripts[name];
      if (!s.needsCache) return;
      try {
        fs.mkdirSync(dir, { recursive: true });
        var file = path.join(dir, name + ".cache"), tmp = file + "." + process.pid;
        fs.writeFileSync(tmp, s.script.createCachedData());
        fs.renameSync(tmp, file);
      } catch (e) { /* a cache is an optimisation only */ }
    });
    // Caches of other builds that no run has written for a day go.
    try {
      var parent = path.dirname(dir), dayAgo = Date.now() - 864e5;
      fs.readdirSync(parent).forEach(function (d) {
        var p = path.join(parent, d);
        if (d !== __kg_build_id && fs.statSync(p).mtimeMs < dayAgo) fs.rmSync(p, { recursive: true, force: true });
      });
    } catch (e) { /* nothing to tidy */ }
  });
}
function __kg_compile(name, c) {
  var params = ["exports", "require", "module", "__filename", "__dirname"];
  // While the startup snapshot is built, plain Function (vm keeps handles a snapshot cannot hold).
  if (__kg_building()) return new Function(params.join(","), c.source + "\\n//# sourceURL=" + c.file);
  // Otherwise vm.Script with the chunk's V8 code cache, when there is a good one (it spares parsing).
  var cache = __kg_read_cache(name);
  var script = new (require("vm").Script)("(function (" + params.join(", ") + ") {" + c.source + "\\n})", { filename: c.file, cachedData: cache });
  __kg_scripts[name] = { script: script, needsCache: !cache || script.cachedDataRejected };
  if (__kg_scripts[name].needsCache) __kg_write_caches_at_exit();
  return script.runInThisContext();
}
function __kg_require(id) {
  if (!id.startsWith("./")) return require(id);
  var name = id.slice(2), hit = __kg_mods[name];
  if (hit) return hit.exports;
  var module = { exports: {} };
  __kg_mods[name] = module;
  var c = __kg_chunk(name);
  var fn = __kg_compile(name, c);
  fn.call(module.exports, module.exports, __kg_require, module, c.file, require("path").dirname(c.file));
  return module.exports;
}
`;
}

/**
 * string-width 7 (under yargs' help layout) runs Intl.Segmenter over every string it measures, which
 * made `--help` cost ~30 ms. This wraps it with the fast path string-width 8 has: printable ASCII is
 * as wide as it is long; anything else goes to the real function.
 */
/**
 * The Lua health checks' wasmoon (src/lua/assets.ts reads it from node_modules at run time): in the
 * executable its module source and its .wasm (base64) are embedded in the lazily loaded chunk instead.
 * A build in which the file was not replaced fails: that executable would look for node_modules and
 * find it only when it happens to run from inside a checkout.
 */
const LUA_ASSETS_FILE = /[\\/]src[\\/]lua[\\/]assets\.ts$/;
/** Whether the last build replaced the file (bundle() fails when it did not). */
let luaAssetsEmbedded = false;
const luaAssets = {
  name: 'lua-assets',
  setup(b) {
    b.onStart(() => {
      luaAssetsEmbedded = false;
    });
    b.onLoad({ filter: LUA_ASSETS_FILE }, () => {
      luaAssetsEmbedded = true;
      return {
        resolveDir: ROOT,
        loader: 'js',
        contents: `import source from 'wasmoon/dist/index.js' with { type: 'text' };
import wasmBase64 from 'wasmoon/dist/glue.wasm';
export async function wasmoonAssets() { return { source, wasmBase64 }; }`,
      };
    });
  },
};

const asciiStringWidth = {
  name: 'ascii-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) => {
      if (args.pluginData === 'real') return undefined;
      return { path: args.importer, namespace: 'ascii-string-width', pluginData: args.resolveDir };
    });
    b.onLoad({ filter: /.*/, namespace: 'ascii-string-width' }, (args) => ({
      resolveDir: args.pluginData,
      contents: `import real from 'string-width?real';
const PRINTABLE_ASCII = /^[\\x20-\\x7E]*$/;
export default function stringWidth(s, options) {
  return typeof s === 'string' && PRINTABLE_ASCII.test(s) ? s.length : real(s, options);
}`,
    }));
    b.onResolve({ filter: /^string-width\?real$/ }, (args) => b.resolve('string-width', { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'real' }));
  },
};

/**
 * Bundles `<srcRoot>/src/main.ts` with code splitting, so that what only some commands need (what they
 * reach through `await import()`, e.g. client-node) lands in separate chunks that `--help` never reads.
 * esbuild splits only ESM, so each output is then turned into CommonJS (the only format a Node 24 SEA
 * runs) and chunk imports go through the LOADER. Returns the entry, the chunks and what is eager.
 */
export async function bundle(outdir, info, srcRoot = ROOT) {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { main: join(srcRoot, 'src', 'main.ts') },
    absWorkingDir: ROOT,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    chunkNames: 'chunk-[hash]',
    plugins: [asciiStringWidth, luaAssets],
    loader: { '.wasm': 'base64' },
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    write: false,
    define: {
      'import.meta.url': '__kg_import_meta_url',
      __KGITOPS_VERSION__: JSON.stringify(info.version),
      __KGITOPS_COMMIT__: JSON.stringify(info.commit),
    },
    // client-node (ESM) reads import.meta.url; a snapshot's entry has no __filename while it is built.
    banner: { js: 'var __kg_import_meta_url=require("url").pathToFileURL(typeof __filename==="string"?__filename:process.execPath).href;' },
  });
  if (!luaAssetsEmbedded)
    throw new Error(`bundling: the Lua engine's assets were not embedded, no module matched ${LUA_ASSETS_FILE} (did src/lua/assets.ts move?)`);
  mkdirSync(outdir, { recursive: true });
  // Names this build's code caches: a cache is only valid for the exact executable that wrote it.
  // A release build (info.stamp, see package.mjs) must give the same bytes from the same inputs: no clock in it.
  const buildId = `${info.version}-${info.commit}-${createHash('sha256')
    .update(result.outputFiles.map((f) => f.hash).join())
    .update(info.stamp ?? String(Date.now()))
    .digest('hex')
    .slice(0, 16)}`;
  const chunks = [];
  let main = '';
  for (const file of result.outputFiles) {
    const name = relative(outdir, file.path);
    const isEntry = name === 'main.js';
    // `dynamic-import: false` turns `import("./chunk")` into a require of the chunk (through the LOADER).
    let { code } = await transform(file.text, {
      format: 'cjs',
      loader: 'js',
      target: 'node24',
      supported: { 'dynamic-import': false },
      logLevel: 'error',
    });
    if (isEntry) code = loader(outdir, buildId) + code.replace(/\brequire\("(\.\/[^"]+\.js)"\)/g, '__kg_require("$1")');
    const path = join(outdir, isEntry ? 'main.cjs' : name);
    writeFileSync(path, code);
    if (isEntry) main = path;
    else chunks.push({ name, path });
  }
  // The Jsonnet engine rides along as one more asset (src/source/render/jsonnet.ts reads it by name).
  chunks.push({ name: JSONNET_ASSET, path: jsonnetWasm(srcRoot) });
  // And the Go template engine of `appset generate` (src/appset/engine.ts reads it by name).
  chunks.push({ name: GOTEMPLATE_ASSET, path: gotemplateWasm(srcRoot) });
  // So do Argo CD's own Lua health checks (src/workflows/status/health-library.ts reads them by name).
  chunks.push({ name: ARGOCD_HEALTH_ASSET, path: argocdHealthChecks(srcRoot) });
  return { main, chunks, metafile: result.metafile, eager: eagerInputs(result.metafile, outdir) };
}

/** The embedded Jsonnet engine's SEA asset name (JSONNET_ASSET in src/source/render/jsonnet.ts). */
export const JSONNET_ASSET = 'jsonnet.wasm';
/** The embedded Go template engine's SEA asset name (GOTEMPLATE_ASSET in src/appset/engine.ts). */
export const GOTEMPLATE_ASSET = 'gotemplate.wasm';

/**
 * A small Go main of ours under plugin/<folder> (go.mod, go.sum, main.go) built with GOOS=wasip1 into the user's
 * cache, keyed by the version of the module it wraps (`versionOf`, read from its go.mod) and a hash of the module's
 * files, so it is built once per version (about a minute cold); a copy is left at plugin/.sea/<asset> for tests and
 * a dev checkout. Returns the cached file.
 */
function goWasm(srcRoot, { folder, asset, label, versionOf }) {
  const dir = join(srcRoot, 'plugin', folder);
  const files = ['go.mod', 'go.sum', 'main.go'].map((f) => readFileSync(join(dir, f)));
  const version = new RegExp(`${versionOf.replace(/[.]/g, '\\.')} (v\\S+)`).exec(files[0].toString())?.[1] ?? 'unknown';
  const hash = createHash('sha256');
  for (const f of files) hash.update(f);
  const base = process.env.KGITOPS_CACHE ?? join(process.env.XDG_CACHE_HOME || join(process.env.HOME ?? '/tmp', '.cache'), 'kubectl-gitops');
  const out = join(base, 'wasm', `${folder}-${version}_${hash.digest('hex').slice(0, 12)}.wasm`);
  if (!existsSync(out)) {
    mkdirSync(dirname(out), { recursive: true });
    const started = Date.now();
    console.log(`build: building the ${label} engine (${versionOf} ${version}, GOOS=wasip1) into ${out}`);
    try {
      execFileSync('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', out + '.tmp', '.'], {
        cwd: dir,
        env: { ...process.env, GOOS: 'wasip1', GOARCH: 'wasm', GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false' },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
    } catch (err) {
      throw new Error(`building the ${label} engine (go build in plugin/${folder}; the Go toolchain must be on PATH): ${err.message}`, { cause: err });
    }
    renameSync(out + '.tmp', out);
    console.log(`build: ${label} engine built in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  mkdirSync(WORK, { recursive: true });
  copyFileSync(out, join(WORK, asset));
  return out;
}

/** The Jsonnet engine: plugin/jsonnet, our small main around google/go-jsonnet (see goWasm). */
export function jsonnetWasm(srcRoot = ROOT) {
  return goWasm(srcRoot, { folder: 'jsonnet', asset: JSONNET_ASSET, label: 'Jsonnet', versionOf: 'github.com/google/go-jsonnet' });
}

/** The Go template engine of `appset generate`: plugin/gotemplate, our small main around text/template and sprig (see goWasm). */
export function gotemplateWasm(srcRoot = ROOT) {
  return goWasm(srcRoot, { folder: 'gotemplate', asset: GOTEMPLATE_ASSET, label: 'Go template', versionOf: 'github.com/Masterminds/sprig/v3' });
}

/** The embedded Argo CD health checks' SEA asset name (ARGOCD_HEALTH_ASSET in src/workflows/status/health-library.ts). */
export const ARGOCD_HEALTH_ASSET = 'argocd-health.json';

/**
 * Argo CD's Lua health checks: plugin/argocd-health (our small main over github.com/argoproj/argo-cd/v3's
 * resource_customizations package, at the version its go.mod pins) run once into the user's cache, keyed by that
 * version and a hash of the module's files; its JSON (folder -> health.lua) is built into the executable, and a copy
 * left at plugin/.sea/argocd-health.json for tests and a dev checkout. About 15 s cold when the module is cached.
 */
export function argocdHealthChecks(srcRoot = ROOT) {
  const dir = join(srcRoot, 'plugin', 'argocd-health');
  const files = ['go.mod', 'go.sum', 'main.go'].map((f) => readFileSync(join(dir, f)));
  const version = /github\.com\/argoproj\/argo-cd\/v3 (v\S+)/.exec(files[0].toString())?.[1] ?? 'unknown';
  const hash = createHash('sha256');
  for (const f of files) hash.update(f);
  const base = process.env.KGITOPS_CACHE ?? join(process.env.XDG_CACHE_HOME || join(process.env.HOME ?? '/tmp', '.cache'), 'kubectl-gitops');
  const out = join(base, 'argocd-health', `argocd-health-${version}_${hash.digest('hex').slice(0, 12)}.json`);
  if (!existsSync(out)) {
    mkdirSync(dirname(out), { recursive: true });
    const started = Date.now();
    console.log(`build: reading Argo CD ${version}'s health checks (resource_customizations) into ${out}`);
    let json;
    try {
      json = execFileSync('go', ['run', '-trimpath', '.'], {
        cwd: dir,
        env: { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false' },
        stdio: ['ignore', 'pipe', 'inherit'],
        maxBuffer: 64 * 1024 * 1024,
      });
    } catch (err) {
      throw new Error(`reading Argo CD's health checks (go run in plugin/argocd-health; the Go toolchain must be on PATH): ${err.message}`, { cause: err });
    }
    const checks = JSON.parse(json.toString('utf8'));
    if (Object.keys(checks).length < 100) throw new Error(`Argo CD ${version}'s resource_customizations gave only ${Object.keys(checks).length} health checks`);
    writeFileSync(out + '.tmp', json);
    renameSync(out + '.tmp', out);
    console.log(`build: ${Object.keys(checks).length} Argo CD health checks read in ${Math.round((Date.now() - started) / 1000)} s`);
  }
  mkdirSync(WORK, { recursive: true });
  copyFileSync(out, join(WORK, ARGOCD_HEALTH_ASSET));
  return out;
}

/** Source files evaluated before any command runs: the entry output and what it imports statically. */
export function eagerInputs(metafile, outdir) {
  const outputs = metafile.outputs;
  const byPath = new Map(Object.entries(outputs).map(([k, v]) => [resolve(ROOT, k), v]));
  const seen = new Set();
  const queue = [resolve(outdir, 'main.js')];
  const inputs = new Set();
  while (queue.length) {
    const p = queue.pop();
    if (seen.has(p)) continue;
    seen.add(p);
    const out = byPath.get(p);
    if (!out) continue;
    for (const i of Object.keys(out.inputs)) inputs.add(i);
    for (const imp of out.imports) if (imp.kind === 'import-statement' && !imp.external) queue.push(resolve(ROOT, imp.path));
  }
  return [...inputs];
}

/**
 * V8 flags the executable always starts with. A young generation of 4 MB semi-spaces instead of V8's
 * default (up to 16 MB each on 64-bit): a command's garbage is short-lived request and response
 * objects, and collecting it sooner lowered the peak RSS of `diff --server-side` of 5,000 objects
 * from 269-289 MB to 209-211 MB at the same wall time (the commands wait on the API server, not on
 * the collector). NODE_OPTIONS can still add flags.
 */
const EXEC_ARGV = ['--max-semi-space-size=4'];

/**
 * Writes the sea-config and produces the blob. `snapshot` (a V8 startup snapshot of the start-up
 * code, warmed up by src/main.ts) and `codeCache` are only valid for this platform's Node binary.
 */
export function makeBlob(mainPath, chunks, blobPath, { codeCache = false, snapshot = false }) {
  const configPath = blobPath.replace(/\.blob$/, '') + '.sea-config.json';
  const assets = Object.fromEntries(chunks.map((c) => [c.name, c.path]));
  writeFileSync(
    configPath,
    JSON.stringify(
      {
        main: mainPath,
        output: blobPath,
        disableExperimentalSEAWarning: true,
        useCodeCache: codeCache && !snapshot,
        useSnapshot: snapshot,
        execArgv: EXEC_ARGV,
        assets,
      },
      null,
      2,
    ),
  );
  // The blob must be made by the same Node version as the target binary: the pinned Node 24.
  try {
    execFileSync(NODE_BIN, ['--experimental-sea-config', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(`making the SEA blob: ${String(err.stderr ?? err)}`, { cause: err });
  }
}

/**
 * Strips debug info and the static symbol table from an ELF copy (126.6 MB -> 108.5 MB); the dynamic
 * symbols native addons link against stay. Returns false when `strip` is missing or fails.
 */
export function stripElf(path, stripTool = 'strip') {
  try {
    execFileSync(stripTool, ['--strip-all', path], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Injects the blob into a copy of `nodeBinary` and writes `out` (0755). */
export async function injectSea({ nodeBinary, blobPath, out, machO = false, strip = null }) {
  const tmp = out + '.tmp';
  rmSync(tmp, { force: true });
  copyFileSync(nodeBinary, tmp);
  chmodSync(tmp, 0o755);
  if (strip) strip(tmp);
  // postject's CLI in a child process: its ELF parser prints harmless "Can't find string offset for
  // section name '.note...'" warnings for Node's many note sections; show the rest only on failure.
  const args = [POSTJECT_CLI, tmp, 'NODE_SEA_BLOB', blobPath, '--sentinel-fuse', SEA_FUSE, '--overwrite'];
  if (machO) args.push('--macho-segment-name', 'NODE_SEA');
  try {
    execFileSync(NODE_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    throw new Error(`injecting the SEA blob into ${nodeBinary}: ${String(err.stderr ?? err)}`, { cause: err });
  }
  chmodSync(tmp, 0o755);
  renameSync(tmp, out);
}

/** A stripped copy of the pinned Node binary, reused across builds (stripping 126 MB is slow). */
export function strippedNode() {
  const stripped = join(WORK, `node-${process.version}-${process.platform}-${process.arch}.stripped`);
  if (!existsSync(stripped) || statSync(stripped).mtimeMs < statSync(NODE_BIN).mtimeMs) {
    copyFileSync(NODE_BIN, stripped + '.tmp');
    if (!stripElf(stripped + '.tmp')) console.warn('build: strip not available, shipping Node with its debug info');
    renameSync(stripped + '.tmp', stripped);
  }
  return stripped;
}

/**
 * Builds the executable for this machine (bundle, blob with code cache, stripped Node, inject) and
 * checks that it runs with an empty environment. By default from the working tree into
 * plugin/kubectl-gitops; package.mjs passes an exported HEAD (`srcRoot`) and its own `out`.
 */
export async function buildHost({ srcRoot = ROOT, out = join(ROOT, 'plugin', 'kubectl-gitops'), info = buildInfo() } = {}) {
  const started = Date.now();
  mkdirSync(WORK, { recursive: true });
  const tag = srcRoot === ROOT ? 'out' : 'release';
  const outdir = join(WORK, tag);
  const blobPath = join(WORK, `${tag}.blob`);

  const bundled = await bundle(outdir, info, srcRoot);
  const heavy = bundled.eager.filter((i) => /node_modules\/@kubernetes\/client-node\//.test(i));
  if (heavy.length) {
    console.warn(`build: WARNING: client-node is evaluated at start-up (${heavy.length} files); import the module that needs it with await import()`);
  }
  const stripped = strippedNode();
  const t1 = Date.now();
  const assets = bundled.chunks;
  // A startup snapshot holds the start-up code already evaluated and warmed up (src/main.ts), which
  // halves `--help`. A start-up module that opens a handle (e.g. imports node:http) makes the snapshot
  // impossible: then fall back to the code cache, loudly. KGITOPS_SEA_SNAPSHOT=0 skips the snapshot.
  let startup = 'snapshot';
  if (process.env.KGITOPS_SEA_SNAPSHOT === '0') startup = 'code cache';
  else {
    try {
      makeBlob(bundled.main, assets, blobPath, { snapshot: true });
    } catch (err) {
      startup = 'code cache';
      const why =
        String(err.message)
          .split('\n')
          .find((l) => /CheckGlobal|not serialized|Error:/.test(l)) ?? err.message;
      console.warn(`build: WARNING: no startup snapshot (${why.trim()}); using the code cache, start-up is slower.`);
      console.warn('build: a module loaded at start-up probably opens a handle (node:http, a timer, a stream): import it with await import().');
    }
  }
  if (startup === 'code cache') makeBlob(bundled.main, assets, blobPath, { codeCache: true });
  const t2 = Date.now();

  await injectSea({ nodeBinary: stripped, blobPath, out });
  const t3 = Date.now();

  // The executable must run with nothing from the environment: no PATH, no node_modules.
  const v = JSON.parse(execFileSync(out, ['version', '-o', 'json'], { env: {}, cwd: '/' }).toString());
  if (v.version !== info.version || v.gitCommit !== info.commit) {
    throw new Error(`checking the executable: it says ${v.version} (${v.gitCommit}), expected ${info.version} (${info.commit})`);
  }
  const size = (statSync(out).size / 1e6).toFixed(1);
  console.log(
    `built ${relative(ROOT, out)} ${info.version} (${info.commit}), ${size} MB; start-up code ${kb(bundled.main)} KB (${startup}), ` +
      `${bundled.chunks.length} lazy chunks ${kb(...bundled.chunks.map((c) => c.path))} KB; ` +
      `bundle ${t1 - started} ms, blob ${t2 - t1} ms, inject ${t3 - t2} ms`,
  );
  return { info, bundled, out, startup };
}

function kb(...paths) {
  return Math.round(paths.reduce((n, p) => n + statSync(p).size, 0) / 1024);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildHost().catch((err) => {
    console.error('build failed:', err);
    process.exitCode = 1;
  });
}
