// The sync operation's order (pure): PreSync, Sync and PostSync, each wave by wave; the resources in the Sync phase,
// each hook in every phase it names; SyncFail apart, run only when the sync fails. As gitops-engine's syncTasks.Less.
import type { KubeObject } from '../model/object.js';
import { hookWeight, type HookPhase } from './hooks.js';
import { parseWave } from './order.js';

export interface PhaseGroup<S, H> {
  phase: HookPhase;
  wave: number;
  steps: S[];
  hooks: H[];
}

/** A hook's wave: its sync-wave annotation, else Helm's hook weight, else 0; a malformed value is 0 with an error. */
export function hookWave(obj: KubeObject): { wave: number; error?: string } {
  return parseWave(hookWeight(obj), 'hook wave');
}

const PHASE_RANK: Readonly<Record<HookPhase, number>> = { PreSync: -1, Sync: 0, PostSync: 1, SyncFail: 2 };

/**
 * The groups a sync runs, in order: (phase, wave) ascending, SyncFail left out. Steps (the resources) belong to the
 * Sync phase at their wave; a hook to each of its phases at its wave. Steps keep their given order within a group.
 */
export function phaseGroups<S, H extends { phases: readonly HookPhase[]; wave: number }>(
  steps: readonly S[],
  waveOfStep: (s: S) => number,
  hooks: readonly H[],
): PhaseGroup<S, H>[] {
  return groupsOf(steps, waveOfStep, hooks, (p) => p !== 'SyncFail');
}

/** The SyncFail hooks, wave by wave. */
export function syncFailGroups<H extends { phases: readonly HookPhase[]; wave: number }>(hooks: readonly H[]): PhaseGroup<never, H>[] {
  return groupsOf<never, H>(
    [],
    () => 0,
    hooks,
    (p) => p === 'SyncFail',
  );
}

function groupsOf<S, H extends { phases: readonly HookPhase[]; wave: number }>(
  steps: readonly S[],
  waveOfStep: (s: S) => number,
  hooks: readonly H[],
  keep: (p: HookPhase) => boolean,
): PhaseGroup<S, H>[] {
  const groups = new Map<string, PhaseGroup<S, H>>();
  const group = (phase: HookPhase, wave: number) => {
    const k = `${phase}|${wave}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = { phase, wave, steps: [], hooks: [] }));
    return g;
  };
  if (keep('Sync')) for (const s of steps) group('Sync', waveOfStep(s)).steps.push(s);
  for (const h of hooks) for (const p of h.phases) if (keep(p)) group(p, h.wave).hooks.push(h);
  return [...groups.values()].sort((a, b) => PHASE_RANK[a.phase] - PHASE_RANK[b.phase] || a.wave - b.wave);
}

/** Whether a sync is more than one step (several waves, or any hook): then each wave waits for health, as Argo CD's does. */
export function isMultiStep(groups: readonly PhaseGroup<unknown, unknown>[]): boolean {
  return groups.length > 1 || groups.some((g) => g.hooks.length > 0);
}
