// Durations in milliseconds: Go's time.ParseDuration grammar (`90s`, `1m30s`, `500ms`, `.5s`, `-2h`, `0`), which Argo
// CD's settings (a sync window's duration, argocd-cm's timeouts) are read with, and kubectl's duration flags, which take
// that grammar or a bare number of seconds.
import { InputError } from './errors.js';

const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5
  μs: 1e-3, // U+03BC
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds (fractions kept); throws Go's own message for what Go refuses. */
export function parseGoDuration(s: string): number {
  const orig = s;
  const invalid = () => new Error(`time: invalid duration ${JSON.stringify(orig)}`);
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0;
  while (s !== '') {
    const m = /^([0-9]*)(\.([0-9]*))?/.exec(s)!;
    const whole = m[1] ?? '';
    const frac = m[3];
    if (whole === '' && (frac === undefined || frac === '')) throw invalid();
    s = s.slice(m[0].length);
    const u = /^[^0-9.]*/.exec(s)![0];
    if (u === '') throw new Error(`time: missing unit in duration ${JSON.stringify(orig)}`);
    const unit = UNITS[u];
    if (unit === undefined) throw new Error(`time: unknown unit ${JSON.stringify(u)} in duration ${JSON.stringify(orig)}`);
    s = s.slice(u.length);
    total += Number(`${whole || '0'}.${frac ?? ''}0`) * unit;
  }
  // Go's limit: about 2562047h (int64 nanoseconds).
  if (total > 9.223372036854775e12) throw invalid();
  return neg ? -total : total;
}

/** A Go duration in ms, or undefined when Go's time.ParseDuration would refuse it (`90`: no unit) or it is negative (`+5s` is 5 s, as in Go). */
export function goDurationMs(text: string | undefined): number | undefined {
  try {
    const ms = parseGoDuration((text ?? '').trim());
    return ms < 0 ? undefined : ms + 0; // `-0` is 0
  } catch {
    return undefined;
  }
}

/**
 * A duration as Argo CD's env.ParseDurationFromEnv reads one (argocd-cm's `timeout.reconciliation` reaches the controller
 * through it): Go's time.ParseDuration, and when Go refuses it, a whole number of `s`, `m`, `h` or `d` (argoproj/pkg's
 * time.ParseDuration, kept for durations written in days). Milliseconds, negative ones included (the caller holds them
 * to its minimum), or undefined when neither grammar reads it.
 */
export function argoEnvDurationMs(text: string): number | undefined {
  try {
    return parseGoDuration(text) + 0;
  } catch {
    const days = /^(\d+)([smhd])$/.exec(text);
    if (!days) return undefined;
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[days[2] as 's' | 'm' | 'h' | 'd'];
    return Number(days[1]) * unit;
  }
}

/** Milliseconds for a duration flag; a bare number means seconds (as kubectl's --request-timeout). */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const ms = goDurationMs(t);
  if (ms === undefined) throw new InputError(`invalid duration for ${flag}: "${text}" (use e.g. 30s, 1m, 1m30s)`);
  return Math.round(ms);
}
