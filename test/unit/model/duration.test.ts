import { argoEnvDurationMs, goDurationMs, parseDuration } from '../../../src/model/duration.js';
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

describe('goDurationMs (one parser with the sync windows: Go time.ParseDuration)', () => {
  it.each([
    ['3m', 180_000],
    [' 90s ', 90_000],
    ['1.5h', 5_400_000],
    ['.5s', 500],
    ['0', 0],
    ['1h30m', 5_400_000],
    ['+5s', 5_000],
    ['-0', 0],
  ])('%j is %d ms', (text, ms) => {
    expect(goDurationMs(text)).toBe(ms);
  });
  it.each(['', '90', '-5s', '5x', '1d', '1h 30m', undefined])('refuses %j (no unit, negative, an unknown unit)', (text) => {
    expect(goDurationMs(text)).toBeUndefined();
  });
});

describe("argoEnvDurationMs (Argo CD's env.ParseDurationFromEnv: Go's grammar, then whole days, hours, minutes or seconds)", () => {
  it.each([
    ['90s', 90_000],
    ['+90s', 90_000],
    ['-90s', -90_000],
    ['2d', 172_800_000],
    ['3h', 10_800_000],
  ])('%j is %d ms', (text, ms) => {
    expect(argoEnvDurationMs(text)).toBe(ms);
  });
  it.each(['', '90', '1.5d', '-1d', ' 90s', '1w'])('refuses %j', (text) => {
    expect(argoEnvDurationMs(text)).toBeUndefined();
  });
});
