// Composition root: wires the process to the CLI; the only place that ends the process.
import { runCli } from './cli/app.js';
import type { Io } from './cli/io.js';

const io: Io = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  env: process.env,
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

void runCli(process.argv.slice(2), io).then((code) => {
  process.stdout.write('', () => process.exit(code));
});
