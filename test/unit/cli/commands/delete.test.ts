// `delete`'s own rules before any request: nothing is deleted unasked, and a dry run asks nothing.
import { runCli } from '../../../../src/cli/app.js';
import { memoryIo } from '../../../../src/cli/io.js';
import { ExitCode } from '../../../../src/model/errors.js';

test('without --yes and with no terminal to ask on, delete refuses before reading anything (exit 2)', async () => {
  const m = memoryIo({ env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
  expect(await runCli(['delete', 'shop'], m.io)).toBe(ExitCode.Input);
  expect(m.stderr()).toBe(
    'error: delete changes the cluster: give --yes (standard input is not a terminal to ask on), or --dry-run to list what it would delete\n',
  );
  expect(m.stdout()).toBe('');
});

test('--dry-run with --yes is a usage error with the reason', async () => {
  const m = memoryIo({ env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
  expect(await runCli(['delete', 'shop', '--dry-run', '--yes'], m.io)).toBe(ExitCode.Input);
  expect(m.stderr()).toMatch(/a dry run asks nothing/);
});

test('--cascade takes foreground, background or orphan only', async () => {
  const m = memoryIo({ env: { KUBECONFIG: '/nonexistent/kubeconfig' } });
  expect(await runCli(['delete', 'shop', '--cascade', 'sideways', '--yes'], m.io)).toBe(ExitCode.Input);
  expect(m.stderr()).toMatch(/sideways/);
});
