// `status`: loads the app's state through the gateway, compares, lists the live children and builds the report; `--wait` polls it.
import { ClusterError, InputError, UnrenderableError } from '../../model/errors.js';
import { KubeApiError } from '../../kube/errors.js';
import { buildStatusReport, type ResourceInput, type StatusReport } from '../../health/report.js';
import { hasHealthCheck } from '../../health/resource.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { ResourceType } from '../../model/resource-type.js';
import { groupOf, keyString, type KubeObject, type ResourceKey } from '../../model/object.js';
import {
  compareAppState,
  listAppCandidates,
  loadAppState,
  loadApplication,
  scopeKey,
  type AppState,
  type AppStateArgs,
  type AppStateDeps,
  type ScopeLists,
} from '../session/app-state.js';
import { planPrune } from '../../prune/plan.js';
import { orphanedResources } from '../../settings/orphaned.js';
import { appOfMark, DEFAULT_TRACKING, markOf, sameInstallation } from '../../tracking/method.js';
import { instanceName } from '../../tracking/tracking-id.js';
import type { Application } from '../../app/types.js';
import type { PruneCandidate } from '../../prune/plan.js';
import { projectStatus } from '../../settings/window-report.js';
import { excludedType, kindNotPermitted, loadRules, projectViolations } from '../session/rules.js';
import { customHealthRunner } from './custom-health.js';
import { hookOf } from '../../sync/hooks.js';
import { waveOf } from '../../sync/order.js';
import { imagesOf, resourceId, type ComparedState } from '../../record/app-status.js';
import { CHILD_API_VERSIONS, childKindsOf } from '../../health/tree.js';
import type { OperationProgress } from '../../app/types.js';
import { waitSpec, waitVerdict, type WaitVerdict } from './wait.js';

/** argocd app wait's default: Synced, Healthy and no operation running, for the app as a whole. */
const DEFAULT_WAIT = waitSpec({});

export interface StatusResult {
  report: StatusReport;
  /** Warnings from loading (unsupported options, kinds we could not list…). */
  warnings: string[];
  /** API requests this report took. */
  requests: number;
  /** What the Application's recorded status is built from (versions and images besides the report). */
  compared?: ComparedState;
  /** Why nothing was compared: a source refused as not renderable as Argo CD would (exit 4), or one that failed to render (exit 2). */
  comparisonError?: 'refused' | 'input';
  /** The Application's operation (requested or recorded), as read with this report: for `status --wait --operation`. */
  operation?: OperationProgress;
  /** argocd-cm's `resource.sensitive.mask.annotations`, as read for this report: for what shows live Secrets (the dashboard). */
  sensitiveAnnotations?: ReadonlySet<string>;
}

/**
 * Lists, in full, the kinds that can be children of the given live roots, in the roots' namespaces
 * (one LIST per kind and namespace); ownerReferences decide later which object belongs to which root.
 * A kind and namespace in `read` (listed beside the live twins, see loadAppState) is taken from there.
 */
export async function listChildren(gw: KubeGateway, roots: readonly KubeObject[], warnings: string[], read?: ScopeLists): Promise<KubeObject[]> {
  const wanted = childKindsOf(roots.map((r) => ({ groupKind: `${groupOf(r.apiVersion)}/${r.kind}`, namespace: r.metadata.namespace ?? '' })));
  const jobs: { type: ResourceType; namespace: string }[] = [];
  for (const [child, namespaces] of wanted) {
    const [apiVersion, kind] = CHILD_API_VERSIONS[child] as readonly [string, string];
    const type = await gw.resolve(apiVersion, kind);
    if (!type) continue;
    for (const namespace of namespaces) if (namespace !== '') jobs.push({ type, namespace });
  }
  const lists = await Promise.all(
    jobs.map(async ({ type, namespace }) => {
      try {
        const listed = read?.get(scopeKey(type, namespace));
        return ((listed ? await listed : undefined) ?? (await gw.list(type, { namespace }))).items;
      } catch (err) {
        warnings.push(`cannot list ${type.resource} in namespace ${namespace}, so the tree under it is incomplete: ${(err as Error).message}`);
        return [];
      }
    }),
  );
  return lists.flat();
}

/**
 * The full live object of a prune candidate whose kind has health: the one the scan took from a full LIST, else a GET
 * (candidates are otherwise listed metadata-only).
 */
async function fullExtra(gw: KubeGateway, c: PruneCandidate): Promise<KubeObject> {
  if (!hasHealthCheck(c.type.group, c.type.kind)) return c.object;
  if (c.whole) return c.whole;
  const full = await gw.get(c.type, c.object.metadata.namespace ?? '', c.object.metadata.name ?? '');
  return full ?? c.object;
}

/**
 * The live objects whose tracking mark names this app (in the destination namespace and of cluster-scoped kinds), not
 * compared (`unknown`): what a status of an app whose source does not render can still show, with their health.
 */
async function markedLive(
  app: Application,
  args: AppStateArgs,
  deps: AppStateDeps,
  warnings: string[],
): Promise<{ resources: ResourceInput[]; sensitiveAnnotations: ReadonlySet<string> }> {
  const gw = deps.gateway;
  const rules = await loadRules(app, args, deps.controlPlane ?? gw);
  const namespace = deps.opts.namespace ?? app.destination.namespace ?? '';
  const scanned = await listAppCandidates(gw, namespace ? [namespace] : [], warnings, new Set(), new Map(), {
    tracking: rules.tracking,
    excluded: excludedType(app, rules),
  });
  const plan = planPrune({
    live: scanned,
    appInstance: instanceName(app, rules.controlPlaneNamespace),
    desired: [],
    appPruneDefault: true,
    tracking: rules.tracking,
  });
  const resources = await Promise.all(
    plan.candidates.map(async (c): Promise<ResourceInput> => ({ key: c.key, comparison: 'unknown', live: await fullExtra(gw, c) })),
  );
  return { resources, sensitiveAnnotations: rules.settings.sensitiveAnnotations };
}

/**
 * The AppProject's `orphanedResources`: the metadata of every namespaced kind in the destination namespace (one LIST
 * each, only when the project asks) and the Applications that exist (one LIST), handed to the pure finder.
 */
async function orphansOf(state: AppState, deps: AppStateDeps, warnings: string[]): Promise<ResourceKey[]> {
  const gw = deps.gateway;
  const rules = state.rules!;
  const namespace = state.destinationNamespace;
  if (namespace === '') return [];
  const excluded = excludedType(state.app, rules);
  const { preferred } = await gw.discover();
  const types = preferred.filter((t) => t.namespaced && t.verbs.includes('list') && !excluded(t));
  const objects: KubeObject[] = [];
  await Promise.all(
    types.map(async (type) => {
      try {
        objects.push(...(await gw.list(type, { namespace, metadataOnly: true })).items);
      } catch (err) {
        warnings.push(`orphaned resources: cannot list ${type.resource} in namespace ${namespace}: ${(err as Error).message}`);
      }
    }),
  );
  const cp = deps.controlPlane ?? gw;
  const appType = (await cp.resolve('argoproj.io/v1alpha1', 'Application').catch(() => undefined)) ?? undefined;
  const apps = new Set<string>();
  if (appType) {
    try {
      for (const a of (await cp.list(appType, { metadataOnly: true })).items)
        apps.add(instanceName({ name: a.metadata.name ?? '', namespace: a.metadata.namespace ?? '' }, rules.controlPlaneNamespace));
    } catch (err) {
      // Unknown which Applications exist: every object another app's mark names counts as that app's (none reported orphaned).
      warnings.push(`orphaned resources: cannot list Applications (${(err as Error).message}): objects marked by any app are taken as tracked`);
      for (const o of objects) {
        const mark = sameInstallation(o, state.tracking ?? DEFAULT_TRACKING) ? markOf(o, state.tracking ?? DEFAULT_TRACKING) : undefined;
        if (mark !== undefined) apps.add(appOfMark(mark, state.tracking ?? DEFAULT_TRACKING));
      }
    }
  }
  return orphanedResources({
    objects,
    namespace,
    appInstance: state.appInstance,
    apps,
    project: rules.project,
    ...(state.tracking ? { tracking: state.tracking } : {}),
  });
}

/** Reads the one comparison (see diff/comparison.ts) per resource: a failed comparison makes that resource Unknown, not the whole report. */
async function compare(state: AppState, fieldManager: string, gw: KubeGateway): Promise<ResourceInput[]> {
  const comparison = await compareAppState(state, fieldManager, gw);
  // A kind the AppProject refuses: its live object was dropped (loadAppState), and its sync status is Unknown.
  const refused = state.rules ? kindNotPermitted(state.rules) : undefined;
  // In the desired objects' order, keyed as the app state resolved them.
  return comparison.objects.map((o, i) => {
    const d = state.desired[i]!;
    const key = d.key;
    const live = state.live.get(keyString(key));
    const why = refused?.(key, d.type.namespaced);
    const notPermitted = why !== undefined ? { notPermitted: why } : {};
    if (o.failure) return { key, comparison: 'unknown', ...(live ? { live } : {}), error: o.failure.message };
    return {
      key,
      comparison: o.status,
      ...(live ? { live } : {}),
      ...(o.status === 'drifted' ? { driftedFields: o.fields.filter((f) => f.verdict !== 'ignored').length } : {}),
      ...notPermitted,
    };
  });
}

/** Loads the app and produces one status report. */
export async function runStatus(args: AppStateArgs, deps: AppStateDeps): Promise<StatusResult> {
  const gw = deps.gateway;
  const start = gw.stats().requests;
  let state: AppState;
  try {
    state = await loadAppState(args, deps, { extras: true, children: true });
  } catch (err) {
    // A source this tool cannot render as Argo CD would (refused), or one that fails to render (a YAML error in Git, a
    // missing values file: an input error naming the file): nothing is compared, the report says Unknown with the
    // reason, and shows the live objects that carry the app's mark with their health, as `argocd app get` shows its
    // ComparisonError. An error in reading the Application itself is no such thing: it is thrown as it is.
    if (!(err instanceof UnrenderableError) && !(err instanceof InputError)) throw err;
    const app = await loadApplication(args, deps).catch(() => {
      throw err;
    });
    const warnings = [...app.warnings, ...(deps.target?.warnings ?? [])];
    const { resources, sensitiveAnnotations } = await markedLive(app, args, deps, warnings);
    const roots = resources.flatMap((r) => (r.live ? [r.live] : []));
    const children = await listChildren(gw, roots, warnings);
    const report = buildStatusReport({
      app,
      resources,
      children,
      unrenderable: err instanceof UnrenderableError ? err.reasons.join('; ') : err.message,
      ...(deps.target ? { target: deps.target } : {}),
    });
    return {
      report,
      comparisonError: err instanceof UnrenderableError ? 'refused' : 'input',
      warnings,
      requests: gw.stats().requests - start,
      compared: { report, versions: {}, images: [] },
      ...(app.operation ? { operation: app.operation } : {}),
      sensitiveAnnotations,
    };
  }
  const resources = await compare(state, deps.opts.fieldManager, deps.gateway);
  // After the comparison: a server-side diff that failed for an object says so among the state's warnings.
  const warnings = [...state.warnings];
  // The extras' full objects are fetched side by side (the gateway bounds how many are in flight), in the plan's order.
  const extras = await Promise.all(
    (state.prune?.candidates ?? []).map(async (c): Promise<ResourceInput> => ({ key: c.key, comparison: 'extra', live: await fullExtra(gw, c) })),
  );
  resources.push(...extras);
  // The app's hooks still live (no delete policy removed them): their full objects, for the result.
  const hooks = await Promise.all(
    (state.prune?.hooks ?? []).map(async (h) => ({ key: h.key, phases: hookOf(h.object)?.phases ?? [], live: await fullExtra(gw, h) })),
  );
  const roots = resources.flatMap((r) => (r.live ? [r.live] : []));
  const children = await listChildren(gw, roots, warnings, state.childLists);
  await customHealthRunner(state.rules)?.([...roots, ...children]);
  const report = buildStatusReport({
    app: state.app,
    ...(state.revision ? { revision: state.revision } : {}),
    manifests: state.origin,
    destinationNamespace: state.destinationNamespace,
    ...(state.sourceType ? { sourceType: state.sourceType } : {}),
    ...(state.sources ? { sources: state.sources } : {}),
    resources,
    children,
    ...(state.target ? { target: state.target } : {}),
    hooks,
    ...(state.rules ? { resourceOverrides: state.rules.settings.overrideKeys } : {}),
  });
  // A Source Hydrator app: where its dry source is, and the dry commit the synced manifests were hydrated from.
  if (state.app.hydrator)
    report.hydrator = {
      drySource: state.app.hydrator.drySource,
      syncSource: state.app.hydrator.syncSource,
      ...(state.hydratedFrom ? { drySha: state.hydratedFrom.drySha } : {}),
    };
  const rules = state.rules;
  if (rules) {
    report.project = projectStatus(rules.project, state.app, Date.now(), {
      violations: projectViolations(state.app, rules, state.desired, state.target?.server),
      ...(rules.projectUnchecked ? { unchecked: true } : {}),
    });
    const settings = rules.project.orphanedResources;
    if (settings) {
      const resources = await orphansOf(state, deps, warnings);
      report.orphaned = { warn: settings.warn, resources };
      if (settings.warn && resources.length > 0) warnings.push(`Application has ${resources.length} orphaned resources (OrphanedResourceWarning)`);
    }
  }
  const versions: Record<string, string> = {};
  const waves: Record<string, number> = {};
  for (const d of state.desired) {
    versions[resourceId(d.key)] = d.type.version;
    const wave = waveOf(d.object).wave;
    if (wave !== 0) waves[resourceId(d.key)] = wave;
  }
  for (const c of state.prune?.candidates ?? []) versions[resourceId(c.key)] = c.type.version;
  // The hooks' too: a sync's result names each hook it created with its version, and so does the live hook's entry.
  for (const h of [...state.hooks, ...(state.prune?.hooks ?? [])]) versions[resourceId(h.key)] = h.type.version;
  const resourceImages: Record<string, string[]> = {};
  for (const r of resources) {
    const found = r.live ? imagesOf(r.live) : [];
    if (found.length > 0) resourceImages[resourceId(r.key)] = [...new Set(found)];
  }
  // The app's own objects' images are those just read; the live trees' Pods and ReplicaSets add theirs.
  const images = [...new Set([...Object.values(resourceImages).flat(), ...children.flatMap(imagesOf)])];
  return {
    report,
    warnings,
    requests: gw.stats().requests - start,
    compared: { report, versions, images, waves, resourceImages },
    ...(state.app.operation ? { operation: state.app.operation } : {}),
    ...(state.rules ? { sensitiveAnnotations: state.rules.settings.sensitiveAnnotations } : {}),
  };
}

/** Time as the wait loop sees it (injected so tests need not sleep). */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export interface WaitOptions {
  timeoutMs: number;
  intervalMs: number;
  clock: Clock;
  /** Called after each report that does not end the wait, with what is not met yet (for progress lines). */
  onPoll?: (r: StatusResult, verdict: WaitVerdict) => void;
  /** Called when a poll failed with an error that may pass (the wait goes on). */
  onError?: (err: ClusterError) => void;
}

/**
 * Errors a wait rides out, as `kubectl wait` does: the API server unreachable or timing out, 429 and
 * 5xx. Input errors and the cluster's refusals (403, 404, 422 …) end the wait at once.
 */
function isPassingError(err: unknown): err is ClusterError {
  if (!(err instanceof ClusterError)) return false;
  if (err instanceof KubeApiError) return err.status === 429 || err.status >= 500;
  return true;
}

export interface WaitResult extends StatusResult {
  /** The verdict on the last report: `met`, or why the wait ended without it. */
  verdict: WaitVerdict;
  converged: boolean;
  waitedMs: number;
  polls: number;
}

/**
 * Polls `produce` until `decide` ends the wait (its conditions met, or failed: --degraded, a --resource that names
 * nothing) or the timeout passes; returns the last report and its verdict either way. `decide` defaults to argocd app
 * wait's default (Synced, Healthy, no operation running). The first report is taken at once; a timeout of 0 means a
 * single report. A poll that fails with a passing error (see isPassingError) is retried at the next interval; if the
 * timeout comes while the error lasts, the wait ends with that error.
 */
export async function waitForConverged(
  produce: () => Promise<StatusResult>,
  opts: WaitOptions & { decide?: (r: StatusResult) => WaitVerdict },
): Promise<WaitResult> {
  const decide = opts.decide ?? ((r: StatusResult) => waitVerdict(r, DEFAULT_WAIT));
  const start = opts.clock.now();
  let polls = 0;
  for (;;) {
    let result: StatusResult;
    try {
      result = await produce();
    } catch (err) {
      polls++;
      const left = opts.timeoutMs - (opts.clock.now() - start);
      if (!isPassingError(err) || left <= 0) throw err;
      opts.onError?.(err);
      await opts.clock.sleep(Math.min(opts.intervalMs, left));
      continue;
    }
    polls++;
    const waitedMs = opts.clock.now() - start;
    const verdict = decide(result);
    if (verdict.outcome !== 'waiting') return { ...result, verdict, converged: verdict.outcome === 'met', waitedMs, polls };
    const left = opts.timeoutMs - waitedMs;
    if (left <= 0) return { ...result, verdict, converged: false, waitedMs, polls };
    opts.onPoll?.(result, verdict);
    await opts.clock.sleep(Math.min(opts.intervalMs, left));
  }
}
