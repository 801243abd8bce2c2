// The app's health: the worst counted resource in Argo CD's order, and Missing when nothing is live.
import type { HealthStatus, HealthStatusCode } from './types.js';
import { isWorse } from './types.js';

/** What the aggregation needs to know about one of the app's resources. */
export interface HealthInput {
  /** Whether a live object exists (a desired object absent from the cluster counts as OutOfSync, not as health). */
  live: boolean;
  /** The live object's health; undefined when its kind has none. */
  health?: HealthStatus;
  /** Annotated `argocd.argoproj.io/ignore-healthcheck: "true"`. */
  ignored?: boolean;
}

export interface AppHealth {
  status: HealthStatusCode;
  /** Indexes (into the input) of the counted resources whose health is the app's, in input order. */
  worst: number[];
}

/** As Argo CD's setApplicationHealth: skips missing, ignored and health-less resources. */
export function aggregateHealth(resources: readonly HealthInput[]): AppHealth {
  if (resources.length > 0 && !resources.some((r) => r.live)) return { status: 'Missing', worst: [] };
  let status: HealthStatusCode = 'Healthy';
  let worst: number[] = [];
  resources.forEach((r, i) => {
    if (!r.live || r.ignored || r.health === undefined) return;
    const counted = r.health.status;
    if (isWorse(status, counted)) {
      status = counted;
      worst = [i];
    } else if (counted === status && status !== 'Healthy') {
      worst.push(i);
    }
  });
  return { status, worst };
}
