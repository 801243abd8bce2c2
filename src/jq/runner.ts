// Real jq (jq-wasm: jq compiled to WebAssembly) in a worker thread, so that a time limit can stop a runaway expression.
import { Worker } from 'node:worker_threads';
import type { JsonValue } from '../model/object.js';

/** Argo CD's default for `ignore.normalizer.jq.timeout`. */
const DEFAULT_JQ_TIMEOUT_MS = 1000;

interface Reply {
  ready?: boolean;
  id: number;
  out?: string;
  error?: string;
}

/**
 * The worker runs the jq-wasm module factory from its source text (the factory inlines its .wasm
 * as base64), so it works the same from node_modules and from a bundle. The factory is evaluated
 * with `process`, `require` and friends shadowed: it then takes Emscripten's plain (non-Node)
 * path, which never touches the names a bundler rewrites (require, __dirname).
 */
function workerSource(factorySource: string): string {
  // jq-wasm reads stdin one byte at a time with slice(1) (quadratic); subarray makes it linear.
  const fast = factorySource.replace(/stdinBuffer\s*=\s*stdinBuffer\.slice\(1\)/, 'stdinBuffer = stdinBuffer.subarray(1)');
  return `
const { parentPort } = require('node:worker_threads');
const factory = (function (process, require, module, exports, __dirname, __filename, _scriptName) {
  return (${fast});
})();
const ready = factory({ printErr() {} });
ready.then(() => parentPort.postMessage({ ready: true }), (e) => parentPort.postMessage({ ready: false, error: String((e && e.message) || e) }));
parentPort.on('message', async (m) => {
  try {
    const mod = await ready;
    parentPort.postMessage({ id: m.id, out: await mod.raw(m.input, m.filter, ['-c']) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) });
  }
});`;
}

/** A jq runner with a per-call time limit; one worker, restarted after a timeout. Call close() when done. */
export class JqRunner {
  private worker?: Worker;
  /** Resolves when the current worker has compiled jq (the time limit covers running, not start-up). */
  private ready?: Promise<void>;
  private next = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly pending = new Map<number, { worker: Worker; done: (r: Reply) => void }>();

  constructor(
    private readonly factorySource: string,
    readonly timeoutMs: number = DEFAULT_JQ_TIMEOUT_MS,
  ) {}

  private start(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(workerSource(this.factorySource), { eval: true });
    w.unref();
    let markReady: (err?: string) => void = () => {};
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = (err) => (err === undefined ? resolve() : reject(new Error(`starting jq: ${err}`)));
    });
    this.ready.catch(() => undefined);
    w.on('message', (r: Reply) => {
      if (r.ready !== undefined) return markReady(r.ready ? undefined : (r.error ?? 'failed'));
      const p = this.pending.get(r.id);
      this.pending.delete(r.id);
      p?.done(r);
    });
    w.on('error', (err) => {
      markReady(err.message);
      this.failAll(w, `jq worker failed: ${err.message}`);
    });
    w.on('exit', () => {
      markReady('the worker exited');
      if (this.worker === w) this.worker = undefined;
      this.failAll(w, 'jq worker exited');
    });
    this.worker = w;
    return w;
  }

  /** Fails the requests that were sent to `w` (a replacement worker's requests go on). */
  private failAll(w: Worker, msg: string): void {
    for (const [id, p] of this.pending) {
      if (p.worker !== w) continue;
      this.pending.delete(id);
      p.done({ id, error: msg });
    }
  }

  /**
   * Runs `filter` on `input`; each output line parsed as JSON. Rejects on jq errors and on timeout.
   * Calls run one after another: the worker has one thread, and the time limit must measure a call's
   * own run, not the time it waited behind others (many objects are diffed at once).
   */
  run(input: JsonValue, filter: string): Promise<JsonValue[]> {
    const result = this.queue.then(() => this.runNow(input, filter));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async runNow(input: JsonValue, filter: string): Promise<JsonValue[]> {
    const w = this.start();
    // Keep the process alive while jq works; an idle worker must not (it is unref'd between calls).
    w.ref();
    try {
      await this.ready;
      return await this.call(w, input, filter);
    } finally {
      if (![...this.pending.values()].some((p) => p.worker === w)) w.unref();
    }
  }

  private async call(w: Worker, input: JsonValue, filter: string): Promise<JsonValue[]> {
    const id = this.next++;
    const reply = await new Promise<Reply>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ id, error: `JQ patch execution timed out (${this.timeoutMs}ms)` });
        this.worker = undefined;
        void w.terminate();
      }, this.timeoutMs);
      timer.unref?.();
      this.pending.set(id, {
        worker: w,
        done: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      });
      w.postMessage({ id, input: JSON.stringify(input), filter });
    });
    if (reply.error !== undefined) throw new Error(reply.error.replace(/^jq: error( \(at [^)]*\))?: /, '').trim());
    const text = (reply.out ?? '').trim();
    return text === '' ? [] : text.split('\n').map((l) => JSON.parse(l) as JsonValue);
  }

  /**
   * The paths an Argo CD `jqPathExpressions` entry selects: Argo CD runs `del(EXPR)`, and jq's
   * del is `delpaths([path(EXPR)])`, so these are exactly the paths it would remove.
   */
  async paths(input: JsonValue, expr: string): Promise<(string | number)[][]> {
    const out = await this.run(input, `[path(${expr})]`);
    const first = out[0];
    if (out.length !== 1 || !Array.isArray(first)) throw new Error('JQ patch returned multiple objects');
    return first.filter((p): p is (string | number)[] => Array.isArray(p) && p.every((s) => typeof s === 'string' || typeof s === 'number'));
  }

  /** Whether `expr` compiles (as a path expression); it is compiled but never evaluated, so it cannot loop here. */
  async compiles(expr: string): Promise<string | undefined> {
    try {
      await this.run(null, `if false then [path(${expr})] else null end`);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }
}

let shared: Promise<JqRunner> | undefined;

/** The shared runner, loading jq-wasm on first use only (start-up stays fast when no rule uses jq). */
export function jqRunner(timeoutMs: number = DEFAULT_JQ_TIMEOUT_MS): Promise<JqRunner> {
  shared ??= import('jq-wasm/dist/build/jq.js').then((m: { default: unknown }) => {
    const factory = (m.default as { default?: unknown }).default ?? m.default;
    if (typeof factory !== 'function') throw new Error('loading jq-wasm: no module factory');
    return new JqRunner(factory.toString(), timeoutMs);
  });
  return shared;
}
