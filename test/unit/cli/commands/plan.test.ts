// `plan`'s own rules before any request: --base is required, --desired and --revision do not go with it, an
// Application is named or read from a file (not both), --at is a time, and -o markdown is plan's alone.
import { runCli } from '../../../../src/cli/app.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { ExitCode } from '../../../../src/model/errors.js';
import { parseAt } from '../../../../src/cli/commands/plan.js';

const env = { KUBECONFIG: '/nonexistent/kubeconfig', HOME: '/nonexistent/kgitops-home' };

async function cli(argv: string[]) {
  const m = memoryIo({ env });
  const code = await runCli(argv, m.io);
  return { code, out: m.stdout(), err: m.stderr() };
}

test('--at: an RFC 3339 time or a date (midnight UTC); absent: now; anything else an input error', () => {
  expect(parseAt('2026-12-04T18:30:00Z', 0)).toBe(Date.UTC(2026, 11, 4, 18, 30));
  expect(parseAt('2026-12-04T18:30:00+01:00', 0)).toBe(Date.UTC(2026, 11, 4, 17, 30));
  expect(parseAt('2026-12-04', 0)).toBe(Date.UTC(2026, 11, 4));
  expect(parseAt(undefined, 42)).toBe(42);
  expect(() => parseAt('tomorrow', 0)).toThrow('--at tomorrow: not a time (give an RFC 3339 time such as 2026-12-04T18:00:00Z)');
  expect(() => parseAt('12345', 0)).toThrow('--at 12345: not a time');
});

test.each<[string, string[], string]>([
  ['no --base', ['plan', 'shop'], 'Missing required argument: base'],
  [
    '--desired',
    ['plan', 'shop', '--base', 'main', '--desired', 'd'],
    '--desired does not go with --base: plan renders the Application source at --base and --head',
  ],
  ['--revision', ['plan', 'shop', '--base', 'main', '--revision', 'v2'], '--revision does not go with --base: plan reads two revisions: --base and --head'],
  [
    '--revisions',
    ['plan', 'shop', '--base', 'main', '--revisions', 'v2', '--source-positions', '1'],
    '--base does not go with --revisions: plan moves the sources that follow --base to --head',
  ],
  ['--recursive --all', ['plan', '--all', '--recursive', '--base', 'main'], '--recursive does not go with --all'],
  ['--recursive --offline', ['plan', '-f', 'app.yaml', '--recursive', '--offline', '--base', 'main'], '--recursive does not go with --offline'],
  ['no Application', ['plan', '--base', 'main'], 'name an Application (APP) or give -f/--app-file FILE'],
  ['APP and -f', ['plan', 'shop', '-f', 'app.yaml', '--base', 'main'], 'name Applications (APP…) or give -f/--app-file FILE, not both'],
  ['a bad --at', ['plan', 'shop', '--base', 'main', '--at', 'soon'], '--at soon: not a time'],
  [
    '--offline with APP',
    ['plan', 'shop', '--base', 'main', '--offline'],
    '--offline reads the Application from -f/--app-file: there is no cluster to read it from',
  ],
])('%s: exit 2 before any request', async (_what, argv, message) => {
  const r = await cli(argv);
  expect(r.code).toBe(ExitCode.Input);
  expect(r.err).toContain(message);
  expect(r.out).toBe('');
});

test('-o markdown is for plan only; plan gets past the output check (then fails on the missing kubeconfig)', async () => {
  const diff = await cli(['diff', 'shop', '-o', 'markdown']);
  expect([diff.code, diff.err]).toEqual([
    ExitCode.Input,
    'error: diff cannot print output format "markdown": diff prints table, json, yaml, kv, env\nSee \'kubectl gitops diff --help\' for usage.\n',
  ]);
  const plan = await cli(['plan', 'shop', '--base', 'main', '-o', 'markdown']);
  expect(plan.code).toBe(ExitCode.Input);
  expect(plan.err).toMatch(/kubeconfig/i);
});
