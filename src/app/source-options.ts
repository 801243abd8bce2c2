// The rendering options of an Application's source (spec.source.directory / kustomize / helm / plugin / chart), parsed
// into a typed model; which of them can be rendered is decided by src/source/render, not here.
import type { JsonObject, JsonValue } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { InputError } from '../model/errors.js';

/** One Jsonnet top-level argument or external variable; `code: true` values are Jsonnet code, others strings. */
export interface JsonnetVar {
  name: string;
  value: string;
  code: boolean;
}

export interface JsonnetOptions {
  tlas: JsonnetVar[];
  extVars: JsonnetVar[];
  /** Library folders, relative to the repository root. */
  libs: string[];
}

/** spec.source.directory */
export interface DirectoryOptions {
  recurse: boolean;
  /** A glob (Argo CD's syntax) matched against each file's path relative to source.path; '' = every file. */
  include: string;
  exclude: string;
  jsonnet: JsonnetOptions;
}

/** spec.source.kustomize, as Argo CD applies it (edits of a copy of the kustomization before `kustomize build`). */
export interface KustomizeOptions {
  namePrefix: string;
  nameSuffix: string;
  namespace: string;
  images: string[];
  commonLabels: Record<string, string>;
  commonAnnotations: Record<string, string>;
  commonAnnotationsEnvsubst: boolean;
  forceCommonLabels: boolean;
  forceCommonAnnotations: boolean;
  labelWithoutSelector: boolean;
  labelIncludeTemplates: boolean;
  replicas: { name: string; count: number }[];
  /** Kustomize patch entries, appended to the kustomization's `patches` as they are. */
  patches: JsonObject[];
  components: string[];
  ignoreMissingComponents: boolean;
  /** A named kustomize version (argocd-cm kustomize.version.<v>), which this tool has no table of. */
  version: string;
  kubeVersion: string;
  apiVersions: string[];
}

/** One `helm.parameters[]` entry: `--set name=value`, or `--set-string` with forceString. */
export interface HelmParameter {
  name: string;
  value: string;
  forceString: boolean;
}

/** spec.source.helm, as Argo CD turns it into `helm template` arguments (reposerver/repository helmTemplate). */
export interface HelmOptions {
  /** Value files relative to the chart (or `$ref/path` in another source), in order. */
  valueFiles: string[];
  ignoreMissingValueFiles: boolean;
  /** `values` (a YAML string) or `valuesObject` (which wins when both are set), as YAML text; '' = none. */
  values: string;
  parameters: HelmParameter[];
  fileParameters: { name: string; path: string }[];
  releaseName: string;
  /** Overrides the destination namespace for `--namespace`. */
  namespace: string;
  kubeVersion: string;
  apiVersions: string[];
  skipCrds: boolean;
  skipSchemaValidation: boolean;
  skipTests: boolean;
  passCredentials: boolean;
  /** `v3` or ''. */
  version: string;
}

/** The source's rendering options; a key present (even `{}`) counts as an explicit type, as in Argo CD. */
export interface SourceOptions {
  directory?: DirectoryOptions;
  kustomize?: KustomizeOptions;
  /** Present when spec.source.helm is set. */
  helm?: HelmOptions;
  /** Present when spec.source.plugin is set. */
  plugin?: JsonObject;
  /** spec.source.chart: a chart from a Helm repository. */
  chart?: string;
}

type Fail = (field: string, msg: string) => never;

function str(fail: Fail, obj: JsonObject, field: string, at: string): string {
  const v = obj[field];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') fail(`${at}.${field}`, `must be a string, got ${typeof v}`);
  return v;
}

function bool(fail: Fail, obj: JsonObject, field: string, at: string): boolean {
  const v = obj[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') fail(`${at}.${field}`, `must be true or false, got ${JSON.stringify(v)}`);
  return v;
}

function strings(fail: Fail, obj: JsonObject, field: string, at: string): string[] {
  const v = obj[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail(`${at}.${field}`, 'must be a list of strings');
  return v as string[];
}

function stringMap(fail: Fail, obj: JsonObject, field: string, at: string): Record<string, string> {
  const v = obj[field];
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v)) fail(`${at}.${field}`, 'must be a map of strings');
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') fail(`${at}.${field}.${k}`, `must be a string, got ${x === null ? 'null' : typeof x}`);
    out[k] = x;
  }
  return out;
}

function map(fail: Fail, obj: JsonObject, field: string, at: string): JsonObject | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (!isPlainObject(v)) fail(`${at}.${field}`, 'must be a map');
  return v;
}

function jsonnetVars(fail: Fail, obj: JsonObject, field: string, at: string): JsonnetVar[] {
  const v = obj[field];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`${at}.${field}`, 'must be a list');
  return v.map((x, i) => {
    const here = `${at}.${field}[${i}]`;
    if (!isPlainObject(x)) fail(here, 'must be a map with name and value');
    const name = str(fail, x, 'name', here);
    if (name === '') fail(`${here}.name`, 'is required');
    return { name, value: str(fail, x, 'value', here), code: bool(fail, x, 'code', here) };
  });
}

function parseDirectory(fail: Fail, d: JsonObject, at: string): DirectoryOptions {
  const j = map(fail, d, 'jsonnet', at) ?? {};
  const jat = `${at}.jsonnet`;
  return {
    recurse: bool(fail, d, 'recurse', at),
    include: str(fail, d, 'include', at),
    exclude: str(fail, d, 'exclude', at),
    jsonnet: { tlas: jsonnetVars(fail, j, 'tlas', jat), extVars: jsonnetVars(fail, j, 'extVars', jat), libs: strings(fail, j, 'libs', jat) },
  };
}

function replicaCount(fail: Fail, v: JsonValue | undefined, at: string): number {
  // intstr: a number, or a string holding an integer (Argo CD's GetIntCount).
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) return Number(v);
  return fail(`${at}.count`, `expected integer value for count, got ${JSON.stringify(v ?? null)}`);
}

function parseKustomize(fail: Fail, k: JsonObject, at: string): KustomizeOptions {
  const replicasV = k.replicas;
  if (replicasV !== undefined && replicasV !== null && !Array.isArray(replicasV)) fail(`${at}.replicas`, 'must be a list');
  const patchesV = k.patches;
  if (patchesV !== undefined && patchesV !== null && !Array.isArray(patchesV)) fail(`${at}.patches`, 'must be a list');
  return {
    namePrefix: str(fail, k, 'namePrefix', at),
    nameSuffix: str(fail, k, 'nameSuffix', at),
    namespace: str(fail, k, 'namespace', at),
    images: strings(fail, k, 'images', at),
    commonLabels: stringMap(fail, k, 'commonLabels', at),
    commonAnnotations: stringMap(fail, k, 'commonAnnotations', at),
    commonAnnotationsEnvsubst: bool(fail, k, 'commonAnnotationsEnvsubst', at),
    forceCommonLabels: bool(fail, k, 'forceCommonLabels', at),
    forceCommonAnnotations: bool(fail, k, 'forceCommonAnnotations', at),
    labelWithoutSelector: bool(fail, k, 'labelWithoutSelector', at),
    labelIncludeTemplates: bool(fail, k, 'labelIncludeTemplates', at),
    replicas: ((replicasV as JsonValue[] | undefined) ?? []).map((r, i) => {
      const here = `${at}.replicas[${i}]`;
      if (!isPlainObject(r)) fail(here, 'must be a map with name and count');
      const name = str(fail, r, 'name', here);
      if (name === '') fail(`${here}.name`, 'is required');
      return { name, count: replicaCount(fail, r.count, here) };
    }),
    patches: ((patchesV as JsonValue[] | undefined) ?? []).map((p, i) => {
      if (!isPlainObject(p)) fail(`${at}.patches[${i}]`, 'must be a map');
      return p;
    }),
    components: strings(fail, k, 'components', at),
    ignoreMissingComponents: bool(fail, k, 'ignoreMissingComponents', at),
    version: str(fail, k, 'version', at),
    kubeVersion: str(fail, k, 'kubeVersion', at),
    apiVersions: strings(fail, k, 'apiVersions', at),
  };
}

function parseHelm(fail: Fail, h: JsonObject, at: string): HelmOptions {
  const list = (field: string): JsonObject[] => {
    const v = h[field];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) fail(`${at}.${field}`, 'must be a list');
    return v.map((x, i) => {
      if (!isPlainObject(x)) fail(`${at}.${field}[${i}]`, 'must be a map with name and value');
      return x;
    });
  };
  const valuesObject = map(fail, h, 'valuesObject', at);
  const version = str(fail, h, 'version', at);
  if (version !== '' && version !== 'v3') fail(`${at}.version`, `must be v3 (Argo CD renders with Helm 3), got ${JSON.stringify(version)}`);
  return {
    valueFiles: strings(fail, h, 'valueFiles', at),
    ignoreMissingValueFiles: bool(fail, h, 'ignoreMissingValueFiles', at),
    // Any valuesObject wins over values, an empty one too: Helm then gets a values file holding `{}`
    // (ApplicationSourceHelm.ValuesYAML); JSON is YAML, so it is written as JSON.
    values: valuesObject ? JSON.stringify(valuesObject) : str(fail, h, 'values', at),
    parameters: list('parameters').map((p, i) => {
      const here = `${at}.parameters[${i}]`;
      // Argo CD's HelmParameter.value is a string; a YAML number or boolean there is read as its text.
      const raw = p.value;
      const value =
        raw === undefined || raw === null
          ? ''
          : typeof raw === 'string'
            ? raw
            : typeof raw === 'number' || typeof raw === 'boolean'
              ? String(raw)
              : fail(`${here}.value`, 'must be a string');
      return { name: str(fail, p, 'name', here), value, forceString: bool(fail, p, 'forceString', here) };
    }),
    fileParameters: list('fileParameters').map((p, i) => ({
      name: str(fail, p, 'name', `${at}.fileParameters[${i}]`),
      path: str(fail, p, 'path', `${at}.fileParameters[${i}]`),
    })),
    releaseName: str(fail, h, 'releaseName', at),
    namespace: str(fail, h, 'namespace', at),
    kubeVersion: str(fail, h, 'kubeVersion', at),
    apiVersions: strings(fail, h, 'apiVersions', at),
    skipCrds: bool(fail, h, 'skipCrds', at),
    skipSchemaValidation: bool(fail, h, 'skipSchemaValidation', at),
    skipTests: bool(fail, h, 'skipTests', at),
    passCredentials: bool(fail, h, 'passCredentials', at),
    version,
  };
}

/** The rendering options of one source map (`at` is its field path, e.g. `spec.source`); InputError naming the field. */
export function parseSourceOptions(source: JsonObject, at: string, origin: string): SourceOptions {
  const fail: Fail = (field, msg) => {
    throw new InputError(`${origin}: Application ${field}: ${msg}`);
  };
  const out: SourceOptions = {};
  // A key given as null is absent, as Go's JSON decoding leaves the pointer nil.
  const directory = map(fail, source, 'directory', at);
  if (directory) out.directory = parseDirectory(fail, directory, `${at}.directory`);
  const kustomize = map(fail, source, 'kustomize', at);
  if (kustomize) out.kustomize = parseKustomize(fail, kustomize, `${at}.kustomize`);
  const helm = map(fail, source, 'helm', at);
  if (helm) out.helm = parseHelm(fail, helm, `${at}.helm`);
  const plugin = map(fail, source, 'plugin', at);
  if (plugin) out.plugin = plugin;
  const chart = str(fail, source, 'chart', at);
  if (chart !== '') out.chart = chart;
  return out;
}

/** Directory options when none are given: Argo CD's defaults (no recursion, every file). */
export const DEFAULT_DIRECTORY: DirectoryOptions = { recurse: false, include: '', exclude: '', jsonnet: { tlas: [], extVars: [], libs: [] } };
