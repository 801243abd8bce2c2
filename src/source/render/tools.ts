// Finding and running the external tools a render needs (kustomize, or kubectl's built-in kustomize).
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

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
}

/** Runs a program (no shell) to its end, collecting its output (`input` on its stdin); rejects only when it cannot be started. */
export function runTool(
  file: string,
  args: readonly string[],
  opts: { cwd?: string; env: Record<string, string | undefined>; signal?: AbortSignal; input?: string },
): Promise<RunResult> {
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
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}
