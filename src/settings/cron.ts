// Cron schedules exactly as Argo CD reads a sync window's `schedule`: robfig/cron v3's parser with the five
// fields Minute | Hour | Dom | Month | Dow (no descriptors such as @daily), and its SpecSchedule.Next.
import { civil, goDate, loadZone, UTC, type Zone } from './time-zone.js';

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 } };
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** One field: the values it allows, and whether it was written `*` or `?` (robfig's star bit). */
export interface CronField {
  values: ReadonlySet<number>;
  star: boolean;
}

export interface CronSchedule {
  spec: string;
  minute: CronField;
  hour: CronField;
  dom: CronField;
  month: CronField;
  dow: CronField;
  /** Set by a `CRON_TZ=` or `TZ=` prefix; otherwise the schedule runs in the zone of the time it is given (UTC here). */
  zone?: Zone;
}

/** strconv.Atoi as robfig calls it: an optional sign, decimal digits, no negatives. */
function parseIntStrict(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, r: Bounds): number {
  const named = r.names?.[expr.toLowerCase()];
  return named !== undefined ? named : parseIntStrict(expr);
}

function getRange(expr: string, r: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
    star = true;
  } else {
    start = parseIntOrName(lowAndHigh[0] ?? '', r);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? '', r);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = parseIntStrict(rangeAndStep[1] ?? '');
    // "N/step" means "N-max/step".
    if (singleDigit) end = r.max;
    if (step > 1) star = false;
  } else throw new Error(`too many slashes: ${expr}`);
  if (start < r.min) throw new Error(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new Error(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  for (let i = start; i <= end; i += step) into.add(i);
  return star;
}

function getField(field: string, r: Bounds): CronField {
  const values = new Set<number>();
  let star = false;
  // strings.FieldsFunc on ',': empty pieces are dropped.
  for (const expr of field.split(',').filter((x) => x !== '')) if (getRange(expr, r, values)) star = true;
  return { values, star };
}

/** Parses `spec` as Argo CD does; throws robfig's message on anything it refuses. */
export function parseCron(spec: string): CronSchedule {
  const original = spec;
  if (spec.length === 0) throw new Error('empty spec string');
  let zone: Zone | undefined;
  if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
    const i = spec.indexOf(' ');
    const eq = spec.indexOf('=');
    const name = i < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, i);
    zone = i < 0 ? undefined : loadZone(name);
    if (!zone) throw new Error(`provided bad location ${name}: unknown time zone ${name}`);
    spec = spec.slice(i).trim();
  }
  if (spec.startsWith('@')) throw new Error(`parser does not accept descriptors: ${spec}`);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [mi, h, dom, mo, dow] = fields as [string, string, string, string, string];
  return {
    spec: original,
    minute: getField(mi, MINUTES),
    hour: getField(h, HOURS),
    dom: getField(dom, DOM),
    month: getField(mo, MONTHS),
    dow: getField(dow, DOW),
    ...(zone ? { zone } : {}),
  };
}

function dayMatches(s: CronSchedule, c: { day: number; weekday: number }): boolean {
  const domMatch = s.dom.values.has(c.day);
  const dowMatch = s.dow.values.has(c.weekday);
  if (s.dom.star || s.dow.star) return domMatch && dowMatch;
  return domMatch || dowMatch;
}

/**
 * robfig's SpecSchedule.Next: the first activation strictly after `utcMs` (whole seconds), computed in the
 * schedule's zone (`CRON_TZ=`), else in `zone` (the zone of the time Argo CD passes in: UTC). Undefined
 * where robfig returns Go's zero time (nothing within five years, e.g. `0 0 30 2 *`): Argo CD then takes
 * the window to be active, since the zero time is before any time.
 */
export function cronNext(s: CronSchedule, utcMs: number, zone: Zone = UTC): number | undefined {
  const loc = s.zone ?? zone;
  // The upcoming second.
  let t = Math.floor(utcMs / 1000) * 1000 + 1000;
  let added = false;
  let c = civil(t, loc);
  const yearLimit = c.year + 5;
  const date = (y: number, mo: number, d: number, h: number, mi: number, sec: number) => goDate(y, mo, d, h, mi, sec, loc);
  wrap: for (;;) {
    c = civil(t, loc);
    if (c.year > yearLimit) return undefined;
    while (!s.month.values.has(c.month)) {
      if (!added) {
        added = true;
        t = date(c.year, c.month, 1, 0, 0, 0);
        c = civil(t, loc);
      }
      t = date(c.year, c.month + 1, c.day, c.hour, c.minute, c.second);
      c = civil(t, loc);
      if (c.month === 1) continue wrap;
    }
    while (!dayMatches(s, c)) {
      if (!added) {
        added = true;
        t = date(c.year, c.month, c.day, 0, 0, 0);
        c = civil(t, loc);
      }
      t = date(c.year, c.month, c.day + 1, c.hour, c.minute, c.second);
      c = civil(t, loc);
      // Notice if the hour is no longer midnight due to DST.
      if (c.hour !== 0) {
        t += (c.hour > 12 ? 24 - c.hour : -c.hour) * 3_600_000;
        c = civil(t, loc);
      }
      if (c.day === 1) continue wrap;
    }
    while (!s.hour.values.has(c.hour)) {
      if (!added) {
        added = true;
        t = date(c.year, c.month, c.day, c.hour, 0, 0);
        c = civil(t, loc);
      }
      t += 3_600_000;
      c = civil(t, loc);
      if (c.hour === 0) continue wrap;
    }
    while (!s.minute.values.has(c.minute)) {
      if (!added) {
        added = true;
        t -= t % 60_000;
        c = civil(t, loc);
      }
      t += 60_000;
      c = civil(t, loc);
      if (c.minute === 0) continue wrap;
    }
    // The seconds field is always 0 with this parser.
    while (c.second !== 0) {
      if (!added) {
        added = true;
        t -= t % 1000;
        c = civil(t, loc);
      }
      t += 1000;
      c = civil(t, loc);
      if (c.second === 0) continue wrap;
    }
    return t;
  }
}
