// `plan`: what a change from a base to a head revision would do to the live cluster, per Application. The app is
// rendered at both revisions, the head render compared with live (the one comparison, through diff/plan.ts), and the
// sync at head planned by the sync's own planner and refusals (AppProject, sync window at --at, empty render, shared
// resources), without writing anything.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Application } from '../../app/types.js';
import { planChanges, planRenders, type PlannedChanges, type PlannedObject } from '../../diff/plan.js';
import type { KubeGateway } from '../../kube/gateway.js';
import { OfflineGateway } from '../../kube/offline.js';
import type { RunContext } from '../../model/context.js';
import { InputError, ManifestError, RefusedError, UnrenderableError, UnservedKindError } from '../../model/errors.js';
import { canonicalJson } from '../../model/field-path.js';
import { appOfMark, DEFAULT_TRACKING, markOf, sameInstallation } from '../../tracking/method.js';
import { apiVersionOf, type ResourceType } from '../../model/resource-type.js';
import type { GatewayPool } from '../session/session.js';
import type { DeleteReport } from '../delete/delete.js';
import { keyString, type KubeObject, type ResourceKey } from '../../model/object.js';
import type { HookPhase } from '../../sync/hooks.js';
import {
  compareEntries,
  compareEntryOf,
  diffOptionsOf,
  loadAppState,
  typesDefinedBy,
  type AppState,
  type AppStateArgs,
  type AppStateDeps,
} from '../session/app-state.js';
import { stateRefusal } from '../session/rules.js';
import { planOf } from '../sync/execute.js';
import { pairGenerated, planScope, type GeneratedPair, type SkippedApp } from './scope.js';
import { movableOf, movingSources } from '../../app/source-revisions.js';

export const PLAN_SCHEMA_VERSION = 1;

/** `plan APP --base REV [--head REV] [--at TIME]`: the app's source flags, the two revisions, and when the sync would start. */
export interface PlanRequest extends Omit<AppStateArgs, 'revision' | 'revisions' | 'sourcePins' | 'move' | 'desired'> {
  base: string;
  /** Absent: the Application's targetRevision. */
  head?: string;
  /** The pull request's repository: of a multi-source app, only its sources that follow base move (any repository's when absent). */
  repo?: string;
  /** When the sync at head would start (ms since the epoch): the sync windows are read at that time. */
  at: number;
  /** The Application as it was at base, when it differs from the one at head (an ApplicationSet generated both). */
  baseAppFile?: string;
  /** The Application did not exist at base (an ApplicationSet generates it only at head): the base render is empty. */
  noBase?: true;
  /**
   * An app another one renders (plan --recursive): its sources move only when they follow base, one source as one of
   * several (app/source-revisions.ts's followOnly); a child pinned elsewhere is read at its own targetRevision.
   */
  followOnly?: true;
}

/** A source of a multi-source app that the change moves from base to head: its 1-based position and commits. */
export interface MovedSource {
  position: number;
  repoURL: string;
  path?: string;
  base: string;
  head: string;
}

/** The moves of the two reads of one app (AppStateArgs.move): the base read at base, the head read at head. */
function moves(req: PlanRequest): { base: NonNullable<AppStateArgs['move']>; head: NonNullable<AppStateArgs['move']> } {
  const repo = { ...(req.repo !== undefined ? { repo: req.repo } : {}), ...(req.followOnly === true ? { followOnly: true } : {}) };
  return { base: { from: req.base, to: req.base, ...repo }, head: { from: req.base, ...(req.head !== undefined ? { to: req.head } : {}), ...repo } };
}

/** One object of the plan, with its wave in the sync at head (create and update). */
export interface PlanObject extends PlannedObject {
  wave?: number;
  /**
   * Live with another Application's tracking mark (Argo CD's SharedResourceWarning), that app's instance (`ns/name` or
   * `name`): the sync at head takes the object over from it (without FailOnSharedResource, which would refuse the sync).
   */
  sharedWith?: string;
}

/** A hook of the head render, the phases it runs in; `origin: this-change` when the base render lacks it or declares it otherwise. */
export type PlanHook = ResourceKey & { phases: HookPhase[]; generateName?: string; origin?: 'this-change' };

export interface PlanAppReport {
  app: string;
  /**
   * An ApplicationSet's app that is generated only at head (`appears`: everything it declares is created) or only at
   * base (`disappears`: the ApplicationSet controller deletes the Application; see `prune` for its objects).
   */
  presence?: 'appears' | 'disappears';
  /** The Application's namespace (`plan --all`, where apps of several namespaces are planned). */
  namespace?: string;
  /** `plan --recursive`: the Application (`namespace/name`) that renders this one (app-of-apps). */
  parent?: string;
  context?: string;
  server?: string;
  /**
   * The commits the base and head revisions resolved to (the revision as given when it names no commit, or when the
   * moved sources of a multi-source app resolved to more than one pair).
   */
  base: string;
  head: string;
  /** A multi-source app: the sources the change moves (those that follow base), each with the commits it was read at. */
  sources?: MovedSource[];
  /** Which sync the windows were read for: the automated one when the Application has syncPolicy.automated, else a manual one. */
  sync: 'automated' | 'manual';
  /** Why that sync at head would be refused before writing anything (nothing else is planned then, objects aside). */
  refused?: string;
  /** Whether the sync at head prunes, and why (or why not). */
  prune: { enabled: boolean; why: string };
  objects: PlanObject[];
  /**
   * The head render's hooks, which a sync at head runs in their phases; one the change adds or changes (`origin:
   * this-change`) is counted as a change of this change: the next sync runs it.
   */
  hooks: PlanHook[];
  /** Why what the app's change does is not known in full (a disappearing app whose objects could not be listed). */
  unknown?: string;
  /** Counted changes (fields, creations, prunes) by origin, and head's objects left as they are. */
  summary: { thisChange: number; alreadyThere: number; inSync: number };
  warnings: string[];
}

/** The sync a merged change gets: the automated loop's when the Application has one, else a manual sync. */
function syncKind(app: Application): 'automated' | 'manual' {
  return app.automated ? 'automated' : 'manual';
}

/** Whether the sync at head prunes: automated.prune for an automated app; a manual sync prunes with --prune, as planned here. */
function pruneOf(app: Application): { enabled: boolean; why: string } {
  if (app.automated && !app.automated.prune) return { enabled: false, why: 'automated.prune is off: the candidates stay live, OutOfSync' };
  return app.automated ? { enabled: true, why: 'automated.prune' } : { enabled: true, why: 'a manual sync with --prune' };
}

/**
 * The changes a sync at head makes, by origin: each counted field of an update, each creation and each prune, and each
 * hook the change adds or changes (the sync runs it). A `keep` or a `fail` changes nothing.
 */
function summarize(objects: readonly PlannedObject[], inSync: number, hooks: readonly PlanHook[] = []): PlanAppReport['summary'] {
  let thisChange = 0;
  let alreadyThere = 0;
  const add = (origin: PlannedObject['origin']) => (origin === 'this-change' ? thisChange++ : alreadyThere++);
  for (const o of objects) {
    if (o.action === 'update') for (const f of o.fields) if (f.verdict !== 'ignored') add(f.origin);
    if (o.action === 'create' || o.action === 'prune') add(o.origin);
  }
  for (const h of hooks) if (h.origin === 'this-change') thisChange++;
  return { thisChange, alreadyThere, inSync };
}

/** The sync options that decide whether the sync at head writes an ignored field (diff/plan.ts writtenIgnored). */
function ignoredWrites(state: AppState) {
  return {
    respectIgnoreDifferences: state.app.syncOptions.respectIgnoreDifferences,
    applyOutOfSyncOnly: state.app.syncOptions.applyOutOfSyncOnly,
  };
}

/** Plans one Application (never writes): the head state with its prune candidates, the base render, the comparison, the sync's plan. */
export async function planApp(req: PlanRequest, deps: AppStateDeps): Promise<PlanAppReport> {
  return (await planAppAndChildren(req, deps)).report;
}

/**
 * The child Applications and ApplicationSets an app renders at base and at head (app-of-apps: argoproj.io Applications
 * and ApplicationSets of its desired set).
 */
export interface RenderedChildren {
  base: KubeObject[];
  head: KubeObject[];
  appSetsBase: KubeObject[];
  appSetsHead: KubeObject[];
}

function rendered(state: AppState | undefined, kind: 'Application' | 'ApplicationSet'): KubeObject[] {
  return (state?.desired ?? []).filter((d) => d.key.group === 'argoproj.io' && d.key.kind === kind).map((d) => d.object);
}

/** planApp, and the child Applications the app renders at base and at head (for plan --recursive). */
async function planAppAndChildren(req: PlanRequest, deps: AppStateDeps): Promise<{ report: PlanAppReport; children?: RenderedChildren }> {
  const { base: _base, head: _head, repo: _repo, at: _at, baseAppFile, noBase, followOnly: _f, ...args } = req;
  const fieldManager = deps.opts.fieldManager;
  const move = moves(req);
  let state;
  try {
    state = await loadAppState({ ...args, move: move.head }, deps, { extras: true });
  } catch (err) {
    // A head that cannot be rendered as Argo CD would, or that declares a kind the cluster does not serve: the sync refuses it.
    if (err instanceof UnrenderableError || err instanceof UnservedKindError)
      return { report: refusedApp(req, err.message, deps.target?.warnings ?? [], deps.target, err.app) };
    // A head whose manifests cannot be read or rendered (invalid YAML, a Helm/Kustomize/Jsonnet failure, a path it
    // lacks): Argo CD's manifest generation fails, and the sync at head with it: that app's refusal, the others planned.
    // Any other error (the command's input: a revision that names no commit, a flag, the Application itself) ends it.
    if (err instanceof ManifestError)
      return {
        report: refusedApp(
          req,
          `the source cannot be rendered at head, so nothing is compared: ${err.message}`,
          deps.target?.warnings ?? [],
          deps.target,
          err.app,
        ),
      };
    throw err;
  }
  const baseState =
    noBase === true
      ? undefined
      : await loadAppState({ ...args, ...(baseAppFile !== undefined ? { appFile: baseAppFile } : {}), move: move.base }, deps, { extras: false, live: false });
  const entries = await compareEntries(state, fieldManager, deps.gateway);
  const candidates = state.prune?.candidates ?? [];
  const planned = await planChanges({
    ...diffOptionsOf(state, fieldManager),
    sync: ignoredWrites(state),
    base: baseState?.desired.map((d) => d.object) ?? [],
    head: entries,
    // A metadata-only listing carries the metadata's apiVersion: the candidate's own comes from its type.
    extras: candidates.map((c) => ({ key: c.key, object: { ...c.object, apiVersion: apiVersionOf(c.type) }, ...(c.skip ? { skip: c.skip } : {}) })),
  });
  return {
    report: await finish(req, state, baseState, planned, deps.gateway),
    children: {
      base: rendered(baseState, 'Application'),
      head: rendered(state, 'Application'),
      appSetsBase: rendered(baseState, 'ApplicationSet'),
      appSetsHead: rendered(state, 'ApplicationSet'),
    },
  };
}

/** Of a multi-source app, the sources the change moves (movingSources), with the commits each was read at. */
function movedSources(req: PlanRequest, state: AppState, baseState: AppState | undefined): MovedSource[] | undefined {
  const sources = state.app.sources;
  if (sources === undefined) return undefined;
  return movingSources(sources.map(movableOf), { base: req.base, ...(req.repo !== undefined ? { repo: req.repo } : {}) }).map((i) => ({
    position: i + 1,
    repoURL: sources[i]!.repoURL ?? '',
    ...(sources[i]!.path !== undefined ? { path: sources[i]!.path } : {}),
    base: baseState?.sources?.[i]?.revision ?? req.base,
    head: state.sources?.[i]?.revision ?? req.head ?? '',
  }));
}

/**
 * The report of one app from its two states and their planned changes: the sync at head planned by the sync's own
 * planner (its refusals: empty render, shared resources; its waves; nothing is sent) and refused first by the
 * AppProject and the sync windows at `at`.
 */
async function finish(req: PlanRequest, state: AppState, baseState: AppState | undefined, planned: PlannedChanges, gw: KubeGateway): Promise<PlanAppReport> {
  const sync = syncKind(state.app);
  const prune = pruneOf(state.app);
  const { plan } = await planOf(
    state,
    planned.comparison,
    {},
    { dryRun: true, prune: { enabled: prune.enabled, why: prune.why }, forceConflicts: true, timeoutMs: 0, skipHooks: false, manual: sync === 'manual' },
    gw,
  );
  const refused = stateRefusal(state, { manual: sync === 'manual', now: req.at }) ?? plan.refused;
  const waves = new Map(plan.steps.map((s) => [keyString(s.key), s.wave]));
  const failing = await unservedFailures(state, gw);
  const shared = sharedObjects(state);
  const objects: PlanObject[] = planned.objects.map((o): PlanObject => {
    const k = keyString(o.key);
    // Pruning off: the candidate stays live (a keep, with why), it is not deleted.
    if (o.action === 'prune' && !prune.enabled) return { ...o, action: 'keep', reason: `not pruned: ${prune.why}` };
    // A kind nothing serves (SkipDryRunOnMissingResource=true): the sync applies the rest and fails it.
    const fails = o.action === 'create' ? failing.get(k) : undefined;
    if (fails !== undefined) return { ...o, action: 'fail', reason: fails };
    const wave = o.action === 'create' || o.action === 'update' ? waves.get(k) : undefined;
    const other = o.action === 'update' ? shared.get(k) : undefined;
    return { ...o, ...(wave !== undefined && Number.isFinite(wave) ? { wave } : {}), ...(other !== undefined ? { sharedWith: other } : {}) };
  });
  const hooks = planHooks(state, baseState);
  const moved = movedSources(req, state, baseState);
  const pairs = new Set(moved?.map((m) => `${m.base} ${m.head}`));
  const one = moved !== undefined && pairs.size === 1 ? moved[0] : undefined;
  return {
    app: state.app.name,
    ...(state.target ? { context: state.target.context, server: state.target.server } : {}),
    base: one?.base ?? baseState?.revision ?? req.base,
    head: one?.head ?? state.revision ?? req.head ?? '',
    ...(moved !== undefined ? { sources: moved } : {}),
    sync,
    ...(refused !== undefined ? { refused } : {}),
    prune,
    objects,
    hooks,
    summary: summarize(objects, planned.inSync, hooks),
    warnings: [...new Set([...state.warnings, ...(baseState?.warnings ?? []), ...plan.warnings, ...planned.comparison.warnings])],
  };
}

/** A hook's identity in a render: its key, and its generateName (a generated name is empty in the key). */
function hookId(h: { key: ResourceKey; object: KubeObject }): string {
  return `${keyString(h.key)} ${h.object.metadata.generateName ?? ''}`;
}

/**
 * The head render's hooks, each `this-change` when the base render lacks it or declares it otherwise (the next sync
 * runs it as the change has it); one the base render has as it is is the same hook as before.
 */
function planHooks(state: AppState, baseState: AppState | undefined): PlanHook[] {
  const atBase = new Map((baseState?.hooks ?? []).map((h) => [hookId(h), canonicalJson(h.object as never)]));
  return state.hooks.map((h) => {
    const changed = atBase.get(hookId(h)) !== canonicalJson(h.object as never);
    const generateName = h.key.name === '' ? h.object.metadata.generateName : undefined;
    return {
      ...h.key,
      phases: [...h.hook.phases],
      ...(generateName !== undefined ? { generateName } : {}),
      ...(changed ? { origin: 'this-change' as const } : {}),
    };
  });
}

/**
 * Head's objects of a kind nothing served when the state was read and no CRD of the render defines
 * (SkipDryRunOnMissingResource=true): the sync looks for a CRD in the cluster that defines the kind when its wave
 * comes, and fails the object without one (execute.ts servedByLiveCrd). Those no CRD in the cluster defines, with the
 * sync's reason. None offline (no cluster to ask); when the CRDs cannot be listed, none either, and the sync's own
 * check decides.
 */
async function unservedFailures(state: AppState, gw: KubeGateway): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unserved = state.desired.filter((d) => d.unserved);
  if (unserved.length === 0 || gw instanceof OfflineGateway) return out;
  let crds: KubeObject[];
  try {
    const crdType = await gw.resolve('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
    crds = crdType ? (await gw.list(crdType)).items : [];
  } catch (err) {
    state.warnings.push(
      `cannot list the CustomResourceDefinitions, so whether the sync at head can apply ${unserved.length} object(s) of a kind nothing serves is unknown: ${(err as Error).message}`,
    );
    return out;
  }
  for (const d of unserved) {
    const defined = crds.some((c) =>
      typesDefinedBy(c).some((t) => t.group === d.key.group && t.kind === d.key.kind && apiVersionOf(t) === d.object.apiVersion),
    );
    if (!defined)
      out.set(
        keyString(d.key),
        `the cluster does not serve ${d.key.kind} in ${d.object.apiVersion} and no CustomResourceDefinition defines it: the sync at head applies the rest and fails it (SkipDryRunOnMissingResource skips only its dry-run)`,
      );
  }
  return out;
}

/**
 * Head's live objects that carry another Application's tracking mark (the state's SharedResourceWarning), by key, with
 * that app's instance as Argo CD names it ('_' read as '/'): the sync at head marks them as this app's. None with
 * FailOnSharedResource (the sync planner refuses the sync then).
 */
function sharedObjects(state: AppState): Map<string, string> {
  const out = new Map<string, string>();
  if (state.app.syncOptions.failOnSharedResource) return out;
  const tracking = state.tracking ?? DEFAULT_TRACKING;
  for (const d of state.desired) {
    const live = state.live.get(keyString(d.key));
    const mark = live && sameInstallation(live, tracking) ? markOf(live, tracking) : undefined;
    if (mark === undefined) continue;
    const other = appOfMark(mark, tracking);
    if (other !== '' && other !== state.appInstance) out.set(keyString(d.key), other.replaceAll('_', '/'));
  }
  return out;
}

/**
 * `plan --offline`: no cluster at all (the Application from its file, Kubernetes' own kinds from the built-in table,
 * the AppProject from --project-file or Argo CD's default): the head render against the base render (planRenders),
 * every difference this change, and the sync at head's refusals that need no cluster.
 */
export async function planAppOffline(req: PlanRequest, deps: Pick<AppStateDeps, 'io' | 'opts'>): Promise<PlanAppReport> {
  const { base: _base, head: _head, repo: _repo, at: _at, baseAppFile, noBase, followOnly: _f, ...args } = req;
  const move = moves(req);
  const gw = new OfflineGateway();
  const d: AppStateDeps = { ...deps, gateway: gw, controlPlane: gw };
  const offline = { ...args, kubeVersion: args.kubeVersion ?? '', apiVersions: args.apiVersions ?? [] };
  let state: AppState;
  try {
    state = await loadAppState({ ...offline, move: move.head }, d, { extras: false, live: false });
  } catch (err) {
    if (!(err instanceof UnrenderableError)) throw err;
    return refusedApp(req, err.message, [], undefined, err.app);
  }
  const warnings: string[] = [];
  const helm = state.sourceType === 'Helm' || (state.sources ?? []).some((s) => s.type === 'Helm');
  if (helm && (args.kubeVersion === undefined || args.apiVersions === undefined))
    warnings.push("offline: Helm charts are rendered with Helm's defaults, not a cluster's capabilities (give --kube-version and --api-versions to match one)");
  const baseState =
    noBase === true
      ? undefined
      : await loadAppState({ ...offline, ...(baseAppFile !== undefined ? { appFile: baseAppFile } : {}), move: move.base }, d, { extras: false, live: false });
  const fieldManager = deps.opts.fieldManager;
  const planned = await planRenders({
    ...diffOptionsOf(state, fieldManager),
    sync: ignoredWrites(state),
    base: baseState?.desired.map((x) => compareEntryOf(baseState, x)) ?? [],
    head: state.desired.map((x) => compareEntryOf(state, x)),
  });
  state.warnings.unshift(...warnings);
  return finish(req, state, baseState, planned, gw);
}

/** The plan of an app refused before anything was compared (its head cannot be rendered, its destination is refused). */
function refusedApp(req: PlanRequest, refused: string, warnings: readonly string[], target?: AppStateDeps['target'], name?: string): PlanAppReport {
  return {
    app: name ?? req.app ?? req.appFile ?? '',
    ...(target ? { context: target.context, server: target.server } : {}),
    base: req.base,
    head: req.head ?? '',
    sync: 'manual',
    refused,
    prune: { enabled: false, why: 'refused' },
    objects: [],
    hooks: [],
    summary: { thisChange: 0, alreadyThere: 0, inSync: 0 },
    warnings: [...warnings],
  };
}

export interface PlanReport {
  schemaVersion: typeof PLAN_SCHEMA_VERSION;
  /** When the sync would start (ISO 8601): the time the sync windows were read at. */
  at: string;
  /** `--offline`: head compared with base, not with live: every change is this change, nothing is known of the cluster. */
  offline?: true;
  apps: PlanAppReport[];
  /** `plan -f appset.yaml`: the ApplicationSet (`namespace/name`) whose Applications at base and at head are planned. */
  applicationSet?: string;
  /** `plan --all`: the Applications listed and left out (another repository or revision), each with the reason. */
  skipped?: SkippedApp[];
}

/**
 * 4 when any app's sync at head is refused or would fail an object it declares, 1 when this change changes something
 * live, else 0 (drift already there alone is 0).
 */
export function planExitCode(r: PlanReport): 0 | 1 | 4 {
  if (r.apps.some((a) => a.refused !== undefined || a.objects.some((o) => o.action === 'fail'))) return 4;
  return r.apps.some((a) => a.summary.thisChange > 0) ? 1 : 0;
}

/** `plan APP… | -f FILE`: each Application by name (or the one of the file), with the same revisions and time. */
export interface PlanRunRequest extends Omit<PlanRequest, 'app'> {
  apps: readonly string[];
  /** No cluster: the Application from its file, the head render against the base render (planAppOffline). */
  offline?: boolean;
  /** App-of-apps: each child Application the apps render planned too, to any depth (planTree). */
  recursive?: boolean;
}

/**
 * Plans one Application through its own destination session (`pool`: the shared snapshot of a many-app plan); a
 * destination the session refuses to act on is that app's refusal, any other error stops the command.
 */
async function planInSession(ctx: RunContext, one: PlanRequest, pool?: GatewayPool): Promise<PlanAppReport> {
  return (await planTreeNode(ctx, one, pool)).report;
}

/** planInSession, and the child Applications the app renders at base and at head (none when it was refused). */
async function planTreeNode(ctx: RunContext, one: PlanRequest, pool?: GatewayPool): Promise<{ report: PlanAppReport; children?: RenderedChildren }> {
  const { withAppTarget } = await import('../session/session.js');
  try {
    return await withAppTarget(ctx, 'plan', one, (session) => planAppAndChildren(one, { io: ctx.io, opts: ctx.opts, ...session }), pool);
  } catch (err) {
    if (!(err instanceof RefusedError)) throw err;
    return { report: refusedApp(one, err.message, []) };
  }
}

/**
 * Plans each Application in its own session (its destination's cluster), one after the other. A destination the
 * session refuses to act on is that app's refusal; any other error stops the command.
 */
export async function runPlan(req: PlanRunRequest, ctx: RunContext): Promise<PlanReport> {
  const { apps, offline, recursive, ...rest } = req;
  // An Application file new in the change (--base-app-file /dev/null): the app appears, as a generated one does.
  const presence = rest.noBase === true ? { presence: 'appears' as const } : {};
  if (offline === true) {
    if (rest.appFile === undefined) throw new InputError('--offline reads the Application from -f/--app-file: there is no cluster to read it from');
    const app = await planAppOffline(rest, { io: ctx.io, opts: ctx.opts });
    return { schemaVersion: PLAN_SCHEMA_VERSION, at: new Date(req.at).toISOString(), offline: true, apps: [{ ...app, ...presence }] };
  }
  const each: PlanRequest[] = rest.appFile !== undefined ? [rest] : apps.map((app) => ({ ...rest, app }));
  const out: PlanAppReport[] = [];
  if (recursive !== true) {
    for (const one of each) out.push({ ...(await planInSession(ctx, one)), ...presence });
    return { schemaVersion: PLAN_SCHEMA_VERSION, at: new Date(req.at).toISOString(), apps: out };
  }
  const { GatewayPool } = await import('../session/session.js');
  const pool = new GatewayPool(ctx);
  const generated = await generatedPlanner(ctx, pool);
  try {
    for (const one of each) {
      const first = out.length;
      await planTree(ctx, one, pool, generated, out, []);
      if (out[first] !== undefined) out[first] = { ...out[first], ...presence };
    }
    return { schemaVersion: PLAN_SCHEMA_VERSION, at: new Date(req.at).toISOString(), apps: out };
  } finally {
    generated.dispose();
    pool.close();
  }
}

/**
 * `plan --recursive`: plans the app, then each child Application it renders at base or at head (app-of-apps), depth
 * first, each as `plan -f` plans an ApplicationSet's app: the child as rendered at head, its base render from the child
 * as rendered at base (`appears` when only head renders it), its sources moved only where they follow base
 * (followOnly); a child only base renders `disappears` (the parent's sync at head prunes it, or not). The
 * ApplicationSets it renders are expanded at base and at head and their Applications planned the same way. An
 * Application that is its own ancestor is refused and not followed.
 */
async function planTree(
  ctx: RunContext,
  one: PlanRequest,
  pool: GatewayPool,
  generated: GeneratedPlanner,
  out: PlanAppReport[],
  chain: readonly string[],
  parent?: { id: string; presence?: 'appears' },
): Promise<void> {
  const { childAppContext } = await import('../session/session.js');
  const { report, children } = await planTreeNode(ctx, one, pool);
  const namespace = report.namespace ?? (parent ? ctx.opts.appNamespace : undefined);
  const entry: PlanAppReport = {
    ...report,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(parent ? { parent: parent.id, ...(parent.presence ? { presence: parent.presence } : {}) } : {}),
  };
  out.push(entry);
  if (!children) return;
  const id = `${namespace ?? ctx.opts.appNamespace}/${report.app}`;
  const { app: _a, appFile: _f, baseAppFile: _b, noBase: _n, ...common } = one;
  // Its child Applications, as an ApplicationSet's are planned: one that goes is pruned by this app's sync at head, or not.
  const parentPrunes = report.refused === undefined && report.prune.enabled;
  const by = `no longer rendered by ${id} at head`;
  const childGone: Disappearance = {
    deletes: parentPrunes,
    kept: `${by}; its sync at head does not prune it (${report.refused !== undefined ? 'that sync is refused' : report.prune.why}): the Application stays`,
    cascades: `${by}: its sync at head prunes the Application, and its resources finalizer deletes its objects`,
    orphans: `${by}: its sync at head prunes the Application; without a resources finalizer its objects stay (preserveResourcesOnDeletion)`,
  };
  await planGeneratedPairs(ctx, pool, generated, pairGenerated(children.base, children.head), common, childGone, out, { parent: id, chain: [...chain, id] });
  // The ApplicationSets it renders: each expanded as rendered at base (its generators at base) and as rendered at head
  // (those that read base of the repository at head), and the Applications they generate planned as children.
  for (const pair of pairGenerated(children.appSetsBase, children.appSetsHead)) {
    const set = (pair.head ?? pair.base)!;
    const setCtx = childAppContext(ctx, set.metadata.namespace ?? ctx.opts.appNamespace);
    const setId = `${set.metadata.namespace ?? ctx.opts.appNamespace}/${set.metadata.name ?? ''}`;
    const expanded = await expandAtBaseAndHead(setCtx, pool, one, {
      ...(pair.base ? { base: generated.file(pair.base) } : {}),
      ...(pair.head ? { head: generated.file(pair.head) } : {}),
    });
    const gone = `no longer generated by ${setId} at head`;
    const disappearance: Disappearance = pair.head
      ? appSetDisappearance(expanded.policy)
      : {
          deletes: parentPrunes,
          kept: `${setId} is no longer rendered by ${id} at head, and its sync at head does not prune it: its Applications stay`,
          cascades: `${gone}: ${id}'s sync at head prunes the ApplicationSet, its Applications with it (their owner), and their resources finalizer deletes their objects`,
          orphans: `${gone}: ${id}'s sync at head prunes the ApplicationSet, its Applications with it (their owner); without a resources finalizer their objects stay`,
        };
    entry.warnings.push(...expanded.invalid);
    await planGeneratedPairs(ctx, pool, generated, pairGenerated(expanded.base, expanded.head), common, disappearance, out, {
      parent: setId,
      via: setId,
      chain: [...chain, id],
    });
  }
}

/** What the ApplicationSet controller does to an app it no longer generates, as its applicationsSync policy says. */
function appSetDisappearance(policy: string): Disappearance {
  return {
    deletes: policy === 'sync' || policy === 'create-delete',
    kept: `no longer generated at head; applicationsSync ${policy}: the ApplicationSet controller keeps the Application`,
    cascades: 'no longer generated at head: the ApplicationSet controller deletes the Application, and its resources finalizer deletes its objects',
    orphans:
      'no longer generated at head: the ApplicationSet controller deletes the Application; without a resources finalizer its objects stay (preserveResourcesOnDeletion)',
  };
}

/**
 * An ApplicationSet as it is at base (expanded with its generators at base) and at head (each git generator that reads
 * base of the repository reads head): the Applications it generates at each, its applicationsSync policy at head, and
 * the Applications left out as invalid.
 */
async function expandAtBaseAndHead(
  ctx: RunContext,
  pool: GatewayPool,
  req: Pick<PlanRequest, 'base' | 'head' | 'repo' | 'argocdNamespace' | 'repoDir'>,
  files: { base?: string; head?: string },
): Promise<{ base: KubeObject[]; head: KubeObject[]; policy: string; invalid: string[]; applicationSet: string }> {
  const { expandAppSet } = await import('../appset/generate.js');
  const { appSetSyncSettings } = await import('../../appset/sync-plan.js');
  const { repoKey } = await import('../../model/repo-url.js');
  const { head, repo } = req;
  const moves = (url: string, revision: string) => revision === req.base && (repo === undefined || repoKey(url) === repoKey(repo));
  const gateway = () => pool.controlPlane();
  const common = {
    ...(req.argocdNamespace !== undefined ? { argocdNamespace: req.argocdNamespace } : {}),
    ...(req.repoDir !== undefined ? { repoDir: req.repoDir } : {}),
  };
  const atBase = files.base !== undefined ? await expandAppSet(ctx, { ...common, file: files.base }, gateway) : undefined;
  const atHead =
    files.head !== undefined
      ? await expandAppSet(
          ctx,
          {
            ...common,
            file: files.head,
            ...(head !== undefined ? { revisionOf: (url: string, revision: string) => (moves(url, revision) ? head : revision) } : {}),
          },
          gateway,
        )
      : undefined;
  const settings = atHead ? appSetSyncSettings(atHead.raw, '', '') : undefined;
  return {
    base: atBase?.report.applications ?? [],
    head: atHead?.report.applications ?? [],
    policy: settings && 'policy' in settings ? settings.policy : 'sync',
    invalid: [...(atBase?.report.invalid ?? []), ...(atHead?.report.invalid ?? [])].map(
      (i) => `${i.name} left out, as Argo CD's controller leaves it out: ${i.error}`,
    ),
    applicationSet: (atHead ?? atBase)?.report.applicationSet ?? '',
  };
}

/**
 * Plans the Applications generated at base and at head, paired: one at head planned from its head spec (its base
 * render from its base spec; `appears` when only head generates it), its sources moving only where they follow base;
 * one at base only `disappears` as `why` says. With `tree` (plan --recursive: `parent` renders or generates them,
 * `chain` the Applications above them, `via` the ApplicationSet that generates them) each names its parent and is
 * followed into its own children; one that is its own ancestor is refused.
 */
async function planGeneratedPairs(
  ctx: RunContext,
  pool: GatewayPool,
  generated: GeneratedPlanner,
  pairs: readonly GeneratedPair[],
  common: Omit<PlanRequest, 'app' | 'appFile' | 'baseAppFile' | 'noBase'>,
  why: Disappearance,
  out: PlanAppReport[],
  tree?: { parent: string; chain: readonly string[]; via?: string },
): Promise<void> {
  const { childAppContext } = await import('../session/session.js');
  for (const pair of pairs) {
    const app = (pair.head ?? pair.base)!;
    const ns = app.metadata.namespace ?? ctx.opts.appNamespace;
    const named = tree ? { parent: tree.parent } : {};
    if (tree && tree.chain.includes(`${ns}/${app.metadata.name ?? ''}`)) {
      out.push({
        ...refusedApp(
          { ...common, app: app.metadata.name ?? '' },
          `its own ancestor (${ancestry(tree, `${ns}/${app.metadata.name ?? ''}`).join(' -> ')}): not followed`,
          [],
        ),
        namespace: ns,
        ...named,
      });
      continue;
    }
    if (!pair.head) {
      out.push({ ...(await generated.gone(pair.base!, common, why)), ...named });
      continue;
    }
    const same = pair.base !== undefined && JSON.stringify(pair.base) === JSON.stringify(pair.head);
    const one: PlanRequest = {
      ...common,
      // Its sources move only where they follow base, as a child's of plan --recursive.
      followOnly: true,
      appFile: generated.file(pair.head),
      ...(pair.base === undefined ? { noBase: true as const } : same ? {} : { baseAppFile: generated.file(pair.base) }),
    };
    const presence = pair.base === undefined ? { presence: 'appears' as const } : {};
    if (tree) {
      await planTree(childAppContext(ctx, ns), one, pool, generated, out, tree.chain, { id: tree.parent, ...presence });
      continue;
    }
    const r = await planInSession({ ...ctx, opts: { ...ctx.opts, appNamespace: ns } }, one, pool);
    out.push({ ...r, app: pair.head.metadata.name ?? r.app, namespace: ns, ...presence });
  }
}

/** The line from the root to a child that is its own ancestor: the Applications above it, and the ApplicationSet that generated it. */
export function ancestry(tree: { chain: readonly string[]; via?: string }, child: string): string[] {
  return [...tree.chain, ...(tree.via !== undefined ? [`ApplicationSet ${tree.via}`] : []), child];
}

/** `plan --all`: the Applications of --app-namespace (every namespace, by label), those that follow --base of --repo. */
export interface PlanAllRequest extends Omit<PlanRequest, 'app' | 'appFile'> {
  allNamespaces: boolean;
  appSelector?: string;
  /** Only the apps whose source is this repository (any when absent). */
  repo?: string;
}

/**
 * Lists the Applications, plans those a change of `repo` from `base` is about (planScope) and says why it left the
 * others out. One snapshot per destination cluster and one read of each repository and revision serve every app
 * (the pool `list` uses), so the requests do not grow with the number of apps.
 */
export async function runPlanAll(req: PlanAllRequest, ctx: RunContext): Promise<PlanReport> {
  const { GatewayPool } = await import('../session/session.js');
  const { listApplications, applicationType } = await import('../list.js');
  const { allNamespaces, appSelector, repo, ...rest } = req;
  const namespace = allNamespaces ? undefined : ctx.opts.appNamespace;
  const pool = new GatewayPool(ctx);
  try {
    const controlPlane = await pool.controlPlane();
    const listed = await listApplications(controlPlane, namespace, appSelector);
    // Each session reads its Application again (a GET): the one just listed answers it.
    controlPlane.seed(await applicationType(controlPlane), listed);
    const { planned, skipped } = planScope(listed, { base: req.base, ...(repo !== undefined ? { repo } : {}) });
    const out: PlanAppReport[] = [];
    for (const o of planned) {
      const name = o.metadata.name ?? '';
      const ns = o.metadata.namespace ?? '';
      const one: PlanRequest = { ...rest, app: name, ...(repo !== undefined ? { repo } : {}) };
      const appCtx: RunContext = { ...ctx, opts: { ...ctx.opts, appNamespace: ns } };
      out.push({ ...(await planInSession(appCtx, one, pool)), namespace: ns });
    }
    return { schemaVersion: PLAN_SCHEMA_VERSION, at: new Date(req.at).toISOString(), apps: out, skipped };
  } finally {
    pool.close();
  }
}

/** `plan -f appset.yaml`: the ApplicationSet's file, and the repository whose --base its git generators move to --head. */
export interface PlanAppSetRequest extends Omit<PlanRequest, 'app' | 'appFile' | 'baseAppFile' | 'noBase'> {
  appSetFile: string;
  /** The ApplicationSet as it is at base, when the change edits it (plan --base-app-file); absent: the file as it is. */
  baseAppSetFile?: string;
  /** The ApplicationSet is new in the change (--base-app-file /dev/null): nothing is generated at base. */
  noBaseAppSet?: true;
  /** Only the git generators of this repository move (any repository's when absent). */
  repo?: string;
}

const RESOURCES_FINALIZERS = ['resources-finalizer.argocd.argoproj.io', 'resources-finalizer.argocd.argoproj.io/background'];

/** Whether an Application no longer there at head is deleted, and what is said: kept, deleted with its objects, or without them. */
export interface Disappearance {
  deletes: boolean;
  kept: string;
  cascades: string;
  orphans: string;
}

/** What plans the Applications generated or rendered at base and head: their files, and the report of one that goes. */
interface GeneratedPlanner {
  /** The object in a temporary file, for `-f`. */
  file(o: KubeObject): string;
  /** The report of an app at base only: `disappears`, with what its deletion deletes when it is in the cluster. */
  gone(o: KubeObject, req: Pick<PlanRequest, 'base' | 'head'>, why: Disappearance): Promise<PlanAppReport>;
  dispose(): void;
}

async function generatedPlanner(ctx: RunContext, pool: GatewayPool): Promise<GeneratedPlanner> {
  const { childPlanner } = await import('../delete/delete.js');
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-gitops-plan-'));
  let n = 0;
  // The types the control plane serves, read once, for the apiVersion of what a disappearing app's deletion lists.
  let served: Promise<ResourceType[]> | undefined;
  const servedTypes = () => (served ??= pool.controlPlane().then(async (g) => (await g.discover()).preferred));
  const file = (o: KubeObject): string => {
    const path = join(dir, `${n++}-${o.metadata.name ?? ''}.json`);
    writeFileSync(path, JSON.stringify(o));
    return path;
  };
  return {
    file,
    async gone(o, req, why) {
      const ref = { namespace: o.metadata.namespace ?? ctx.opts.appNamespace, name: o.metadata.name ?? '' };
      // What its deletion deletes, as `delete --dry-run` plans it, when it is in the cluster (never synced: nothing live).
      const plannedDeletion = await childPlanner(ctx, 0, new Set())(ref);
      const types = await servedTypes();
      const apiVersion = (group: string, kind: string) => {
        const t = types.find((x) => x.group === group && x.kind === kind);
        return t ? apiVersionOf(t) : group === '' ? 'v1' : group;
      };
      const scan = () => scanDeletion(ctx, pool, ref, () => file({ apiVersion: 'v1', kind: 'List', metadata: { name: 'none' }, items: [] }));
      return goneReport(o, req, why, { plannedDeletion, scan, apiVersion });
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the deletion of an app at base only deletes, as `delete --dry-run` planned it or as the live scan finds it. */
export interface GoneReads {
  /** `delete --dry-run`'s plan of its deletion (`application: 'absent'` when it could not plan it, `message` saying why). */
  plannedDeletion: Pick<DeleteReport, 'application' | 'entries' | 'hooks' | 'message'>;
  /** Its objects from the live scan of its tracking mark (scanDeletion): undefined when it is not in the cluster; throws when the scan fails. */
  scan: () => Promise<ScannedDeletion | undefined>;
  /** The apiVersion the control plane serves a kind at. */
  apiVersion: (group: string, kind: string) => string;
}

/**
 * The report of an app generated at base only (`disappears`): what its deletion deletes as `delete --dry-run` plans
 * it; when that could not plan it (its source no longer renders: the change removed its path), its objects from the
 * live scan of its tracking mark, which needs no render, as its deletion finds them.
 */
export async function goneReport(o: KubeObject, req: Pick<PlanRequest, 'base' | 'head'>, why: Disappearance, reads: GoneReads): Promise<PlanAppReport> {
  const { plannedDeletion, apiVersion } = reads;
  if (plannedDeletion.application !== 'absent')
    return disappearing(o, req, why, { entries: plannedDeletion.entries, hooks: plannedDeletion.hooks.length, apiVersion });
  // `delete --dry-run` could not plan it (its source no longer renders: the change removed its path). The deletion
  // deletes the app's objects by its tracking mark, which needs no render: they are listed from the live scan.
  const failed = plannedDeletion.message ?? 'its deletion could not be planned';
  let scanned: ScannedDeletion | undefined;
  try {
    scanned = await reads.scan();
  } catch (err) {
    const report = disappearing(o, req, why);
    report.unknown = `its objects could not be listed (${failed}; the live scan: ${(err as Error).message})`;
    report.warnings.push(report.unknown);
    return report;
  }
  if (scanned === undefined) {
    // Not in the cluster (never created there): its deletion deletes nothing.
    const report = disappearing(o, req, why);
    report.warnings.push('the Application is not in the cluster: nothing of it is live');
    return report;
  }
  const report = disappearing(o, req, why, { entries: scanned.entries, hooks: 0, apiVersion });
  report.warnings.push(
    `its objects are listed from the live scan (its tracking mark), as its deletion finds them; its PreDelete/PostDelete hooks are unknown: ${failed}`,
    ...scanned.warnings,
  );
  return report;
}

/** What the live scan says the deletion of an Application deletes (scanDeletion). */
export interface ScannedDeletion {
  entries: { group: string; kind: string; namespace: string; name: string; outcome: string; message?: string }[];
  warnings: string[];
}

/**
 * What the deletion of a live Application deletes, read from the live scan of its tracking mark alone (no render: its
 * source is read as an empty set of manifests), planned as `delete` plans it (planDelete: its objects, those it keeps
 * and why). Undefined when the Application is not in the cluster. Throws when the scan fails.
 */
async function scanDeletion(
  ctx: RunContext,
  pool: GatewayPool,
  ref: { namespace: string; name: string },
  emptyFile: () => string,
): Promise<ScannedDeletion | undefined> {
  const { childAppContext, withAppTarget } = await import('../session/session.js');
  const { applicationType } = await import('../list.js');
  const { planDelete } = await import('../../prune/delete-plan.js');
  const cp = await pool.controlPlane();
  if ((await cp.get(await applicationType(cp), ref.namespace, ref.name)) === undefined) return undefined;
  const child = childAppContext(ctx, ref.namespace);
  const args = { app: ref.name, desired: emptyFile() };
  const state = await withAppTarget(
    child,
    'plan',
    args,
    (session) => loadAppState(args, { io: ctx.io, opts: child.opts, ...session }, { extras: true, live: false }),
    pool,
  );
  const plan = planDelete({
    live: state.scan ?? [],
    appInstance: state.appInstance,
    ...(state.tracking ? { tracking: state.tracking } : {}),
    application: ref,
    ...(state.app.syncOptions.delete ? { appDelete: state.app.syncOptions.delete } : {}),
    approved: false,
  });
  const waiting = new Set(plan.needConfirmation.map(keyString));
  const entries = [
    ...plan.waves.flatMap((w) =>
      w.objects.map((c) =>
        waiting.has(keyString(c.key))
          ? { ...c.key, outcome: 'waiting', message: 'annotated Delete=confirm: deleted only once approved' }
          : { ...c.key, outcome: 'would-delete' },
      ),
    ),
    ...plan.kept.map((k) => ({ ...k.key, outcome: 'kept', message: k.reason })),
  ];
  const warnings = state.scanGaps ? [`the live scan is partial (${state.scanGaps.join(', ')}): its deletion may delete more`] : [];
  return { entries, warnings };
}

/**
 * An app generated at base only: the controller deletes it (as its applicationsSync allows), its objects with it by
 * its finalizer. `deletion`: the dry run of that deletion (`delete --dry-run`'s plan) when it cascades and the
 * Application is in the cluster: its objects are listed, `prune` (or `keep` with the reason), each one this change.
 */
function disappearing(
  o: KubeObject,
  req: Pick<PlanRequest, 'base' | 'head'>,
  why: Disappearance,
  deletion?: {
    entries: readonly { group: string; kind: string; namespace: string; name: string; outcome: string; message?: string }[];
    hooks: number;
    apiVersion: (group: string, kind: string) => string;
  },
): PlanAppReport {
  const finalizers = Array.isArray(o.metadata.finalizers) ? o.metadata.finalizers.filter((f): f is string => typeof f === 'string') : [];
  const { deletes } = why;
  const cascade = finalizers.some((f) => RESOURCES_FINALIZERS.includes(f));
  const said = !deletes ? why.kept : cascade ? why.cascades : why.orphans;
  const objects: PlanObject[] = (deletes && cascade ? (deletion?.entries ?? []) : []).map((e) => {
    const key = { group: e.group, kind: e.kind, namespace: e.namespace, name: e.name };
    const gone = e.outcome === 'would-delete';
    return {
      key,
      apiVersion: deletion!.apiVersion(e.group, e.kind),
      action: gone ? ('prune' as const) : ('keep' as const),
      origin: 'this-change' as const,
      fields: [],
      ...(gone ? {} : { reason: e.message ?? e.outcome }),
    };
  });
  const hooks = deletes && cascade ? (deletion?.hooks ?? 0) : 0;
  return {
    app: o.metadata.name ?? '',
    namespace: o.metadata.namespace ?? '',
    presence: 'disappears',
    base: req.base,
    head: req.head ?? '',
    sync: 'manual',
    prune: { enabled: deletes && cascade, why: said },
    objects,
    hooks: [],
    summary: { thisChange: (deletes ? 1 : 0) + objects.filter((x) => x.action === 'prune').length, alreadyThere: 0, inSync: 0 },
    warnings: hooks > 0 ? [`its deletion runs ${hooks} PreDelete/PostDelete hook(s) first (delete --dry-run lists them)`] : [],
  };
}

/**
 * Plans what a change does to the Applications of an ApplicationSet: it is expanded at base and at head (each git
 * generator that reads `base` of `repo` reads `head` instead), the apps at both are planned as `plan APP` plans one
 * (each at base as generated at base), an app generated only at head is planned from an empty base (`appears`), and
 * one generated only at base is said to go (`disappears`, with what the controller's deletion does to its objects).
 * One snapshot per cluster and one read of each repository and revision serve them all.
 */
export async function runPlanAppSet(req: PlanAppSetRequest, ctx: RunContext): Promise<PlanReport> {
  if (req.head === undefined) throw new InputError('plan of an ApplicationSet needs --head: the revision its git generators read at the head of the change');
  const { GatewayPool } = await import('../session/session.js');
  const { appSetFile, baseAppSetFile, noBaseAppSet, repo, ...rest } = req;
  const pool = new GatewayPool(ctx);
  const generated = await generatedPlanner(ctx, pool);
  try {
    // The file as it is at base (the same file, unless --base-app-file), its generators at base; the file at head.
    const expanded = await expandAtBaseAndHead(ctx, pool, req, { ...(noBaseAppSet === true ? {} : { base: baseAppSetFile ?? appSetFile }), head: appSetFile });
    const out: PlanAppReport[] = [];
    const common = { ...rest, ...(repo !== undefined ? { repo } : {}) };
    await planGeneratedPairs(ctx, pool, generated, pairGenerated(expanded.base, expanded.head), common, appSetDisappearance(expanded.policy), out);
    if (out[0] && expanded.invalid.length > 0) out[0].warnings.push(...new Set(expanded.invalid));
    return { schemaVersion: PLAN_SCHEMA_VERSION, at: new Date(req.at).toISOString(), applicationSet: expanded.applicationSet, apps: out };
  } finally {
    generated.dispose();
    pool.close();
  }
}
