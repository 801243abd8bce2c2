// The app's health: the worst counted resource in Argo CD's order (controller/health.go setApplicationHealth).
import type { HealthStatus, HealthStatusCode } from './types.js';
import { isWorse } from './types.js';

/** What the aggregation needs to know about one of the app's resources. */
export interface HealthInput {
  /** Whether a live object exists; a desired object absent from the cluster is Missing. */
  live: boolean;
  /** The live object's health; undefined when its kind has none. Ignored for a resource that is not live (Missing). */
  health?: HealthStatus;
  /** Annotated `argocd.argoproj.io/ignore-healthcheck: "true"`. */
  ignored?: boolean;
  /**
   * Whether a Missing health counts: gitops-engine has a check of its own for the kind (GetHealthCheckFunc), or
   * argocd-cm's resource.customizations names its `group/Kind`. Else Missing is skipped (a missing ConfigMap).
   */
  missingCounts?: boolean;
  /** Of kind argoproj.io/Application: a child app, whose Missing or Unknown health does not count. */
  application?: boolean;
  /** The app's own Application object (isSelfReferencedApp): never counted. */
  selfReference?: boolean;
}

export interface AppHealth {
  status: HealthStatusCode;
  /** Indexes (into the input) of the counted resources whose health is the app's, in input order. */
  worst: number[];
}

/** The health that counts for the app, or undefined when the resource is skipped (as setApplicationHealth skips it). */
function countedHealth(r: HealthInput): HealthStatusCode | undefined {
  if (r.live && (r.ignored || r.selfReference)) return undefined;
  const status = r.live ? r.health?.status : 'Missing';
  if (status === undefined) return undefined;
  if (status === 'Missing' && !r.missingCounts) return undefined;
  if (r.application && (status === 'Missing' || status === 'Unknown')) return undefined;
  return status;
}

/**
 * As Argo CD's setApplicationHealth: skips ignored, self-referencing and health-less resources, a Missing one whose
 * kind has neither a built-in check nor an argocd-cm override, and a child Application that is Missing or Unknown.
 * There is no rule for an app with nothing live: its health is that of what counts (Healthy when nothing does).
 */
export function aggregateHealth(resources: readonly HealthInput[]): AppHealth {
  let status: HealthStatusCode = 'Healthy';
  let worst: number[] = [];
  resources.forEach((r, i) => {
    const counted = countedHealth(r);
    if (counted === undefined) return;
    if (isWorse(status, counted)) {
      status = counted;
      worst = [i];
    } else if (counted === status && status !== 'Healthy') {
      worst.push(i);
    }
  });
  return { status, worst };
}
