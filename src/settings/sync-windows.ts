// An AppProject's sync windows, computed exactly as Argo CD's SyncWindows (pkg/apis/application/v1alpha1/types.go):
// Matches (which windows apply to an app), Active / InactiveAllows, CanSync (what wins when allow and deny
// overlap), plus what Argo CD does not say: when a blocked sync may run again, and each window's next times.
// Pure: time comes in as milliseconds since the epoch.
import { cronNext, parseCron, type CronSchedule } from './cron.js';
import { parseGoDuration } from '../model/duration.js';
import { formatDuration } from './go-duration.js';
import { projectGlobMatch } from '../model/glob.js';
import { loadZone, UTC, type Zone } from './time-zone.js';

export interface SyncWindow {
  /** Position in spec.syncWindows (Argo CD's window id). */
  index: number;
  /** `allow` or `deny` (anything else takes part in nothing, as in Argo CD). */
  kind: string;
  schedule: string;
  duration: string;
  applications: string[];
  namespaces: string[];
  clusters: string[];
  manualSync: boolean;
  timeZone: string;
  /** `andOperator`: applications, clusters and namespaces must all match (when set). */
  andOperator: boolean;
  description: string;
  syncOverrun: boolean;
}

/** What window matching reads of an Application. */
export interface WindowApp {
  name: string;
  destination: { namespace?: string; server?: string; name?: string };
}

/** A window's schedule, duration and zone, compiled once. */
interface Compiled {
  cron: CronSchedule;
  durationMs: number;
  zone: Zone;
}

const compiled = new WeakMap<SyncWindow, Compiled>();

/** Argo CD's messages for a schedule or duration it cannot parse. */
function compile(w: SyncWindow): Compiled {
  const hit = compiled.get(w);
  if (hit) return hit;
  let cron: CronSchedule;
  try {
    cron = parseCron(w.schedule);
  } catch (err) {
    throw new Error(`cannot parse schedule '${w.schedule}': ${(err as Error).message}`);
  }
  let durationMs: number;
  try {
    durationMs = parseGoDuration(w.duration);
  } catch (err) {
    throw new Error(`cannot parse duration '${w.duration}': ${(err as Error).message}`);
  }
  // An unknown zone is UTC, as Argo CD's scheduleOffsetByTimeZone logs and does.
  const c = { cron, durationMs, zone: loadZone(w.timeZone) ?? UTC };
  compiled.set(w, c);
  return c;
}

/** Why a window is not usable (bad schedule or duration), or undefined; an unknown time zone is a warning. */
export function windowProblem(w: SyncWindow): string | undefined {
  try {
    compile(w);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Whether Argo CD falls back to UTC for this window's time zone. */
export function unknownTimeZone(w: SyncWindow): boolean {
  return loadZone(w.timeZone) === undefined;
}

/**
 * The offset Argo CD shifts the schedule by: the zone's offset *now* (time.Now().In(loc).Zone()), applied
 * to every instant the check looks at. So a window is computed in a fixed offset, the one in force when
 * the check runs, and a daylight-saving change moves it by the change from the next check on.
 */
function offsetMs(c: Compiled, now: number): number {
  return c.zone.offsetAt(now) * 1000;
}

/** SyncWindow.active: a schedule tick in the open interval (now - duration, now), in the shifted clock. */
export function isActive(w: SyncWindow, now: number): boolean {
  const c = compile(w);
  const shifted = now + offsetMs(c, now);
  const next = cronNext(c.cron, shifted - c.durationMs);
  return next === undefined || next < shifted;
}

/** SyncWindows.Matches. */
export function matchingWindows(windows: readonly SyncWindow[], app: WindowApp): SyncWindow[] {
  const out: SyncWindow[] = [];
  for (const window of windows) {
    let matched = false;
    let isSet = false;
    if (window.applications.length > 0) {
      isSet = true;
      matched = window.applications.some((a) => projectGlobMatch(a, app.name, false));
    }
    if (window.andOperator && !matched && isSet) continue;
    else if (!window.andOperator && matched) {
      out.push(window);
      continue;
    }
    if (window.clusters.length > 0) {
      matched = false;
      isSet = true;
      const dst = app.destination;
      matched = window.clusters.some((c) => (!!dst.name && projectGlobMatch(c, dst.name, false)) || (!!dst.server && projectGlobMatch(c, dst.server, false)));
    }
    if (isSet && window.andOperator && !matched) continue;
    else if (!window.andOperator && matched) {
      out.push(window);
      continue;
    }
    if (window.namespaces.length > 0) {
      matched = window.namespaces.some((n) => projectGlobMatch(n, app.destination.namespace ?? '', false));
    }
    if (matched) out.push(window);
  }
  return out;
}

/** SyncWindows.Active. */
function activeWindows(windows: readonly SyncWindow[], now: number): SyncWindow[] {
  return windows.filter((w) => isActive(w, now));
}

/** SyncWindows.InactiveAllows. */
function inactiveAllows(windows: readonly SyncWindow[], now: number): SyncWindow[] {
  return windows.filter((w) => w.kind === 'allow' && !isActive(w, now));
}

/** hasDeny: whether any deny window is in the list, and whether every one of them enables manual sync. */
function hasDeny(ws: readonly SyncWindow[]): { deny: boolean; manual: boolean } {
  const denies = ws.filter((w) => w.kind === 'deny');
  return { deny: denies.length > 0, manual: denies.length > 0 && denies.every((w) => w.manualSync) };
}

export interface CanSyncOptions {
  /** A sync someone asked for (argocd app sync, this tool's `sync`), as opposed to an automated one. */
  manual: boolean;
  now: number;
  /** When the operation in progress started (syncOverrun); absent for a new sync. */
  operationStart?: number;
}

function canSyncAt(windows: readonly SyncWindow[], manual: boolean, at: number): boolean {
  if (windows.length === 0) return true;
  const active = activeWindows(windows, at);
  const d = hasDeny(active);
  if (d.deny) return manual && d.manual;
  if (active.some((w) => w.kind === 'allow')) return true;
  const inactive = inactiveAllows(windows, at);
  if (inactive.length > 0) return manual && inactive.every((w) => w.manualSync);
  return true;
}

/**
 * SyncWindows.CanSync over the windows that match the app: an active deny wins over any allow (unless the
 * sync is manual and every active deny has manualSync); else an active allow allows; else, when there
 * are allow windows, all inactive, the sync is blocked (unless manual and all of them have manualSync);
 * with no windows at all, or only inactive denies, it is allowed. Throws `invalid sync windows: …` on a
 * window Argo CD cannot parse.
 */
export function canSync(windows: readonly SyncWindow[], opts: CanSyncOptions): boolean {
  if (windows.length === 0) return true;
  try {
    const active = activeWindows(windows, opts.now);
    const d = hasDeny(active);
    const start = opts.operationStart;
    if (d.deny) {
      if (opts.manual && d.manual) return true;
      const denies = active.filter((w) => w.kind === 'deny');
      if (start !== undefined && denies.every((w) => w.syncOverrun) && canSyncAt(windows, opts.manual, start)) return true;
      return false;
    }
    if (active.some((w) => w.kind === 'allow')) return true;
    const inactive = inactiveAllows(windows, opts.now);
    if (inactive.length > 0) {
      if (opts.manual && inactive.every((w) => w.manualSync)) return true;
      if (start !== undefined && inactive.every((w) => w.syncOverrun) && canSyncAt(windows, opts.manual, start)) return true;
      return false;
    }
    return true;
  } catch (err) {
    throw new Error(`invalid sync windows: ${(err as Error).message}`);
  }
}

/** The real instants at which a window's state may change after `after` (starts and ends of its runs). */
function changesAfter(w: SyncWindow, after: number): number[] {
  const c = compile(w);
  const out: number[] = [];
  // Both the offset in force now and the one at each candidate: a daylight-saving change in between moves it.
  const add = (shiftedInstant: number, offAt: number) => {
    const real = shiftedInstant - offAt;
    if (real > after) out.push(real);
  };
  const off = offsetMs(c, after);
  const shifted = after + off;
  const start = cronNext(c.cron, shifted);
  const runStart = cronNext(c.cron, shifted - c.durationMs);
  for (const s of [start, runStart === undefined ? undefined : runStart + c.durationMs]) {
    if (s === undefined) continue;
    add(s, off);
    const later = offsetMs(c, s - off);
    if (later !== off) add(s, later);
  }
  return out;
}

/** The latest a search for the next opening looks ahead. */
const OPENING_HORIZON_MS = 366 * 86_400_000;

/**
 * When a sync that `canSync` refuses now would be allowed: the first instant after `now` at which
 * CanSync turns true, found by walking the windows' starts and ends in time order. Undefined when it
 * is not within OPENING_HORIZON_MS (or never), or when a window cannot be parsed.
 */
export function nextOpening(windows: readonly SyncWindow[], opts: { manual: boolean; now: number }): number | undefined {
  try {
    if (canSyncAt(windows, opts.manual, opts.now)) return opts.now;
    let t = opts.now;
    for (let step = 0; step < 20_000; step++) {
      const next = Math.min(...windows.flatMap((w) => changesAfter(w, t)));
      if (!Number.isFinite(next) || next > opts.now + OPENING_HORIZON_MS) return undefined;
      // A window is active only after its tick (strictly), so the state that begins at `next` is read just after it.
      if (canSyncAt(windows, opts.manual, next + 1)) return next;
      t = next;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

export interface WindowTimes {
  active: boolean;
  /** When the current run started (active windows). */
  since?: number;
  /** When the current run ends (active windows); undefined when it does not end within the horizon. */
  until?: number;
  /** The next start after now (after the current run, for an active window). */
  nextStart?: number;
}

/** A window's current run and its next start, in real time (the offset in force now, as Argo CD). */
export function windowTimes(w: SyncWindow, now: number): WindowTimes {
  const c = compile(w);
  const off = offsetMs(c, now);
  const shifted = now + off;
  const active = isActive(w, now);
  if (!active) {
    const n = cronNext(c.cron, shifted);
    return { active, ...(n !== undefined ? { nextStart: n - off } : {}) };
  }
  // The first tick of the current run: the earliest tick in (now - duration, now), walking back while runs overlap.
  let first = cronNext(c.cron, shifted - c.durationMs);
  if (first === undefined) return { active };
  for (let i = 0; i < 1000; i++) {
    const before = cronNext(c.cron, first - c.durationMs);
    if (before === undefined || before >= first) break;
    first = before;
  }
  // The end: the last tick whose run overlaps the next one, plus the duration.
  let end = first + c.durationMs;
  let tick = first;
  let bounded = false;
  for (let i = 0; i < 10_000; i++) {
    const n = cronNext(c.cron, tick);
    if (n === undefined || n >= end) {
      bounded = true;
      break;
    }
    tick = n;
    end = n + c.durationMs;
    if (end - off > now + OPENING_HORIZON_MS) break;
  }
  const next = bounded ? cronNext(c.cron, end - 1) : undefined;
  return { active, since: first - off, ...(bounded ? { until: end - off } : {}), ...(next !== undefined ? { nextStart: next - off } : {}) };
}

/** `deny "0 22 * * *" for 1h (Europe/Paris)` with its selectors, for messages. */
function describeWindow(w: SyncWindow): string {
  const sel = [
    w.applications.length ? `applications ${w.applications.join(',')}` : '',
    w.namespaces.length ? `namespaces ${w.namespaces.join(',')}` : '',
    w.clusters.length ? `clusters ${w.clusters.join(',')}` : '',
  ].filter((s) => s !== '');
  let dur = w.duration;
  try {
    dur = formatDuration(parseGoDuration(w.duration));
  } catch {
    // shown as written
  }
  const tz = w.timeZone && w.timeZone !== 'UTC' ? ` ${w.timeZone}` : ' UTC';
  return `syncWindows[${w.index}] ${w.kind || '(no kind)'} "${w.schedule}" for ${dur}${tz}${sel.length ? ` (${sel.join(w.andOperator ? ' and ' : ' or ')})` : ''}${w.manualSync ? ', manualSync' : ''}${w.description ? `: ${w.description}` : ''}`;
}

export interface SyncVerdict {
  allowed: boolean;
  /** One line: which windows block, and when the sync may run. */
  reason?: string;
  /** The windows that block: the active denies, or the inactive allows. */
  blocking: SyncWindow[];
  /** When CanSync turns true (absent: not within a year). */
  opensAt?: number;
  /** A window Argo CD cannot parse: Argo CD refuses every sync of the app until it is fixed. */
  invalid?: string;
}

/** CanSync for a sync starting now, with the reason and the time it opens when it is refused. */
export function syncVerdict(windows: readonly SyncWindow[], opts: { manual: boolean; now: number }): SyncVerdict {
  let allowed: boolean;
  try {
    allowed = canSync(windows, opts);
  } catch (err) {
    const msg = (err as Error).message;
    return { allowed: false, reason: msg, blocking: [], invalid: msg };
  }
  if (allowed) return { allowed, blocking: [] };
  const active = activeWindows(windows, opts.now);
  const denies = active.filter((w) => w.kind === 'deny');
  const blocking = denies.length > 0 ? denies : inactiveAllows(windows, opts.now);
  const opensAt = nextOpening(windows, opts);
  const what =
    denies.length > 0
      ? `blocked by the active deny window${denies.length > 1 ? 's' : ''} ${denies.map(describeWindow).join('; ')}`
      : `outside every allow window (${blocking.map(describeWindow).join('; ')})`;
  const when = opensAt === undefined ? 'it does not open within a year' : `it opens at ${new Date(opensAt).toISOString()}`;
  return { allowed, reason: `sync ${what}; ${when}`, blocking, ...(opensAt !== undefined ? { opensAt } : {}) };
}
