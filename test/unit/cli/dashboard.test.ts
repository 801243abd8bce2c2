// `dashboard`'s flags are checked before anything connects: bad input is exit 2 naming the flag.
import { runCli } from '../../../src/cli/app.js';
import { memoryIo } from '../../../src/cli/io.js';
import { ExitCode } from '../../../src/model/errors.js';

async function run(argv: string[]) {
  // No kubeconfig at all: any connection attempt would fail with another message (and exit code).
  const m = memoryIo({ env: { KUBECONFIG: '/nonexistent/kubeconfig', HOME: '/nonexistent' } });
  const code = await runCli(argv, m.io);
  return { code, out: m.stdout(), err: m.stderr() };
}

describe('kubectl gitops dashboard flags', () => {
  it.each([
    [['dashboard', '--port', '70000'], /--port must be a whole number from 0 to 65535, not 70000/],
    [['dashboard', '--port=-1'], /--port must be a whole number from 0 to 65535/],
    [['dashboard', '--port', 'http'], /--port must be a whole number from 0 to 65535/],
    [['dashboard', '--interval', '1s'], /--interval must be at least 5s/],
    [['dashboard', '--interval', 'soon'], /--interval/],
    [['dashboard', 'shop', '-A'], /-A\/--all-namespaces shows every Application: it does not go with named apps/],
    [['dashboard', '-o', 'json'], /dashboard cannot print output format "json"/],
  ])('%j is a usage error', async (argv, message) => {
    const r = await run(argv);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
  });

  it('refuses an unknown flag, though it takes any number of APP names', async () => {
    const r = await run(['dashboard', 'shop', 'cart', '--prot', '8080']);
    expect(r.code).toBe(ExitCode.Input);
    expect(r.err).toMatch(/Unknown argument: prot/);
  });

  it('lists its flags in --help', async () => {
    const r = await run(['dashboard', '--help']);
    expect(r.code).toBe(ExitCode.Ok);
    for (const flag of ['--port', '--address', '--open', '--interval']) expect(r.out).toContain(flag);
    expect(r.out).toContain('kubectl gitops dashboard shop --port 8080 --open');
    expect(r.out).toMatch(/^kubectl gitops dashboard \[APP\.\.\.\] \[flags\]/);
  });
});
