// `windows`: the Application's AppProject, its sync windows for the app (or all of them) and whether a sync may run now.
import type { Application } from '../app/types.js';
import { projectStatus, type ProjectStatus } from '../settings/window-report.js';
import { loadApplication, type AppStateArgs, type AppStateDeps } from './session/app-state.js';
import { loadRules, projectViolations } from './session/rules.js';
import { loadApplicationFromFile } from './session/application-source.js';

export const WINDOWS_SCHEMA_VERSION = 1;

export interface WindowsReport {
  schemaVersion: typeof WINDOWS_SCHEMA_VERSION;
  app: { name: string; namespace: string; destination: Application['destination'] };
  /** The time the windows were computed at (ISO). */
  now: string;
  project: ProjectStatus;
  warnings: string[];
}

/** Reads the Application and its rules (no manifests: only the app-level rules are checked) and reports the windows. */
export async function runWindows(
  args: AppStateArgs & { all: boolean },
  deps: Omit<AppStateDeps, 'gateway'> & { gateway?: AppStateDeps['gateway'] },
  now: number = Date.now(),
): Promise<WindowsReport> {
  const app = deps.gateway ? await loadApplication(args, { ...deps, gateway: deps.gateway }) : await loadApplicationFromFile(args.appFile ?? '', deps.io);
  const rules = await loadRules(app, args, deps.gateway);
  const project = projectStatus(rules.project, app, now, {
    violations: projectViolations(app, rules, [], deps.target?.server),
    ...(rules.projectUnchecked ? { unchecked: true } : {}),
    all: args.all,
  });
  return {
    schemaVersion: WINDOWS_SCHEMA_VERSION,
    app: { name: app.name, namespace: app.namespace, destination: app.destination },
    now: new Date(now).toISOString(),
    project,
    warnings: [...app.warnings, ...rules.warnings],
  };
}
