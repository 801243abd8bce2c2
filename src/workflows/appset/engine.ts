// The Go template engine of `appset generate`: plugin/gotemplate (Go's text/template with the function set Argo CD's
// ApplicationSet controller offers) compiled to WebAssembly and run under Node's WASI (source/render/wasi.ts). A whole
// batch of strings goes to one run: parameter sets sent once, each string naming its set.
import type { GoEngine, Params } from '../../appset/template.js';
import { runWasi, type WasiEngine } from '../../source/render/wasi.js';

/** The environment variable naming the engine's .wasm file outside the single executable (tests, a dev checkout). */
export const GOTEMPLATE_WASM_ENV = 'KGITOPS_GOTEMPLATE_WASM';
/** The engine, its SEA asset (GOTEMPLATE_ASSET in plugin/build.mjs) and its variable. */
const GOTEMPLATE: WasiEngine = { label: 'Go template', asset: 'gotemplate.wasm', envVar: GOTEMPLATE_WASM_ENV };

interface EngineResponse {
  results?: { output?: string; error?: string }[];
  error?: string;
}

/** The engine for a process environment: renders a batch in one run. */
export function goTemplateEngine(env: Record<string, string | undefined>): GoEngine {
  return async (items, options) => {
    const sets: Params[] = [];
    const index = new Map<Params, number>();
    const request = {
      params: sets,
      items: items.map((it) => {
        let i = index.get(it.params);
        if (i === undefined) {
          i = sets.length;
          sets.push(it.params);
          index.set(it.params, i);
        }
        return { template: it.text, params: i, options };
      }),
    };
    const res = await runWasi<EngineResponse>(GOTEMPLATE, request, {}, env);
    if (res.error !== undefined || !res.results || res.results.length !== items.length)
      throw new Error(`the Go template engine failed: ${res.error ?? 'wrong number of results'}`);
    return res.results.map((r) => (r.output !== undefined ? { output: r.output } : { error: r.error ?? 'no output' }));
  };
}
