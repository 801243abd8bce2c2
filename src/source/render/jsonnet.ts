// Jsonnet files of a directory source, evaluated by the embedded engine (google/go-jsonnet compiled to WebAssembly,
// plugin/jsonnet) under Node's WASI, with the commit's tree mounted read-only at /repo — as Argo CD's repo-server
// evaluates them (makeJsonnetVM): TLAs and ext vars after its envsubst, the source folder then the libs (relative
// to the repository root) as import paths.
import { posix } from 'node:path';
import type { JsonnetOptions } from '../../app/source-options.js';
import { InputError, ManifestError } from '../../model/errors.js';
import { envsubst, type RenderEnv } from './envsubst.js';
import { runWasi, type WasiEngine } from './wasi.js';
import { scrubToolMessage } from './tool-message.js';

/** The environment variable naming the engine's .wasm file outside the single executable (tests, a dev checkout). */
export const JSONNET_WASM_ENV = 'KGITOPS_JSONNET_WASM';
/** The engine, its SEA asset (JSONNET_ASSET in plugin/build.mjs) and its variable. */
const JSONNET: WasiEngine = { label: 'Jsonnet', asset: 'jsonnet.wasm', envVar: JSONNET_WASM_ENV };

interface EngineResponse {
  output?: string;
  error?: string;
  version: string;
}

/** One run of the engine with a JSON request; `root` is mounted at /repo. */
function runEngine(request: object, root: string | undefined, env: Record<string, string | undefined>): Promise<EngineResponse> {
  return runWasi<EngineResponse>(JSONNET, request, root ? { '/repo': root } : {}, env);
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
  if (res.error !== undefined)
    throw new ManifestError(`evaluating Jsonnet ${e.label}: ${scrubToolMessage(res.error.split('/repo/').join('').trim(), 'jsonnet')}`);
  return res.output ?? '';
}
