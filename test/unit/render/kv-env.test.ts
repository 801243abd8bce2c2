// kv lines stay whole whatever a name or message holds, and `-o env` survives `eval` and `.` in bash with every value intact.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runCli } from '../../../src/cli/app.js';
import { memoryIo } from '../../../src/cli/io.js';
import { displayName, nameToken } from '../../../src/model/object.js';
import { kvToEnv, oneLineText, shellQuote } from '../../../src/render/kv.js';
import { renderPruneKv } from '../../../src/render/prune.js';
import { renderSyncKv } from '../../../src/render/sync.js';
import { syncPruneIncomplete } from '../../fixtures/reports/sync.js';
import { tempDir } from '../../support/temp-dir.js';

const HOSTILE = [
  'plain',
  'with spaces  and\ttabs',
  `single ' quote and '' two`,
  'double " quote',
  '$(touch /tmp/kgitops-pwned) `touch /tmp/kgitops-pwned` ${HOME} $HOME',
  'new\nline\nSYNC=Synced',
  'back\\slash \\n not a newline',
  '; rm -rf / # && || | > <',
  'ünïcödé ✓',
  '',
];

/** The variables bash has after `eval` (and after `.`) of the text, as NUL-separated values. */
function bashValues(env: string, names: string[], how: 'eval' | 'source'): string[] {
  const file = join(tempDir('kgo-env'), 'out.env');
  writeFileSync(file, env);
  const load = how === 'eval' ? `eval "$(cat ${shellQuote(file)})"` : `. ${shellQuote(file)}`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', `set -eu; ${load}; printf '%s\\0' ${names.map((n) => `"$${n}"`).join(' ')}`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return r.stdout.split('\0').slice(0, names.length);
}

describe('shell quoting', () => {
  it.each(HOSTILE)('%j survives eval and source intact', (value) => {
    const env = `A=${shellQuote(value)}\n`;
    expect(bashValues(env, ['A'], 'eval')).toEqual([value]);
    expect(bashValues(env, ['A'], 'source')).toEqual([value]);
  });

  it('kvToEnv keeps every kv value, repeated keys one per line in one variable', () => {
    const kv =
      ['SYNC=OutOfSync', ...HOSTILE.filter((h) => !h.includes('\n')).map((h) => `DRIFT=${h}`), `REASON=${oneLineText(HOSTILE.join(' | '))}`].join('\n') + '\n';
    const env = kvToEnv(kv);
    expect(env.split('\n')[0]).toBe(`SYNC='OutOfSync'`);
    const [sync, drift, reason] = bashValues(env, ['SYNC', 'DRIFT', 'REASON'], 'eval');
    expect(sync).toBe('OutOfSync');
    expect(drift).toBe(HOSTILE.filter((h) => !h.includes('\n')).join('\n'));
    expect(reason).toBe(oneLineText(HOSTILE.join(' | ')));
    expect(reason).not.toContain('\n');
  });

  it('a kv line that is not KEY=value is an internal error, not a silent assignment', () => {
    expect(() => kvToEnv('not a kv line\n')).toThrow(/internal: kv line is not KEY=value/);
  });
});

describe('names and messages never break a kv line', () => {
  it('names with blanks, quotes or control characters are JSON-quoted; plain ones are not', () => {
    expect(nameToken('orders')).toBe('orders');
    expect(nameToken('x\nSYNC=Synced')).toBe('"x\\nSYNC=Synced"');
    expect(displayName({ kind: 'ConfigMap', name: 'a b' })).toBe('ConfigMap/"a b"');
    expect(JSON.parse(nameToken(HOSTILE[4]!))).toBe(HOSTILE[4]);
  });

  it('prune kv: a message with newlines stays on its line', () => {
    const kv = renderPruneKv({
      entries: [{ kind: 'ConfigMap', name: 'x\ny', namespace: 'a', outcome: 'skipped', message: 'one\ntwo\nPRUNE=ConfigMap/evil' }],
    } as never);
    expect(kv).toBe('PRUNE_SKIPPED=ConfigMap/"x\\ny" one two PRUNE=ConfigMap/evil\n');
  });

  it('prune kv: an object still Terminating when the wait was stopped says so on its PRUNED= line, as -o json does', () => {
    const kv = renderPruneKv({
      entries: [
        { kind: 'ConfigMap', name: 'x', namespace: 'a', outcome: 'deleted', message: 'deleted; still Terminating when the wait was stopped' },
        { kind: 'ConfigMap', name: 'y', namespace: 'a', outcome: 'deleted' },
      ],
      interrupted: 'while waiting for the deleted objects to be gone: they stay deleted',
    } as never);
    expect(kv).toBe(
      'PRUNED=ConfigMap/x deleted; still Terminating when the wait was stopped\nPRUNED=ConfigMap/y\nINTERRUPTED=while waiting for the deleted objects to be gone: they stay deleted\n',
    );
  });

  it("sync kv: a pruned object's note (still Terminating when the wait was stopped) is on its PRUNED= line", () => {
    const r = syncPruneIncomplete();
    r.prune.results[0]!.message = 'pruned; still Terminating when the wait was stopped';
    expect(
      renderSyncKv(r)
        .split('\n')
        .filter((l) => l.startsWith('PRUNED=')),
    ).toEqual(['PRUNED=ConfigMap/old-config pruned; still Terminating when the wait was stopped']);
  });
});

describe('file-mode diff with a hostile object name (the case from issue 19)', () => {
  const root = tempDir('kgo-hostile');
  const name = `x\nSYNC=Synced $(touch /tmp/kgitops-pwned) 'q'`;
  const desired = join(root, 'desired.yaml');
  const live = join(root, 'live.yaml');
  writeFileSync(desired, stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { k: 'new' } }));
  writeFileSync(live, stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'shop' }, data: { k: 'old' } }));

  async function diff(output: string) {
    const m = memoryIo();
    const code = await runCli(['diff', '--desired', desired, '--live', live, '-o', output, '--color', 'never'], m.io);
    return { code, out: m.stdout(), err: m.stderr() };
  }

  it('kv: one line per finding, the name quoted as field keys are', async () => {
    const r = await diff('kv');
    expect(r.code).toBe(1);
    expect(r.out).toBe(`SYNC=OutOfSync\nDRIFT=ConfigMap/${JSON.stringify(name)} data.k\n`);
  });

  it('env: eval gives SYNC and DRIFT exactly as kv has them, and runs nothing', async () => {
    const r = await diff('env');
    expect(r.code).toBe(1);
    const [sync, drift] = bashValues(r.out, ['SYNC', 'DRIFT'], 'eval');
    expect(sync).toBe('OutOfSync');
    expect(drift).toBe(`ConfigMap/${JSON.stringify(name)} data.k`);
    expect(JSON.parse(drift!.slice('ConfigMap/'.length, -' data.k'.length))).toBe(name);
    expect(spawnSync('test', ['-e', '/tmp/kgitops-pwned']).status).not.toBe(0);
  });

  it('table: the name is quoted there too', async () => {
    const r = await diff('table');
    expect(r.out).toContain(`ConfigMap/${JSON.stringify(name)}`);
    expect(r.out).not.toMatch(/^SYNC=Synced/m);
  });
});
