// Composition root: wires the process to the CLI; the only place that ends the process.
import { runCli } from './cli/app.js';
import type { Io } from './cli/io.js';

const io: Io = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  columns: process.stdout.isTTY ? process.stdout.columns : undefined,
  env: process.env,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

let exitCode = 0;
// A reader that goes away (`kubectl gitops diff | head`) is not an error of ours: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(exitCode);
    throw err;
  });
}

void runCli(process.argv.slice(2), io).then((code) => {
  exitCode = code;
  // Exit once both streams have flushed (pipes may be asynchronous), even if sockets or timers linger.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
