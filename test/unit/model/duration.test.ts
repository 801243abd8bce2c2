import { parseDuration } from '../../../src/model/duration.js';
import { InputError } from '../../../src/model/errors.js';

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['30', 30_000],
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['2h', 7_200_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text, '--timeout')).toBe(ms);
  });

  it.each(['', 'abc', '5x', '1m junk'])('rejects %j naming the flag', (text) => {
    expect(() => parseDuration(text, '--timeout')).toThrow(InputError);
    expect(() => parseDuration(text, '--timeout')).toThrow(/--timeout/);
  });
});
