// The sync operation's order (pure): PreSync, Sync and PostSync, each wave by wave; the resources in the Sync phase,
// each hook in every phase it names; SyncFail apart, run only when the sync fails. As gitops-engine's syncTasks.Sort:
// within one (phase, wave) hooks and resources are one list, by kind order then name.
import type { KubeObject } from '../model/object.js';
import type { HookPhase } from './hooks.js';
import { taskOrder, waveOf } from './order.js';

/** One task of a (phase, wave): a resource to apply or a hook to create. */
export type PhaseTask<S, H> = { step: S; hook?: undefined } | { hook: H; step?: undefined };

export interface PhaseGroup<S, H> {
  phase: HookPhase;
  wave: number;
  steps: S[];
  hooks: H[];
  /** The steps and hooks together, in the order gitops-engine creates them: kind order, then name. */
  tasks: PhaseTask<S, H>[];
}

/** A hook's wave: as any object's (order.ts waveOf: its sync-wave, else Helm's hook weight, else 0). */
export function hookWave(obj: KubeObject): { wave: number; error?: string } {
  return waveOf(obj);
}

interface HookLike {
  phases: readonly HookPhase[];
  wave: number;
  object: KubeObject;
}

/** How the groups read their items: a step's wave and object; the name a hook gets in a phase (generateName). */
export interface GroupReaders<S, H> {
  step: (s: S) => { wave: number; object: KubeObject };
  /** The hook's object as created in `phase` (its generated name, its namespace); default: as declared. */
  hookObject?: (h: H, phase: HookPhase) => KubeObject;
}

/**
 * The groups a sync runs, in order: (phase, wave) ascending, SyncFail left out. Steps (the resources) belong to the
 * Sync phase at their wave; a hook to each of its phases at its wave. A Namespace or CRD step that a task of an
 * earlier (phase, wave) needs moves there (gitops-engine's adjustDeps), a PreSync hook's namespace into PreSync.
 */
export function phaseGroups<S, H extends HookLike>(steps: readonly S[], read: GroupReaders<S, H>, hooks: readonly H[]): PhaseGroup<S, H>[] {
  return groupsOf(steps, read, hooks, (p) => p !== 'SyncFail');
}

/** The SyncFail hooks, wave by wave. */
export function syncFailGroups<H extends HookLike>(hooks: readonly H[], hookObject?: (h: H, phase: HookPhase) => KubeObject): PhaseGroup<never, H>[] {
  return groupsOf<never, H>(
    [],
    { step: () => ({ wave: 0, object: { apiVersion: 'v1', kind: '', metadata: {} } }), ...(hookObject ? { hookObject } : {}) },
    hooks,
    (p) => p === 'SyncFail',
  );
}

function groupsOf<S, H extends HookLike>(
  steps: readonly S[],
  read: GroupReaders<S, H>,
  hooks: readonly H[],
  keep: (p: HookPhase) => boolean,
): PhaseGroup<S, H>[] {
  const items = [];
  if (keep('Sync')) for (const s of steps) items.push({ item: { step: s } as PhaseTask<S, H>, ...read.step(s), phase: 'Sync' as HookPhase });
  for (const h of hooks)
    for (const p of h.phases)
      if (keep(p)) items.push({ item: { hook: h } as PhaseTask<S, H>, object: read.hookObject?.(h, p) ?? h.object, wave: h.wave, phase: p });
  const groups: PhaseGroup<S, H>[] = [];
  for (const t of taskOrder(items)) {
    let g = groups[groups.length - 1];
    if (!g || g.phase !== t.phase || g.wave !== t.wave) groups.push((g = { phase: t.phase, wave: t.wave, steps: [], hooks: [], tasks: [] }));
    g.tasks.push(t.item);
    if (t.item.hook) g.hooks.push(t.item.hook);
    else g.steps.push(t.item.step as S);
  }
  return groups;
}

/** Whether a sync is more than one step (several waves, or any hook): then it runs wave by wave, as Argo CD's does. */
export function isMultiStep(groups: readonly PhaseGroup<unknown, unknown>[], syncFail: readonly PhaseGroup<unknown, unknown>[] = []): boolean {
  return groups.length > 1 || groups.some((g) => g.hooks.length > 0) || syncFail.length > 0;
}
