// A running `kubectl-gitops sync ... --watch -o json` (one app's loop, or --all's), its event lines parsed as they come.
import { spawn } from 'node:child_process';
import { childEnv, pluginPath, waitFor } from './index.js';

export interface WatchLine {
  time: string;
  action: string;
  object?: string;
  namespace?: string;
  result?: string;
  revision?: string;
  message?: string;
  [k: string]: unknown;
}

/** A running `kubectl-gitops sync --watch -o json`, its lines parsed as they come. */
export class WatchProcess {
  readonly lines: WatchLine[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child;

  constructor(args: string[], kubeconfig: string) {
    this.child = spawn(pluginPath, ['sync', ...args, '--watch', '-o', 'json', '--kubeconfig', kubeconfig], {
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buf = '';
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (c: string) => {
      buf += c;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim() === '') continue;
        this.lines.push(JSON.parse(line) as WatchLine);
      }
    });
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (c: string) => (this.stderr += c));
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Waits for a line at index `since` or later that matches; fails with everything printed so far. */
  async line(pred: (l: WatchLine) => boolean, what: string, since = 0, timeoutMs = 30_000): Promise<WatchLine> {
    try {
      return await waitFor(() => this.lines.slice(since).find(pred), { what, timeoutMs, intervalMs: 50 });
    } catch (e) {
      throw new Error(`${(e as Error).message}\nstdout:\n${this.lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${this.stderr}`);
    }
  }

  after(since: number, action: string): WatchLine[] {
    return this.lines.slice(since).filter((l) => l.action === action);
  }

  /** SIGINT (or SIGTERM), then waits for a clean exit (SIGKILL after 20 s). */
  async stop(signal: 'SIGINT' | 'SIGTERM' = 'SIGINT'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.child.exitCode !== null) return this.exited;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    const res = await this.exited;
    clearTimeout(timer);
    return res;
  }
}
