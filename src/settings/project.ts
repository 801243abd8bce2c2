// The AppProject an Application belongs to, and the rules Argo CD enforces from it (app_project_types.go):
// sourceRepos, destinations, cluster/namespace resource white- and blacklists, sourceNamespaces, sync windows.
// Pure: parsing, Argo CD's built-in `default` project, and the checks, each violation naming its rule.
import type { JsonObject, JsonValue, ResourceKey } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { InputError } from '../model/errors.js';
import { filepathMatch, matchStringInList, projectGlobMatch } from '../model/glob.js';
import type { SyncWindow } from './sync-windows.js';

export interface ProjectDestination {
  server: string;
  name: string;
  namespace: string;
}

export interface GroupKindItem {
  group: string;
  kind: string;
  /** clusterResourceWhitelist/Blacklist only: a name glob (empty: any). */
  name?: string;
}

export interface AppProject {
  name: string;
  /** Where it came from: `AppProject argocd/team-a`, a file, or Argo CD's built-in default. */
  origin: string;
  sourceRepos: string[];
  destinations: ProjectDestination[];
  /** Absent (Go nil) and empty differ for the namespace whitelist: absent allows every kind, `[]` none. */
  clusterResourceWhitelist: GroupKindItem[];
  clusterResourceBlacklist: GroupKindItem[];
  namespaceResourceWhitelist?: GroupKindItem[];
  namespaceResourceBlacklist: GroupKindItem[];
  sourceNamespaces: string[];
  syncWindows: SyncWindow[];
  /** spec.signatureKeys (key IDs): Argo CD syncs only a commit signed by one of them. */
  signatureKeys: string[];
  /** spec.sourceIntegrity is set (Argo CD v3.5's successor of signatureKeys). */
  sourceIntegrity: boolean;
  /** spec.destinationServiceAccounts (used by Argo CD only with impersonation on): who a sync to a destination applies as. */
  destinationServiceAccounts: { server: string; namespace: string; defaultServiceAccount: string }[];
  /** spec.orphanedResources: list the objects no app tracks in the destination namespace; `warn` adds the condition. */
  orphanedResources?: { warn: boolean; ignore: GroupKindItem[] };
  /** Rules this tool does not enforce (said once, as warnings). */
  warnings: string[];
  /** Argo CD's built-in default project, taken because no AppProject `default` exists. */
  builtIn?: boolean;
}

export const DEFAULT_PROJECT = 'default';

/** The `default` project as Argo CD's API server creates it when it is absent (server/server.go). */
export function defaultProject(namespace: string): AppProject {
  return {
    name: DEFAULT_PROJECT,
    origin: `Argo CD's built-in default project (no AppProject ${namespace}/default)`,
    sourceRepos: ['*'],
    destinations: [{ server: '*', name: '', namespace: '*' }],
    clusterResourceWhitelist: [{ group: '*', kind: '*' }],
    clusterResourceBlacklist: [],
    namespaceResourceBlacklist: [],
    sourceNamespaces: [],
    syncWindows: [],
    signatureKeys: [],
    sourceIntegrity: false,
    destinationServiceAccounts: [],
    warnings: [],
    builtIn: true,
  };
}

function fail(origin: string, field: string, msg: string): never {
  throw new InputError(`${origin}: AppProject ${field}: ${msg}`);
}

function str(origin: string, o: JsonObject, k: string, at: string): string {
  const v = o[k];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') fail(origin, `${at}.${k}`, `must be a string, got ${typeof v}`);
  return v;
}

function bool(origin: string, o: JsonObject, k: string, at: string): boolean {
  const v = o[k];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') fail(origin, `${at}.${k}`, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

function strings(origin: string, o: JsonObject, k: string, at: string): string[] {
  const v = o[k];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail(origin, `${at}.${k}`, 'must be a list of strings');
  return v as string[];
}

function maps(origin: string, v: JsonValue | undefined, at: string): JsonObject[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) fail(origin, at, 'must be a list');
  return v.map((x, i) => (isPlainObject(x) ? x : fail(origin, `${at}[${i}]`, 'must be a map')));
}

function groupKinds(origin: string, spec: JsonObject, k: string, named: boolean): GroupKindItem[] | undefined {
  return maps(origin, spec[k], `spec.${k}`)?.map((m, i) => {
    const at = `spec.${k}[${i}]`;
    const item: GroupKindItem = { group: str(origin, m, 'group', at), kind: str(origin, m, 'kind', at) };
    if (named) item.name = str(origin, m, 'name', at);
    return item;
  });
}

/** Parses an AppProject object (argoproj.io/v1alpha1); InputError naming `origin` and the field on a type error. */
export function parseAppProject(obj: unknown, origin: string): AppProject {
  if (!isPlainObject(obj)) throw new InputError(`${origin}: an AppProject must be a map`);
  if (obj.kind !== 'AppProject' || typeof obj.apiVersion !== 'string' || !obj.apiVersion.startsWith('argoproj.io/')) {
    throw new InputError(
      `${origin}: not an Argo CD AppProject (apiVersion argoproj.io/v1alpha1, kind AppProject); got ${String(obj.apiVersion)} ${String(obj.kind)}`,
    );
  }
  const meta = isPlainObject(obj.metadata) ? obj.metadata : {};
  const name = typeof meta.name === 'string' ? meta.name : fail(origin, 'metadata.name', 'is missing');
  const spec = obj.spec === undefined || obj.spec === null ? {} : isPlainObject(obj.spec) ? obj.spec : fail(origin, 'spec', 'must be a map');
  const warnings: string[] = [];
  const destinations = (maps(origin, spec.destinations, 'spec.destinations') ?? []).map((m, i) => ({
    server: str(origin, m, 'server', `spec.destinations[${i}]`),
    name: str(origin, m, 'name', `spec.destinations[${i}]`),
    namespace: str(origin, m, 'namespace', `spec.destinations[${i}]`),
  }));
  const syncWindows = (maps(origin, spec.syncWindows, 'spec.syncWindows') ?? []).map((m, index): SyncWindow => {
    const at = `spec.syncWindows[${index}]`;
    return {
      index,
      kind: str(origin, m, 'kind', at),
      schedule: str(origin, m, 'schedule', at),
      duration: str(origin, m, 'duration', at),
      applications: strings(origin, m, 'applications', at),
      namespaces: strings(origin, m, 'namespaces', at),
      clusters: strings(origin, m, 'clusters', at),
      manualSync: bool(origin, m, 'manualSync', at),
      timeZone: str(origin, m, 'timeZone', at),
      andOperator: bool(origin, m, 'andOperator', at),
      description: str(origin, m, 'description', at),
      syncOverrun: bool(origin, m, 'syncOverrun', at),
    };
  });
  if (spec.permitOnlyProjectScopedClusters === true)
    warnings.push(`${origin}: spec.permitOnlyProjectScopedClusters is not enforced (project-scoped clusters live in Secrets this tool does not read)`);
  const namespaceResourceWhitelist = groupKinds(origin, spec, 'namespaceResourceWhitelist', false);
  const signatureKeys = (maps(origin, spec.signatureKeys, 'spec.signatureKeys') ?? []).map((m, i) => str(origin, m, 'keyID', `spec.signatureKeys[${i}]`));
  const destinationServiceAccounts = (maps(origin, spec.destinationServiceAccounts, 'spec.destinationServiceAccounts') ?? []).map((m, i) => {
    const at = `spec.destinationServiceAccounts[${i}]`;
    return {
      server: str(origin, m, 'server', at),
      namespace: str(origin, m, 'namespace', at),
      defaultServiceAccount: str(origin, m, 'defaultServiceAccount', at),
    };
  });
  const orphaned = spec.orphanedResources;
  let orphanedResources: AppProject['orphanedResources'];
  if (orphaned !== undefined && orphaned !== null) {
    if (!isPlainObject(orphaned)) throw new InputError(`${origin}: spec.orphanedResources is not an object`);
    orphanedResources = {
      // Argo CD's IsWarn: only an explicit true.
      warn: orphaned.warn === true,
      ignore: (maps(origin, orphaned.ignore, 'spec.orphanedResources.ignore') ?? []).map((m, i) => ({
        group: str(origin, m, 'group', `spec.orphanedResources.ignore[${i}]`),
        kind: str(origin, m, 'kind', `spec.orphanedResources.ignore[${i}]`),
        name: str(origin, m, 'name', `spec.orphanedResources.ignore[${i}]`),
      })),
    };
  }
  return {
    ...(orphanedResources ? { orphanedResources } : {}),
    signatureKeys,
    sourceIntegrity: spec.sourceIntegrity !== undefined && spec.sourceIntegrity !== null,
    destinationServiceAccounts,
    name,
    origin,
    sourceRepos: strings(origin, spec, 'sourceRepos', 'spec'),
    destinations,
    clusterResourceWhitelist: groupKinds(origin, spec, 'clusterResourceWhitelist', true) ?? [],
    clusterResourceBlacklist: groupKinds(origin, spec, 'clusterResourceBlacklist', true) ?? [],
    ...(namespaceResourceWhitelist ? { namespaceResourceWhitelist } : {}),
    namespaceResourceBlacklist: groupKinds(origin, spec, 'namespaceResourceBlacklist', false) ?? [],
    sourceNamespaces: strings(origin, spec, 'sourceNamespaces', 'spec'),
    syncWindows,
    warnings,
  };
}

/** git.NormalizeGitURL: lower case, `git@host:path` as `host/path`, no `.git` suffix. */
export function normalizeGitURL(repo: string): string {
  let r = repo.trim().toLowerCase();
  if (/^(ssh:\/\/)?([^/:]*?)@[^@]+$/.test(r) && !r.startsWith('ssh://')) r = `ssh://${r.replace(':', '/')}`;
  if (r.endsWith('.git')) r = r.slice(0, -4);
  return r.startsWith('ssh://') ? r.slice('ssh://'.length) : r;
}

/** IsSourcePermitted: some sourceRepos entry matches (`/` separates), and no `!` entry excludes it. */
export function isSourcePermitted(p: AppProject, repoURL: string): boolean {
  const src = normalizeGitURL(repoURL);
  let any = false;
  for (const repo of p.sourceRepos) {
    const deny = repo.startsWith('!');
    const normalized = deny ? `!${normalizeGitURL(repo.slice(1))}` : normalizeGitURL(repo);
    const matched = projectGlobMatch(normalized, src, true, '/');
    if (matched) any = true;
    else if (deny) return false;
  }
  return any;
}

/** The destination cluster as Argo CD resolves it: both its server and its name. */
export interface DestinationCluster {
  server: string;
  name: string;
}

const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';
const IN_CLUSTER_NAME = 'in-cluster';

/**
 * The cluster an Application's destination names. Argo CD looks the other half up in its cluster Secrets,
 * which this tool does not read: only the in-cluster pair (https://kubernetes.default.svc, in-cluster)
 * is known; a cluster named by `name` takes the server of the kubeconfig context the destination resolved to
 * (`resolvedServer`, see app/destination.ts), and one named by `server` keeps no name.
 */
export function destinationCluster(dest: { server?: string; name?: string }, resolvedServer?: string): DestinationCluster {
  const server = dest.server || (dest.name && dest.name !== IN_CLUSTER_NAME ? (resolvedServer ?? '') : '');
  const name = dest.name ?? '';
  // An Application that names no cluster (Argo CD would call its spec invalid) is taken to mean the cluster
  // this tool works on, which it knows only as the current kubeconfig context: in-cluster.
  if (server === '' && name === '') return { server: IN_CLUSTER_SERVER, name: IN_CLUSTER_NAME };
  if (server === IN_CLUSTER_SERVER && name === '') return { server, name: IN_CLUSTER_NAME };
  if (name === IN_CLUSTER_NAME && server === '') return { server: IN_CLUSTER_SERVER, name };
  return { server, name };
}

/** isDestinationMatched, including its precedence (`A || B && C`) and its `!` negations. */
export function isDestinationPermitted(p: AppProject, cluster: DestinationCluster, namespace: string): boolean {
  let any = false;
  for (const item of p.destinations) {
    const nameMatched = cluster.name !== '' && projectGlobMatch(item.name, cluster.name, true);
    const serverMatched = cluster.server !== '' && projectGlobMatch(item.server, cluster.server, true);
    const nsMatched = projectGlobMatch(item.namespace, namespace, true);
    if ((serverMatched || nameMatched) && nsMatched) any = true;
    else if ((!nameMatched && item.name.startsWith('!')) || (!serverMatched && item.server.startsWith('!') && nsMatched)) return false;
    else if (!nsMatched && item.namespace.startsWith('!') && serverMatched) return false;
  }
  return any;
}

function inList(list: readonly GroupKindItem[], group: string, kind: string, name?: string): GroupKindItem | undefined {
  return list.find(
    (item) => filepathMatch(item.kind, kind) && filepathMatch(item.group, group) && (name === undefined || !item.name || filepathMatch(item.name, name)),
  );
}

/** IsGroupKindNamePermitted, with the rule that decided when it is not permitted. */
export function groupKindVerdict(
  p: AppProject,
  group: string,
  kind: string,
  name: string,
  namespaced: boolean,
): { permitted: true } | { permitted: false; rule: string } {
  const gk = `${group}/${kind}`;
  if (namespaced) {
    const white = p.namespaceResourceWhitelist;
    if (white !== undefined && !inList(white, group, kind))
      return {
        permitted: false,
        rule: white.length === 0 ? 'namespaceResourceWhitelist is empty (no namespaced kind is allowed)' : `namespaceResourceWhitelist does not list ${gk}`,
      };
    const black = inList(p.namespaceResourceBlacklist, group, kind);
    if (black) return { permitted: false, rule: `namespaceResourceBlacklist lists ${gk} (${black.group}/${black.kind})` };
    return { permitted: true };
  }
  if (!inList(p.clusterResourceWhitelist, group, kind, name))
    return {
      permitted: false,
      rule:
        p.clusterResourceWhitelist.length === 0
          ? 'clusterResourceWhitelist is empty (no cluster-scoped kind is allowed)'
          : `clusterResourceWhitelist does not list ${gk} ${name}`,
    };
  const black = inList(p.clusterResourceBlacklist, group, kind, name);
  if (black)
    return { permitted: false, rule: `clusterResourceBlacklist lists ${gk} ${name} (${black.group}/${black.kind}${black.name ? ` ${black.name}` : ''})` };
  return { permitted: true };
}

/** IsAppNamespacePermitted: Applications in the control-plane namespace always may; others need sourceNamespaces. */
export function isAppNamespacePermitted(p: AppProject, appNamespace: string, controlPlaneNamespace: string): boolean {
  if (appNamespace === '' || appNamespace === controlPlaneNamespace) return true;
  return matchStringInList(p.sourceNamespaces, appNamespace);
}

/** One thing the project forbids: the rule, in Argo CD's words where it has them. */
export interface ProjectViolation {
  rule:
    | 'sourceNamespaces'
    | 'sourceRepos'
    | 'destinations'
    | 'clusterResourceWhitelist'
    | 'clusterResourceBlacklist'
    | 'namespaceResourceWhitelist'
    | 'namespaceResourceBlacklist'
    | 'signatureKeys'
    | 'destinationServiceAccounts';
  message: string;
  object?: ResourceKey;
  /** For an object's violation, Argo CD's permission validator's words (controller/sync.go), as its sync records them. */
  task?: string;
}

export interface ProjectCheckInput {
  app: {
    name: string;
    namespace: string;
    source: { repoURL?: string };
    /** Every entry of spec.sources (absent for spec.source): each one's repository is checked. */
    sources?: readonly { repoURL?: string }[];
    destination: { server?: string; name?: string; namespace?: string };
  };
  controlPlaneNamespace: string;
  /** The desired objects: group, kind, name, their namespace (empty for cluster-scoped) and whether the kind is namespaced. */
  objects: readonly (ResourceKey & { namespaced: boolean })[];
  /** The manifests came from --desired, not from the Application's repoURL: the source rule does not apply. */
  sourceOverridden?: boolean;
  /** The server of the cluster the destination resolved to (its kubeconfig context), when known. */
  resolvedServer?: string;
  /** argocd-cm's application.sync.impersonation.enabled: syncs apply as the project's destination ServiceAccount. */
  impersonation?: boolean;
  /** The signature check of the commits read (absent: not made). */
  signature?: { refusal?: string };
}

/** The characters Argo CD refuses in a destinationServiceAccounts entry's defaultServiceAccount. */
const SERVICE_ACCOUNT_DISALLOWED = /[!*[\]{}\\/]/;

/**
 * Who a sync applies as when argocd-cm turns impersonation on, as Argo CD's deriveServiceAccountToImpersonate
 * (controller/sync.go): the first destinationServiceAccounts entry whose server and namespace globs match the
 * destination's server and namespace; its defaultServiceAccount `NS:NAME`, or `NAME` in the destination namespace (the
 * Application's own when the destination names none), as `system:serviceaccount:NS:NAME`. An error when none matches or
 * the name is blank or holds a character Argo CD refuses.
 */
export function impersonationOf(
  p: Pick<AppProject, 'destinationServiceAccounts'>,
  app: { namespace: string; destination: { namespace?: string } },
  server: string,
): { user: string } | { error: string } {
  const destNs = app.destination.namespace ?? '';
  const saNamespace = destNs !== '' ? destNs : app.namespace;
  for (const item of p.destinationServiceAccounts) {
    if (!projectGlobMatch(item.server, server, false) || !projectGlobMatch(item.namespace, destNs, false)) continue;
    const sa = item.defaultServiceAccount;
    if (sa.trim() === '' || SERVICE_ACCOUNT_DISALLOWED.test(sa)) return { error: `default service account contains invalid chars '${sa}'` };
    return { user: sa.includes(':') ? `system:serviceaccount:${sa}` : `system:serviceaccount:${saNamespace}:${sa}` };
  }
  return { error: `no matching service account found for destination server ${server} and namespace ${saNamespace}` };
}

/** Everything the project forbids for this app and these objects (empty: permitted), in Argo CD's order of checks. */
export function checkProject(p: AppProject, input: ProjectCheckInput): ProjectViolation[] {
  const out: ProjectViolation[] = [];
  const { app } = input;
  // Where no AppProject `default` exists, no Argo CD API server runs that would have created it, nor one that
  // restricts Applications to its namespace: this tool's own rule, Applications in any namespace, stands.
  if (!p.builtIn && !isAppNamespacePermitted(p, app.namespace, input.controlPlaneNamespace)) {
    out.push({
      rule: 'sourceNamespaces',
      message: `application '${app.name}' in namespace '${app.namespace}' is not permitted to use project '${p.name}' (sourceNamespaces: ${p.sourceNamespaces.length ? p.sourceNamespaces.join(', ') : 'none'})`,
    });
  }
  // Settings this tool does not carry out yet refuse the sync rather than let it run without them.
  if (p.sourceIntegrity) {
    out.push({
      rule: 'signatureKeys',
      message: `project ${p.name} requires source integrity (spec.sourceIntegrity), which this tool does not check: it refuses rather than sync a revision Argo CD would verify`,
    });
  } else if (p.signatureKeys.length > 0 && input.signature?.refusal !== undefined) {
    out.push({ rule: 'signatureKeys', message: input.signature.refusal });
  } else if (p.signatureKeys.length > 0 && input.signature === undefined) {
    out.push({
      rule: 'signatureKeys',
      message: `project ${p.name} requires signed commits (spec.signatureKeys ${p.signatureKeys.join(', ')}), and no signature was checked`,
    });
  }
  if (input.impersonation === true) {
    const who = impersonationOf(p, app, destinationCluster(app.destination, input.resolvedServer).server);
    // Argo CD's controller ends such a sync in phase Error with this message (controller/sync.go).
    if ('error' in who) out.push({ rule: 'destinationServiceAccounts', message: `failed to find a matching service account to impersonate: ${who.error}` });
  }
  // Every source of a multi-source app is checked, each refusal said (ValidatePermissions: one condition per source).
  const repoURLs = app.sources && app.sources.length > 0 ? app.sources.map((s) => s.repoURL ?? '') : [app.source.repoURL ?? ''];
  for (const repoURL of input.sourceOverridden ? [] : repoURLs) {
    if (isSourcePermitted(p, repoURL)) continue;
    out.push({
      rule: 'sourceRepos',
      message: `application repo ${repoURL} is not permitted in project '${p.name}' (sourceRepos: ${p.sourceRepos.length ? p.sourceRepos.join(', ') : 'none'})`,
    });
  }
  const cluster = destinationCluster(app.destination, input.resolvedServer);
  const destNs = app.destination.namespace ?? '';
  // Argo CD's built-in default project permits every destination (any server, any namespace): with no Argo CD
  // to resolve a cluster's server from its name, that is taken as it is meant.
  const destinations = !p.builtIn;
  if (destinations && !isDestinationPermitted(p, cluster, destNs)) {
    const server = app.destination.name ? cluster.name : cluster.server;
    out.push({
      rule: 'destinations',
      message: `application destination server '${server}' and namespace '${destNs}' do not match any of the allowed destinations in project '${p.name}'`,
    });
  }
  for (const o of input.objects) {
    const ref = { group: o.group, kind: o.kind, namespace: o.namespace, name: o.name };
    const v = groupKindVerdict(p, o.group, o.kind, o.name, o.namespaced);
    if (!v.permitted) {
      const rule = v.rule.split(' ')[0] as ProjectViolation['rule'];
      out.push({
        rule,
        message: `resource ${o.group}:${o.kind} is not permitted in project ${p.name}: ${v.rule}`,
        object: ref,
        task: `resource ${o.group}:${o.kind} is not permitted in project ${p.name}`,
      });
      continue;
    }
    if (destinations && o.namespaced && !isDestinationPermitted(p, cluster, o.namespace)) {
      const message = `namespace ${o.namespace} is not permitted in project '${p.name}'`;
      out.push({ rule: 'destinations', message, object: ref, task: message });
    }
  }
  return out;
}
