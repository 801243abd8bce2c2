// stopper: the first SIGINT/SIGTERM aborts the work's signal (said once), a second forces; the shell's exit codes.
import { signalExitCode, stopper } from '../../../../src/workflows/session/stopper.js';

test('the first signal aborts and is said; a second resolves forced; after dispose no signal is heard', async () => {
  const signals = new EventTarget();
  const said: string[] = [];
  const stop = stopper({ say: (l) => said.push(l), signals }, 'prune');
  expect([stop.signal.aborted, stop.received()]).toEqual([false, undefined]);
  signals.dispatchEvent(new Event('SIGTERM'));
  expect([stop.signal.aborted, stop.received()]).toEqual([true, 'SIGTERM']);
  expect(said).toEqual(['prune: SIGTERM: stopping after the step in progress (again to force)']);
  signals.dispatchEvent(new Event('SIGINT'));
  await expect(stop.forced).resolves.toBe('SIGINT');
  stop.dispose();
  const other = stopper({ say: (l) => said.push(l), signals }, 'sync');
  other.dispose();
  signals.dispatchEvent(new Event('SIGINT'));
  expect([other.signal.aborted, said.length]).toEqual([false, 1]);
});

test('exit codes: 128 + the signal number, as a shell reports a process a signal ended', () => {
  expect([signalExitCode('SIGINT'), signalExitCode('SIGTERM')]).toEqual([130, 143]);
});
