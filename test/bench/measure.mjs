// Runs one process and measures it: wall time (hrtime around the spawn) and peak RSS (GNU time's %M,
// or the kernel's VmHWM read from /proc while it runs when /usr/bin/time is missing).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const scratch = mkdtempSync(join(tmpdir(), 'kgitops-bench-time-'));
let seq = 0;

/** The median of a list of numbers (mean of the two middle values for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function vmHwmKb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Runs cmd with args; resolves {ms, rssKb, code, stdout, stderr}. Never rejects on a non-zero exit:
 * the caller decides which exit codes are a success for its scenario.
 */
export function measure(cmd, args, { env = process.env, cwd } = {}) {
  const timeFile = join(scratch, `t${seq++}`);
  const [file, argv] = GNU_TIME ? [GNU_TIME, ['-f', '%M', '-o', timeFile, cmd, ...args]] : [cmd, args];
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(file, argv, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    let peak = 0;
    const poll = GNU_TIME ? undefined : setInterval(() => (peak = Math.max(peak, vmHwmKb(child.pid))), 20);
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', (e) => reject(new Error(`running ${cmd}: ${e.message}`, { cause: e })));
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (poll) clearInterval(poll);
      let rssKb = peak;
      if (GNU_TIME) {
        try {
          // GNU time prints "Command exited with non-zero status N" before the figure: take the last line.
          rssKb = Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop());
        } catch {
          rssKb = 0;
        }
        rmSync(timeFile, { force: true });
      }
      resolve({ ms, rssKb, code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Removes the scratch folder of the time files. */
export function cleanupMeasure() {
  rmSync(scratch, { recursive: true, force: true });
}
