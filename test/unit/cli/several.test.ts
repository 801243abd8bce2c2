// Several Applications by name: each runs as if alone, a failure never stops the others, one document per format,
// one summary, the highest exit code.
import { appNames, forEachApp } from '../../../src/cli/several.js';
import { makeContext } from '../../../src/cli/context.js';
import { memoryIo } from '../../../src/cli/io.js';
import { ExitCode, RefusedError } from '../../../src/model/errors.js';
import type { GlobalOptions, OutputFormat } from '../../../src/model/context.js';
import type { CommandContext } from '../../../src/cli/context.js';

const opts = (output: OutputFormat): GlobalOptions => ({
  requestTimeout: '0',
  output,
  color: 'never',
  verbose: false,
  fieldManager: 'argocd-controller',
  appNamespace: 'argocd',
});

/** Each app prints its own report in the format asked; `cart` drifts (1); `web` is refused (4) before printing. */
async function one(name: string, ctx: CommandContext): Promise<ExitCode> {
  if (name === 'web') throw new RefusedError('project default does not permit it');
  const sync = name === 'cart' ? 'OutOfSync' : 'Synced';
  ctx.io.out(
    ctx.opts.output === 'json'
      ? JSON.stringify({ schemaVersion: 1, sync }) + '\n'
      : ctx.opts.output === 'kv'
        ? `SYNC=${sync}\n`
        : `Name: ${name}\nSync: ${sync}\n`,
  );
  return name === 'cart' ? ExitCode.Drift : ExitCode.Ok;
}

test('appNames: APP then the others, without repeats or empty ones', () => {
  expect(appNames('shop', ['cart', 'shop', '', 'web'])).toEqual(['shop', 'cart', 'web']);
  expect(appNames(undefined, undefined)).toEqual([]);
});

test('kv: a block per app opened by APP=, then SUMMARY= lines; the highest exit code; a refusal does not stop the others', async () => {
  const m = memoryIo();
  const code = await forEachApp(makeContext(m.io, opts('kv')), 'status', ['shop', 'web', 'cart'], one);
  expect(code).toBe(ExitCode.Refused);
  expect(m.stdout()).toBe('APP=shop\nSYNC=Synced\nAPP=web\nAPP=cart\nSYNC=OutOfSync\nSUMMARY=shop 0\nSUMMARY=web 4\nSUMMARY=cart 1\n');
  expect(m.stderr()).toBe('error: web: project default does not permit it\n');
});

test('json: one document with an item per app (its report, or its error); the summary on stderr', async () => {
  const m = memoryIo();
  expect(await forEachApp(makeContext(m.io, opts('json')), 'diff', ['shop', 'cart', 'web'], one)).toBe(ExitCode.Refused);
  expect(JSON.parse(m.stdout())).toEqual({
    schemaVersion: 1,
    items: [
      { app: 'shop', exitCode: 0, report: { schemaVersion: 1, sync: 'Synced' } },
      { app: 'cart', exitCode: 1, report: { schemaVersion: 1, sync: 'OutOfSync' } },
      { app: 'web', exitCode: 4, error: 'project default does not permit it' },
    ],
  });
  expect(m.stderr()).toMatch(/diff: 3 Applications: shop exit 0, cart exit 1, web exit 4\n$/);
});

test('table: the reports one after another, a blank line between', async () => {
  const m = memoryIo();
  expect(await forEachApp(makeContext(m.io, opts('table')), 'status', ['shop', 'cart'], one)).toBe(ExitCode.Drift);
  expect(m.stdout()).toBe('Name: shop\nSync: Synced\n\nName: cart\nSync: OutOfSync\n');
});
