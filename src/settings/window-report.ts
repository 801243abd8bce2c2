// What status and the `windows` command say about an app's project: its sync windows (active now, until when,
// next start), whether a manual and an automated sync may run now and when they may, and the project's
// violations. Pure: data in, data out.
import { matchingWindows, syncVerdict, unknownTimeZone, windowProblem, windowTimes, type SyncWindow, type WindowApp } from './sync-windows.js';

export interface WindowStatus {
  index: number;
  kind: string;
  schedule: string;
  duration: string;
  timeZone: string;
  applications: string[];
  namespaces: string[];
  clusters: string[];
  manualSync: boolean;
  andOperator: boolean;
  syncOverrun: boolean;
  description?: string;
  /** Whether it applies to this app (Argo CD's Matches). */
  matches: boolean;
  active: boolean;
  /** ISO times: the current run's start and end, the next start. */
  since?: string;
  until?: string;
  nextStart?: string;
  /** A schedule or duration Argo CD cannot parse, or an unknown time zone (taken as UTC). */
  problem?: string;
}

export interface SyncPermission {
  allowed: boolean;
  reason?: string;
  /** When it becomes allowed (ISO), when it is not now. */
  opensAt?: string;
}

export interface ProjectStatus {
  name: string;
  origin: string;
  /** What the project forbids for this app and its objects (a sync is refused while any remains). */
  violations: string[];
  /** The project could not be read: nothing of it is checked. */
  unchecked?: boolean;
  windows: WindowStatus[];
  /** A sync someone asks for now (`sync`, `argocd app sync`) and an automated one (`sync --watch`, the controller). */
  manualSync: SyncPermission;
  automatedSync: SyncPermission;
}

function iso(ms: number | undefined): string | undefined {
  return ms === undefined ? undefined : new Date(ms).toISOString();
}

function permission(ws: readonly SyncWindow[], manual: boolean, now: number): SyncPermission {
  const v = syncVerdict(ws, { manual, now });
  return { allowed: v.allowed, ...(v.reason ? { reason: v.reason } : {}), ...(v.opensAt !== undefined ? { opensAt: iso(v.opensAt) } : {}) };
}

/** The project's status for an app at `now`; with `all`, windows that do not apply to the app are listed too. */
export function projectStatus(
  p: { name: string; origin: string; syncWindows: SyncWindow[] },
  app: WindowApp,
  now: number,
  extra: { violations: string[]; unchecked?: boolean; all?: boolean },
): ProjectStatus {
  const matching = new Set(matchingWindows(p.syncWindows, app));
  const windows = p.syncWindows
    .filter((w) => extra.all || matching.has(w))
    .map((w): WindowStatus => {
      const problem = windowProblem(w) ?? (unknownTimeZone(w) ? `unknown time zone ${w.timeZone}: Argo CD uses UTC` : undefined);
      let times: ReturnType<typeof windowTimes> | undefined;
      try {
        times = windowTimes(w, now);
      } catch {
        times = undefined;
      }
      return {
        index: w.index,
        kind: w.kind,
        schedule: w.schedule,
        duration: w.duration,
        timeZone: w.timeZone || 'UTC',
        applications: w.applications,
        namespaces: w.namespaces,
        clusters: w.clusters,
        manualSync: w.manualSync,
        andOperator: w.andOperator,
        syncOverrun: w.syncOverrun,
        ...(w.description ? { description: w.description } : {}),
        matches: matching.has(w),
        active: times?.active ?? false,
        ...(times?.since !== undefined ? { since: iso(times.since) } : {}),
        ...(times?.until !== undefined ? { until: iso(times.until) } : {}),
        ...(times?.nextStart !== undefined ? { nextStart: iso(times.nextStart) } : {}),
        ...(problem ? { problem } : {}),
      };
    });
  const applying = [...matching];
  return {
    name: p.name,
    origin: p.origin,
    violations: extra.violations,
    ...(extra.unchecked ? { unchecked: true } : {}),
    windows,
    manualSync: permission(applying, true, now),
    automatedSync: permission(applying, false, now),
  };
}

/** One line per window for kv output and messages. */
export function windowLine(w: WindowStatus): string {
  const state = w.active ? `active${w.until ? ` until ${w.until}` : ''}` : `inactive${w.nextStart ? `, next ${w.nextStart}` : ''}`;
  return `${w.index} ${w.kind} "${w.schedule}" ${w.duration} ${w.timeZone} ${state}${w.manualSync ? ' manualSync' : ''}${w.matches ? '' : ' (does not apply)'}${w.problem ? ` (${w.problem})` : ''}`;
}
