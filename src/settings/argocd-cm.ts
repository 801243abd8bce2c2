// Argo CD's settings from the argocd-cm ConfigMap (util/settings/settings.go), as far as they change what this
// tool does: the tracking method and instance label, the installation id, system-wide ignoreDifferences
// (`resource.customizations.ignoreDifferences.<group_kind>` and `.all`, and the older `resource.customizations`
// block), resource exclusions and inclusions, compare options, custom health checks in Lua, the Secret
// annotations masked as data, the reconciliation timeout, kustomize's build options and binaries, and the URL schemes
// of Helm value files. Pure.
import { parse as parseYaml } from 'yaml';
import type { IgnoreDifference } from '../app/types.js';
import { argoEnvDurationMs } from '../model/duration.js';
import { InputError } from '../model/errors.js';
import { DEFAULT_INSTANCE_LABEL_KEY } from '../model/keys.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../model/object.js';
import { globMatch } from '../model/glob.js';
import type { KnownTypeField } from '../diff/compare.js';

export type TrackingMethod = 'annotation' | 'label' | 'annotation+label';

/** `resource.exclusions` / `resource.inclusions` entries: globs on API groups and clusters, exact (or `*`) kinds. */
export interface FilteredResource {
  apiGroups: string[];
  kinds: string[];
  clusters: string[];
}

export interface CompareOptions {
  ignoreAggregatedRoles: boolean;
  /** `all` (Argo CD's default), `crd`, `none` (`off`/`false` and unknown values read as `none`). */
  ignoreResourceStatusField: string;
}

export interface ArgoSettings {
  /** Where they came from: `ConfigMap argocd/argocd-cm`, a file, or Argo CD's defaults when there is none. */
  origin: string;
  trackingMethod: TrackingMethod;
  instanceLabelKey: string;
  installationID: string;
  /** System-wide ignore rules, in Argo CD's form: group/kind from the key (group and kind `*` for `.all`). */
  ignoreDifferences: IgnoreDifference[];
  exclusions: FilteredResource[];
  inclusions: FilteredResource[];
  compareOptions: CompareOptions;
  /** Lua health scripts by `group/Kind` (core group: `/Kind`; the `all` key never applies to health). */
  health: Map<string, { script: string; useOpenLibs: boolean; source: string }>;
  /** `kustomize.buildOptions`, and each `kustomize.path.<version>` (or the older `kustomize.version.<version>`) binary. */
  kustomize: KustomizeSettings;
  /**
   * `helm.valuesFileSchemes` (comma-separated, each trimmed, empty items dropped; unset `https, http`, as Argo CD's
   * GetHelmSettings): the URL schemes a Helm value file may use. Set but empty, no URL is allowed.
   */
  helmValuesFileSchemes: string[];
  /** application.sync.impersonation.enabled: syncs apply as the project's destination ServiceAccount. */
  impersonation: boolean;
  /** `resource.customizations.knownTypeFields.<group_kind>`: fields of custom resources compared as the Kubernetes type they hold. */
  knownTypeFields: Map<string, KnownTypeField[]>;
  /**
   * Every `group/Kind` (`Kind` for the core group) resource.customizations names, whatever it sets, and the CRD's when
   * ignoreResourceStatusField is `crd` (GetResourceOverrides adds a status rule for it): a missing resource of such a
   * kind counts in the app's health (controller/health.go's hasOverride).
   */
  overrideKeys: Set<string>;
  /**
   * `resource.sensitive.mask.annotations` (comma-separated, spaces dropped, as Argo CD's GetSensitiveAnnotations): the
   * annotations whose values are masked on Secrets, as their data is.
   */
  sensitiveAnnotations: Set<string>;
  /**
   * `timeout.reconciliation` and `timeout.reconciliation.jitter` (Go durations; 120s and 60s unset, as the controller's
   * ARGOCD_RECONCILIATION_TIMEOUT/JITTER that its manifests read from argocd-cm): how often `sync --watch` polls the
   * source without --interval, plus up to the jitter; a timeout of 0 turns the polls off. `warnings`: a value that is
   * not a duration (said by `sync --watch` only: no other command polls).
   */
  reconciliation: { timeoutMs: number; jitterMs: number; warnings: string[] };
  warnings: string[];
}

/** Argo CD's controller defaults (cmd/argocd-application-controller: defaultAppResyncPeriod, ...Jitter). */
export const DEFAULT_RECONCILIATION = { timeoutMs: 120_000, jitterMs: 60_000 } as const;

/** argocd-cm's helm.valuesFileSchemes when it is not set (util/settings GetHelmSettings). */
export const DEFAULT_VALUES_FILE_SCHEMES: readonly string[] = ['https', 'http'];

/** Argo CD's kustomize settings (util/settings GetKustomizeSettings). */
export interface KustomizeSettings {
  buildOptions?: string;
  /** version name (what spec.source.kustomize.version names) -> the binary's path, as written in argocd-cm. */
  versions: Map<string, string>;
}

export function defaultSettings(origin = "Argo CD's defaults (no argocd-cm)"): ArgoSettings {
  return {
    origin,
    trackingMethod: 'annotation',
    instanceLabelKey: DEFAULT_INSTANCE_LABEL_KEY,
    installationID: '',
    ignoreDifferences: [],
    exclusions: [],
    inclusions: [],
    compareOptions: { ignoreAggregatedRoles: false, ignoreResourceStatusField: 'all' },
    health: new Map(),
    kustomize: { versions: new Map() },
    helmValuesFileSchemes: [...DEFAULT_VALUES_FILE_SCHEMES],
    impersonation: false,
    knownTypeFields: new Map(),
    overrideKeys: new Set(),
    sensitiveAnnotations: new Set(),
    reconciliation: { ...DEFAULT_RECONCILIATION, warnings: [] },
    warnings: [],
  };
}

const CUSTOMIZATIONS = 'resource.customizations';

/** convertToOverrideKey: `apps_Deployment` → `apps/Deployment`, `Service` → `Service`. */
function overrideKey(groupKind: string, key: string, origin: string): string {
  const parts = groupKind.split('_');
  if (parts.length === 2) return `${parts[0]}/${parts[1]}`;
  if (parts.length === 1 && groupKind !== '') return groupKind;
  throw new InputError(
    `${origin}: ${key}: group kind should be in format resource.customizations.<type>.<group_kind> or resource.customizations.<type>.<kind>, got group kind: '${groupKind}'`,
  );
}

/** getGroupKindForOverrideKey: `apps/Deployment` → ["apps", "Deployment"], `Service` → ["", "Service"]. */
function splitOverrideKey(key: string): [string, string] {
  const parts = key.split('/');
  return parts.length === 2 ? [parts[0]!, parts[1]!] : ['', key];
}

function yamlValue(text: string, key: string, origin: string): JsonValue {
  try {
    return (parseYaml(text) ?? null) as JsonValue;
  } catch (err) {
    throw new InputError(`${origin}: ${key} is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
}

function stringList(v: JsonValue | undefined, key: string, origin: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new InputError(`${origin}: ${key} must be a list of strings`);
  return v as string[];
}

interface Override {
  known?: KnownTypeField[];
  ignore?: { jsonPointers: string[]; jqPathExpressions: string[]; managedFieldsManagers: string[]; source: string };
  health?: { script: string; source: string };
  useOpenLibs?: boolean;
}

/**
 * knownTypeFields entries (`- field: spec.jobTemplate.spec.template.spec` / `type: core/v1/PodSpec`), as Argo CD's
 * knownTypesNormalizer takes them: a type it does not know is left out with a warning (Argo CD logs it and goes on).
 * Known here: `core/v1/<Type>` (compared as Kubernetes' own types: the empty values they omit are no drift),
 * `core/Quantity` and `meta/v1/Duration` (compared by value).
 */
function knownTypeFieldsOf(v: JsonValue, key: string, origin: string, warnings: string[]): KnownTypeField[] {
  if (v === null) return [];
  if (!Array.isArray(v)) throw new InputError(`${origin}: ${key} must be a YAML list of {field, type}`);
  return v.flatMap((e, i) => {
    if (!isPlainObject(e) || typeof e.field !== 'string' || typeof e.type !== 'string')
      throw new InputError(`${origin}: ${key}[${i}] must have a string field and type`);
    if (!/^core\/v1\/[A-Z]\w*$/.test(e.type) && e.type !== 'core/Quantity' && e.type !== 'meta/v1/Duration') {
      warnings.push(
        `${origin}: ${key}[${i}]: type '${e.type}' is not supported, so ${e.field} is compared as plain data (as Argo CD, which leaves it out too)`,
      );
      return [];
    }
    return [{ path: e.field.split('.'), type: e.type }];
  });
}

function ignoreOf(v: JsonValue, key: string, origin: string): NonNullable<Override['ignore']> {
  const o: JsonObject = isPlainObject(v)
    ? v
    : v === null
      ? {}
      : (() => {
          throw new InputError(`${origin}: ${key} must be a map`);
        })();
  return {
    jsonPointers: stringList(o.jsonPointers, `${key}.jsonPointers`, origin),
    jqPathExpressions: stringList(o.jqPathExpressions, `${key}.jqPathExpressions`, origin),
    managedFieldsManagers: stringList(o.managedFieldsManagers, `${key}.managedFieldsManagers`, origin),
    source: `${origin} ${key}`,
  };
}

function filtered(text: string | undefined, key: string, origin: string): FilteredResource[] {
  if (text === undefined) return [];
  const v = yamlValue(text, key, origin);
  if (v === null) return [];
  if (!Array.isArray(v)) throw new InputError(`${origin}: ${key} must be a YAML list`);
  return v.map((e, i) => {
    if (!isPlainObject(e)) throw new InputError(`${origin}: ${key}[${i}] must be a map`);
    return {
      apiGroups: stringList(e.apiGroups, `${key}[${i}].apiGroups`, origin),
      kinds: stringList(e.kinds, `${key}[${i}].kinds`, origin),
      clusters: stringList(e.clusters, `${key}[${i}].clusters`, origin),
    };
  });
}

/** Reads argocd-cm's `data`; InputError naming the key on anything Argo CD itself could not read. */
export function parseArgoSettings(data: Readonly<Record<string, string>>, origin: string): ArgoSettings {
  const s = defaultSettings(origin);
  const tm = data['application.resourceTrackingMethod'] ?? '';
  if (tm === 'label' || tm === 'annotation' || tm === 'annotation+label') s.trackingMethod = tm;
  else if (tm !== '')
    s.warnings.push(
      `${origin}: application.resourceTrackingMethod ${JSON.stringify(tm)} is not a tracking method: Argo CD then tracks by annotation, and so does this tool`,
    );
  s.instanceLabelKey = data['application.instanceLabelKey'] || DEFAULT_INSTANCE_LABEL_KEY;
  s.installationID = data.installationID ?? '';

  const overrides = new Map<string, Override>();
  const get = (k: string) => overrides.get(k) ?? (overrides.set(k, {}), overrides.get(k)!);
  // The older form: one YAML map of `group/Kind` to its customizations.
  const block = data[CUSTOMIZATIONS];
  if (block) {
    const v = yamlValue(block, CUSTOMIZATIONS, origin);
    if (v !== null && !isPlainObject(v)) throw new InputError(`${origin}: ${CUSTOMIZATIONS} must be a YAML map of group/Kind`);
    for (const [gk, o] of Object.entries(v ?? {})) {
      if (!isPlainObject(o)) continue;
      const at = `${CUSTOMIZATIONS}["${gk}"]`;
      if (o.ignoreDifferences !== undefined) {
        const text = typeof o.ignoreDifferences === 'string' ? yamlValue(o.ignoreDifferences, `${at}.ignoreDifferences`, origin) : o.ignoreDifferences;
        get(gk).ignore = ignoreOf(text, `${at}.ignoreDifferences`, origin);
      }
      if (typeof o['health.lua'] === 'string') get(gk).health = { script: o['health.lua'], source: `${origin} ${at}["health.lua"]` };
      if (typeof o['health.lua.useOpenLibs'] === 'boolean') get(gk).useOpenLibs = o['health.lua.useOpenLibs'];
      if (o.knownTypeFields !== undefined) get(gk).known = knownTypeFieldsOf(o.knownTypeFields, `${at}.knownTypeFields`, origin, s.warnings);
    }
  }
  // The split keys: resource.customizations.<type>.<group_kind>, `all` for every kind.
  for (const key of Object.keys(data).sort()) {
    if (!key.startsWith(CUSTOMIZATIONS)) continue;
    const parts = key.split('.');
    if (parts.length < 4) continue;
    const type = parts[2]!;
    const rest = parts.slice(3).join('.');
    let gk = overrideKey(rest, key, origin);
    if (gk === 'all') gk = '*/*';
    const value = data[key] ?? '';
    switch (type) {
      case 'health':
        get(gk).health = { script: value, source: `${origin} ${key}` };
        break;
      case 'useOpenLibs':
        if (!['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value))
          throw new InputError(`${origin}: ${key}: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
        get(gk).useOpenLibs = ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value);
        break;
      case 'ignoreDifferences':
        get(gk).ignore = ignoreOf(yamlValue(value, key, origin), key, origin);
        break;
      case 'actions':
      case 'ignoreResourceUpdates':
        // Resource actions (run from Argo CD's UI) and what refreshes its cache: nothing a comparison or a sync reads.
        break;
      case 'knownTypeFields':
        get(gk).known = knownTypeFieldsOf(yamlValue(value, key, origin), key, origin, s.warnings);
        break;
      default:
        throw new InputError(`${origin}: ${key}: resource customization type ${type} not supported`);
    }
  }

  const co = data['resource.compareoptions'];
  if (co !== undefined) {
    const v = yamlValue(co, 'resource.compareoptions', origin);
    if (v !== null && !isPlainObject(v)) throw new InputError(`${origin}: resource.compareoptions must be a YAML map`);
    const o = v ?? {};
    if (o.ignoreAggregatedRoles !== undefined) s.compareOptions.ignoreAggregatedRoles = o.ignoreAggregatedRoles === true;
    if (o.ignoreResourceStatusField !== undefined)
      s.compareOptions.ignoreResourceStatusField = o.ignoreResourceStatusField === false ? 'false' : String(o.ignoreResourceStatusField);
  }
  // Argo CD adds a `/status` ignore rule for `all` (and for an empty value) or for CRDs only (`crd`), none for `none`,
  // `off` and `false`, and for any other value the rule for all (settings.go GetResourceOverrides: "Unrecognized value
  // for ignoreResourceStatusField …, ignore status for all resources").
  const status = s.compareOptions.ignoreResourceStatusField;
  if (status === '') s.compareOptions.ignoreResourceStatusField = 'all';
  else if (['off', 'false'].includes(status)) s.compareOptions.ignoreResourceStatusField = 'none';
  else if (!['all', 'crd', 'none'].includes(status)) {
    s.warnings.push(
      `${origin}: resource.compareoptions ignoreResourceStatusField: ${JSON.stringify(status)} is not all, crd or none: as in Argo CD, the status of every resource is ignored`,
    );
    s.compareOptions.ignoreResourceStatusField = 'all';
  }

  if (s.compareOptions.ignoreResourceStatusField === 'crd') s.overrideKeys.add('apiextensions.k8s.io/CustomResourceDefinition');
  for (const [gk, o] of [...overrides].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const [group, kind] = splitOverrideKey(gk);
    s.overrideKeys.add(group === '' ? kind : `${group}/${kind}`);
    if (o.ignore && o.ignore.jsonPointers.length + o.ignore.jqPathExpressions.length + o.ignore.managedFieldsManagers.length > 0) {
      s.ignoreDifferences.push({
        group,
        kind,
        jsonPointers: o.ignore.jsonPointers,
        jqPathExpressions: o.ignore.jqPathExpressions,
        managedFieldsManagers: o.ignore.managedFieldsManagers,
        source: o.ignore.source,
      });
    }
    if (o.known && o.known.length > 0) s.knownTypeFields.set(gk.includes('/') ? gk : `/${gk}`, o.known);
    if (o.health && gk !== '*/*')
      s.health.set(gk.includes('/') ? gk : `/${gk}`, { script: o.health.script, useOpenLibs: o.useOpenLibs ?? false, source: o.health.source });
  }
  s.kustomize = kustomizeSettings(data, origin);
  const schemes = data['helm.valuesFileSchemes'];
  if (schemes !== undefined)
    s.helmValuesFileSchemes = schemes
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  s.impersonation = ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(data['application.sync.impersonation.enabled'] ?? '');
  const sensitive = (data['resource.sensitive.mask.annotations'] ?? '').replace(/ /g, '');
  if (sensitive !== '') s.sensitiveAnnotations = new Set(sensitive.split(',').filter((k) => k !== ''));
  const said: string[] = [];
  s.reconciliation = {
    timeoutMs: reconciliationDuration(data, 'timeout.reconciliation', DEFAULT_RECONCILIATION.timeoutMs, origin, said),
    jitterMs: reconciliationDuration(data, 'timeout.reconciliation.jitter', DEFAULT_RECONCILIATION.jitterMs, origin, said),
    warnings: said,
  };
  s.exclusions = filtered(data['resource.exclusions'], 'resource.exclusions', origin);
  s.inclusions = filtered(data['resource.inclusions'], 'resource.inclusions', origin);
  return s;
}

/**
 * A duration of argocd-cm as Argo CD's controller reads it (env.ParseDurationFromEnv, then `int64(d.Seconds())`): unset
 * or empty, the default; a Go duration or a number of days (`1d`), cut to whole seconds (`1500ms` is 1 s); not a
 * duration, or negative, the default with a warning.
 */
function reconciliationDuration(data: Readonly<Record<string, string>>, key: string, fallback: number, origin: string, warnings: string[]): number {
  const text = data[key];
  if (text === undefined || text === '') return fallback;
  const ms = argoEnvDurationMs(text);
  if (ms !== undefined && ms >= 0) return Math.trunc(ms / 1000) * 1000;
  const why = ms === undefined ? 'is not a duration (e.g. 180s, 3m)' : 'is negative';
  warnings.push(`${origin}: ${key}: "${text}" ${why}, so ${fallback / 1000}s is used, as Argo CD's controller would`);
  return fallback;
}

/** `kustomize.buildOptions` and the named binaries; a version named twice is an error, as Argo CD's. */
function kustomizeSettings(data: Readonly<Record<string, string>>, origin: string): KustomizeSettings {
  const out: KustomizeSettings = { versions: new Map() };
  const options = data['kustomize.buildOptions'];
  if (options !== undefined) out.buildOptions = options;
  for (const key of Object.keys(data).sort()) {
    const prefix = ['kustomize.version.', 'kustomize.path.'].find((p) => key.startsWith(p));
    if (!prefix) continue;
    const version = key.slice(prefix.length);
    if (out.versions.has(version)) throw new InputError(`${origin}: ${key}: found duplicate kustomize version: ${version}`);
    out.versions.set(version, data[key] ?? '');
  }
  return out;
}

/** Argo CD's own exclusions, always in force: events, metrics and leases. */
const CORE_EXCLUSIONS: FilteredResource[] = [
  { apiGroups: ['events.k8s.io', 'metrics.k8s.io'], kinds: [], clusters: [] },
  { apiGroups: [''], kinds: ['Event'], clusters: [] },
  { apiGroups: ['coordination.k8s.io'], kinds: ['Lease'], clusters: [] },
];

function matchCluster(r: FilteredResource, cluster: string): boolean {
  return r.clusters.length === 0 || r.clusters.some((c) => globMatch(c, cluster));
}

function matches(r: FilteredResource, group: string, kind: string, cluster: string): boolean {
  return (
    (r.apiGroups.length === 0 || r.apiGroups.some((g) => globMatch(g, group))) &&
    (r.kinds.length === 0 || r.kinds.some((k) => k === '*' || k === kind)) &&
    matchCluster(r, cluster)
  );
}

/**
 * ResourcesFilter.IsExcludedResource: excluded wins; then included; inclusions for the cluster exclude the rest. The
 * answer is kept per settings object and group, kind and cluster: it is asked for every desired object and every
 * listed type, and the rules (Argo CD's default exclusions are a few dozen globs) give the same answer each time.
 */
export function isExcludedResource(s: Pick<ArgoSettings, 'exclusions' | 'inclusions'>, group: string, kind: string, cluster: string): boolean {
  let known = EXCLUDED.get(s);
  if (!known) EXCLUDED.set(s, (known = new Map()));
  const key = `${group}\u0000${kind}\u0000${cluster}`;
  let out = known.get(key);
  if (out === undefined) {
    out = excludedByRules(s, group, kind, cluster);
    known.set(key, out);
  }
  return out;
}

const EXCLUDED = new WeakMap<object, Map<string, boolean>>();

function excludedByRules(s: Pick<ArgoSettings, 'exclusions' | 'inclusions'>, group: string, kind: string, cluster: string): boolean {
  if (CORE_EXCLUSIONS.some((r) => matches(r, group, kind, cluster)) || s.exclusions.some((r) => matches(r, group, kind, cluster))) return true;
  if (s.inclusions.some((r) => matches(r, group, kind, cluster))) return false;
  return s.inclusions.some((r) => matchCluster(r, cluster));
}
