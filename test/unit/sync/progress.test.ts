// The sync progress line: on stderr only when stderr is a TTY, rewritten in place and cleared at the end.
import { memoryIo } from '../../../src/cli/io.js';
import { makeContext } from '../../../src/cli/context.js';
import { progressLine, progressTable } from '../../../src/cli/commands/sync.js';
import type { GlobalOptions } from '../../../src/model/context.js';

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

describe('the live table of a sync (a row per change of state, as argocd app sync prints)', () => {
  const event = { phase: 'PreSync' as const, wave: 0, key: { group: 'batch', kind: 'Job', namespace: 'shop', name: 'migrate' }, hook: true, status: 'Running' };

  test('no table without a TTY (stdout, kv and json stay as they are)', () => {
    expect(progressTable(makeContext(memoryIo({ tty: false }).io, opts), undefined)).toBeUndefined();
  });

  test('on a TTY: a header once, then one row per event, printed above the progress line, which is drawn again', () => {
    const m = memoryIo({ tty: true });
    const ctx = makeContext(m.io, opts);
    const line = progressLine(ctx)!;
    const onEvent = progressTable(ctx, line)!;
    line.update('PreSync wave 0: 0 resources, 1 hooks');
    onEvent(event);
    onEvent({ ...event, status: 'Succeeded', message: 'job Complete' });
    line.clear();
    const text = m.stderr().replace(/\d\d:\d\d:\d\d/g, 'HH:MM:SS');
    const rows = text.split('\n');
    expect(rows[0]).toBe(
      '\r\x1b[KPreSync wave 0: 0 resources, 1 hooks\r\x1b[KTIME      PHASE     WAVE  KIND                    NAMESPACE         NAME                          STATUS       MESSAGE',
    );
    expect(rows[1]).toBe(
      'PreSync wave 0: 0 resources, 1 hooks\r\x1b[KHH:MM:SS  PreSync   0     Job.batch (hook)        shop              migrate                       Running',
    );
    expect(rows[2]).toBe(
      'PreSync wave 0: 0 resources, 1 hooks\r\x1b[KHH:MM:SS  PreSync   0     Job.batch (hook)        shop              migrate                       Succeeded    job Complete',
    );
    expect(rows[3]).toBe('PreSync wave 0: 0 resources, 1 hooks\r\x1b[K');
    expect(m.stdout()).toBe('');
  });
});
