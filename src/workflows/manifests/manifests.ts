// `manifests`: the desired objects exactly as a sync would send them (rendered by the app's source type and options,
// namespaced, with the tracking mark), in the order a sync sends them: phase by phase and wave by wave (a hook in
// each phase it names, once), SyncFail hooks last, then the delete hooks (run by `delete`, never by a sync).
import type { KubeObject } from '../../model/object.js';
import { keyString } from '../../model/object.js';
import { phaseGroups, syncFailGroups, hookWave } from '../../sync/phases.js';
import { syncOrder, waveOf } from '../../sync/order.js';
import { asApplied } from '../../tracking/tracking-id.js';
import { loadAppState, type AppStateArgs, type AppStateDeps, type HookEntry } from '../session/app-state.js';

export interface ManifestsResult {
  /** In sync order. */
  objects: KubeObject[];
  /** The revision rendered (a commit, or the sources' joined), when read from Git. */
  revision?: string;
  warnings: string[];
}

export async function runManifests(args: AppStateArgs, deps: AppStateDeps): Promise<ManifestsResult> {
  const state = await loadAppState(args, deps, { extras: false, live: false });
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
    out.push(mark(h.object));
  };
  for (const g of phaseGroups(ordered, (o) => o.wave, hooks)) {
    for (const s of g.steps) push(s.item);
    for (const h of g.hooks) push(h);
  }
  for (const g of syncFailGroups(hooks)) for (const h of g.hooks) push(h);
  for (const h of state.deleteHooks ?? []) push(h);
  return { objects: out, ...(state.revision ? { revision: state.revision } : {}), warnings: state.warnings };
}
