// Several Applications by name (`sync A B C`, `status A B`, `diff A B`), as `argocd app sync` takes several names:
// each app runs as if named alone, one after the other; one app's failure never stops the others; the output is one
// document per format and one summary, and the exit code the highest of theirs.
import type { CommandContext } from './context.js';
import { describeError, ExitCode, exitCodeFor } from '../model/errors.js';

/** The names given: APP and the ones after it, without repeats (as typed, in order). */
export function appNames(first: string | undefined, more: readonly (string | number)[] | undefined): string[] {
  const out: string[] = [];
  for (const n of [first, ...(more ?? [])]) {
    const name = n === undefined ? '' : String(n);
    if (name !== '' && !out.includes(name)) out.push(name);
  }
  return out;
}

interface AppRun {
  app: string;
  code: ExitCode;
  out: string;
  error?: string;
}

/**
 * Runs `one` for each name with stdout captured, then prints them as one: a table per app with a blank line between
 * (errors on stderr as they come), `-o kv` blocks each opened by `APP=<name>`, `-o json|yaml` one document
 * `{schemaVersion, items: [{app, exitCode, report | error}]}`; then `SUMMARY=<name> <code>` lines (kv) or a summary
 * line on stderr. An interruption (SIGINT/SIGTERM) stops before the next app.
 */
export async function forEachApp(
  ctx: CommandContext,
  what: string,
  names: readonly string[],
  one: (name: string, ctx: CommandContext) => Promise<ExitCode>,
): Promise<ExitCode> {
  const runs: AppRun[] = [];
  const format = ctx.opts.output;
  for (const app of names) {
    const captured: string[] = [];
    const appCtx: CommandContext = { ...ctx, io: { ...ctx.io, out: (t) => void captured.push(t) } };
    let code: ExitCode;
    let error: string | undefined;
    try {
      code = await one(app, appCtx);
    } catch (err) {
      code = exitCodeFor(err);
      error = describeError(err, ctx.opts.verbose).replace(/^error: /, '');
      ctx.io.err(`error: ${app}: ${error}\n`);
    }
    const out = captured.join('');
    runs.push({ app, code, out, ...(error !== undefined ? { error } : {}) });
    if (format === 'table' && out !== '') ctx.io.out(`${runs.length > 1 ? '\n' : ''}${out}`);
    if (code === ExitCode.Interrupted || code === ExitCode.Terminated) break;
  }
  if (format === 'kv' || format === 'env') {
    for (const r of runs) ctx.io.out(`APP=${r.app}\n${r.out}`);
    ctx.io.out(runs.map((r) => `SUMMARY=${r.app} ${r.code}\n`).join(''));
  } else if (format === 'json' || format === 'yaml') {
    const yaml = await import('yaml');
    const { yamlText } = await import('../render/yaml-text.js');
    const parse = (text: string): unknown => (text.trim() === '' ? null : format === 'json' ? JSON.parse(text) : yaml.parse(text));
    const items = runs.map((r) => ({ app: r.app, exitCode: r.code, ...(r.error !== undefined ? { error: r.error } : { report: parse(r.out) }) }));
    const doc = { schemaVersion: 1, items };
    ctx.io.out(format === 'json' ? JSON.stringify(doc, null, 2) + '\n' : yamlText(doc));
  }
  const code = runs.reduce<ExitCode>((max, r) => (r.code > max ? r.code : max), ExitCode.Ok);
  if (format !== 'kv' && format !== 'env') ctx.io.err(`${what}: ${runs.length} Applications: ${runs.map((r) => `${r.app} exit ${r.code}`).join(', ')}\n`);
  return code;
}
