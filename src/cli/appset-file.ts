// `-f appset.yaml` on any command that takes an Application file: the ApplicationSet's generated Applications, each
// acted on as if given alone with -f (as --all acts on many: one document, one summary, the highest exit code). The
// generation is `appset generate`'s; each Application goes to the command through a file of its own.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandContext } from './context.js';
import { forEachApp } from './several.js';
import type { ExitCode } from '../model/errors.js';
import type { Io } from '../model/context.js';

/** Whether a file holds an ApplicationSet (`-`: standard input, read through `io`): a cheap look at its kind. */
export async function holdsApplicationSet(file: string, io?: Pick<Io, 'readStdin'>): Promise<boolean> {
  if (file === '') return false;
  let text: string;
  if (file === '-') {
    if (!io) return false;
    text = await io.readStdin();
  } else {
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return false; // the command names the file in its own error
    }
  }
  return /^\s*kind:\s*["']?ApplicationSet["']?\s*$/m.test(text) || /"kind"\s*:\s*"ApplicationSet"/.test(text);
}

/**
 * Runs `one` for each Application the ApplicationSet in `file` generates, given the path of a file holding that
 * Application; what the controller would leave out is a warning. The files are removed afterwards.
 */
export async function forEachGeneratedApp(
  ctx: CommandContext,
  what: string,
  file: string,
  one: (appFile: string, ctx: CommandContext) => Promise<ExitCode>,
): Promise<ExitCode> {
  const { runAppSetGenerate } = await import('../workflows/appset/generate.js');
  const report = await runAppSetGenerate(ctx, { file });
  for (const i of report.invalid) ctx.io.err(`warning: ${i.name} left out, as Argo CD's controller leaves it out: ${i.error}\n`);
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-gitops-appset-'));
  try {
    const files = new Map<string, string>();
    for (const app of report.applications) {
      const name = app.metadata.name ?? '';
      const path = join(dir, `${files.size}-${name}.json`);
      writeFileSync(path, JSON.stringify(app));
      files.set(name, path);
    }
    if (files.size === 0) ctx.io.err(`warning: ${report.origin}: the ApplicationSet generates no Application\n`);
    return await forEachApp(ctx, what, [...files.keys()], (name, appCtx) => one(files.get(name) as string, appCtx));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
