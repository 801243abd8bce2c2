// Go's time.ParseDuration, as Argo CD reads a sync window's `duration`: "90m", "1h30m", "1.5h", "-2h", "0".

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

/** A duration for people: `1h30m`, `45m`, `2d3h` (days when 24h or more), `0s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const sign = ms < 0 ? '-' : '';
  let s = Math.round(Math.abs(ms) / 1000);
  if (s === 0) return '0s';
  const parts: string[] = [];
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (d) parts.push(`${d}d`);
  if (h) parts.push(`${h}h`);
  if (m) parts.push(`${m}m`);
  if (s) parts.push(`${s}s`);
  return sign + parts.join('');
}
