// `manifests`: the desired objects exactly as a sync would send them (rendered by the app's source type and options,
// namespaced, with the tracking mark), in the order a sync sends them: phase by phase and wave by wave (a hook in
// each phase it names, once; within a wave hooks and resources together by kind order and name), SyncFail hooks last, then the delete hooks (run by `delete`, never by a sync),
// then the hooks nothing runs (`Skip`, Helm's `test` and `pre-rollback` …), which Argo CD's repo-server renders and
// `argocd app manifests` lists as any object. Secret values are hidden, as Argo CD's `app manifests` hides them.
import type { KubeObject } from '../../model/object.js';
import { keyString } from '../../model/object.js';
import { phaseGroups, syncFailGroups, hookWave } from '../../sync/phases.js';
import { syncOrder, waveOf } from '../../sync/order.js';
import { asApplied } from '../../tracking/tracking-id.js';
import { loadAppState, type AppState, type AppStateArgs, type AppStateDeps, type HookEntry } from '../session/app-state.js';
import { InputError } from '../../model/errors.js';
import { hideSecretData } from '../../diff/mask.js';

export interface ManifestsResult {
  /** In sync order; each Secret's values hidden (`+` runs, stringData folded into data), as Argo CD's GetManifests. */
  objects: KubeObject[];
  /** The revision rendered (a commit, or the sources' joined), when read from Git. */
  revision?: string;
  warnings: string[];
}

/**
 * `sourcePosition` (1-based, as `--source-position`): only the objects that source of spec.sources rendered; a
 * single-source app has one, at position 1.
 */
export async function runManifests(args: AppStateArgs, deps: AppStateDeps, opts: { sourcePosition?: number } = {}): Promise<ManifestsResult> {
  const loaded = await loadAppState(args, deps, { extras: false, live: false });
  const state = opts.sourcePosition === undefined ? loaded : onlySource(loaded, opts.sourcePosition);
  const mark = (o: KubeObject) => asApplied(o, state.appInstance, state.destinationNamespace, state.tracking);
  const ordered = syncOrder(state.desired.map((d) => ({ item: d, object: d.object, wave: waveOf(d.object).wave })));
  const hooks = state.hooks.map((h) => ({ ...h, phases: h.hook.phases, wave: hookWave(h.object).wave }));
  const out: KubeObject[] = [];
  const seen = new Set<string>();
  const push = (h: HookEntry | { object: KubeObject; key: HookEntry['key'] }) => {
    // A hook named in several phases is one object: listed where it runs first.
    const id = h.object.metadata.name ? keyString(h.key) : `${h.object.metadata.generateName ?? ''}|${out.length}`;
    if (seen.has(id)) return;
    seen.add(id);
    out.push(hideSecretData(mark(h.object), state.rules?.settings.sensitiveAnnotations));
  };
  // A generateName hook sorts by that prefix (its name is made when a sync runs: prefix, revision, phase, time).
  const asCreated = (h: (typeof hooks)[number]): KubeObject => ({
    ...h.object,
    metadata: { ...h.object.metadata, name: h.object.metadata.name || h.object.metadata.generateName || '', namespace: h.key.namespace },
  });
  // Within a (phase, wave) hooks and resources together, by kind order then name, as the sync creates them.
  for (const g of phaseGroups(ordered, { step: (o) => ({ wave: o.wave, object: o.object }), hookObject: asCreated }, hooks))
    for (const t of g.tasks) push(t.hook ?? t.step.item);
  for (const g of syncFailGroups(hooks, asCreated)) for (const h of g.hooks) push(h);
  for (const h of state.deleteHooks ?? []) push(h);
  // Never applied by a sync (gitops-engine gives them no phase), but part of the render Argo CD lists.
  for (const h of state.inertHooks ?? []) push(h);
  return { objects: out, ...(state.revision ? { revision: state.revision } : {}), warnings: state.warnings };
}

/** The app state with only the objects (and hooks) of the source at `position`. */
function onlySource(state: AppState, position: number): AppState {
  const count = state.app.sources?.length ?? 1;
  if (!Number.isInteger(position) || position < 1 || position > count)
    throw new InputError(`--source-position ${position}: ${state.app.name} has ${count} source${count === 1 ? '' : 's'} (positions count from 1)`);
  if (state.app.sources === undefined) return state;
  const mine = (d: { source: { sourcePosition?: number } }) => d.source.sourcePosition === position;
  return {
    ...state,
    desired: state.desired.filter(mine),
    hooks: state.hooks.filter(mine),
    ...(state.deleteHooks ? { deleteHooks: state.deleteHooks.filter(mine) } : {}),
    ...(state.inertHooks ? { inertHooks: state.inertHooks.filter(mine) } : {}),
  };
}
