// Durations in milliseconds: Go's time.ParseDuration grammar (`90s`, `1m30s`, `500ms`, `.5s`, `0`), which Argo CD's
// settings are read with, and kubectl's duration flags, which take that grammar or a bare number of seconds.
import { InputError } from './errors.js';

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const GO_DURATION = /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const GO_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/** A Go duration in ms, or undefined when Go's time.ParseDuration would refuse it (`90`: no unit). */
export function goDurationMs(text: string | undefined): number | undefined {
  const t = (text ?? '').trim();
  if (t === '0') return 0;
  if (!GO_DURATION.test(t)) return undefined;
  let total = 0;
  for (const m of t.matchAll(GO_PART)) total += Number(m[1]) * UNIT_MS[m[2]!]!;
  return total;
}

/** Milliseconds for a duration flag; a bare number means seconds (as kubectl's --request-timeout). */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const ms = goDurationMs(t);
  if (ms === undefined) throw new InputError(`invalid duration for ${flag}: "${text}" (use e.g. 30s, 1m, 1m30s)`);
  return Math.round(ms);
}
