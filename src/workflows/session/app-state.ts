// Everything the cluster commands start from: the Application, its desired objects resolved by discovery, their live twins, and the app's extras.
import { posix } from 'node:path';
import { controlPlaneNamespace } from '../../model/keys.js';
import { isOciRepoURL } from '../../model/repo-url.js';
import { loadJq } from '../../jq/load.js';
import type { Application, SourceRevision, SyncOptions } from '../../app/types.js';
import type { WorkflowIo, WorkflowOptions } from '../../model/context.js';
import { InputError, ManifestError, UnrenderableError, UnservedKindError } from '../../model/errors.js';
import type { KubeGateway, ListResult } from '../../kube/gateway.js';
import { apiVersionOf, resourceName, type ResourceType } from '../../model/resource-type.js';
import { KubeApiError } from '../../kube/errors.js';
import { formatSource, type ManifestObject, type ManifestSource } from '../../manifest/parse.js';
import { rejectDuplicates } from '../../manifest/index.js';
import { groupOf, isPlainObject, keyOf, versionOf, keyString, type KubeObject, type ResourceKey } from '../../model/object.js';
import { planPrune, type LiveEntry, type PrunePlan } from '../../prune/plan.js';
import { ownershipVerdict } from '../../tracking/select.js';
import { asApplied, instanceName } from '../../tracking/tracking-id.js';
import { hookOf, type HookInfo } from '../../sync/hooks.js';
import { objectSyncMode } from '../../sync/options.js';
import { createdNamespaceObject } from '../../sync/plan.js';
import { loadApplicationFromCluster, loadApplicationFromFile } from './application-source.js';
import { withRunOptions, type RunSyncOptions } from '../../app/run-options.js';
import { movedRevisions, pinnedRevisions } from '../../app/source-revisions.js';
import { DEFAULT_TRACKING, markFilter, markOf, appOfMark, sameInstallation, type Tracking } from '../../tracking/method.js';
import { applySettings, excludedType, liveNotPermitted, loadRules, type Rules, type RulesArgs } from './rules.js';
import { CHILD_API_VERSIONS, childKindsOf } from '../../health/tree.js';
import type { GitDir } from '../../source/git.js';
import type { DiffOptions } from '../../diff/index.js';
import { compareApp, type CompareEntry, type Comparison } from '../../diff/comparison.js';
import { serverSideDiffOf, withoutMutations } from '../../diff/server-side.js';
import { apiVersionStrings, type HelmCapabilities } from '../../source/render/helm.js';
import type { SourceReads } from '../../source/shared-reads.js';

/**
 * Where the Application and its desired state come from, and where its rules do (see rules.ts): what every command that
 * loads the app state takes (cli/inputs.ts builds it from the flags).
 */
export interface AppStateArgs extends RulesArgs {
  /** `sync`'s per-run overrides (app/run-options.ts): the operation's sync options instead of the Application's. */
  runOptions?: RunSyncOptions;
  /** `--revisions … --source-positions|--source-names …` (app/source-revisions.ts): revisions for some of spec.sources. */
  sourcePins?: { revision: string; position?: number; name?: string }[];
  app?: string;
  appFile?: string;
  desired?: string;
  revision?: string;
  /** Each source's revision, in spec.sources order (a retry that keeps the revisions its first attempt synced). */
  revisions?: readonly string[];
  /**
   * `plan`: the change from `from` (of `repo`) read at `to` (absent: the targetRevisions), as app/source-revisions.ts's
   * movedRevisions says: one source at `to`; of several, those that follow `from` at `to`, the others as they are.
   * Takes the place of revision, revisions and sourcePins.
   */
  move?: { from: string; to?: string; repo?: string; followOnly?: boolean };
  repoDir?: string;
  kustomize?: string;
  kustomizeBuildOptions?: string;
  hardRefresh?: boolean;
  render?: boolean;
  helm?: string;
  /** --kube-version / --api-versions: Helm's capabilities instead of the cluster's. */
  kubeVersion?: string;
  apiVersions?: string[];
}

/** The revisions to read the app's sources at: a plan's move, else --revision, the retry's revisions or --revisions' pins. */
function revisionsOf(args: AppStateArgs, app: Application, warnings: string[]): { revision?: string; revisions?: readonly (string | undefined)[] } {
  if (args.move !== undefined) {
    const { unmoved, ...revisions } = movedRevisions(app, args.move);
    if (unmoved !== undefined) warnings.push(unmoved);
    return revisions;
  }
  return {
    ...(args.revision !== undefined ? { revision: args.revision } : {}),
    ...(args.revisions !== undefined
      ? { revisions: args.revisions }
      : args.sourcePins !== undefined
        ? { revisions: pinnedRevisions(args.sourcePins, app.sources, app.name) }
        : {}),
  };
}

/** One desired object: namespace defaulted (or dropped when cluster-scoped), with its served type and where it was declared. */
export interface DesiredEntry {
  object: KubeObject;
  source: ManifestSource;
  type: ResourceType;
  key: ResourceKey;
  /**
   * The type is not served yet: defined by a CRD in the same desired set, or (with `unserved`) by none of them, and
   * the object asks for SkipDryRunOnMissingResource=true. Nothing is read for it; the sync applies it when its wave comes.
   */
  pendingCrd?: boolean;
  /** No CRD of this desired set defines the type: `type` is a placeholder until the sync finds the cluster's CRD. */
  unserved?: boolean;
}

/** The cluster a command acts on: the kubeconfig context the Application's destination resolved to. */
export interface AppTarget {
  context: string;
  server: string;
  /** Why that context (`in-cluster: …`, `the context's cluster server is …`). */
  why: string;
  /** The context the Application was read from (or the one selected, for a file). */
  appContext?: string;
  /** Said while resolving (cluster Secrets that could not be listed). */
  warnings: string[];
}

/** A resource hook of the desired set (sync/hooks.ts): run by `sync` in its phases, never compared or pruned. */
export interface HookEntry extends DesiredEntry {
  hook: HookInfo;
}

export interface AppState {
  app: Application;
  /** Where the command acts (absent where a test hands a gateway in directly). */
  target?: AppTarget;
  /** The app part of tracking-ids (`name`, or `namespace_name` outside the control-plane namespace). */
  appInstance: string;
  /** Where objects that declare no namespace go (`-n` over destination.namespace). */
  destinationNamespace: string;
  desired: DesiredEntry[];
  /** The desired set's hooks (with at least one phase; `Skip` hooks are left out). */
  hooks: HookEntry[];
  /** The desired set's PreDelete / PostDelete hooks: run by `delete` only (absent when there are none). */
  deleteHooks?: HookEntry[];
  /**
   * The desired set's hooks no command runs (absent when there are none): `argocd.argoproj.io/hook: Skip`, and Helm's
   * `test`, `test-success`, `test-failure`, `pre-rollback` … (gitops-engine maps them to no phase). Never applied,
   * compared or pruned; only `manifests` lists them, as Argo CD's repo-server renders them.
   */
  inertHooks?: HookEntry[];
  /** Live objects by keyString of the desired key (absent: not live). */
  live: Map<string, KubeObject>;
  /**
   * The desired objects whose live twin the AppProject does not permit, by keyString, with why: dropped from `live`
   * (compared as not live), as Argo CD's comparison drops them.
   */
  notPermitted?: Map<string, string>;
  /** The namespaces the app touches: the destination, those of desired objects, and those its status.resources records. */
  namespaces: string[];
  /** Present when asked for: the prune plan over every listable kind in the app's namespaces and cluster scope. */
  prune?: PrunePlan;
  /** With the prune plan: every object that scan saw (metadata), for `delete`, which plans over all of them. */
  scan?: readonly LiveEntry[];
  /** Where the desired manifests came from, and the resolved commit if any. */
  origin: string;
  revision?: string;
  /** How the source was rendered (absent for --desired). */
  sourceType?: string;
  /** Each entry of spec.sources and the revision it was read at (multi-source Applications). */
  sources?: SourceRevision[];
  /** Unsupported options, kinds we could not list, shared objects...: printed on stderr, never dropped. */
  warnings: string[];
  /**
   * The scopes the prune scan could not list (`secrets in namespace shop`), present when there are any: candidates
   * there are unknown, so the scan is partial and nothing may be pruned (prune --confirm, sync --prune refuse).
   */
  scanGaps?: string[];
  /**
   * With `children` (status): the whole-scope LISTs of the kinds the desired objects' children can be (ReplicaSets and
   * Pods of a Deployment…), made beside the live twins, for the live tree.
   */
  childLists?: ScopeLists;
  /** API requests made while loading. */
  requests: number;
  /** The AppProject, Argo CD's settings and the tracking method they give (see rules.ts). */
  rules?: Rules;
  tracking?: Tracking;
  /** A Source Hydrator app: the dry commit its hydrated manifests came from (the commit's `hydrator.metadata`). */
  hydratedFrom?: { drySha: string; repoURL?: string };
  /** Compared by server-side diff (the app's compare-options ServerSideDiff=true, or the controller's setting): see compareEntries. */
  serverSideDiff?: { includeMutationWebhook: boolean };
}

/** One desired object of the app as the comparison takes it: marked as a sync would apply it, with its live twin. */
export function compareEntryOf(
  state: Pick<AppState, 'live' | 'appInstance' | 'destinationNamespace' | 'tracking'>,
  d: Pick<DesiredEntry, 'key' | 'object'>,
): CompareEntry {
  const live = state.live.get(keyString(d.key));
  return {
    key: d.key,
    applied: asApplied(d.object, state.appInstance, state.destinationNamespace, state.tracking),
    declared: d.object,
    ...(live ? { live } : {}),
  };
}

/**
 * The first of the app's sources that carries no Git commit to verify, in words (`a Helm chart source`, `an OCI
 * source`; an oci:// repoURL with a chart is an OCI source), or undefined. Argo CD's repo-server verifies Git commits
 * only, and its controller refuses a source without a verification result ("Target revision … in Git is not signed,
 * but a signature is required", controller/state.go verifyGnuPGSignature); so is such a source here.
 */
export function unverifiableSource(app: Pick<Application, 'source' | 'sources'>): string | undefined {
  for (const s of app.sources ?? [app.source]) {
    if (isOciRepoURL(s.repoURL)) return 'an OCI source';
    if (s.options?.chart !== undefined) return 'a Helm chart source';
  }
  return undefined;
}

/**
 * Argo CD's signature check for a project with signatureKeys: every Git commit read must carry a good signature by an
 * allowed key (source/signature.ts); local manifests, Helm chart and OCI sources cannot be verified, so they are refused.
 */
async function signatureCheck(
  app: Application,
  args: AppStateArgs,
  source: { commits?: { dir: GitDir; sha: string }[] },
  rules: Rules,
  env: Record<string, string | undefined>,
): Promise<{ refusal?: string }> {
  const keys = rules.project.signatureKeys.join(', ');
  if (args.desired !== undefined)
    return {
      refusal: `Cannot use local sync when signature keys are required: project ${rules.project.name} lists signatureKeys (${keys}), and --desired is local`,
    };
  const unverified = unverifiableSource(app);
  if (unverified !== undefined)
    return {
      refusal: `project ${rules.project.name} requires signed commits (${keys}): signatures can be verified only for Git sources, and this app has ${unverified}`,
    };
  const { verifyCommits } = await import('../../source/signature.js');
  const refusal = await verifyCommits(source.commits ?? [], rules.gpgKeys ?? [], rules.project.signatureKeys, env);
  return refusal !== undefined ? { refusal } : {};
}

/**
 * The dry commit a hydrated path came from, as Argo CD's commit server writes it beside the manifests
 * (`<path>/hydrator.metadata`, JSON with `drySha` and `repoURL`); undefined, with a warning, when the file is missing or
 * unreadable (the path was not written by the hydrator).
 */
async function dryCommitOf(path: string, commit: { dir: GitDir; sha: string }, warnings: string[]): Promise<AppState['hydratedFrom']> {
  const { listTree, readBlobs } = await import('../../source/git.js');
  const file = posix.join(path === '' || path === '.' ? '' : path, 'hydrator.metadata');
  try {
    const entry = (await listTree(commit.dir, commit.sha, file)).find((e) => e.path === file && e.type === 'blob');
    if (entry) {
      const meta = JSON.parse((await readBlobs(commit.dir, [entry.sha])).get(entry.sha)?.toString('utf8') ?? '') as { drySha?: unknown; repoURL?: unknown };
      if (typeof meta.drySha === 'string' && meta.drySha !== '')
        return { drySha: meta.drySha, ...(typeof meta.repoURL === 'string' ? { repoURL: meta.repoURL } : {}) };
    }
  } catch {
    // Said below.
  }
  warnings.push(`sourceHydrator: ${file} at ${commit.sha.slice(0, 7)} names no dry commit (drySha): the hydrated branch was not written by Argo CD's hydrator`);
  return undefined;
}

/**
 * The compare entries of the app's desired objects. For an app compared by server-side diff (Argo CD's ServerSideDiff),
 * each object that is live is predicted by the API server: a dry-run of our apply (forced, as our sync applies), then,
 * unless IncludeMutationWebhook=true, without what our manager does not own (withoutMutations); that prediction is
 * compared with live instead of the rendered object. As in gitops-engine, an object not yet live is compared as it is
 * (no request), and so is one whose type is not served yet. A dry-run that fails leaves that object compared
 * client-side, with a warning naming it.
 */
export async function compareEntries(state: AppState, fieldManager: string, gw?: KubeGateway): Promise<CompareEntry[]> {
  const ssd = state.serverSideDiff;
  return Promise.all(
    state.desired.map(async (d) => {
      const entry = compareEntryOf(state, d);
      if (!ssd || !gw || !entry.live || d.pendingCrd || d.unserved) return entry;
      try {
        const dryRun = await gw.apply(d.type, entry.applied, { fieldManager, force: true, dryRun: true });
        const predicted = ssd.includeMutationWebhook ? dryRun : withoutMutations(dryRun, entry.live, fieldManager);
        return { ...entry, server: { predicted, conflicts: [] } };
      } catch (err) {
        state.warnings.push(`${d.key.kind}/${d.key.name}: server-side diff failed, compared client-side: ${(err as Error).message}`);
        return entry;
      }
    }),
  );
}

/**
 * The one comparison of the app's desired objects (extras aside): what status, sync and sync --watch read. With the
 * gateway, an app that asks for server-side diff is compared so (compareEntries); without it, client-side.
 */
export async function compareAppState(state: AppState, fieldManager: string, gw?: KubeGateway): Promise<Comparison> {
  return compareApp({ ...diffOptionsOf(state, fieldManager), desired: await compareEntries(state, fieldManager, gw) });
}

/**
 * The options every comparison of this app uses, whatever the command: its ignore rules (argocd-cm's merged in
 * by applySettings), our field manager, argocd-cm's ignoreResourceStatusField, knownTypeFields and the Secret annotations
 * it masks.
 */
export function diffOptionsOf(state: Pick<AppState, 'app' | 'rules' | 'tracking'>, fieldManager: string): DiffOptions {
  const status = state.rules?.settings.compareOptions.ignoreResourceStatusField;
  const known = state.rules?.settings.knownTypeFields;
  const sensitive = state.rules?.settings.sensitiveAnnotations;
  return {
    rules: state.app.ignoreDifferences,
    fieldManager,
    jq: loadJq,
    // Argo CD's tracking normalization before the diff (resource_tracking.go Normalize).
    tracking: state.tracking ?? DEFAULT_TRACKING,
    ...(status !== undefined ? { ignoreResourceStatusField: status } : {}),
    ...(known && known.size > 0 ? { knownTypeFields: known } : {}),
    ...(sensitive && sensitive.size > 0 ? { sensitiveAnnotations: sensitive } : {}),
  };
}

export interface AppStateDeps {
  io: WorkflowIo;
  opts: WorkflowOptions;
  /** The destination's cluster. */
  gateway: KubeGateway;
  /** Where Argo CD runs (AppProjects, argocd-cm), when it is not the destination's cluster (session.ts). */
  controlPlane?: KubeGateway;
  /** Reads the Application, its destination checked (session.ts); without it, it is read through `gateway`. */
  application?: () => Promise<Application>;
  target?: AppTarget;
  /** A many-app command's Git reads, shared by its apps (source/shared-reads.ts). */
  sourceReads?: SourceReads;
}

/** Reads the Application: through the session's reader, else `-f FILE`, or `APP` from the cluster in --app-namespace. */
export async function loadApplication(args: AppStateArgs, deps: AppStateDeps): Promise<Application> {
  if (deps.application) return deps.application();
  if (args.appFile) return loadApplicationFromFile(args.appFile, deps.io);
  if (!args.app) throw new InputError('name an Application (APP) or give -f/--app-file FILE');
  return loadApplicationFromCluster(deps.gateway, args.app, deps.opts.appNamespace);
}

/** Finds the type of a desired object, or of a custom resource whose CRD is declared alongside it. */
function crdTypes(objects: readonly ManifestObject[]): ResourceType[] {
  return objects.flatMap(({ object }) => typesDefinedBy(object));
}

/** The types a CustomResourceDefinition (desired or live) defines, one per version; none for any other object. */
export function typesDefinedBy(object: KubeObject): ResourceType[] {
  const out: ResourceType[] = [];
  if (object.kind !== 'CustomResourceDefinition' || groupOf(object.apiVersion) !== 'apiextensions.k8s.io') return out;
  const spec = isPlainObject(object.spec) ? object.spec : {};
  const names = isPlainObject(spec.names) ? spec.names : {};
  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  for (const v of versions) {
    if (!isPlainObject(v) || typeof v.name !== 'string') continue;
    out.push({
      group: String(spec.group ?? ''),
      version: v.name,
      kind: String(names.kind ?? ''),
      resource: String(names.plural ?? ''),
      namespaced: spec.scope !== 'Cluster',
      verbs: ['get', 'list', 'patch', 'delete'],
    });
  }
  return out;
}

/** A hook with no sync phase and no delete phase (`argocd.argoproj.io/hook: Skip`): no command ever applies it. */
function isNeverSynced(o: KubeObject): boolean {
  const hook = hookOf(o);
  return hook !== undefined && hook.phases.length === 0 && hook.deletePhases.length === 0;
}

async function resolveDesired(
  objects: readonly ManifestObject[],
  destNs: string,
  gw: KubeGateway,
  syncOptions: Pick<SyncOptions, 'skipDryRunOnMissingResource'>,
): Promise<DesiredEntry[]> {
  const pending = crdTypes(objects);
  const out: DesiredEntry[] = [];
  for (const m of objects) {
    const o = m.object;
    let type = await gw.resolve(o.apiVersion, o.kind);
    let pendingCrd = false;
    let unserved = false;
    if (!type) {
      type = pending.find((t) => apiVersionOf(t) === o.apiVersion && t.kind === o.kind);
      pendingCrd = type !== undefined;
    }
    // A `Skip` hook (or a hook of no phase Argo CD runs) is never applied, compared or pruned: gitops-engine gives it no
    // sync task, so no discovery check (sync_phase.go syncPhases), and CompareAppState leaves it out of the sync
    // status. Of a kind the cluster does not serve it is no error: kept as rendered (its scope unknown, its namespace
    // as declared) for `manifests` alone, which lists it as Argo CD's repo-server renders it. Decided before
    // SkipDryRunOnMissingResource, which would take it for an object to apply (and want a namespace for it).
    if (!type && isNeverSynced(o)) {
      const assumed = { group: groupOf(o.apiVersion), version: versionOf(o.apiVersion), kind: o.kind, resource: '', namespaced: true, verbs: [] };
      out.push({ object: o, source: m.source, type: assumed, key: keyOf(o), pendingCrd: true, unserved: true });
      continue;
    }
    if (!type && objectSyncMode(o, syncOptions).skipDryRunOnMissingResource) {
      // As gitops-engine does for a kind it does not know: namespaced until the cluster says otherwise.
      type = { group: groupOf(o.apiVersion), version: versionOf(o.apiVersion), kind: o.kind, resource: '', namespaced: true, verbs: [] };
      pendingCrd = true;
      unserved = true;
    }
    if (!type) {
      throw new UnservedKindError(
        `${formatSource(m.source)}: the cluster does not serve ${o.kind} in ${o.apiVersion} (${o.kind}/${o.metadata.name ?? ''}); no CustomResourceDefinition of this app defines it (with the sync option SkipDryRunOnMissingResource=true a sync applies it once the cluster serves it)`,
      );
    }
    const meta = { ...o.metadata };
    if (type.namespaced) {
      if (!meta.namespace) {
        if (!destNs)
          throw new InputError(
            `${formatSource(m.source)}: ${o.kind}/${meta.name ?? ''} declares no namespace and the Application has no destination.namespace (give -n)`,
          );
        meta.namespace = destNs;
      }
    } else {
      delete meta.namespace;
    }
    const object: KubeObject = { ...o, metadata: meta };
    out.push({ object, source: m.source, type, key: keyOf(object), ...(pendingCrd ? { pendingCrd } : {}), ...(unserved ? { unserved } : {}) });
  }
  // Once namespaces are defaulted (and dropped from cluster-scoped objects), two declarations that differed only there are
  // the same object: one without a namespace and one naming the destination's, a ClusterRole with and without one.
  rejectDuplicates(out);
  return out;
}

/**
 * A LIST of one type over a whole scope (a namespace, or the cluster for cluster-scoped types), by
 * `group|version|resource|namespace`; undefined when that scope was read only in part (see listOrGet).
 */
export type ScopeLists = ReadonlyMap<string, Promise<ListResult | undefined>>;

/** The key of a whole-scope LIST of `type` (namespace '' for cluster-scoped types). */
export function scopeKey(type: ResourceType, namespace: string | undefined): string {
  return `${type.group}|${type.version}|${type.resource}|${type.namespaced ? (namespace ?? '') : ''}`;
}

/**
 * Reads the live twin of every desired object: one LIST per type+namespace holding several objects (GETs past its
 * first page when the scope is crowded with other objects), else a GET.
 * Starts the requests at once and hands back, besides the twins, every LIST it made of a whole scope (full objects,
 * no selector), so the candidate scan can take those items instead of listing the same type and scope again.
 * Only LISTs that cover the whole scope belong in `lists`: a GET, or any partial read, must never be shared.
 */
function readLive(
  desired: readonly DesiredEntry[],
  gw: KubeGateway,
  children: readonly { type: ResourceType; namespace: string }[] = [],
): { live: Promise<Map<string, KubeObject>>; lists: ScopeLists; childLists: ScopeLists } {
  const groups = new Map<string, DesiredEntry[]>();
  for (const d of desired) {
    if (d.pendingCrd) continue;
    const g = `${apiVersionOf(d.type)}|${d.type.kind}|${d.key.namespace}`;
    const entries = groups.get(g);
    if (entries) entries.push(d);
    else groups.set(g, [d]);
  }
  const lists = new Map<string, Promise<ListResult | undefined>>();
  const live = new Map<string, KubeObject>();
  const getTwin = async (d: DesiredEntry) => {
    const o = await gw.get(d.type, d.key.namespace, d.key.name);
    if (o) live.set(keyString(d.key), { ...o, apiVersion: o.apiVersion ?? apiVersionOf(d.type), kind: o.kind ?? d.type.kind });
  };
  const reads = [...groups.values()].map(async (entries) => {
    const first = entries[0] as DesiredEntry;
    if (entries.length === 1) return getTwin(first);
    const byName = new Map(entries.map((e) => [e.key.name, e]));
    const scope = first.type.namespaced ? { namespace: first.key.namespace } : {};
    const read = listOrGet(gw, first.type, scope, byName, getTwin);
    // Registered synchronously (before the first await), so the scan, started after this function returns, sees it.
    lists.set(scopeKey(first.type, first.key.namespace), read.whole);
    for (const o of await read.items) {
      const name = o.metadata.name ?? '';
      if (byName.has(name)) live.set(keyString({ ...first.key, name }), o);
    }
  });
  // The children's kinds, whole, at once with the twins (the scan takes them too, instead of their metadata).
  const childLists = new Map<string, Promise<ListResult | undefined>>();
  for (const { type, namespace } of children) {
    const key = scopeKey(type, namespace);
    const read = lists.get(key) ?? gw.list(type, { namespace });
    // Reported by the scan and by the tree that read it; never an unhandled rejection when neither does.
    read.catch(() => undefined);
    lists.set(key, read);
    childLists.set(key, read);
  }
  return { live: Promise.all(reads).then(() => live), lists, childLists };
}

/** The kinds the desired objects' children can be, in the desired objects' namespaces (as listChildren lists them). */
async function childScopes(desired: readonly DesiredEntry[], gw: KubeGateway): Promise<{ type: ResourceType; namespace: string }[]> {
  const wanted = childKindsOf(
    desired.filter((d) => !d.pendingCrd && d.key.namespace !== '').map((d) => ({ groupKind: `${d.type.group}/${d.type.kind}`, namespace: d.key.namespace })),
  );
  const out: { type: ResourceType; namespace: string }[] = [];
  for (const [child, namespaces] of wanted) {
    const [apiVersion, kind] = CHILD_API_VERSIONS[child] as readonly [string, string];
    const type = await gw.resolve(apiVersion, kind).catch(() => undefined);
    if (type) for (const namespace of namespaces) out.push({ type, namespace });
  }
  return out;
}

/**
 * A scope holding this many times more objects than the app still needs from it is read by GETs: past the first
 * page of a LIST, the twins not found yet are fetched one by one (side by side) instead of listing the rest.
 */
const GET_INSTEAD_OF_LIST = 10;

/**
 * Reads the twins of one type in one scope. `whole` is the whole-scope LIST, which the candidate scan may take
 * instead of listing again; it is undefined when the first page shows a scope crowded with other objects (the
 * server's remainingItemCount above GET_INSTEAD_OF_LIST times the twins that page did not hold): then `items` is
 * that page's items, and each twin still missing is fetched by a GET (through `getTwin`, which records it); when
 * GETs are forbidden, the rest of the LIST is read after all. A partial read is never taken for the scope's contents.
 */
function listOrGet(
  gw: KubeGateway,
  type: ResourceType,
  scope: { namespace?: string },
  byName: ReadonlyMap<string, DesiredEntry>,
  getTwin: (d: DesiredEntry) => Promise<void>,
): { whole: Promise<ListResult | undefined>; items: Promise<readonly KubeObject[]> } {
  // The twins the first page did not hold (only asked when the LIST goes on).
  const first = gw.list(type, { ...scope, maxPages: 1 }).then((page) => {
    if (page.continue === undefined) return { page, missing: [] };
    const seen = new Set(page.items.map((o) => o.metadata.name ?? ''));
    return { page, missing: [...byName.values()].filter((d) => !seen.has(d.key.name)) };
  });
  /** The first page with the rest of the LIST after it. */
  const withRest = async (page: ListResult): Promise<ListResult> => {
    const rest = await gw.list(type, { ...scope, continue: page.continue });
    return {
      items: [...page.items, ...rest.items],
      pages: page.pages + rest.pages,
      ...(rest.resourceVersion ? { resourceVersion: rest.resourceVersion } : {}),
    };
  };
  const whole = first.then(({ page, missing }): ListResult | Promise<ListResult> | undefined => {
    if (page.continue === undefined) return page;
    const crowded = page.remainingItemCount !== undefined && page.remainingItemCount > GET_INSTEAD_OF_LIST * missing.length;
    return crowded ? undefined : withRest(page);
  });
  const items = whole.then(async (list): Promise<readonly KubeObject[]> => {
    if (list) return list.items;
    const { page, missing } = await first;
    try {
      await Promise.all(missing.map(getTwin));
      return page.items;
    } catch (err) {
      // Allowed to list but not to get (RBAC grants them apart): read the rest of the LIST, as before the GETs.
      if (!(err instanceof KubeApiError && err.status === 403)) throw err;
      return (await withRest(page)).items;
    }
  });
  // A scan that is not run never awaits `whole`; its failure is reported through `items`.
  whole.catch(() => undefined);
  return { whole, items };
}

/**
 * The objects that carry a tracking-id (any app's: the prune plan reports the others' marks), listed
 * (metadata only) from every listable and watchable preferred type in the app's namespaces and at cluster scope,
 * 16 requests at a time (the gateway's bound). Objects without the mark play no part in a prune plan,
 * so they are left out, and the gateway does not even decode them. Kinds we cannot list become
 * warnings — except the kinds the app itself declares (`required`, as `group/resource/namespace`): not
 * being able to list those is an error, never an empty, successful-looking prune list. A type and scope
 * that `reuse` holds (a full LIST of exactly that type and scope, made for the live twins) is taken from
 * there instead of being listed again; its marked items are cut down to what a metadata-only list
 * returns, so the result is the same, and keep their whole object beside (`whole`, for status).
 */
export async function listAppCandidates(
  gw: KubeGateway,
  namespaces: readonly string[],
  warnings: string[],
  required: ReadonlySet<string> = new Set(),
  reuse: ScopeLists = new Map(),
  opts: { tracking?: Tracking; excluded?: (t: ResourceType) => boolean; gaps?: string[] } = {},
): Promise<LiveEntry[]> {
  const tracking = opts.tracking ?? DEFAULT_TRACKING;
  const { preferred } = await gw.discover();
  // As Argo CD's cluster cache, which keeps only the types that can be listed and watched (gitops-engine's
  // GetAPIResources): a kind that cannot be watched (componentstatuses, metrics.k8s.io) is never a prune candidate.
  const listable = preferred.filter((t) => t.verbs.includes('list') && t.verbs.includes('watch') && !opts.excluded?.(t));
  const jobs: { type: ResourceType; namespace?: string }[] = [];
  for (const type of listable) {
    if (type.namespaced) for (const namespace of namespaces) jobs.push({ type, namespace });
    else jobs.push({ type });
  }
  const out: LiveEntry[] = [];
  await Promise.all(
    jobs.map(async ({ type, namespace }) => {
      try {
        // Undefined when that read was partial (GETs in a crowded scope): then the scope is listed here.
        const shared = await reuse.get(scopeKey(type, namespace));
        if (shared) {
          for (const o of shared.items) {
            if (markOf(o, tracking) !== undefined) out.push({ object: { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata }, type, whole: o });
          }
          return;
        }
        const res = await gw.list(type, { ...(namespace ? { namespace } : {}), metadataOnly: true, ...markFilter(tracking) });
        for (const object of res.items) out.push({ object, type });
      } catch (err) {
        if (required.has(`${type.group}/${type.resource}/${namespace ?? ''}`)) throw err;
        const where = namespace ? ` in namespace ${namespace}` : ' at cluster scope';
        warnings.push(`cannot list ${resourceName(type)}${where}, so its prune candidates are unknown: ${(err as Error).message}`);
        // A type no longer served (404: its CRD removed since discovery) holds no objects: not a gap in the scan.
        if (!(err instanceof KubeApiError && err.status === 404)) opts.gaps?.push(`${resourceName(type)}${where}`);
      }
    }),
  );
  // Deterministic order regardless of which list answered first (each key built once, not per comparison).
  const keyed = out.map((entry) => ({ entry, key: keyString(keyOf(entry.object)) }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : 1));
  warnings.sort();
  opts.gaps?.sort();
  return keyed.map((k) => k.entry);
}

/** The destination cluster's version and served types, as Argo CD hands them to Helm (.Capabilities). */
async function clusterCapabilities(gw: KubeGateway, given: Pick<AppStateArgs, 'kubeVersion' | 'apiVersions'> = {}): Promise<HelmCapabilities> {
  const [apiVersions, kubeVersion] = await Promise.all([
    given.apiVersions ?? gw.discover().then((d) => apiVersionStrings(d.all)),
    given.kubeVersion ?? (gw.serverVersion ? gw.serverVersion() : Promise.resolve('')),
  ]);
  return { kubeVersion, apiVersions };
}

/**
 * Loads the Application, its desired objects and their live twins (unless `live: false`: prune needs only the
 * desired keys); with `extras` (or when it says so for the app), also the prune plan.
 */
export async function loadAppState(
  args: AppStateArgs,
  deps: AppStateDeps,
  want: { extras: boolean | ((app: Application) => boolean); live?: boolean; children?: boolean },
): Promise<AppState> {
  const gw = deps.gateway;
  const startRequests = gw.stats().requests;
  const loaded = await loadApplication(args, deps);
  // A sync's per-run overrides (sync --sync-option, --replace, --force …) stand in for the Application's own options.
  const app = args.runOptions ? withRunOptions(loaded, args.runOptions) : loaded;
  const warnings = [...app.warnings, ...(deps.target?.warnings ?? [])];
  const rulesRead = loadRules(app, args, deps.controlPlane ?? gw);
  rulesRead.catch(() => undefined);
  const { loadDesiredManifests } = await import('../../source/index.js');
  const destinationNamespace = deps.opts.namespace ?? app.destination.namespace ?? '';
  // A refusal names the Application itself (an Application file's metadata.name, not its path).
  const named = <T>(p: Promise<T>): Promise<T> =>
    p.catch((err: unknown) => {
      if (err instanceof UnrenderableError || err instanceof UnservedKindError || err instanceof ManifestError) err.app ??= app.name;
      throw err;
    });
  const source = await named(
    loadDesiredManifests(
      app,
      {
        desired: args.desired,
        ...revisionsOf(args, app, warnings),
        repoDir: args.repoDir,
        ...(args.kustomize !== undefined ? { kustomize: args.kustomize } : {}),
        ...(args.kustomizeBuildOptions !== undefined ? { kustomizeBuildOptions: args.kustomizeBuildOptions } : {}),
        ...(args.helm !== undefined ? { helm: args.helm } : {}),
        ...(args.hardRefresh ? { hardRefresh: true } : {}),
        ...(args.render ? { render: true } : {}),
        capabilities: () => clusterCapabilities(gw, args),
        // argocd-cm's kustomize.buildOptions and kustomize.path.<version>: the rules are read beside the render.
        kustomizeSettings: () => rulesRead.then((r) => r.settings.kustomize),
        // argocd-cm's helm.valuesFileSchemes: the URL schemes a Helm value file may use.
        helmValuesFileSchemes: () => rulesRead.then((r) => r.settings.helmValuesFileSchemes),
        namespace: destinationNamespace,
        controlPlaneNamespace: controlPlaneNamespace(args.argocdNamespace),
        ...(deps.sourceReads ? { reads: deps.sourceReads } : {}),
      },
      deps.io,
    ),
  );
  warnings.push(...source.warnings);
  const hydratedFrom = app.hydrator && source.commits?.[0] ? await dryCommitOf(app.hydrator.syncSource.path, source.commits[0], warnings) : undefined;
  const rules = await rulesRead;
  warnings.push(...rules.warnings);
  if (rules.project.signatureKeys.length > 0 && !rules.projectUnchecked) rules.signature = await signatureCheck(app, args, source, rules, deps.io.env);
  const tracking = rules.tracking;
  const desired: DesiredEntry[] = [];
  const hooks: HookEntry[] = [];
  const deleteHooks: HookEntry[] = [];
  const inertHooks: HookEntry[] = [];
  for (const d of await named(resolveDesired(applySettings(app, rules, source.objects, warnings), destinationNamespace, gw, app.syncOptions))) {
    const hook = hookOf(d.object);
    if (!hook) desired.push(d);
    else {
      for (const u of hook.unknown)
        warnings.push(`${d.key.kind}/${d.key.name || d.object.metadata.generateName || ''}: ${u} is not a hook phase or delete policy; ignored`);
      if (hook.phases.length > 0) hooks.push({ ...d, hook });
      if (hook.deletePhases.length > 0) deleteHooks.push({ ...d, hook });
      if (hook.phases.length === 0 && hook.deletePhases.length === 0) inertHooks.push({ ...d, hook });
    }
  }
  const appInstance = instanceName(app, rules.controlPlaneNamespace);
  // The namespaces the last comparison recorded objects in are scanned too: what left the render is found there.
  const namespaces = [
    ...new Set([destinationNamespace, ...desired.map((d) => d.key.namespace), ...(app.recordedNamespaces ?? [])].filter((n) => n !== '')),
  ].sort();
  // The live twins and the candidate scan are independent: run them side by side.
  const wantExtras = typeof want.extras === 'function' ? want.extras(app) : want.extras;
  // The scan takes the items of the live reads' whole-scope LISTs instead of listing those types again (prune reads
  // no live twins, so it lists everything itself).
  const reads = want.live === false ? undefined : readLive(desired, gw, want.children ? await childScopes(desired, gw) : []);
  const scanGaps: string[] = [];
  const [live, candidates] = await Promise.all([
    reads ? reads.live : new Map<string, KubeObject>(),
    wantExtras
      ? listAppCandidates(gw, namespaces, warnings, new Set(desired.map((d) => `${d.type.group}/${d.type.resource}/${d.key.namespace}`)), reads?.lists, {
          tracking,
          excluded: excludedType(app, rules),
          gaps: scanGaps,
        })
      : undefined,
  ]);
  // Argo CD's managed namespace (controller/state.go isManagedNamespace): the destination namespace, live with this
  // app's mark, not declared, of an app with managedNamespaceMetadata is compared with that metadata as a desired object
  // (so never a prune candidate: pruning it would delete everything in it).
  if (candidates && app.managedNamespaceMetadata && destinationNamespace !== '') {
    const marked = candidates.find(
      (e) =>
        e.type.group === '' &&
        e.type.kind === 'Namespace' &&
        e.object.metadata.name === destinationNamespace &&
        ownershipVerdict(e.object, appInstance, tracking) === undefined,
    );
    const key: ResourceKey = { group: '', kind: 'Namespace', namespace: '', name: destinationNamespace };
    const declared = desired.some((d) => keyString(d.key) === keyString(key));
    const liveNs = marked && !declared ? await gw.get(marked.type, '', destinationNamespace) : undefined;
    if (marked && liveNs) {
      desired.push({
        object: createdNamespaceObject(destinationNamespace, app.managedNamespaceMetadata),
        source: { file: 'spec.syncPolicy.managedNamespaceMetadata', doc: 0, line: 1 },
        type: marked.type,
        key,
      });
      live.set(keyString(key), liveNs);
    }
  }
  // Argo CD drops the live objects its project does not permit before it compares (controller/state.go,
  // IsLiveResourcePermitted): a desired object of a kind the project refuses, or in a namespace outside its
  // destinations, is compared as not live (OutOfSync, Missing) and is never updated, pruned or deleted.
  const forbidden = liveNotPermitted(app, rules, deps.target?.server);
  const notPermitted = new Map<string, string>();
  if (forbidden) {
    for (const d of desired) {
      const why = live.has(keyString(d.key)) ? forbidden(d.key, d.type.namespaced) : undefined;
      if (why === undefined) continue;
      live.delete(keyString(d.key));
      notPermitted.set(keyString(d.key), why);
    }
  }
  for (const d of desired) {
    const l = live.get(keyString(d.key));
    // An object another installation marked is no app's (getAppInstanceValue): no shared-resource warning.
    const mark = l && sameInstallation(l, tracking) ? markOf(l, tracking) : undefined;
    if (mark && appOfMark(mark, tracking) !== appInstance) {
      warnings.push(
        // Argo CD's words: the app's QualifiedName (namespace/name) and the other's instance name with '_' read as '/'.
        `${d.key.kind}/${d.key.name} is part of applications ${app.namespace}/${app.name} and ${appOfMark(mark, tracking).replaceAll('_', '/')} (SharedResourceWarning)`,
      );
    }
  }
  const state: AppState = {
    app,
    ...(deps.target ? { target: deps.target } : {}),
    appInstance,
    destinationNamespace,
    desired,
    hooks,
    ...(deleteHooks.length > 0 ? { deleteHooks } : {}),
    ...(inertHooks.length > 0 ? { inertHooks } : {}),
    live,
    namespaces,
    origin: source.origin,
    ...(source.revision ? { revision: source.revision } : {}),
    ...(source.sourceType ? { sourceType: source.sourceType } : {}),
    ...(source.sources ? { sources: source.sources } : {}),
    warnings,
    ...(scanGaps.length > 0 ? { scanGaps } : {}),
    ...(reads && reads.childLists.size > 0 ? { childLists: reads.childLists } : {}),
    requests: 0,
    rules,
    tracking,
  };
  if (hydratedFrom) state.hydratedFrom = hydratedFrom;
  if (notPermitted.size > 0) state.notPermitted = notPermitted;
  const ssd = serverSideDiffOf(app, rules.cmdParams?.serverSideDiff ?? false);
  if (ssd) state.serverSideDiff = ssd;
  if (candidates) {
    // What the project does not permit is dropped from the live objects, as Argo CD drops it: never pruned or deleted.
    const dropped: PrunePlan['notOwned'] = [];
    const permitted = forbidden
      ? candidates.filter((e) => {
          const key = keyOf(e.object);
          const why = forbidden(key, e.type.namespaced);
          // Another app's object is never this app's candidate: planPrune reports it as it is.
          if (why === undefined || ownershipVerdict(e.object, appInstance, tracking) !== undefined) return true;
          dropped.push({ key, reason: { code: 'not-permitted', why } });
          return false;
        })
      : candidates;
    state.scan = permitted;
    state.prune = planPrune({
      live: permitted,
      appInstance,
      desired: desired.map((d) => d.key),
      appPruneDefault: app.syncOptions.prune,
      appPruneConfirm: app.syncOptions.pruneConfirm === true,
      tracking,
    });
    state.prune.notOwned.push(...dropped);
  }
  state.requests = gw.stats().requests - startRequests;
  return state;
}
