// Durations for people (a sync window's length, a wait): `1h30m`, `2d3h`. Parsing is model/duration.ts's.

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
