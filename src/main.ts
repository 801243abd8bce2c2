// Composition root: wires the process to the CLI; the only place that ends the process.
//
// In the single executable the start-up code comes from a V8 startup snapshot (plugin/build.mjs):
// while the snapshot is built, this module only registers `start` and warms up the code paths
// people type most (help, version), so their compiled code is in the snapshot; the process edges
// (argv, env, streams) are read only when `start` runs.
import v8 from 'node:v8';
import { COMMANDS, runCli } from './cli/app.js';
import { memoryIo } from './cli/io.js';
import type { Io } from './model/context.js';
import { ExitCode, ExitError } from './model/errors.js';

function processIo(): Io {
  let stdin: Promise<string> | undefined;
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    columns: process.stdout.isTTY ? process.stdout.columns : undefined,
    env: process.env,
    stdinIsTTY: process.stdin.isTTY === true,
    // A question cut short: Ctrl-D (the end of input) is no answer, as an empty line is; Ctrl-C stops the command, as it
    // would anywhere else (130), nothing having been changed yet. (readline rejects both with an AbortError.)
    ask: async (question) => {
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      const cut = new AbortController();
      let interrupted = false;
      rl.once('SIGINT', () => {
        interrupted = true;
        cut.abort();
      });
      try {
        return await rl.question(question, { signal: cut.signal });
      } catch (err) {
        if ((err as Error).name !== 'AbortError') throw err;
        process.stderr.write('\n');
        if (interrupted) throw new ExitError('stopped by Ctrl-C at the question: nothing was changed', ExitCode.Interrupted);
        return '';
      } finally {
        rl.close();
      }
    },
    // Read once: an Application on `-f -` is read again by the watch loop's rounds, and by the look for an ApplicationSet.
    readStdin: () => {
      stdin ??= (async () => {
        const chunks: Buffer[] = [];
        for await (const c of process.stdin) chunks.push(c as Buffer);
        return Buffer.concat(chunks).toString('utf8');
      })();
      return stdin;
    },
  };
}

function start(): void {
  let exitCode = 0;
  // A reader that goes away (`kubectl gitops diff | head`) is not an error of ours: stop quietly.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(exitCode);
      throw err;
    });
  }
  // If the event loop empties while the command is still pending, something dropped its last handle
  // too early: that must never pass for success (exit 0 with no output).
  let settled = false;
  process.once('beforeExit', () => {
    if (settled) return;
    process.stderr.write('error: internal: the command stopped before finishing (nothing was waiting on it any more)\n');
    process.exit(3);
  });
  void runCli(process.argv.slice(2), processIo()).then((code) => {
    settled = true;
    exitCode = code;
    // Exit once both streams have flushed (pipes may be asynchronous), even if sockets or timers linger.
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  });
}

/**
 * Runs the commands that only parse and print, in memory, so the snapshot holds their compiled code,
 * and lays out the help texts for the usual widths (not a terminal: 100; terminals: 80 and 110+).
 */
async function warmUp(): Promise<void> {
  for (const argv of [['version', '-o', 'json'], ['version'], ['--bogus']]) {
    await runCli(argv, memoryIo({ env: {} }).io);
  }
  const helps = [['--help'], ['-h'], ...COMMANDS.map((c) => [[c.command].flat()[0]!.split(' ')[0]!, '--help'])];
  for (const columns of [undefined, 80, 110]) {
    for (const argv of helps) {
      const m = memoryIo({ env: {} });
      await runCli(argv, { ...m.io, columns });
    }
  }
}

const snapshot = v8.startupSnapshot;
if (snapshot?.isBuildingSnapshot()) {
  snapshot.setDeserializeMainFunction(start);
  void warmUp();
} else {
  start();
}
