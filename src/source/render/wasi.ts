// Our small Go programs compiled to WebAssembly (GOOS=wasip1, plugin/build.mjs goWasm) run under Node's WASI: the
// Jsonnet engine (jsonnet.ts) and the Go template engine of `appset generate` (workflows/appset/engine.ts). Each reads
// one JSON request on standard input and writes one JSON response; the .wasm comes from an environment variable naming
// a file (tests, a dev checkout) or from the single executable's SEA assets.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../../model/errors.js';

/** The part of the WebAssembly API used here (the project's TypeScript lib has no DOM types). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<object>;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** One engine: its name for messages, its SEA asset, and the environment variable that names its file instead. */
export interface WasiEngine {
  label: string;
  asset: string;
  envVar: string;
}

const compiled = new Map<string, Promise<object>>();

async function engineBytes(e: WasiEngine, env: Record<string, string | undefined>): Promise<Uint8Array> {
  const named = env[e.envVar];
  if (named) return readFileSync(named);
  const sea = await import('node:sea').catch(() => undefined);
  if (sea?.isSea()) return new Uint8Array(sea.getAsset(e.asset));
  throw new InputError(`the ${e.label} engine is not available: this build has no ${e.asset} (npm run build embeds it; ${e.envVar}=FILE names one)`);
}

function engine(e: WasiEngine, env: Record<string, string | undefined>): Promise<object> {
  let p = compiled.get(e.asset);
  if (!p) {
    p = engineBytes(e, env).then((b) => Wasm.compile(b));
    compiled.set(e.asset, p);
    p.catch(() => compiled.delete(e.asset));
  }
  return p;
}

/** node:wasi without its start-up "experimental" warning (the interface used here is WASI preview 1, stable in Node). */
async function loadWasi(): Promise<typeof import('node:wasi')> {
  const emit = process.emitWarning;
  process.emitWarning = ((w: string | Error, ...rest: unknown[]) => {
    if (String(typeof w === 'string' ? w : w.message).includes('WASI')) return;
    (emit as (...a: unknown[]) => void).call(process, w, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await import('node:wasi');
  } finally {
    process.emitWarning = emit;
  }
}

/** One run of an engine with a JSON request; `preopens` maps guest folders to host folders. Its JSON response. */
export async function runWasi<T>(e: WasiEngine, request: object, preopens: Record<string, string>, env: Record<string, string | undefined>): Promise<T> {
  const [module, { WASI }] = await Promise.all([engine(e, env), loadWasi()]);
  const scratch = mkdtempSync(join(tmpdir(), `kubectl-gitops-${e.asset.replace(/\.wasm$/, '')}-`));
  const inPath = join(scratch, 'request.json');
  const outPath = join(scratch, 'response.json');
  writeFileSync(inPath, JSON.stringify(request));
  const stdin = openSync(inPath, 'r');
  const stdout = openSync(outPath, 'w');
  const stderr = openSync(join(scratch, 'stderr'), 'w');
  try {
    const wasi = new WASI({ version: 'preview1', args: [e.asset.replace(/\.wasm$/, '')], env: {}, preopens, stdin, stdout, stderr, returnOnExit: true });
    const instance = await Wasm.instantiate(module, wasi.getImportObject());
    const code = wasi.start(instance as Parameters<typeof wasi.start>[0]);
    const text = readFileSync(outPath, 'utf8');
    if (code !== 0 || text.trim() === '') throw new Error(`the ${e.label} engine exited ${code}: ${readFileSync(join(scratch, 'stderr'), 'utf8').trim()}`);
    return JSON.parse(text) as T;
  } finally {
    for (const fd of [stdin, stdout, stderr]) closeSync(fd);
    rmSync(scratch, { recursive: true, force: true });
  }
}
