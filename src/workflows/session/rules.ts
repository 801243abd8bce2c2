// The rules around an Application, read once per command: its AppProject (from the cluster's control-plane
// namespace, or --project-file), Argo CD's settings (argocd-cm there, or --argocd-cm), and Lua health checks
// (argocd-cm, or --lua-dir). What cannot be read is a warning, never silently a permission.
import { readFile } from 'node:fs/promises';
import type { Application, IgnoreDifference } from '../../app/types.js';
import type { HealthLibrary } from '../../health/custom.js';
import { InputError } from '../../model/errors.js';
import { controlPlaneNamespace } from '../../model/keys.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { SharedGateway } from '../../kube/snapshot.js';
import type { ResourceType } from '../../model/resource-type.js';
import { KubeApiError } from '../../kube/errors.js';
import { groupOf, isPlainObject, keyString, type KubeObject, type ResourceKey } from '../../model/object.js';
import { parseYamlValues } from '../../manifest/parse.js';
import { defaultSettings, isExcludedResource, parseArgoSettings, type ArgoSettings } from '../../settings/argocd-cm.js';
import { appNamespaceRefusal, parseCmdParams, type CmdParams } from '../../settings/cmd-params.js';
import {
  checkProject,
  DEFAULT_PROJECT,
  defaultProject,
  destinationCluster,
  groupKindVerdict,
  impersonationOf,
  isDestinationPermitted,
  parseAppProject,
  type AppProject,
  type ProjectViolation,
} from '../../settings/project.js';
import { matchingWindows, syncVerdict, type SyncVerdict, type SyncWindow } from '../../settings/sync-windows.js';
import type { Tracking } from '../../tracking/method.js';
import { bundledHealthLibrary, mergeHealthLibraries, readHealthLibrary } from '../status/health-library.js';

/** Where the rules come from: Argo CD's namespace in the cluster, or files. */
export interface RulesArgs {
  /** The namespace Argo CD runs in (its AppProjects, argocd-cm and cluster Secrets live there); absent or empty: `argocd` (model/keys.ts controlPlaneNamespace). */
  argocdNamespace?: string;
  projectFile?: string;
  argocdCm?: string;
  /** argocd-cmd-params-cm from a file (its `application.namespaces`). */
  argocdCmdParamsCm?: string;
  luaDir?: string;
}

export interface Rules {
  controlPlaneNamespace: string;
  project: AppProject;
  /** The project the Application names does not exist: Argo CD refuses to sync it. */
  missingProject?: string;
  /** The project could not be read (forbidden): its rules are not checked. */
  projectUnchecked?: boolean;
  settings: ArgoSettings;
  /** argocd-cmd-params-cm, when Argo CD's is there (or given as a file): which Application namespaces it reconciles. */
  cmdParams?: CmdParams;
  tracking: Tracking;
  /** The --lua-dir library of health checks, read. */
  healthLibrary?: HealthLibrary;
  /** argocd-gpg-keys-cm's public keys, read when the project lists signatureKeys. */
  gpgKeys?: string[];
  /** The signature check of the commits read (app-state.ts), when the project lists signatureKeys. */
  signature?: { refusal?: string };
  warnings: string[];
}

const CONFIG_MAP: ResourceType = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, verbs: ['get'] };

async function readYamlFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new InputError(`reading ${what} file ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  const [value] = parseYamlValues(text, path);
  if (value === undefined) throw new InputError(`${path}: no ${what} found (the file is empty)`);
  return value;
}

function describeReadError(err: unknown): string {
  return err instanceof KubeApiError && err.status === 403 ? `forbidden: ${err.message}` : (err as Error).message;
}

async function loadProject(
  app: Application,
  args: RulesArgs,
  ns: string,
  gw: KubeGateway | undefined,
  warnings: string[],
): Promise<Pick<Rules, 'project' | 'missingProject' | 'projectUnchecked'>> {
  const name = app.project || DEFAULT_PROJECT;
  if (args.projectFile) {
    const project = parseAppProject(await readYamlFile(args.projectFile, 'AppProject'), args.projectFile);
    if (project.name !== name) warnings.push(`${args.projectFile}: AppProject ${project.name} is checked, but the Application names project ${name}`);
    return { project };
  }
  const fallback = defaultProject(ns);
  if (!gw) return { project: fallback };
  const { preferred } = await gw.discover();
  const type = preferred.find((t) => t.group === 'argoproj.io' && t.kind === 'AppProject');
  if (!type) {
    if (name !== DEFAULT_PROJECT)
      warnings.push(
        `the cluster does not serve AppProjects (no Argo CD CRD): project ${name} is unknown and Argo CD's default project is used (give --project-file)`,
      );
    return { project: fallback };
  }
  let obj;
  try {
    obj = await gw.get(type, ns, name);
  } catch (err) {
    warnings.push(`cannot read AppProject ${ns}/${name}, so its rules are not checked: ${describeReadError(err)}`);
    return { project: fallback, projectUnchecked: true };
  }
  if (!obj) {
    if (name === DEFAULT_PROJECT) return { project: fallback };
    return {
      project: fallback,
      missingProject: `Application referencing project ${name} which does not exist (no AppProject ${name} in namespace ${ns}; use --argocd-namespace or --project-file)`,
    };
  }
  return { project: parseAppProject(obj, `AppProject ${ns}/${name}`) };
}

/** argocd-cm from a file: a ConfigMap manifest, or just its `data` map. */
export async function readArgoSettingsFile(path: string): Promise<ArgoSettings> {
  return parseArgoSettings(await readConfigMapFile(path, 'argocd-cm'), path);
}

async function loadSettings(args: RulesArgs, ns: string, gw: KubeGateway | undefined, warnings: string[]): Promise<ArgoSettings> {
  if (args.argocdCm) return readArgoSettingsFile(args.argocdCm);
  if (!gw) return defaultSettings();
  let cm;
  try {
    cm = await gw.get((await gw.resolve('v1', 'ConfigMap')) ?? CONFIG_MAP, ns, 'argocd-cm');
  } catch (err) {
    warnings.push(`cannot read ConfigMap ${ns}/argocd-cm, so Argo CD's default settings are used: ${describeReadError(err)}`);
    return defaultSettings();
  }
  if (!cm) return defaultSettings(`Argo CD's defaults (no ConfigMap ${ns}/argocd-cm)`);
  return parseArgoSettings(configMapStrings(cm), `ConfigMap ${ns}/argocd-cm`);
}

function configMapStrings(cm: KubeObject | { data?: unknown }): Record<string, string> {
  const data = isPlainObject(cm.data) ? cm.data : {};
  const strings: Record<string, string> = {};
  for (const [k, val] of Object.entries(data)) if (typeof val === 'string') strings[k] = val;
  return strings;
}

/** A ConfigMap file: a ConfigMap manifest, or just its `data` map, every value a string. */
async function readConfigMapFile(path: string, what: string): Promise<Record<string, string>> {
  const v = await readYamlFile(path, 'ConfigMap');
  const data = isPlainObject(v) && v.kind === 'ConfigMap' ? v.data : v;
  if (data !== undefined && data !== null && !isPlainObject(data)) throw new InputError(`${path}: ${what} data must be a map of strings`);
  const strings: Record<string, string> = {};
  for (const [k, val] of Object.entries(data ?? {})) {
    if (typeof val !== 'string') throw new InputError(`${path}: ${what} data.${k} must be a string`);
    strings[k] = val;
  }
  return strings;
}

/**
 * argocd-cmd-params-cm: from the file, or from the cluster when Argo CD's is there. Absent (no Argo CD
 * installed beside this tool), nothing restricts the namespaces Applications live in.
 */
async function loadCmdParams(args: RulesArgs, ns: string, gw: KubeGateway | undefined, warnings: string[]): Promise<CmdParams | undefined> {
  if (args.argocdCmdParamsCm) return parseCmdParams(await readConfigMapFile(args.argocdCmdParamsCm, 'argocd-cmd-params-cm'), args.argocdCmdParamsCm);
  if (!gw) return undefined;
  let cm;
  try {
    cm = await gw.get((await gw.resolve('v1', 'ConfigMap')) ?? CONFIG_MAP, ns, 'argocd-cmd-params-cm');
  } catch (err) {
    warnings.push(
      `cannot read ConfigMap ${ns}/argocd-cmd-params-cm, so the namespaces Argo CD reconciles Applications in are not checked: ${describeReadError(err)}`,
    );
    return undefined;
  }
  return cm ? parseCmdParams(configMapStrings(cm), `ConfigMap ${ns}/argocd-cmd-params-cm`) : undefined;
}

/** argocd-gpg-keys-cm's values (ASCII-armoured public keys); none when it is absent or cannot be read (said). */
async function loadGpgKeys(ns: string, gw: KubeGateway | undefined, warnings: string[]): Promise<string[]> {
  if (!gw) return [];
  try {
    const cm = await gw.get((await gw.resolve('v1', 'ConfigMap')) ?? CONFIG_MAP, ns, 'argocd-gpg-keys-cm');
    return cm ? Object.values(configMapStrings(cm)) : [];
  } catch (err) {
    warnings.push(`cannot read ConfigMap ${ns}/argocd-gpg-keys-cm, so no commit signature can be verified: ${describeReadError(err)}`);
    return [];
  }
}

/**
 * For a many-app command: starts the reads of the settings every app's loadRules makes (argocd-cm and
 * argocd-cmd-params-cm, unless given as files) before the apps need them, as single GETs (SharedGateway.prefetch), and
 * the AppProjects' LIST.
 */
export async function prefetchRules(gw: SharedGateway, args: RulesArgs): Promise<void> {
  const ns = controlPlaneNamespace(args.argocdNamespace);
  const type = (await gw.resolve('v1', 'ConfigMap').catch(() => undefined)) ?? CONFIG_MAP;
  if (!args.argocdCm) gw.prefetch(type, ns, 'argocd-cm');
  if (!args.argocdCmdParamsCm) gw.prefetch(type, ns, 'argocd-cmd-params-cm');
  // The AppProjects: every app's project is answered from their one LIST.
  const project = args.projectFile ? undefined : (await gw.discover()).preferred.find((t) => t.group === 'argoproj.io' && t.kind === 'AppProject');
  if (project) gw.list(project, { namespace: ns }).catch(() => undefined);
}

/** Reads the project and the settings side by side; `gw` absent (file mode) means only the files count. */
export async function loadRules(app: Application, args: RulesArgs, gw: KubeGateway | undefined): Promise<Rules> {
  const ns = controlPlaneNamespace(args.argocdNamespace);
  // A bad library is bad input before anything else is read (or changed).
  const given = args.luaDir ? readHealthLibrary(args.luaDir) : undefined;
  // Argo CD's own checks (built into the executable), under --lua-dir's; argocd-cm's come first (health/custom.ts).
  const healthLibrary = mergeHealthLibraries(await bundledHealthLibrary(), given);
  const warnings: string[] = [];
  const [project, settings, cmdParams] = await Promise.all([
    loadProject(app, args, ns, gw, warnings),
    loadSettings(args, ns, gw, warnings),
    loadCmdParams(args, ns, gw, warnings),
  ]);
  warnings.push(...project.project.warnings, ...settings.warnings);
  const gpgKeys = project.project.signatureKeys.length > 0 ? await loadGpgKeys(ns, gw, warnings) : undefined;
  return {
    ...(gpgKeys ? { gpgKeys } : {}),
    controlPlaneNamespace: ns,
    ...project,
    settings,
    ...(cmdParams ? { cmdParams } : {}),
    tracking: { method: settings.trackingMethod, labelKey: settings.instanceLabelKey, installationID: settings.installationID },
    ...(healthLibrary ? { healthLibrary } : {}),
    warnings: warnings.sort(),
  };
}

/** The ignore rule compare option ignoreAggregatedRoles stands for, per aggregated ClusterRole (its rules are made by the aggregation controller). */
function aggregatedRoleRules(objects: readonly { object: KubeObject }[], source: string): IgnoreDifference[] {
  return objects
    .filter(({ object: o }) => o.kind === 'ClusterRole' && groupOf(o.apiVersion) === 'rbac.authorization.k8s.io' && isPlainObject(o.aggregationRule))
    .map(({ object: o }) => ({
      group: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: o.metadata.name ?? '',
      jsonPointers: ['/rules'],
      jqPathExpressions: [],
      managedFieldsManagers: [],
      source,
    }));
}

/**
 * What the settings change in a loaded app, in place: argocd-cm's system-wide ignore rules after the
 * Application's own (Argo CD merges the two lists), and the desired objects of excluded kinds dropped with a
 * warning, as Argo CD drops them from its targets. Returns the objects kept.
 */
export function applySettings<T extends { object: KubeObject }>(app: Application, rules: Rules, desired: readonly T[], warnings: string[]): T[] {
  const s = rules.settings;
  const cluster = destinationCluster(app.destination).server;
  const kept = desired.filter(({ object: o }) => {
    const group = groupOf(o.apiVersion);
    if (!isExcludedResource(s, group, o.kind, cluster)) return true;
    warnings.push(
      `Resource ${group}/${o.kind} ${o.metadata.name ?? ''} is excluded in the settings (${s.origin} resource.exclusions/inclusions): not compared, applied or pruned`,
    );
    return false;
  });
  const extra = [
    ...s.ignoreDifferences,
    ...(s.compareOptions.ignoreAggregatedRoles ? aggregatedRoleRules(kept, `${s.origin} resource.compareoptions ignoreAggregatedRoles`) : []),
  ];
  if (extra.length > 0) app.ignoreDifferences = [...app.ignoreDifferences, ...extra];
  return kept;
}

/** Whether the settings exclude a listed type from the candidate scan (never listed, so never pruned). */
export function excludedType(app: Application, rules: Rules): (t: Pick<ResourceType, 'group' | 'kind'>) => boolean {
  const cluster = destinationCluster(app.destination).server;
  return (t) => isExcludedResource(rules.settings, t.group, t.kind, cluster);
}

/** The project's checks of this app and these objects, with the rules' settings (impersonation, the signature check). */
function projectCheck(
  app: Application,
  rules: Rules,
  objects: readonly { key: ResourceKey; type: Pick<ResourceType, 'namespaced'> }[],
  resolvedServer: string | undefined,
): ProjectViolation[] {
  return checkProject(rules.project, {
    app,
    controlPlaneNamespace: rules.controlPlaneNamespace,
    objects: objects.map((d) => ({ ...d.key, namespaced: d.type.namespaced })),
    ...(resolvedServer ? { resolvedServer } : {}),
    impersonation: rules.settings.impersonation,
    ...(rules.signature ? { signature: rules.signature } : {}),
  });
}

/** Everything the project forbids for this app and its desired objects, one line each (empty: permitted). */
export function projectViolations(
  app: Application,
  rules: Rules,
  desired: readonly { key: ResourceKey; type: Pick<ResourceType, 'namespaced'> }[],
  resolvedServer?: string,
): string[] {
  const notReconciled = rules.cmdParams ? appNamespaceRefusal(rules.cmdParams, app, rules.controlPlaneNamespace) : undefined;
  if (notReconciled) return [notReconciled];
  if (rules.missingProject) return [rules.missingProject];
  if (rules.projectUnchecked) return [];
  const found = projectCheck(app, rules, desired, resolvedServer);
  return found.map((v) => `${v.object ? `${v.object.kind}/${v.object.name}: ` : ''}${v.message} (${rules.project.origin})`);
}

/**
 * When everything the project forbids is about single objects (a kind its lists refuse, a namespace outside its
 * destinations) and no sync window blocks the sync: each such object with Argo CD's permission validator's words. Argo CD
 * refuses these in gitops-engine's task validation (the operation Failed, "one or more synchronization tasks are not
 * valid", each task SyncFailed), not as an InvalidSpecError; undefined otherwise.
 */
export function invalidTasks(
  state: {
    app: Application;
    rules?: Rules;
    desired: readonly { key: ResourceKey; type: Pick<ResourceType, 'namespaced' | 'version'> }[];
    hooks?: readonly { key: ResourceKey; type: Pick<ResourceType, 'namespaced' | 'version'> }[];
    target?: { server: string };
  },
  opts: { manual: boolean; now: number },
): { key: ResourceKey; version: string; message: string }[] | undefined {
  const rules = state.rules;
  if (!rules || rules.projectUnchecked || rules.missingProject) return undefined;
  if (rules.cmdParams && appNamespaceRefusal(rules.cmdParams, state.app, rules.controlPlaneNamespace)) return undefined;
  const all = [...state.desired, ...(state.hooks ?? [])];
  const found = projectCheck(state.app, rules, all, state.target?.server);
  if (found.length === 0 || found.some((v) => v.task === undefined || v.object === undefined)) return undefined;
  if (!windowVerdict(state.app, rules, opts).verdict.allowed) return undefined;
  const version = (key: ResourceKey) => all.find((d) => keyString(d.key) === keyString(key))?.type.version ?? '';
  return found.map((v) => ({ key: v.object!, version: version(v.object!), message: v.task! }));
}

/**
 * Argo CD's IsGroupKindPermitted: why the project's resource lists refuse an object of this key's kind, or undefined.
 * Such a resource's sync status is Unknown in Argo CD's comparison (controller/state.go). Undefined as a whole when the
 * project is not checked or is missing.
 */
export function kindNotPermitted(rules: Rules): ((key: ResourceKey, namespaced: boolean) => string | undefined) | undefined {
  if (rules.projectUnchecked || rules.missingProject) return undefined;
  const p = rules.project;
  return (key, namespaced) => {
    const v = groupKindVerdict(p, key.group, key.kind, key.name, namespaced);
    return v.permitted ? undefined : `not permitted in project ${p.name}: ${v.rule}`;
  };
}

/**
 * Argo CD's IsLiveResourcePermitted for the app's live objects (controller/state.go drops the others before it plans
 * anything, so what the project does not permit is never pruned or deleted): why a live object of this key is not
 * permitted in the project, or undefined. Undefined as a whole when the project is not checked or is missing (a missing
 * project refuses every write anyway).
 */
export function liveNotPermitted(
  app: Application,
  rules: Rules,
  resolvedServer?: string,
): ((key: ResourceKey, namespaced: boolean) => string | undefined) | undefined {
  const kind = kindNotPermitted(rules);
  if (!kind) return undefined;
  const p = rules.project;
  const cluster = destinationCluster(app.destination, resolvedServer);
  return (key, namespaced) => {
    const refused = kind(key, namespaced);
    if (refused !== undefined) return refused;
    if (!p.builtIn && namespaced && key.namespace !== '' && !isDestinationPermitted(p, cluster, key.namespace))
      return `not permitted in project ${p.name}: namespace ${key.namespace} is not one of its destinations`;
    return undefined;
  };
}

/**
 * Who this app's sync writes as: with argocd-cm's application.sync.impersonation.enabled, the ServiceAccount of the
 * project's destinationServiceAccounts entry for the destination (impersonationOf); undefined for the kubeconfig's own
 * user (impersonation off, or no entry matches: then projectViolations refuses the sync).
 */
export function syncUser(app: Application, rules: Rules | undefined, resolvedServer?: string): string | undefined {
  if (!rules?.settings.impersonation || rules.projectUnchecked) return undefined;
  const who = impersonationOf(rules.project, app, destinationCluster(app.destination, resolvedServer).server);
  return 'user' in who ? who.user : undefined;
}

/** The sync windows of the project that apply to this app, and Argo CD's verdict on a sync starting now. */
export function windowVerdict(app: Application, rules: Rules, opts: { manual: boolean; now: number }): { windows: SyncWindow[]; verdict: SyncVerdict } {
  const windows = matchingWindows(rules.project.syncWindows, app);
  return { windows, verdict: syncVerdict(windows, opts) };
}

/**
 * Why a sync (or a confirmed prune) must not run: the project's violations, then a sync window that blocks
 * it now (with the window and when it opens). Undefined when Argo CD would let it run.
 */
export function rulesRefusal(
  app: Application,
  rules: Rules,
  desired: readonly { key: ResourceKey; type: Pick<ResourceType, 'namespaced'> }[],
  opts: { manual: boolean; now: number; resolvedServer?: string },
): string | undefined {
  const violations = projectViolations(app, rules, desired, opts.resolvedServer);
  if (violations.length > 0) return `project ${rules.project.name}: ${violations.join('; ')}`;
  const { verdict } = windowVerdict(app, rules, opts);
  if (!verdict.allowed) return `project ${rules.project.name}: ${verdict.reason}`;
  return undefined;
}

/** rulesRefusal for a loaded app state (undefined when it carries no rules). */
export function stateRefusal(
  state: {
    app: Application;
    rules?: Rules;
    desired: readonly { key: ResourceKey; type: Pick<ResourceType, 'namespaced'> }[];
    hooks?: readonly { key: ResourceKey; type: Pick<ResourceType, 'namespaced'> }[];
    target?: { server: string };
  },
  opts: { manual: boolean; now: number },
): string | undefined {
  // Hooks are resources of the app too: the project's rules apply to them as to the rest.
  const resolvedServer = state.target?.server;
  return state.rules
    ? rulesRefusal(state.app, state.rules, [...state.desired, ...(state.hooks ?? [])], { ...opts, ...(resolvedServer ? { resolvedServer } : {}) })
    : undefined;
}
