// How every command ends: its warnings on stderr (one `warning: …` line each), its report rendered on stdout, and its
// exit code returned (main.ts ends the process with it).
import type { ExitCode } from '../model/errors.js';
import type { CommandContext } from './context.js';
import { signalExitCode } from '../workflows/session/stopper.js';

/** What a command has to say at its end. `report` is the rendered report (absent: nothing for stdout). */
export interface Emission {
  warnings?: readonly string[];
  /** Lines for stderr before the warnings (a closing line), without `warning:`. */
  notes?: readonly string[];
  report?: string;
  code: ExitCode;
}

/** Closing notes, warnings (each once), then the report; returns the exit code. */
export function emit(ctx: CommandContext, e: Emission): ExitCode {
  for (const n of e.notes ?? []) ctx.io.err(`${n}\n`);
  warn(ctx, e.warnings ?? []);
  if (e.report !== undefined) ctx.io.out(e.report);
  return e.code;
}

/** Warnings as they come (before a report exists), each as one `warning: …` line on stderr. */
export function warn(ctx: CommandContext, lines: readonly string[] | string): void {
  for (const w of typeof lines === 'string' ? [lines] : new Set(lines)) ctx.io.err(`warning: ${w}\n`);
}

/** Where a command that can be stopped (workflows/session/stopper.ts) hears its signals. */
export interface StopSignals {
  /** Resolves with the second signal: the stop is forced. */
  forced: Promise<NodeJS.Signals>;
  /** The first signal, once one came. */
  received(): NodeJS.Signals | undefined;
}

/**
 * The end of a command a signal can stop (prune --confirm, delete): a second signal forces the stop with one closing
 * line (`<kind> interrupted: a second SIGINT forced the stop; …`, exit 130/143); else the report is emitted, with
 * `<kind> interrupted by SIGINT: stopped <where>` and the signal's exit code when the first signal stopped it.
 */
export async function emitStoppable<R extends { warnings: string[]; interrupted?: string }>(
  ctx: CommandContext,
  kind: string,
  running: Promise<R>,
  stop: StopSignals | undefined,
  out: { render: (r: R) => string; code: (r: R) => ExitCode; afterForced: string },
): Promise<ExitCode> {
  const reported = running.then((report) => ({ report }));
  const ended = await (stop ? Promise.race([reported, stop.forced.then((signal) => ({ signal }))]) : reported);
  if ('signal' in ended) {
    ctx.io.err(`${kind} interrupted: a second ${ended.signal} forced the stop; ${out.afterForced}\n`);
    return signalExitCode(ended.signal);
  }
  const { report } = ended;
  const received = stop?.received();
  const interrupted = report.interrupted !== undefined && received !== undefined;
  return emit(ctx, {
    warnings: report.warnings,
    report: out.render(report),
    ...(interrupted ? { notes: [`${kind} interrupted by ${received}: stopped ${report.interrupted}`] } : {}),
    code: interrupted ? signalExitCode(received) : out.code(report),
  });
}
