// What a command may touch of the process (the Io type lives in model/context.ts), and an in-memory Io (for tests, and
// for main.ts, which runs a few commands into it while the start-up snapshot is built).
import type { Io } from '../model/context.js';

/** An Io that collects output in memory: for tests, and for the start-up snapshot's warm-up in main.ts. */
export function memoryIo(opts: { env?: Record<string, string | undefined>; tty?: boolean; stdin?: string; answers?: string[] } = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const answers = [...(opts.answers ?? [])];
  const io: Io = {
    out: (t) => void stdout.push(t),
    err: (t) => void stderr.push(t),
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: opts.tty ?? false,
    env: opts.env ?? {},
    readStdin: async () => opts.stdin ?? '',
    ...(opts.answers
      ? {
          stdinIsTTY: true,
          ask: async (question: string) => {
            stderr.push(question);
            return answers.shift() ?? '';
          },
        }
      : {}),
  };
  return { io, stdout: () => stdout.join(''), stderr: () => stderr.join('') };
}
