// How a command ends: notes, warnings (each once), the report on stdout, the exit code returned.
import { makeContext } from '../../../src/cli/context.js';
import { emit, warn } from '../../../src/cli/emit.js';
import { memoryIo } from '../../../src/cli/io.js';
import { toGlobalOptions } from '../../../src/cli/options.js';
import { ExitCode } from '../../../src/model/errors.js';

test('notes first, then each warning once, then the report on stdout; the code is returned', () => {
  const mem = memoryIo();
  const ctx = makeContext(mem.io, toGlobalOptions({ output: 'kv' }));
  const code = emit(ctx, { notes: ['rolled back shop'], warnings: ['a', 'b', 'a'], report: 'APPLIED=1\n', code: ExitCode.Cluster });
  expect(code).toBe(3);
  expect(mem.stderr()).toBe('rolled back shop\nwarning: a\nwarning: b\n');
  expect(mem.stdout()).toBe('APPLIED=1\n');
});

test('no report: nothing on stdout; warn() says one line as it comes', () => {
  const mem = memoryIo();
  const ctx = makeContext(mem.io, toGlobalOptions({ output: 'table' }));
  warn(ctx, 'the record was not written');
  expect(emit(ctx, { code: ExitCode.Interrupted })).toBe(130);
  expect(mem.stdout()).toBe('');
  expect(mem.stderr()).toBe('warning: the record was not written\n');
});
