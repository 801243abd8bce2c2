// The check template/patch.go applyTemplatePatch makes before it merges a templatePatch: `json.Unmarshal` of the
// patch's JSON into an `argoappsv1.Application`, which refuses a value whose JSON type its Go field cannot hold. Pure.
//
// Described, after Argo CD v3.2.11's pkg/apis/application/v1alpha1/types.go and apimachinery v0.34's ObjectMeta and
// TypeMeta: Application (apiVersion, kind, metadata, spec; status and operation only as objects, none of their fields), ObjectMeta (name, generateName,
// namespace, selfLink, uid, resourceVersion, generation, deletionGracePeriodSeconds, labels, annotations, finalizers;
// not creationTimestamp, deletionTimestamp, ownerReferences, managedFields), and every field of ApplicationSpec,
// ApplicationSource (and ApplicationSources), ApplicationSourceHelm, HelmParameter, HelmFileParameter,
// ApplicationSourceKustomize, KustomizeReplica, KustomizePatch, KustomizeSelector, ApplicationSourceDirectory,
// ApplicationSourceJsonnet, JsonnetVar, ApplicationSourcePlugin, EnvEntry, ApplicationSourcePluginParameter,
// ApplicationDestination, SyncPolicy, SyncPolicyAutomated, RetryStrategy, Backoff, ManagedNamespaceMetadata,
// ResourceIgnoreDifferences, Info, SourceHydrator, DrySource, SyncSource and HydrateTo. A field not described is not
// checked, as Go ignores a key it has no field for.
//
// Go's encoding/json rules, as followed here: null is taken by every field (it leaves the zero value); a string field
// takes only a string, a bool only a bool, an int only a number that is a whole number in range (`number 1.5` names
// the number); a slice takes an array (each element checked), a map an object (each value checked), a struct an object
// (its keys matched to fields exactly, else case-insensitively; other keys skipped). Each refusal is saved and the
// decoding goes on; the first one saved is the error, unless a field with its own UnmarshalJSON fails, which stops the
// decoding and is the error whatever was saved before (intstr.IntOrString: a string, else an int32). A
// runtime.RawExtension (helm.valuesObject) takes anything. A number a JSON-text patch writes as `3.0` or `1e3` is
// refused by Go for an int field (its text is not an integer); here it is read as the number it is, and taken.

type GoType =
  | { kind: 'string'; name?: string }
  | { kind: 'bool' }
  | { kind: 'int64' }
  | { kind: 'intOrString' }
  | { kind: 'any' }
  | { kind: 'slice'; name: string; elem: GoType }
  | { kind: 'map'; name: string; elem: GoType }
  | { kind: 'struct'; name: string; pkg: string; fields: GoField[] };

/** A struct field: its JSON name, its type, and the embedded structs it is promoted through (Go names them in errors). */
interface GoField {
  json: string;
  type: GoType;
  via?: string[];
}

const STRING: GoType = { kind: 'string' };
const BOOL: GoType = { kind: 'bool' };
const INT64: GoType = { kind: 'int64' };
const STRINGS: GoType = { kind: 'slice', name: '[]string', elem: STRING };
const STRING_MAP: GoType = { kind: 'map', name: 'map[string]string', elem: STRING };

const struct = (name: string, fields: Record<string, GoType>, pkg = 'v1alpha1'): GoType & { kind: 'struct' } => ({
  kind: 'struct',
  name,
  pkg,
  fields: Object.entries(fields).map(([json, type]) => ({ json, type })),
});
const sliceOf = (elem: GoType, name?: string): GoType => ({ kind: 'slice', name: name ?? `[]${typeText(elem)}`, elem });
const strings = (...names: string[]): Record<string, GoType> => Object.fromEntries(names.map((n) => [n, STRING]));
const bools = (...names: string[]): Record<string, GoType> => Object.fromEntries(names.map((n) => [n, BOOL]));

const OBJECT_META = struct(
  'ObjectMeta',
  {
    ...strings('name', 'generateName', 'namespace', 'selfLink'),
    uid: { kind: 'string', name: 'types.UID' },
    resourceVersion: STRING,
    generation: INT64,
    deletionGracePeriodSeconds: INT64,
    labels: STRING_MAP,
    annotations: STRING_MAP,
    finalizers: STRINGS,
  },
  'v1',
);

const HELM = struct('ApplicationSourceHelm', {
  valueFiles: STRINGS,
  parameters: sliceOf(struct('HelmParameter', { ...strings('name', 'value'), forceString: BOOL })),
  releaseName: STRING,
  values: STRING,
  fileParameters: sliceOf(struct('HelmFileParameter', strings('name', 'path'))),
  version: STRING,
  ...bools('passCredentials', 'ignoreMissingValueFiles', 'skipCrds'),
  valuesObject: { kind: 'any' },
  ...strings('namespace', 'kubeVersion'),
  apiVersions: STRINGS,
  ...bools('skipTests', 'skipSchemaValidation'),
});

const KUSTOMIZE_SELECTOR = struct('KustomizeSelector', strings('annotationSelector', 'labelSelector'));
KUSTOMIZE_SELECTOR.fields.unshift(
  ...['group', 'version', 'kind'].map((json) => ({ json, type: STRING, via: ['KustomizeResId', 'KustomizeGvk'] })),
  ...['name', 'namespace'].map((json) => ({ json, type: STRING, via: ['KustomizeResId'] })),
);

const KUSTOMIZE = struct('ApplicationSourceKustomize', {
  ...strings('namePrefix', 'nameSuffix'),
  images: sliceOf({ kind: 'string', name: 'v1alpha1.KustomizeImage' }, 'v1alpha1.KustomizeImages'),
  commonLabels: STRING_MAP,
  version: STRING,
  commonAnnotations: STRING_MAP,
  ...bools('forceCommonLabels', 'forceCommonAnnotations'),
  namespace: STRING,
  commonAnnotationsEnvsubst: BOOL,
  replicas: sliceOf(struct('KustomizeReplica', { name: STRING, count: { kind: 'intOrString' } }), 'v1alpha1.KustomizeReplicas'),
  patches: sliceOf(
    struct('KustomizePatch', {
      ...strings('path', 'patch'),
      target: KUSTOMIZE_SELECTOR,
      options: { kind: 'map', name: 'map[string]bool', elem: BOOL },
    }),
    'v1alpha1.KustomizePatches',
  ),
  components: STRINGS,
  ...bools('ignoreMissingComponents', 'labelWithoutSelector'),
  kubeVersion: STRING,
  apiVersions: STRINGS,
  labelIncludeTemplates: BOOL,
});

const JSONNET_VAR = struct('JsonnetVar', { ...strings('name', 'value'), code: BOOL });
const DIRECTORY = struct('ApplicationSourceDirectory', {
  recurse: BOOL,
  jsonnet: struct('ApplicationSourceJsonnet', { extVars: sliceOf(JSONNET_VAR), tlas: sliceOf(JSONNET_VAR), libs: STRINGS }),
  ...strings('exclude', 'include'),
});

const PLUGIN_PARAMETER = struct('ApplicationSourcePluginParameter', strings('name', 'string'));
PLUGIN_PARAMETER.fields.push({ json: 'map', type: STRING_MAP, via: ['OptionalMap'] }, { json: 'array', type: STRINGS, via: ['OptionalArray'] });
const PLUGIN = struct('ApplicationSourcePlugin', {
  name: STRING,
  env: sliceOf(struct('EnvEntry', strings('name', 'value')), 'v1alpha1.Env'),
  parameters: sliceOf(PLUGIN_PARAMETER, 'v1alpha1.ApplicationSourcePluginParameters'),
});

const SOURCE = struct('ApplicationSource', {
  ...strings('repoURL', 'path', 'targetRevision'),
  helm: HELM,
  kustomize: KUSTOMIZE,
  directory: DIRECTORY,
  plugin: PLUGIN,
  ...strings('chart', 'ref', 'name'),
});

const SYNC_POLICY = struct('SyncPolicy', {
  automated: struct('SyncPolicyAutomated', bools('prune', 'selfHeal', 'allowEmpty', 'enabled')),
  syncOptions: sliceOf(STRING, 'v1alpha1.SyncOptions'),
  retry: struct('RetryStrategy', {
    limit: INT64,
    backoff: struct('Backoff', { duration: STRING, factor: INT64, maxDuration: STRING }),
    refresh: BOOL,
  }),
  managedNamespaceMetadata: struct('ManagedNamespaceMetadata', { labels: STRING_MAP, annotations: STRING_MAP }),
});

const SPEC = struct('ApplicationSpec', {
  source: SOURCE,
  destination: struct('ApplicationDestination', strings('server', 'namespace', 'name')),
  project: STRING,
  syncPolicy: SYNC_POLICY,
  ignoreDifferences: sliceOf(
    struct('ResourceIgnoreDifferences', {
      ...strings('group', 'kind', 'name', 'namespace'),
      jsonPointers: STRINGS,
      jqPathExpressions: STRINGS,
      managedFieldsManagers: STRINGS,
    }),
    'v1alpha1.IgnoreDifferences',
  ),
  info: sliceOf(struct('Info', strings('name', 'value'))),
  revisionHistoryLimit: INT64,
  sources: sliceOf(SOURCE, 'v1alpha1.ApplicationSources'),
  sourceHydrator: struct('SourceHydrator', {
    drySource: struct('DrySource', strings('repoURL', 'targetRevision', 'path')),
    syncSource: struct('SyncSource', strings('targetBranch', 'path')),
    hydrateTo: struct('HydrateTo', strings('targetBranch')),
  }),
});

const APPLICATION = struct('Application', {
  metadata: OBJECT_META,
  spec: SPEC,
  status: struct('ApplicationStatus', {}),
  operation: struct('Operation', {}),
});
APPLICATION.fields.unshift(...['kind', 'apiVersion'].map((json) => ({ json, type: STRING, via: ['TypeMeta'] })));

/** reflect.Type.String() of a type (a pointer is decoded through, so never named). */
function typeText(t: GoType): string {
  switch (t.kind) {
    case 'string':
      return t.name ?? 'string';
    case 'bool':
    case 'int64':
      return t.kind;
    case 'intOrString':
      return 'intstr.IntOrString';
    case 'any':
      return 'runtime.RawExtension';
    case 'slice':
    case 'map':
      return t.name;
    case 'struct':
      return `${t.pkg}.${t.name}`;
  }
}

/** The JSON type of a parsed value, as Go's UnmarshalTypeError names it. */
function jsonKind(v: unknown): 'string' | 'number' | 'bool' | 'array' | 'object' {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

const isWhole = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;

interface Context {
  struct: string;
  path: string[];
}

class Stop {
  constructor(readonly message: string) {}
}

/**
 * Go's `json.Unmarshal(patch, &argoappsv1.Application{})` on a parsed patch, in the key order of its JSON text (sorted
 * when that text is YAMLToJSON's): the error it returns (`json: cannot unmarshal …`), or undefined when it takes it.
 */
export function applicationUnmarshalError(patch: unknown, sortedKeys: boolean): string | undefined {
  const entries = (o: Record<string, unknown>) => (sortedKeys ? Object.keys(o).sort(byBytes) : Object.keys(o)).map((k) => [k, o[k]] as const);
  let saved: string | undefined;
  const refuse = (value: string, t: GoType, ctx: Context | undefined) =>
    ctx === undefined
      ? `json: cannot unmarshal ${value} into Go value of type ${typeText(t)}`
      : `json: cannot unmarshal ${value} into Go struct field ${ctx.struct}.${ctx.path.join('.')} of type ${typeText(t)}`;
  const save = (value: string, t: GoType, ctx: Context | undefined) => {
    saved ??= refuse(value, t, ctx);
  };
  const decode = (v: unknown, t: GoType, ctx: Context | undefined): void => {
    if (v === null || v === undefined) return;
    const kind = jsonKind(v);
    switch (t.kind) {
      case 'any':
        return;
      case 'string':
      case 'bool':
        if (kind !== (t.kind === 'string' ? 'string' : 'bool')) save(kind, t, ctx);
        return;
      case 'int64':
        if (kind !== 'number') save(kind, t, ctx);
        else if (!isWhole(v as number, -(2 ** 63), 2 ** 63 - 1)) save(`number ${String(v)}`, t, ctx);
        return;
      case 'intOrString':
        // its UnmarshalJSON: a string, else json.Unmarshal into its int32, whose error gets this field's context
        if (kind === 'string') return;
        if (kind !== 'number') throw new Stop(refuse(kind, { kind: 'string', name: 'int32' }, ctx));
        if (!isWhole(v as number, -(2 ** 31), 2 ** 31 - 1)) throw new Stop(refuse(`number ${String(v)}`, { kind: 'string', name: 'int32' }, ctx));
        return;
      case 'slice':
        if (kind !== 'array') save(kind, t, ctx);
        else for (const item of v as unknown[]) decode(item, t.elem, ctx);
        return;
      case 'map':
        if (kind !== 'object') save(kind, t, ctx);
        else for (const [, item] of entries(v as Record<string, unknown>)) decode(item, t.elem, ctx);
        return;
      case 'struct':
        if (kind !== 'object') {
          save(kind, t, ctx);
          return;
        }
        for (const [key, value] of entries(v as Record<string, unknown>)) {
          const field = t.fields.find((f) => f.json === key) ?? t.fields.find((f) => f.json.toLowerCase() === key.toLowerCase());
          if (field) decode(value, field.type, { struct: t.name, path: [...(ctx?.path ?? []), ...(field.via ?? []), field.json] });
        }
        return;
    }
  };
  try {
    decode(patch, APPLICATION, undefined);
  } catch (e) {
    if (e instanceof Stop) return e.message;
    throw e;
  }
  return saved;
}

/** Go's order of map keys in its JSON (UTF-16 code units here: the same but for characters beyond U+FFFF). */
const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * A parsed YAML patch as sigs.k8s.io/yaml YAMLToJSON writes it: Go's json.Marshal of maps, so keys sorted, no spaces,
 * and `<`, `>`, `&`, U+2028 and U+2029 escaped as \u003c, \u003e, \u0026, \u2028, \u2029.
 */
export function goJson(v: unknown): string {
  const sorted = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sorted)
      : x !== null && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort(byBytes)
              .map((k) => [k, sorted((x as Record<string, unknown>)[k])]),
          )
        : x;
  return (JSON.stringify(sorted(v)) ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const GO_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

/** Go's %q of a string (strconv.Quote): printable characters kept, the others escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0) as number;
    if (GO_ESCAPES[c] !== undefined) out += GO_ESCAPES[c];
    else if (c === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(c)) out += c;
    else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}
