import { cronNext, parseCron } from '../../../src/settings/cron.js';
import { parseGoDuration } from '../../../src/model/duration.js';
import { canSync, isActive, matchingWindows, nextOpening, syncVerdict, windowTimes, type SyncWindow } from '../../../src/settings/sync-windows.js';
import { loadZone } from '../../../src/settings/time-zone.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
let n = 0;
const win = (w: Partial<SyncWindow>): SyncWindow => ({
  index: n++,
  kind: 'deny',
  schedule: '0 22 * * *',
  duration: '1h',
  applications: ['*'],
  namespaces: [],
  clusters: [],
  manualSync: false,
  timeZone: '',
  andOperator: false,
  description: '',
  syncOverrun: false,
  ...w,
});

describe('Go durations (time.ParseDuration)', () => {
  it.each([
    ['1h', 3_600_000],
    ['90m', 5_400_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['-2h', -7_200_000],
    ['0', 0],
    ['300ms', 300],
    ['1m30s', 90_000],
  ])('%s', (s, ms) => expect(parseGoDuration(s)).toBe(ms));
  it.each([
    ['', 'invalid duration'],
    ['1', 'missing unit'],
    ['1d', 'unknown unit "d"'],
    ['h', 'invalid duration'],
  ])('%j is refused (%s)', (s, msg) => expect(() => parseGoDuration(s)).toThrow(msg));
});

describe('cron (robfig/cron v3, Minute|Hour|Dom|Month|Dow)', () => {
  it.each([
    ['0 22 * * *', '2026-01-01T21:59:30Z', '2026-01-01T22:00:00.000Z'],
    ['0 22 * * *', '2026-01-01T22:00:00Z', '2026-01-02T22:00:00.000Z'],
    ['*/15 9-17 * * 1-5', '2026-01-03T10:00:00Z', '2026-01-05T09:00:00.000Z'], // Saturday -> Monday
    ['0 0 1 * mon', '2026-01-01T00:00:00Z', '2026-01-05T00:00:00.000Z'], // dom and dow both set: either matches
    ['0 0 * * MON', '2026-01-01T00:00:00Z', '2026-01-05T00:00:00.000Z'],
    ['0 0 1 jan-mar *', '2026-04-01T00:00:00Z', '2027-01-01T00:00:00.000Z'],
    ['5/20 * * * *', '2026-01-01T00:06:00Z', '2026-01-01T00:25:00.000Z'], // N/step is N-max/step
    ['0 12 29 2 *', '2026-03-01T00:00:00Z', '2028-02-29T12:00:00.000Z'],
  ])('%s after %s is %s', (spec, from, next) => expect(iso(cronNext(parseCron(spec), at(from)))).toBe(next));

  it("a schedule that never fires gives robfig's zero time (undefined)", () => {
    expect(cronNext(parseCron('0 0 30 2 *'), at('2026-01-01T00:00:00Z'))).toBeUndefined();
  });

  it('CRON_TZ= runs in that zone; a time the DST change skips is skipped to the next day, as robfig does', () => {
    // 2026-03-08: New York springs forward at 02:00 local.
    expect(iso(cronNext(parseCron('CRON_TZ=America/New_York 0 2 * * *'), at('2026-03-08T05:00:00Z')))).toBe('2026-03-09T06:00:00.000Z');
    expect(iso(cronNext(parseCron('TZ=America/New_York 0 9 * * *'), at('2026-01-05T00:00:00Z')))).toBe('2026-01-05T14:00:00.000Z');
  });

  it.each([
    ['@daily', 'parser does not accept descriptors'],
    ['0 22 * *', 'expected exactly 5 fields, found 4'],
    ['0 22 * * * *', 'expected exactly 5 fields, found 6'],
    ['60 * * * *', 'end of range (60) above maximum (59)'],
    ['0 5-3 * * *', 'beginning of range (5) beyond end of range (3)'],
    ['*/0 * * * *', 'step of range should be a positive number'],
    ['0 0 0 * *', 'below minimum (1)'],
    ['CRON_TZ=Nowhere/Land 0 0 * * *', 'provided bad location Nowhere/Land'],
    ['', 'empty spec string'],
  ])('%j is refused: %s', (spec, msg) => expect(() => parseCron(spec)).toThrow(msg));
});

describe('time zones (Go LoadLocation)', () => {
  it('knows IANA names, refuses other letter cases, and takes "" and Local as UTC', () => {
    expect(loadZone('Europe/Paris')?.offsetAt(at('2026-01-15T00:00:00Z'))).toBe(3600);
    expect(loadZone('Europe/Paris')?.offsetAt(at('2026-07-15T00:00:00Z'))).toBe(7200);
    expect(loadZone('Asia/Kolkata')?.offsetAt(at('2026-07-15T00:00:00Z'))).toBe(19800);
    expect(loadZone('europe/paris')).toBeUndefined();
    expect(loadZone('Mars/Olympus')).toBeUndefined();
    expect(loadZone('')?.name).toBe('UTC');
  });
});

describe('SyncWindow.active: a tick in (now - duration, now), in the offset in force now', () => {
  const deny = win({ schedule: '0 22 * * *', duration: '1h' });
  it.each([
    ['2026-01-01T21:59:59Z', false],
    ['2026-01-01T22:00:00Z', false], // strictly after the tick
    ['2026-01-01T22:00:01Z', true],
    ['2026-01-01T22:59:59Z', true],
    ['2026-01-01T23:00:00Z', false],
  ])('UTC %s: %s', (now, active) => expect(isActive(deny, at(now))).toBe(active));

  const paris = win({ schedule: '0 22 * * *', duration: '1h', timeZone: 'Europe/Paris' });
  it.each([
    ['2026-01-15T21:30:00Z', true], // 22:30 CET
    ['2026-01-15T22:30:00Z', false],
    ['2026-07-15T20:30:00Z', true], // 22:30 CEST
    ['2026-07-15T21:30:00Z', false],
  ])('Europe/Paris %s: %s', (now, active) => expect(isActive(paris, at(now))).toBe(active));

  it('an unknown time zone is UTC, as Argo CD falls back', () => {
    expect(isActive(win({ timeZone: 'Nowhere/Land' }), at('2026-01-01T22:30:00Z'))).toBe(true);
  });

  it('DST, autumn: a window at 01:30 New York time runs on both 01:30s (the offset is re-read at each check)', () => {
    const w = win({ schedule: '30 1 * * *', duration: '1h', timeZone: 'America/New_York' });
    // 2026-11-01 06:00Z: 02:00 EDT falls back to 01:00 EST.
    expect(isActive(w, at('2026-11-01T05:50:00Z'))).toBe(true); // 01:50 EDT
    expect(isActive(w, at('2026-11-01T06:10:00Z'))).toBe(false); // 01:10 EST
    expect(isActive(w, at('2026-11-01T06:40:00Z'))).toBe(true); // 01:40 EST
  });

  it('DST, spring: a window at 02:00 New York time never runs on the day 02:00 does not exist', () => {
    const w = win({ schedule: '0 2 * * *', duration: '1h', timeZone: 'America/New_York' });
    for (const t of ['2026-03-08T06:59:00Z', '2026-03-08T07:01:00Z', '2026-03-08T07:30:00Z', '2026-03-08T07:59:00Z']) expect(isActive(w, at(t))).toBe(false);
    expect(isActive(w, at('2026-03-09T06:30:00Z'))).toBe(true); // 02:30 EDT the next day
  });

  it('a schedule that never fires makes the window always active (Go zero time is before any time)', () => {
    expect(isActive(win({ schedule: '0 0 30 2 *' }), at('2026-06-01T12:00:00Z'))).toBe(true);
  });
});

describe('SyncWindows.Matches', () => {
  const app = { name: 'orders', destination: { namespace: 'shop', server: 'https://kubernetes.default.svc' } };
  it.each<[string, Partial<SyncWindow>, boolean]>([
    ['application glob', { applications: ['ord*'] }, true],
    ['application miss', { applications: ['billing'] }, false],
    ['namespace', { applications: [], namespaces: ['sh?p'] }, true],
    ['cluster by server', { applications: [], clusters: ['https://kubernetes.*'] }, true],
    ['cluster miss', { applications: [], clusters: ['prod-*'] }, false],
    ['OR: application misses, namespace matches', { applications: ['billing'], namespaces: ['shop'] }, true],
    ['OR: application misses, cluster misses, no namespaces', { applications: ['billing'], clusters: ['prod'] }, false],
    ['AND: application matches, namespace misses', { applications: ['orders'], namespaces: ['other'], andOperator: true }, false],
    ['AND: application and namespace match', { applications: ['orders'], namespaces: ['shop'], andOperator: true }, true],
    ['AND: application matches, nothing else set', { applications: ['orders'], andOperator: true }, true],
    ['AND: cluster misses', { applications: ['orders'], clusters: ['prod'], namespaces: ['shop'], andOperator: true }, false],
    ['no selector at all', { applications: [] }, false],
    ['no selector at all, AND', { applications: [], andOperator: true }, false],
    ['negation is not supported in windows', { applications: ['!billing'] }, false],
  ])('%s', (_t, w, matched) => expect(matchingWindows([win(w)], app)).toHaveLength(matched ? 1 : 0));
});

describe('SyncWindows.CanSync (what wins when allow and deny overlap, manualSync)', () => {
  const t = at('2026-01-01T22:30:00Z');
  const activeDeny = (w: Partial<SyncWindow> = {}) => win({ kind: 'deny', schedule: '0 22 * * *', duration: '1h', ...w });
  const activeAllow = (w: Partial<SyncWindow> = {}) => win({ kind: 'allow', schedule: '0 20 * * *', duration: '4h', ...w });
  const inactiveAllow = (w: Partial<SyncWindow> = {}) => win({ kind: 'allow', schedule: '0 9 * * *', duration: '8h', ...w });
  const inactiveDeny = (w: Partial<SyncWindow> = {}) => win({ kind: 'deny', schedule: '0 3 * * *', duration: '1h', ...w });
  it.each<[string, SyncWindow[], boolean, boolean]>([
    // name, windows, manual, expected
    ['no windows', [], false, true],
    ['active deny', [activeDeny()], false, false],
    ['active deny, manual', [activeDeny()], true, false],
    ['active deny with manualSync, manual', [activeDeny({ manualSync: true })], true, true],
    ['active deny with manualSync, automated', [activeDeny({ manualSync: true })], false, false],
    ['two active denies, one without manualSync, manual', [activeDeny({ manualSync: true }), activeDeny()], true, false],
    ['active allow and active deny overlap: deny wins', [activeAllow(), activeDeny()], false, false],
    ['active allow and active deny with manualSync, manual', [activeAllow(), activeDeny({ manualSync: true })], true, true],
    ['active allow', [activeAllow()], false, true],
    ['active allow and an inactive allow', [activeAllow(), inactiveAllow()], false, true],
    ['only an inactive allow', [inactiveAllow()], false, false],
    ['only an inactive allow, manual', [inactiveAllow()], true, false],
    ['inactive allow with manualSync, manual', [inactiveAllow({ manualSync: true })], true, true],
    ['inactive allows, one without manualSync, manual', [inactiveAllow({ manualSync: true }), inactiveAllow()], true, false],
    ['only an inactive deny', [inactiveDeny()], false, true],
    ['inactive deny and inactive allow', [inactiveDeny(), inactiveAllow()], false, false],
  ])('%s', (_t, ws, manual, expected) => expect(canSync(ws, { manual, now: t })).toBe(expected));

  it('syncOverrun: a sync that started before the deny window goes on', () => {
    const deny = activeDeny({ syncOverrun: true });
    expect(canSync([deny], { manual: false, now: t, operationStart: at('2026-01-01T21:55:00Z') })).toBe(true);
    expect(canSync([activeDeny()], { manual: false, now: t, operationStart: at('2026-01-01T21:55:00Z') })).toBe(false);
    expect(canSync([deny], { manual: false, now: t })).toBe(false);
  });

  it('syncOverrun: a sync that started inside an allow window goes on after it closes', () => {
    const allow = win({ kind: 'allow', schedule: '0 21 * * *', duration: '1h', syncOverrun: true });
    expect(canSync([allow], { manual: false, now: t, operationStart: at('2026-01-01T21:30:00Z') })).toBe(true);
    expect(canSync([allow], { manual: false, now: t, operationStart: at('2026-01-01T20:30:00Z') })).toBe(false);
  });

  it('a window Argo CD cannot parse makes CanSync fail', () => {
    expect(() => canSync([win({ schedule: 'nope' })], { manual: true, now: t })).toThrow("invalid sync windows: cannot parse schedule 'nope'");
    expect(() => canSync([win({ duration: '1d' })], { manual: true, now: t })).toThrow("cannot parse duration '1d'");
  });
});

describe('when a refused sync may run', () => {
  it('at the end of the deny window', () => {
    const v = syncVerdict([win({ kind: 'deny' })], { manual: true, now: at('2026-01-01T22:30:00Z') });
    expect(v.allowed).toBe(false);
    expect(iso(v.opensAt)).toBe('2026-01-01T23:00:00.000Z');
    expect(v.reason).toContain('blocked by the active deny window syncWindows[');
    expect(v.reason).toContain('it opens at 2026-01-01T23:00:00.000Z');
  });

  it('at the start of the next allow window', () => {
    const v = syncVerdict([win({ kind: 'allow', schedule: '0 9 * * 1-5', duration: '8h' })], { manual: false, now: at('2026-01-02T18:00:00Z') }); // Friday evening
    expect(v.reason).toContain('outside every allow window');
    expect(iso(v.opensAt)).toBe('2026-01-05T09:00:00.000Z');
  });

  it('after back-to-back deny windows, and not while an allow overlaps a deny', () => {
    const ws = [
      win({ kind: 'deny', schedule: '0 22 * * *', duration: '1h' }),
      win({ kind: 'deny', schedule: '0 23 * * *', duration: '30m' }),
      win({ kind: 'allow', schedule: '0 22 * * *', duration: '4h' }),
    ];
    expect(iso(nextOpening(ws, { manual: false, now: at('2026-01-01T22:10:00Z') }))).toBe('2026-01-01T23:30:00.000Z');
  });

  it("in the offset of the window's zone", () => {
    const v = syncVerdict([win({ kind: 'deny', timeZone: 'Asia/Kolkata', schedule: '0 22 * * *', duration: '2h' })], {
      manual: false,
      now: at('2026-01-01T17:00:00Z'),
    }); // 22:30 IST
    expect(iso(v.opensAt)).toBe('2026-01-01T18:30:00.000Z'); // 00:00 IST
  });

  it('never, for a window that is always active', () => {
    const v = syncVerdict([win({ schedule: '* * * * *', duration: '2m' })], { manual: false, now: at('2026-01-01T00:00:30Z') });
    expect(v.allowed).toBe(false);
    expect(v.opensAt).toBeUndefined();
    expect(v.reason).toContain('does not open within a year');
  });

  it('an invalid window is reported as such', () => {
    expect(syncVerdict([win({ schedule: '@daily' })], { manual: true, now: 0 })).toMatchObject({
      allowed: false,
      invalid: expect.stringContaining('parser does not accept descriptors'),
    });
  });
});

describe('window times (status and the windows command)', () => {
  it('an active window: since, until and the next start', () => {
    expect(windowTimes(win({}), at('2026-01-01T22:30:00Z'))).toEqual({
      active: true,
      since: at('2026-01-01T22:00:00Z'),
      until: at('2026-01-01T23:00:00Z'),
      nextStart: at('2026-01-02T22:00:00Z'),
    });
  });
  it('an inactive window: the next start, in its zone', () => {
    expect(windowTimes(win({ timeZone: 'Europe/Paris' }), at('2026-01-01T12:00:00Z'))).toEqual({ active: false, nextStart: at('2026-01-01T21:00:00Z') });
  });
  it('overlapping runs of one window join into one', () => {
    const t = windowTimes(win({ schedule: '0 * * * *', duration: '90m' }), at('2026-01-01T10:15:00Z'));
    expect(t.active).toBe(true);
    expect(t.until).toBeUndefined(); // runs every hour for 90 minutes: never ends
  });
});
