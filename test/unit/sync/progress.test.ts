// The sync progress line: on stderr only when stderr is a TTY, rewritten in place and cleared at the end.
import { memoryIo } from '../../../src/cli/io.js';
import { makeContext } from '../../../src/cli/context.js';
import { progressLine } from '../../../src/cli/commands/sync.js';
import type { GlobalOptions } from '../../../src/cli/options.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'kv', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

test('no progress line without a TTY', () => {
  const m = memoryIo({ tty: false });
  expect(progressLine(makeContext(m.io, opts))).toBeUndefined();
});

test('on a TTY each update rewrites the line and clear erases it; stdout is untouched', () => {
  const m = memoryIo({ tty: true });
  const p = progressLine(makeContext(m.io, opts))!;
  p.update('dry-running 3 objects');
  p.update('applying [1/3] ConfigMap (1)');
  p.clear();
  expect(m.stderr()).toBe('\r\x1b[Kdry-running 3 objects\r\x1b[Kapplying [1/3] ConfigMap (1)\r\x1b[K');
  expect(m.stdout()).toBe('');
});
