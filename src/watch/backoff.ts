// Back-off and jitter arithmetic for the loop: self-heal delays (Argo CD's), reconnect delays, poll jitter; pure.

/** Argo CD's self-heal back-off defaults: 2 s, factor 3, capped at 300 s. */
export const SELF_HEAL_BACKOFF = { initialMs: 2_000, factor: 3, capMs: 300_000 } as const;

/** Reconnect back-off for a lost watch or API server: 0.5 s doubling to 30 s. */
const RECONNECT_BACKOFF = { initialMs: 500, factor: 2, capMs: 30_000 } as const;

export interface Backoff {
  initialMs: number;
  factor: number;
  capMs: number;
}

/**
 * The wait before self-heal attempt `attempt` (0-based, counted since the revision last changed), as Argo CD's
 * `selfHealRemainingBackoff` computes it: 0, 2 s, 6 s, 18 s, 54 s, 162 s, 300 s, 300 s, ...
 */
export function selfHealDelay(attempt: number, b: Backoff = SELF_HEAL_BACKOFF): number {
  if (attempt <= 0) return 0;
  return Math.min(b.capMs, b.initialMs * b.factor ** (attempt - 1));
}

/** The wait before reconnect attempt `attempt` (0-based): initial·factorⁿ capped, with ±20 % jitter from `rand` ∈ [0,1). */
export function reconnectDelay(attempt: number, rand: number, b: Backoff = RECONNECT_BACKOFF): number {
  const base = Math.min(b.capMs, b.initialMs * b.factor ** Math.max(0, attempt));
  return Math.round(base * (0.8 + 0.4 * rand));
}

/** When the source is polled: every `intervalMs` plus up to `jitterMs` more; an interval of 0 never (webhooks, live changes). */
export interface PollTiming {
  intervalMs: number;
  jitterMs: number;
}

/** `--interval`'s timing: up to 10 % more (at most 60 s), so that many loops started together drift apart. */
export function flagTiming(intervalMs: number): PollTiming {
  return { intervalMs, jitterMs: Math.min(intervalMs * 0.1, 60_000) };
}

/**
 * The wait until the next poll: the interval plus a random part of the jitter, as Argo CD adds jitter to its resync
 * period (timeout.reconciliation.jitter); no poll at all for an interval of 0 (Argo CD: reconciliation by timeout off).
 */
export function pollDelay(t: PollTiming, rand: number): number {
  if (t.intervalMs <= 0) return Number.POSITIVE_INFINITY;
  return t.intervalMs + Math.round(t.jitterMs * rand);
}
