// Health codes, their Argo CD order (best to worst) and the worst-of comparison.

export type HealthStatusCode = 'Healthy' | 'Suspended' | 'Progressing' | 'Missing' | 'Degraded' | 'Unknown';

/** Best to worst, as gitops-engine's healthOrder. */
export const HEALTH_ORDER: readonly HealthStatusCode[] = ['Healthy', 'Suspended', 'Progressing', 'Missing', 'Degraded', 'Unknown'];

export interface HealthStatus {
  status: HealthStatusCode;
  /** Argo CD's message for the state; empty when it has none. */
  message: string;
}

function healthRank(code: HealthStatusCode): number {
  return HEALTH_ORDER.indexOf(code);
}

/** Whether `next` is a worse condition than `current`. */
export function isWorse(current: HealthStatusCode, next: HealthStatusCode): boolean {
  return healthRank(next) > healthRank(current);
}

export function isHealthCode(v: unknown): v is HealthStatusCode {
  return typeof v === 'string' && (HEALTH_ORDER as readonly string[]).includes(v);
}
