// The one exit-code table: each error class maps to its code, anything else to 3; -v shows the cause chain.
import { ClusterError, ExitCode, ExitError, InputError, RefusedError, UnservedKindError, describeError, exitCodeFor } from '../../../src/model/errors.js';

describe('exitCodeFor', () => {
  it('keeps the documented numbers', () => {
    expect(ExitCode).toEqual({ Ok: 0, Drift: 1, Input: 2, Cluster: 3, Refused: 4, Interrupted: 130, Terminated: 143 });
  });

  it.each([
    ['InputError', new InputError('bad flag'), 2],
    ['UnservedKindError (an input error where plan does not read it)', new UnservedKindError('the cluster does not serve Widget'), 2],
    ['ClusterError', new ClusterError('apiserver said 500'), 3],
    ['RefusedError', new RefusedError('empty render'), 4],
    ['an ExitError with its own code', new ExitError('drift', ExitCode.Drift), 1],
  ])('%s -> its code', (_name, err, code) => {
    expect(exitCodeFor(err)).toBe(code);
  });

  it.each([
    ['a plain Error', new Error('boom')],
    ['a TypeError', new TypeError('fetch failed')],
    ['a thrown string', 'socket hang up'],
    ['undefined', undefined],
  ])('%s -> 3 (cluster or API error), never 0', (_name, err) => {
    expect(exitCodeFor(err)).toBe(ExitCode.Cluster);
  });

  it('names the error class and keeps the cause', () => {
    const cause = new Error('ENOENT');
    const err = new InputError('reading app.yaml', { cause });
    expect(err.name).toBe('InputError');
    expect(err.cause).toBe(cause);
    expect(err).toBeInstanceOf(ExitError);
  });
});

describe('describeError', () => {
  const chain = new ClusterError('syncing shop', {
    cause: new Error('applying Deployment web', { cause: new Error('connect ECONNREFUSED 127.0.0.1:6443') }),
  });

  it('shows only the top message without -v', () => {
    expect(describeError(chain, false)).toBe('error: syncing shop');
  });

  it('shows the whole cause chain with -v, one line each', () => {
    expect(describeError(chain, true)).toBe('error: syncing shop\n  caused by: applying Deployment web\n  caused by: connect ECONNREFUSED 127.0.0.1:6443');
  });

  it('prints causes that are not Errors and thrown non-Errors', () => {
    expect(describeError(new Error('outer', { cause: 'a string cause' }), true)).toBe('error: outer\n  caused by: a string cause');
    expect(describeError('plain text', true)).toBe('error: plain text');
  });

  it('stops on a cyclic cause chain', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    const lines = describeError(a, true).split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[1]).toBe('  caused by: b');
  });
});
