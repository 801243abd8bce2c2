// How every command ends: its warnings on stderr (one `warning: …` line each), its report rendered on stdout, and its
// exit code returned (main.ts ends the process with it).
import type { ExitCode } from '../model/errors.js';
import type { CommandContext } from './context.js';

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
