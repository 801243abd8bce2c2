// An ApplicationSet expanded into its Applications, as Argo CD's ApplicationSet controller makes them
// (applicationset/controllers/template/template.go GenerateApplications, utils.go RenderTemplateParams,
// template/patch.go applyTemplatePatch, and applicationset_controller.go's duplicate-name check). Pure: the generators'
// reads and the Go template engine are handed in.
import { parse as parseYaml } from 'yaml';
import { GeneratorError, type GeneratorInputs, refusedGenerators, RefusedGeneratorError, transform } from './generators.js';
import { applicationUnmarshalError, goJson, goQuote } from './application-types.js';
import { type GoEngine, makeRenderer, type Params, renderDeep, TemplateError } from './template.js';

/** The finalizer Argo CD's controller adds to a generated Application (argoappsv1.ResourcesFinalizerName). */
export const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

export interface ApplicationSetSpec {
  name: string;
  namespace: string;
  goTemplate: boolean;
  goTemplateOptions: string[];
  generators: Record<string, unknown>[];
  template: Record<string, unknown>;
  templatePatch?: string;
  preserveResourcesOnDeletion: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads an ApplicationSet object; a message (for an InputError naming the file) when it is not one. */
export function parseApplicationSet(obj: unknown, defaultNamespace: string): ApplicationSetSpec | string {
  if (!isObject(obj)) return 'not an object';
  if (obj.kind !== 'ApplicationSet' || typeof obj.apiVersion !== 'string' || !obj.apiVersion.startsWith('argoproj.io/'))
    return `expected kind ApplicationSet (argoproj.io/v1alpha1), got ${JSON.stringify(obj.kind)} ${JSON.stringify(obj.apiVersion)}`;
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  const spec = isObject(obj.spec) ? obj.spec : undefined;
  if (!spec) return 'spec is missing';
  if (!Array.isArray(spec.generators) || !spec.generators.every(isObject)) return 'spec.generators must be a list of generators';
  if (spec.template !== undefined && !isObject(spec.template)) return 'spec.template must be an object';
  if (spec.templatePatch !== undefined && typeof spec.templatePatch !== 'string') return 'spec.templatePatch must be a string';
  const opts = spec.goTemplateOptions;
  if (opts !== undefined && (!Array.isArray(opts) || !opts.every((o) => typeof o === 'string'))) return 'spec.goTemplateOptions must be a list of strings';
  const syncPolicy = isObject(spec.syncPolicy) ? spec.syncPolicy : {};
  return {
    name: typeof meta.name === 'string' ? meta.name : '',
    namespace: typeof meta.namespace === 'string' && meta.namespace !== '' ? meta.namespace : defaultNamespace,
    goTemplate: spec.goTemplate === true,
    goTemplateOptions: (opts as string[] | undefined) ?? [],
    generators: spec.generators as Record<string, unknown>[],
    template: (spec.template as Record<string, unknown> | undefined) ?? {},
    ...(typeof spec.templatePatch === 'string' ? { templatePatch: spec.templatePatch } : {}),
    preserveResourcesOnDeletion: syncPolicy.preserveResourcesOnDeletion === true,
  };
}

export interface GenerateResult {
  applications: Record<string, unknown>[];
  /** Applications the controller would not write (`namespace/name`), with its message. */
  invalid: { name: string; error: string }[];
}

/** The Application a template makes before rendering (GetTempApplication): the template's metadata fields and spec. */
function tempApplication(template: Record<string, unknown>): Record<string, unknown> {
  const meta = isObject(template.metadata) ? template.metadata : {};
  const metadata: Record<string, unknown> = {};
  for (const k of ['name', 'namespace', 'labels', 'annotations', 'finalizers']) if (meta[k] !== undefined && meta[k] !== null) metadata[k] = meta[k];
  return { metadata, spec: isObject(template.spec) ? template.spec : {} };
}

/** What an error of the expansion is: a refusal (exit 4) or a wrong ApplicationSet (exit 2). */
export { GeneratorError, RefusedGeneratorError, TemplateError };

/**
 * The Applications of an ApplicationSet, in the controller's order: generator by generator, parameter set by parameter
 * set; each rendered from the (generator's or the ApplicationSet's) template, given the resources finalizer unless it
 * has finalizers or the ApplicationSet preserves resources on deletion, patched by templatePatch, put in the
 * ApplicationSet's namespace. Applications of a name made twice are left out and listed as invalid, as the controller
 * leaves them out (and says so in the ApplicationSet's ErrorOccurred condition).
 */
export async function generateApplications(appset: ApplicationSetSpec, inputs: GeneratorInputs, engine: GoEngine | undefined): Promise<GenerateResult> {
  const refused = refusedGenerators(appset.generators);
  if (refused.length > 0) throw new RefusedGeneratorError(refused[0] as string);
  const render = makeRenderer(appset.goTemplate, appset.goTemplateOptions, engine);
  const ctx = { goTemplate: appset.goTemplate, render, inputs };
  const jobs: { template: Record<string, unknown>; params: Params }[] = [];
  for (const entry of appset.generators)
    for (const t of await transform(entry, appset.template, ctx)) for (const p of t.params) jobs.push({ template: t.template, params: p });
  // One batch per distinct template (usually one): every string of every Application at once.
  const apps: Record<string, unknown>[] = new Array(jobs.length);
  const untouched = new Set<number>();
  const byTemplate = new Map<Record<string, unknown>, number[]>();
  jobs.forEach((j, i) => {
    const list = byTemplate.get(j.template) ?? [];
    list.push(i);
    byTemplate.set(j.template, list);
  });
  for (const [template, indexes] of byTemplate) {
    const temp = tempApplication(template);
    const withParams = indexes.filter((i) => Object.keys((jobs[i] as { params: Params }).params).length > 0);
    const rendered = await renderDeep(
      temp,
      withParams.map((i) => (jobs[i] as { params: Params }).params),
      render,
    );
    withParams.forEach((i, k) => (apps[i] = rendered[k] as Record<string, unknown>));
    // RenderTemplateParams returns the template untouched (no finalizer either) for an empty parameter set
    for (const i of indexes)
      if (!withParams.includes(i)) {
        apps[i] = structuredClone(temp);
        untouched.add(i);
      }
  }
  for (const [i, app] of apps.entries()) {
    if (untouched.has(i)) continue;
    const metadata = app.metadata as Record<string, unknown>;
    const finalizers = metadata.finalizers;
    if (!appset.preserveResourcesOnDeletion && (!Array.isArray(finalizers) || finalizers.length === 0)) metadata.finalizers = [RESOURCES_FINALIZER];
  }
  if (appset.templatePatch !== undefined) {
    const patches = await render(jobs.map((j) => ({ text: appset.templatePatch as string, params: j.params })));
    apps.forEach((app, i) => (apps[i] = applyTemplatePatch(app, patches[i] as string)));
  }
  const out = apps.map((app) => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    ...asWritten({ metadata: { ...(app.metadata as Record<string, unknown>), namespace: appset.namespace }, spec: app.spec }),
  }));
  // validateGeneratedApplications: a name made twice is an error of that name, and the controller's validApps then
  // leaves out every Application of that name (they share the qualified name the error is keyed by); the rest are written.
  const count = new Map<string, number>();
  const nameOf = (a: { metadata: Record<string, unknown> }) => String(a.metadata.name ?? '');
  for (const a of out) count.set(nameOf(a), (count.get(nameOf(a)) ?? 0) + 1);
  const invalid = [...count]
    .filter(([, n]) => n > 1)
    .map(([name]) => ({ name: `${appset.namespace}/${name}`, error: `ApplicationSet ${appset.name} contains applications with duplicate name: ${name}` }));
  return { applications: out.filter((a) => (count.get(nameOf(a)) ?? 0) < 2), invalid };
}

/** Fields of the Application's Go types whose JSON is a map (`omitempty`: an empty one is left out; its values are kept as they are). */
const MAP_FIELDS = new Set(['labels', 'annotations', 'commonLabels', 'commonAnnotations', 'options']);
/** Fields kept whatever they hold: pointers to scalars (a zero is not nil), raw JSON, a plugin parameter's value forms. */
const KEPT_FIELDS = new Set(['revisionHistoryLimit', 'enabled', 'factor', 'valuesObject', 'string', 'map', 'array']);
/** Fields without `omitempty`, by their parent's path (`[]` for a list item): always written, their zero value when absent. */
const REQUIRED: Record<string, Record<string, unknown>> = {
  spec: { destination: {}, project: '' },
  'spec.source': { repoURL: '' },
  'spec.sources[]': { repoURL: '' },
  'spec.source.directory': { jsonnet: {} },
  'spec.sources[].directory': { jsonnet: {} },
  'spec.ignoreDifferences[]': { kind: '' },
  'spec.info[]': { name: '', value: '' },
  'spec.sourceHydrator': { drySource: {}, syncSource: {} },
  'spec.sourceHydrator.drySource': { repoURL: '', targetRevision: '', path: '' },
  'spec.sourceHydrator.syncSource': { targetBranch: '', path: '' },
  'spec.sourceHydrator.hydrateTo': { targetBranch: '' },
};
/** Required fields of list items under any source (plugin env, Jsonnet variables, Kustomize replicas), by the list's name. */
const REQUIRED_ITEM: Record<string, Record<string, unknown>> = {
  env: { name: '', value: '' },
  extVars: { name: '', value: '' },
  tlas: { name: '', value: '' },
  replicas: { name: '', count: 0 },
};

const isZero = (v: unknown): boolean => v === null || v === undefined || v === false || v === '' || v === 0 || (Array.isArray(v) && v.length === 0);

/**
 * The Application as the controller writes it: it encodes a typed Application with Go's encoding/json
 * (pkg/apis/application/v1alpha1/types.go), so a field tagged `omitempty` holding its zero value (`false`, `""`, `0`,
 * an empty list or map, null) is left out, a pointer to a struct is kept even when empty (`syncPolicy: {}`), a field
 * without `omitempty` is always written (`project`, `destination`, a source's `repoURL`), and a source's
 * `directory.jsonnet` is a struct rather than a pointer, so every `directory` has one (`{}` when the template gave
 * none); then normalized as the controller normalizes it before writing (normalizeSpec). Found by
 * test/conformance/appset.test.ts.
 */
export function asWritten(app: { metadata: Record<string, unknown>; spec: unknown }): { metadata: Record<string, unknown>; spec: unknown } {
  return { metadata: encodeObject(app.metadata, 'metadata', ''), spec: normalizeSpec(encodeObject(isObject(app.spec) ? app.spec : {}, 'spec', '')) };
}

/** Kustomize fields its IsZero does not look at: a kustomize holding only these is nil'ed out. */
const KUSTOMIZE_NOT_COUNTED = new Set([
  'forceCommonLabels',
  'forceCommonAnnotations',
  'commonAnnotationsEnvsubst',
  'labelWithoutSelector',
  'labelIncludeTemplates',
]);

/**
 * util/argo NormalizeApplicationSpec, which the controller applies to each Application before it writes it
 * (createOrUpdateInCluster): an empty project is `default`; a sync policy without automated, syncOptions, retry and
 * managedNamespaceMetadata is dropped; in `source` (not in `sources`: its loop normalizes copies), a zero `kustomize`
 * or `helm` is dropped and a `directory` without `recurse` and Jsonnet options keeps only `include`/`exclude`, or is
 * dropped. The spec given is already encoded (zero values left out).
 */
export function normalizeSpec(spec: Record<string, unknown>): Record<string, unknown> {
  const out = { ...spec };
  if (out.project === '') out.project = 'default';
  const sp = out.syncPolicy;
  if (isObject(sp) && sp.automated === undefined && sp.syncOptions === undefined && sp.retry === undefined && sp.managedNamespaceMetadata === undefined)
    delete out.syncPolicy;
  const sources = out.sources;
  if ((!Array.isArray(sources) || sources.length === 0) && isObject(out.source)) {
    const source = { ...out.source };
    if (isObject(source.kustomize) && Object.keys(source.kustomize).every((k) => KUSTOMIZE_NOT_COUNTED.has(k))) delete source.kustomize;
    if (isObject(source.helm) && Object.keys(source.helm).length === 0) delete source.helm;
    const dir = source.directory;
    if (isObject(dir) && dir.recurse !== true && (!isObject(dir.jsonnet) || Object.keys(dir.jsonnet).length === 0)) {
      const kept: Record<string, unknown> = {};
      if (dir.include !== undefined) kept.include = dir.include;
      if (dir.exclude !== undefined) kept.exclude = dir.exclude;
      if (Object.keys(kept).length === 0) delete source.directory;
      else source.directory = { ...kept, jsonnet: {} };
    }
    out.source = source;
  }
  return out;
}

function encodeObject(obj: Record<string, unknown>, path: string, listName: string): Record<string, unknown> {
  const required = { ...(REQUIRED[path] ?? {}), ...(path.endsWith('[]') && /^spec\.(source|sources\[\])\./.test(path) ? (REQUIRED_ITEM[listName] ?? {}) : {}) };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const here = `${path}.${k}`;
    if (KEPT_FIELDS.has(k) && v !== null && v !== undefined) out[k] = v;
    else if (MAP_FIELDS.has(k) && isObject(v)) {
      if (Object.keys(v).length > 0) out[k] = v;
    } else if (Array.isArray(v) && v.length > 0) out[k] = v.map((item) => (isObject(item) ? encodeObject(item, `${here}[]`, k) : item));
    else if (isObject(v)) out[k] = encodeObject(v, here, '');
    else if (!isZero(v)) out[k] = v;
  }
  for (const [k, zero] of Object.entries(required)) if (out[k] === undefined || out[k] === null) out[k] = structuredClone(zero);
  return out;
}

/**
 * YAML 1.1's tags but the two go-yaml v2 does not have for a value it reads into an interface: timestamps
 * (`2001-12-14` stays a string) and sexagesimal numbers (`1:20` stays a string).
 */
const goYaml11Tags = (tags: { tag?: string; format?: string }[]) => tags.filter((t) => t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME');

/**
 * template/patch.go applyTemplatePatch: the rendered patch (JSON when it starts with `{`, else YAML read as go-yaml v2
 * reads it, near enough) must unmarshal into an Application (application-types.ts: a value of the wrong JSON type for its field fails
 * the ApplicationSet, as `invalid templatePatch "<the patch's JSON>": json: cannot unmarshal …`), then is applied as a
 * strategic merge patch; the project cannot be changed by it. The Application's fields merge as a JSON merge patch
 * does (its lists have no merge keys), except metadata.finalizers (`patchStrategy:"merge"`), merged as strategic
 * merge merges a list of primitives (mergeFinalizers).
 */
export function applyTemplatePatch(app: Record<string, unknown>, patchText: string): Record<string, unknown> {
  const isJson = patchText.trim().startsWith('{');
  let patch: unknown;
  try {
    patch = isJson ? JSON.parse(patchText) : parseYaml(patchText, { version: '1.1', customTags: goYaml11Tags as never });
  } catch (e) {
    if (isJson) throw new GeneratorError(`invalid templatePatch ${goQuote(patchText)}: ${(e as Error).message}`);
    throw new GeneratorError(`error while converting template to json: ${(e as Error).message}`);
  }
  const refused = applicationUnmarshalError(patch, !isJson);
  if (refused !== undefined) throw new GeneratorError(`invalid templatePatch ${goQuote(isJson ? patchText : goJson(patch))}: ${refused}`);
  // null (an empty patch) changes nothing; any other value that is not an object was refused above
  if (!isObject(patch)) return app;
  const merge = (base: unknown, p: unknown, path: string): unknown => {
    if (!isObject(p)) return p;
    const out: Record<string, unknown> = isObject(base) ? { ...base } : {};
    for (const [k, v] of Object.entries(p)) {
      const here = path === '' ? k : `${path}.${k}`;
      const was = out[k];
      if (v === null) delete out[k];
      // an empty list is left out of the Application's JSON (omitempty): the patch's list is then taken as it is
      else if (here === 'metadata.finalizers' && Array.isArray(v) && Array.isArray(was) && was.length > 0) out[k] = mergeFinalizers(was, v);
      else out[k] = merge(was, v, here);
    }
    return out;
  };
  const patched = merge(app, patch, '') as Record<string, unknown>;
  const project = (app.spec as Record<string, unknown> | undefined)?.project;
  const spec = isObject(patched.spec) ? { ...patched.spec } : {};
  if (project === undefined) delete spec.project;
  else spec.project = project;
  patched.spec = spec;
  return patched;
}

/**
 * apimachinery v0.34 strategicpatch mergeSlice for a list of primitives (the original's list, then the patch's): both
 * joined and deduplicated by deduplicateScalars, which moves the last element into each duplicate's place; the items
 * the patch has, in the patch's order, and the others, in the original's order (normalizeElementOrder); then
 * mergeSortedSlice: an original-only item goes before the next patch item when both are in the original and it comes
 * first there, else the patch item goes first. So `[b, a]` patched with `[z, a, 0]` is `[z, b, a, 0]`, and
 * `[resources-finalizer…]` patched with `[custom]` is `[custom, resources-finalizer…]`. One quirk kept: the original
 * list is decoded by encoding/json, whose appends leave it room to grow (a capacity of the next power of two, up to 256
 * items; beyond, Go's growth without its size-class rounding); when the
 * patch's items fit there, `append(original, patch...)` shares its array, so the deduplication also rewrites the
 * original the order is then taken from (a template with a finalizer twice).
 */
function mergeFinalizers(original: unknown[], patch: unknown[]): unknown[] {
  let capacity = 1;
  while (capacity < original.length) capacity = capacity < 256 ? capacity * 2 : capacity + Math.floor((capacity + 768) / 4);
  const all = [...original, ...patch];
  let length = all.length - 1;
  for (let i = 0; i < length; i++)
    for (let j = i + 1; j <= length; j++)
      if (all[i] === all[j]) {
        all[j] = all[length];
        length--;
        j--;
      }
  const merged = all.slice(0, length + 1);
  const serverOrder = original.length + patch.length <= capacity ? all.slice(0, original.length) : original;
  const inPatch = new Set(patch);
  const byIndex = (order: unknown[]) => (a: unknown, b: unknown) => order.indexOf(a) - order.indexOf(b);
  const patchItems = merged.filter((v) => inPatch.has(v)).sort(byIndex(patch));
  const serverOnly = merged.filter((v) => !inPatch.has(v)).sort(byIndex(serverOrder));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < patchItems.length) {
    if (j >= patchItems.length) out.push(serverOnly[i++]);
    else if (i >= serverOnly.length) out.push(patchItems[j++]);
    else {
      const li = serverOrder.indexOf(serverOnly[i]);
      const ri = serverOrder.indexOf(patchItems[j]);
      out.push(li >= 0 && ri >= 0 && li < ri ? serverOnly[i++] : patchItems[j++]);
    }
  }
  return out;
}
