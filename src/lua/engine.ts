// The Lua engine for custom health checks, run as Argo CD runs them (util/lua/lua.go): a fresh Lua state per check
// with the global `obj` (the live object as a table), only the base, package and table libraries and a safe `os`
// (time and date) unless the check asks for the open libraries. The VM is wasmoon (Lua 5.4 in WebAssembly, where
// Argo CD has gopher-lua's 5.1, whose table.getn, unpack… are defined again before a check runs) in a worker thread: a check that runs past the time bound (Argo CD's 1 s) is stopped
// by ending the worker, and its Lua heap is capped. It sits above the core (it starts a worker and reads the
// engine's assets): health/ is handed it as a LuaEvaluator and reads what a check returned (health/lua-check.ts).
import { Worker } from 'node:worker_threads';
import type { KubeObject } from '../model/object.js';
import type { LuaCheckResult, LuaEvaluator } from '../health/lua-check.js';
import type { WasmoonAssets } from './assets.js';

/** Argo CD's timeout for one Lua run (context.WithTimeout(…, 1*time.Second)). */
const DEFAULT_LUA_TIMEOUT_MS = 1000;
/** The Lua heap of one check (Argo CD sets none; 64 MiB is far beyond what a health check needs). */
const DEFAULT_LUA_MEMORY_BYTES = 64 * 1024 * 1024;

export interface LuaLimits {
  timeoutMs: number;
  memoryBytes: number;
}

interface Reply {
  id?: number;
  ready?: boolean;
  error?: string;
  result?: { type: string; status?: unknown; message?: unknown; hasKeys?: boolean };
}

/**
 * Lua 5.1's functions that 5.4 dropped, as gopher-lua has them, for the libraries that are loaded (the bundled
 * checks call table.getn: batch/CronJob, argoproj.io/Rollout). Defined before any script runs.
 */
const LUA51 = [
  'table.getn = function(t) return #t end',
  'table.maxn = function(t) local n = 0 for k in pairs(t) do if type(k) == "number" and k > n then n = k end end return n end',
  'unpack = table.unpack',
  'loadstring = function(s, name) return load(s, name) end',
  'if math then math.pow = function(x, y) return x ^ y end; math.mod = math.fmod; math.log10 = function(x) return math.log(x, 10) end end',
  'if string then string.gfind = string.gmatch end',
].join('\n');

/**
 * The worker: wasmoon's module evaluated from its source, its .wasm handed over as bytes (Emscripten reads it
 * through the `fs` the worker gives it), then one check per message.
 */
function workerSource(source: string): string {
  const patched = source.replace('fs=require$1("fs")', 'fs=globalThis.__kg_fs');
  return `
const LUA51 = ${JSON.stringify(LUA51)};
const { parentPort, workerData } = require('node:worker_threads');
const realFs = require('node:fs');
const WASM = '/kubectl-gitops/wasmoon/glue.wasm';
const bytes = () => Buffer.from(workerData.wasmBase64, 'base64');
globalThis.__kg_fs = Object.assign({}, realFs, {
  readFileSync: (f, ...a) => (String(f) === WASM ? bytes() : realFs.readFileSync(f, ...a)),
  readFile: (f, ...a) => (String(f) === WASM ? a[a.length - 1](null, bytes()) : realFs.readFile(f, ...a)),
});
const wasmoon = (function () {
  const exports = {};
  const module = { exports };
  (function (exports, module, define, require, __filename, __dirname) {
${patched}
  })(exports, module, undefined, require, '/kubectl-gitops/wasmoon/index.js', '/kubectl-gitops/wasmoon');
  return exports;
})();
const factory = new wasmoon.LuaFactory(WASM);
const L = wasmoon.LuaLibraries;
const SAFE = [L.Package, L.Base, L.Table, L.OS];
const OPEN = [L.Package, L.Base, L.Table, L.OS, L.Coroutine, L.IO, L.String, L.UTF8, L.Math, L.Debug];
factory.getLuaModule().then(() => parentPort.postMessage({ ready: true }), (e) => parentPort.postMessage({ ready: false, error: String((e && e.message) || e) }));
parentPort.on('message', async (m) => {
  let engine;
  try {
    engine = await factory.createEngine({ openStandardLibs: false, injectObjects: false, enableProxy: false, traceAllocations: true });
    engine.global.setMemoryMax(workerData.memoryBytes);
    for (const lib of m.openLibs ? OPEN : SAFE) engine.global.loadLibrary(lib);
    // The libraries are also require()-able, as in gopher-lua; without the open libraries, Argo CD's safe os
    // (time and date only) stands for os.
    engine.doStringSync('for _, n in ipairs({"table", "os", "string", "math", "coroutine", "io", "utf8", "debug"}) do if _G[n] ~= nil then package.loaded[n] = _G[n] end end package.loaded._G = _G');
    if (!m.openLibs) engine.doStringSync('local t, d = os.time, os.date; os = { time = t, date = d }; package.loaded.os = os');
    engine.doStringSync(LUA51);
    // As Argo CD's decodeValue hands an object to gopher-lua: a null is nil, left out of maps and of lists (LTable.Append
    // skips LNil). wasmoon would take a null for an object and fail on it ("Cannot read properties of null").
    const noNulls = (v) => Array.isArray(v) ? v.filter((x) => x !== null).map(noNulls) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).filter((e) => e[1] !== null).map((e) => [e[0], noNulls(e[1])])) : v;
    engine.global.set('obj', noNulls(JSON.parse(m.obj)));
    const r = engine.doStringSync(m.script);
    const type = r === undefined || r === null ? 'nil' : Array.isArray(r) ? 'table' : typeof r === 'object' ? 'table' : typeof r === 'number' ? 'number' : typeof r === 'boolean' ? 'boolean' : typeof r === 'string' ? 'string' : 'function';
    const result = { type };
    if (type === 'table' && !Array.isArray(r)) { result.status = r.status; result.message = r.message; if (Object.keys(r).length > 0) result.hasKeys = true; }
    parentPort.postMessage({ id: m.id, result });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  } finally {
    try { engine && engine.global.close(); } catch (e) { /* a state that ran out of memory */ }
  }
});`;
}

/** Runs health checks in one worker, one after another; a check past the time bound ends the worker (a new one serves the next). */
export class LuaRunner implements LuaEvaluator {
  private worker?: Worker;
  private ready?: Promise<void>;
  private next = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private pending = new Map<number, { worker: Worker; done: (r: Reply) => void }>();

  constructor(
    private readonly assets: WasmoonAssets,
    readonly limits: LuaLimits = { timeoutMs: DEFAULT_LUA_TIMEOUT_MS, memoryBytes: DEFAULT_LUA_MEMORY_BYTES },
  ) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(workerSource(this.assets.source), {
      eval: true,
      workerData: { wasmBase64: this.assets.wasmBase64, memoryBytes: this.limits.memoryBytes },
      resourceLimits: { maxOldGenerationSizeMb: 128 },
    });
    w.unref();
    let mark: (err?: string) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      mark = (err) => (err === undefined ? resolve() : reject(new Error(`starting Lua: ${err}`)));
    });
    this.ready.catch(() => undefined);
    w.on('message', (r: Reply) => {
      if (r.ready !== undefined) return mark(r.ready ? undefined : (r.error ?? 'failed'));
      const p = this.pending.get(r.id ?? -1);
      this.pending.delete(r.id ?? -1);
      p?.done(r);
    });
    const fail = (msg: string) => {
      mark(msg);
      if (this.worker === w) this.worker = undefined;
      for (const [id, p] of this.pending) {
        if (p.worker !== w) continue;
        this.pending.delete(id);
        p.done({ id, error: msg });
      }
    };
    w.on('error', (err) => fail(`the Lua worker failed: ${err.message}`));
    w.on('exit', () => fail('the Lua worker exited'));
    this.worker = w;
    return w;
  }

  /** Runs one check on `obj`: what it returned, or why it did not finish (health/lua-check.ts reads it as Argo CD does). */
  run(script: string, obj: KubeObject, useOpenLibs: boolean): Promise<LuaCheckResult> {
    const result = this.queue.then(() => this.runNow(script, obj, useOpenLibs));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async runNow(script: string, obj: KubeObject, openLibs: boolean): Promise<LuaCheckResult> {
    const w = this.start();
    w.ref();
    try {
      await this.ready;
      const id = this.next++;
      const reply = await new Promise<Reply>((resolve) => {
        const timer = setTimeout(() => {
          this.pending.delete(id);
          if (this.worker === w) this.worker = undefined;
          void w.terminate();
          resolve({ id, error: `the Lua health check ran past its time bound (${this.limits.timeoutMs} ms) and was stopped` });
        }, this.limits.timeoutMs);
        this.pending.set(id, {
          worker: w,
          done: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
        w.postMessage({ id, script, obj: JSON.stringify(obj), openLibs });
      });
      return reply.error !== undefined ? { error: reply.error } : (reply.result ?? { type: 'nil' });
    } catch (err) {
      return { error: (err as Error).message };
    } finally {
      if (![...this.pending.values()].some((p) => p.worker === w)) w.unref();
    }
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}

let shared: Promise<LuaRunner> | undefined;

/** The shared runner; wasmoon's assets are loaded on first use only. */
export function luaRunner(): Promise<LuaRunner> {
  shared ??= import('./assets.js').then(async (m) => new LuaRunner(await m.wasmoonAssets()));
  return shared;
}
