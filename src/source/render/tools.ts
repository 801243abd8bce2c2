// Finding and running the external tools a render needs (kustomize, or kubectl's built-in kustomize).
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { goDurationMs } from '../../model/duration.js';

/** The first executable named `name` on PATH, or undefined. */
export function findOnPath(name: string, env: Record<string, string | undefined>): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Whether a user-named tool path can be run (a bare name is looked up on PATH). */
export function resolveToolPath(path: string, env: Record<string, string | undefined>): string | undefined {
  if (!isAbsolute(path) && !path.includes('/')) return findOnPath(path, env);
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile() ? path : undefined;
  } catch {
    return undefined;
  }
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the program overran ARGOCD_EXEC_TIMEOUT and was stopped (its stderr then ends with a line saying so). */
  timedOut?: true;
}

/** Argo CD's defaults for every program its repo-server runs (util/exec): 90 s, then 10 s from SIGTERM to SIGKILL. */
const DEFAULT_EXEC_TIMEOUT_MS = 90_000;
const DEFAULT_EXEC_FATAL_TIMEOUT_MS = 10_000;

/**
 * How long a program may run, as Argo CD bounds the tools its repo-server runs: ARGOCD_EXEC_TIMEOUT (default 90 s; `0`
 * none), then SIGTERM, and SIGKILL after ARGOCD_EXEC_FATAL_TIMEOUT (default 10 s). A value Go cannot parse (a bare
 * `180`) falls back to the default, as it does in Argo CD.
 */
export function execTimeouts(env: Record<string, string | undefined>): { timeoutMs: number; fatalMs: number } {
  return {
    timeoutMs: goDurationMs(env.ARGOCD_EXEC_TIMEOUT) ?? DEFAULT_EXEC_TIMEOUT_MS,
    fatalMs: goDurationMs(env.ARGOCD_EXEC_FATAL_TIMEOUT) ?? DEFAULT_EXEC_FATAL_TIMEOUT_MS,
  };
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/**
 * Runs a program (no shell) to its end, collecting its output (`input` on its stdin); rejects only when it cannot be
 * started. Bounded by execTimeouts(env): a program that overruns is stopped and its result says so (`timedOut`).
 */
export function runTool(
  file: string,
  args: readonly string[],
  opts: { cwd?: string; env: Record<string, string | undefined>; signal?: AbortSignal; input?: string },
): Promise<RunResult> {
  const { timeoutMs, fatalMs } = execTimeouts(opts.env);
  return new Promise((resolve, reject) => {
    const stdin = opts.input !== undefined ? 'pipe' : 'ignore';
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env as NodeJS.ProcessEnv, stdio: [stdin, 'pipe', 'pipe'], signal: opts.signal });
    if (opts.input !== undefined) {
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(opts.input);
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (c: Buffer) => out.push(c));
    child.stderr?.on('data', (c: Buffer) => err.push(c));
    let timedOut = false;
    let fatal: NodeJS.Timeout | undefined;
    const bound =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            child.kill('SIGTERM');
            fatal = setTimeout(() => {
              child.kill('SIGKILL');
              // A program's own children may still hold its output open: stop waiting for it.
              child.stdout?.destroy();
              child.stderr?.destroy();
            }, fatalMs);
          }, timeoutMs)
        : undefined;
    const done = () => {
      clearTimeout(bound);
      clearTimeout(fatal);
    };
    child.on('error', (e) => {
      done();
      reject(e);
    });
    child.on('close', (code) => {
      done();
      const stderr = Buffer.concat(err).toString('utf8');
      if (!timedOut) return resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr });
      const said = `stopped after ${seconds(timeoutMs)}, its time limit (ARGOCD_EXEC_TIMEOUT, as Argo CD's repo-server)`;
      // Never a success, even when the program exits 0 on SIGTERM: its output may be cut short.
      resolve({
        code: null,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: stderr.trim() === '' ? said : `${stderr.trimEnd()}\n${said}`,
        timedOut: true,
      });
    });
  });
}
