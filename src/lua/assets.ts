// wasmoon (Lua 5.4 compiled to WebAssembly) as text: its module source and its .wasm in base64, for the Lua worker
// (engine.ts). This file reads them from node_modules; the executable's build (plugin/build.mjs) replaces it with the
// same two values embedded in the lazily loaded chunk.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface WasmoonAssets {
  source: string;
  wasmBase64: string;
}

export async function wasmoonAssets(): Promise<WasmoonAssets> {
  const require = createRequire(import.meta.url);
  const main = require.resolve('wasmoon');
  return {
    source: readFileSync(main, 'utf8'),
    wasmBase64: readFileSync(main.replace(/index\.js$/, 'glue.wasm')).toString('base64'),
  };
}
