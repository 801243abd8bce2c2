// What a command may touch of the process: its streams, TTY state and environment.

export interface Io {
  out(text: string): void;
  err(text: string): void;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width for help text, when stdout is a terminal. */
  columns?: number;
  env: Record<string, string | undefined>;
  readStdin(): Promise<string>;
}

/** An Io that collects output in memory, for tests. */
export function memoryIo(opts: { env?: Record<string, string | undefined>; tty?: boolean; stdin?: string } = {}) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: Io = {
    out: (t) => void stdout.push(t),
    err: (t) => void stderr.push(t),
    stdoutIsTTY: opts.tty ?? false,
    stderrIsTTY: opts.tty ?? false,
    env: opts.env ?? {},
    readStdin: async () => opts.stdin ?? '',
  };
  return { io, stdout: () => stdout.join(''), stderr: () => stderr.join('') };
}
