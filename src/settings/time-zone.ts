// Time zones by IANA name (Intl, as Node 24 ships full ICU): offsets at an instant, and validation as Go's time.LoadLocation.

/** A zone: its name and its UTC offset (seconds east of UTC) at any instant. */
export interface Zone {
  name: string;
  offsetAt(utcMs: number): number;
}

export const UTC: Zone = { name: 'UTC', offsetAt: () => 0 };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(name: string): Intl.DateTimeFormat {
  let f = formatters.get(name);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset', year: 'numeric' });
    formatters.set(name, f);
  }
  return f;
}

/** Seconds east of UTC in `name` at `utcMs` (`GMT+05:30` → 19800). */
function intlOffset(name: string, utcMs: number): number {
  const part = formatter(name)
    .formatToParts(new Date(utcMs))
    .find((p) => p.type === 'timeZoneName')?.value;
  const m = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(part ?? '');
  if (!m || !m[1]) return 0;
  const secs = Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0);
  return m[1] === '-' ? -secs : secs;
}

/**
 * The zone Go's time.LoadLocation gives for `name`, or undefined where Go fails. "" and "UTC" are UTC;
 * "Local" is the zone of the machine Argo CD runs on, which this tool cannot know: it is taken as UTC,
 * the zone of Argo CD's published images.
 */
export function loadZone(name: string): Zone | undefined {
  if (name === '' || name === 'UTC' || name === 'Local') return UTC;
  // Go reads zoneinfo files by their exact name; Intl also takes other letter cases, which Go refuses.
  try {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
    if (name !== canonical && name.toLowerCase() === canonical.toLowerCase()) return undefined;
  } catch {
    return undefined;
  }
  return { name, offsetAt: (utcMs) => intlOffset(name, utcMs) };
}

/** Civil time fields of an instant in a zone (month 1-12, weekday 0 = Sunday). */
export interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

export function civil(utcMs: number, zone: Zone): Civil {
  const d = new Date(utcMs + zone.offsetAt(utcMs) * 1000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

/**
 * Go's time.Date(y, mo, d, h, mi, s, 0, zone): out-of-range fields normalise (month 13 is January of the
 * next year), and a civil time that a zone transition skips or repeats gets Go's choice of offset.
 */
export function goDate(year: number, month: number, day: number, hour: number, minute: number, second: number, zone: Zone): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  const local = d.getTime();
  const guess = zone.offsetAt(local);
  return local - zone.offsetAt(local - guess * 1000) * 1000;
}
