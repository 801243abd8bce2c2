// Jsonnet files of a directory source, evaluated by the embedded engine (google/go-jsonnet compiled to WebAssembly,
// plugin/jsonnet) under Node's WASI, with the commit's tree mounted read-only at /repo — as Argo CD's repo-server
// evaluates them (makeJsonnetVM): TLAs and ext vars after its envsubst, the source folder then the libs (relative
// to the repository root) as import paths.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type { JsonnetOptions } from '../../app/source-options.js';
import { InputError } from '../../model/errors.js';
import { envsubst, type RenderEnv } from './envsubst.js';

/** The environment variable naming the engine's .wasm file outside the single executable (tests, a dev checkout). */
export const JSONNET_WASM_ENV = 'KGITOPS_JSONNET_WASM';
/** The engine's name among the executable's SEA assets. */
const JSONNET_ASSET = 'jsonnet.wasm';

/** The part of the WebAssembly API used here (the project's TypeScript lib has no DOM types). */
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<object>;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let compiled: Promise<object> | undefined;

async function engineBytes(env: Record<string, string | undefined>): Promise<Uint8Array> {
  const named = env[JSONNET_WASM_ENV];
  if (named) return readFileSync(named);
  const sea = await import('node:sea').catch(() => undefined);
  if (sea?.isSea()) return new Uint8Array(sea.getAsset(JSONNET_ASSET));
  throw new InputError(`the Jsonnet engine is not available: this build has no ${JSONNET_ASSET} (npm run build embeds it; ${JSONNET_WASM_ENV}=FILE names one)`);
}

function engine(env: Record<string, string | undefined>): Promise<object> {
  compiled ??= engineBytes(env).then((b) => Wasm.compile(b));
  compiled.catch(() => (compiled = undefined));
  return compiled;
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

interface EngineResponse {
  output?: string;
  error?: string;
  version: string;
}

/** One run of the engine with a JSON request; `root` is mounted at /repo. */
async function runEngine(request: object, root: string | undefined, env: Record<string, string | undefined>): Promise<EngineResponse> {
  const [module, { WASI }] = await Promise.all([engine(env), loadWasi()]);
  const scratch = mkdtempSync(join(tmpdir(), 'kubectl-gitops-jsonnet-'));
  const inPath = join(scratch, 'request.json');
  const outPath = join(scratch, 'response.json');
  writeFileSync(inPath, JSON.stringify(request));
  const stdin = openSync(inPath, 'r');
  const stdout = openSync(outPath, 'w');
  const stderr = openSync(join(scratch, 'stderr'), 'w');
  try {
    const wasi = new WASI({
      version: 'preview1',
      args: ['jsonnet'],
      env: {},
      preopens: root ? { '/repo': root } : {},
      stdin,
      stdout,
      stderr,
      returnOnExit: true,
    });
    const instance = await Wasm.instantiate(module, wasi.getImportObject());
    const code = wasi.start(instance as Parameters<typeof wasi.start>[0]);
    const text = readFileSync(outPath, 'utf8');
    if (code !== 0 || text.trim() === '') throw new Error(`the Jsonnet engine exited ${code}: ${readFileSync(join(scratch, 'stderr'), 'utf8').trim()}`);
    return JSON.parse(text) as EngineResponse;
  } finally {
    for (const fd of [stdin, stdout, stderr]) closeSync(fd);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The embedded engine's version (go-jsonnet's own `jsonnet.Version()`), e.g. `v0.22.0`. */
export async function jsonnetVersion(env: Record<string, string | undefined>): Promise<string> {
  return (await runEngine({}, undefined, env)).version;
}

export interface JsonnetEval {
  /** The materialised commit tree. */
  root: string;
  /** The file to evaluate and source.path, relative to the repository root ('' = the root). */
  file: string;
  path: string;
  options: JsonnetOptions;
  env: RenderEnv;
  processEnv: Record<string, string | undefined>;
  /** `<repo>@<sha7>:<file>`, for messages. */
  label: string;
}

/** Evaluates one .jsonnet file; the JSON text it produces, or InputError with the engine's message. */
export async function evaluateJsonnet(e: JsonnetEval): Promise<string> {
  const inRepo = (p: string) => posix.join('/repo', p);
  const libs = e.options.libs.map((l) => {
    const p = posix.normalize(posix.join('/repo', l));
    if (p !== '/repo' && !p.startsWith('/repo/')) throw new InputError(`spec.source.directory.jsonnet.libs ${JSON.stringify(l)} is outside the repository`);
    return p;
  });
  const vars = (list: JsonnetOptions['tlas']) => list.map((v) => ({ name: v.name, value: envsubst(v.value, e.env), code: v.code }));
  const res = await runEngine(
    { file: inRepo(e.file), jpaths: [inRepo(e.path), ...libs], tlas: vars(e.options.tlas), extVars: vars(e.options.extVars) },
    e.root,
    e.processEnv,
  );
  if (res.error !== undefined) throw new InputError(`evaluating Jsonnet ${e.label}: ${res.error.split('/repo/').join('').trim()}`);
  return res.output ?? '';
}
