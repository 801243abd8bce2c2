// `npm run build`: bundles src/main.ts with esbuild and turns it into a Node single executable (plugin/kubectl-gitops).
//
// Steps: esbuild (one CommonJS file, version and commit stamped) -> SEA blob with the V8 code cache
// (`node --experimental-sea-config`) -> a copy of the pinned Node 24 binary, stripped of debug info
// -> postject injects the blob -> smoke check that the result runs with an empty environment.
// The functions are exported so plugin/package.mjs can build cross-platform executables the same way.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim() || 'unknown';
  } catch {
    // not a git checkout (e.g. a source tarball): keep "unknown"
  }
  return { version: pkg.version, commit };
}

/** Bundles src/main.ts into one CommonJS file; dynamic imports stay lazily evaluated wrappers. */
export async function bundle(outfile, info) {
  const result = await build({
    entryPoints: [join(ROOT, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    define: {
      'import.meta.url': '__kg_import_meta_url',
      __KGITOPS_VERSION__: JSON.stringify(info.version),
      __KGITOPS_COMMIT__: JSON.stringify(info.commit),
    },
    banner: { js: 'var __kg_import_meta_url=require("url").pathToFileURL(__filename).href;' },
  });
  return result.metafile;
}

/** Writes the sea-config and produces the blob; `codeCache` only when the target is this platform. */
export function makeBlob(bundlePath, blobPath, { codeCache }) {
  const configPath = blobPath.replace(/\.blob$/, '') + '.sea-config.json';
  writeFileSync(
    configPath,
    JSON.stringify(
      { main: bundlePath, output: blobPath, disableExperimentalSEAWarning: true, useCodeCache: codeCache, useSnapshot: false },
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

/** Which input files the entry point reaches without crossing a dynamic import (what `--help` evaluates). */
export function eagerInputs(metafile) {
  const outputs = Object.values(metafile.outputs);
  return outputs.length ? Object.keys(outputs[0].inputs) : [];
}

async function main() {
  const started = Date.now();
  mkdirSync(WORK, { recursive: true });
  const info = buildInfo();
  const bundlePath = join(WORK, 'kubectl-gitops.cjs');
  const blobPath = join(WORK, 'kubectl-gitops.blob');
  const out = join(ROOT, 'plugin', 'kubectl-gitops');

  await bundle(bundlePath, info);
  const t1 = Date.now();
  makeBlob(bundlePath, blobPath, { codeCache: true });
  const t2 = Date.now();

  // Reuse a stripped Node copy across builds: stripping 126 MB is the slow part.
  const stripped = join(WORK, `node-${process.version}-${process.platform}-${process.arch}.stripped`);
  if (!existsSync(stripped) || statSync(stripped).mtimeMs < statSync(NODE_BIN).mtimeMs) {
    copyFileSync(NODE_BIN, stripped + '.tmp');
    if (!stripElf(stripped + '.tmp')) console.warn('build: strip not available, shipping Node with its debug info');
    renameSync(stripped + '.tmp', stripped);
  }
  await injectSea({ nodeBinary: stripped, blobPath, out });
  const t3 = Date.now();

  // The executable must run with nothing from the environment: no PATH, no node_modules.
  const help = execFileSync(out, ['version', '-o', 'json'], { env: {}, cwd: '/' }).toString();
  const v = JSON.parse(help);
  if (v.version !== info.version) throw new Error(`checking the executable: version ${v.version}, expected ${info.version}`);

  const size = (statSync(out).size / 1e6).toFixed(1);
  console.log(
    `built plugin/kubectl-gitops ${info.version} (${info.commit}), ${size} MB: bundle ${t1 - started} ms, blob ${t2 - t1} ms, inject ${t3 - t2} ms`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error('build failed:', err);
    process.exitCode = 1;
  });
}
