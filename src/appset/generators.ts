// The generators of an ApplicationSet, each a function over what the workflow reads for it (a Git tree and files, the
// cluster Secrets), as Argo CD's applicationset/generators/*.go make their parameter sets: list.go, cluster.go, git.go,
// matrix.go, merge.go, and generator_spec_processor.go Transform (the `selector` of any generator, a generator's own
// `template`, a matrix child rendered with its sibling's parameters). No I/O here: reads go through GeneratorInputs.
import { posix } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { flatten, flattenToStrings, goString, type LabelSelector, sanitizeName, selectorMatches } from './params.js';
import { type Params, type Renderer, renderDeep } from './template.js';

/** Generators that ask an outside service (an SCM API, a plugin, a duck-typed resource): refused, never skipped. */
const REFUSED_GENERATORS = ['scmProvider', 'pullRequest', 'clusterDecisionResource', 'plugin'] as const;
/** Generators made here, in the order Argo CD's ApplicationSetGenerator struct lists its fields (Transform's order). */
const KNOWN_GENERATORS = ['list', 'clusters', 'git', 'matrix', 'merge'] as const;

export type Generator = Record<string, unknown>;

/** One cluster Secret of Argo CD (label argocd.argoproj.io/secret-type=cluster), as the generator reads it. */
export interface ClusterSecret {
  name: string;
  server: string;
  /** The Secret's own name (metadata.name), for Argo CD's error about it. */
  secretName?: string;
  /** Why the Secret's `config` cannot be read as a ClusterConfig (db.SecretToCluster fails on it), never quoting it. */
  configError?: string;
  project?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

/** What the generators read; the workflow answers (through the Git cache and the gateway). */
export interface GeneratorInputs {
  /** Every file (blob) path of the repository at the revision ('' = HEAD), from the root, `/`-separated, in git's order. */
  gitFiles(repoURL: string, revision: string): Promise<string[]>;
  /** The contents of some of those files. */
  gitRead(repoURL: string, revision: string, paths: readonly string[]): Promise<Map<string, string>>;
  /** The cluster Secrets of the control-plane namespace, in the API's order. */
  clusterSecrets(): Promise<ClusterSecret[]>;
}

/** An ApplicationSet that Argo CD would not expand: its message, as Argo CD words it where it has one. */
export class GeneratorError extends Error {
  override name = 'GeneratorError';
}

/** A generator asking an outside service: named, for the refusal. */
export class RefusedGeneratorError extends Error {
  override name = 'RefusedGeneratorError';
  constructor(readonly generator: string) {
    super(`the ${generator} generator needs a service outside the cluster (Argo CD asks it on every reconcile); kubectl gitops does not call it`);
  }
}

export interface GenerateContext {
  goTemplate: boolean;
  render: Renderer;
  inputs: GeneratorInputs;
}

export interface TransformResult {
  params: Params[];
  /** The generator's own `template`, filled in from the ApplicationSet's (mergo.Merge, the generator's fields win). */
  template: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every refused generator anywhere in a list of generators (nested in matrix and merge too), first first. */
export function refusedGenerators(generators: readonly unknown[]): string[] {
  const found: string[] = [];
  const walk = (g: unknown): void => {
    if (!isObject(g)) return;
    for (const name of REFUSED_GENERATORS) if (g[name] !== undefined && g[name] !== null) found.push(name);
    for (const nest of ['matrix', 'merge'])
      if (isObject(g[nest]) && Array.isArray((g[nest] as Record<string, unknown>).generators))
        ((g[nest] as Record<string, unknown>).generators as unknown[]).forEach(walk);
  };
  generators.forEach(walk);
  return [...new Set(found)];
}

/** mergo.Merge(dst, src) without override: src fills what dst leaves empty, into nested objects. */
export function fillTemplate(dst: unknown, src: unknown): unknown {
  if (isObject(dst) && isObject(src)) {
    const out: Record<string, unknown> = { ...dst };
    for (const [k, v] of Object.entries(src)) out[k] = k in dst ? fillTemplate(dst[k], v) : v;
    return out;
  }
  const empty = dst === undefined || dst === null || dst === '' || dst === 0 || dst === false || (Array.isArray(dst) && dst.length === 0);
  return empty ? src : dst;
}

/**
 * Transform (generator_spec_processor.go): each generator named in one entry makes its parameter sets (rendered first
 * with `genParams` when a matrix hands its first child's parameters to the second), filtered by the entry's `selector`
 * over the flattened parameters.
 */
export async function transform(entry: Generator, baseTemplate: Record<string, unknown>, ctx: GenerateContext, genParams?: Params): Promise<TransformResult[]> {
  const refused = refusedGenerators([entry]);
  if (refused.length > 0) throw new RefusedGeneratorError(refused[0] as string);
  const unknown = Object.keys(entry).filter((k) => !(KNOWN_GENERATORS as readonly string[]).includes(k) && k !== 'selector' && entry[k] != null);
  if (unknown.length > 0)
    throw new GeneratorError(
      `unknown generator ${unknown.map((u) => JSON.stringify(u)).join(', ')} (Argo CD knows ${KNOWN_GENERATORS.join(', ')}, ${REFUSED_GENERATORS.join(', ')})`,
    );
  let interpolated = entry;
  if (genParams !== undefined && Object.keys(genParams).length > 0) interpolated = (await renderDeep(entry, [genParams], ctx.render))[0] as Generator;
  // the selector as written: Transform parses it before the generator is rendered with a sibling's parameters
  const selector = entry.selector as LabelSelector | undefined;
  const out: TransformResult[] = [];
  for (const name of KNOWN_GENERATORS) {
    const spec = interpolated[name];
    if (spec === undefined || spec === null) continue;
    if (!isObject(spec)) throw new GeneratorError(`generator ${name}: expected an object`);
    const template = fillTemplate(isObject(spec.template) ? spec.template : {}, baseTemplate) as Record<string, unknown>;
    let params = await generateOne(name, spec, ctx);
    if (selector) {
      try {
        params = params.filter((p) => selectorMatches(selector, flattenToStrings(p)));
      } catch (e) {
        throw new GeneratorError((e as Error).message);
      }
    }
    out.push({ params, template });
  }
  return out;
}

function generateOne(name: (typeof KNOWN_GENERATORS)[number], spec: Record<string, unknown>, ctx: GenerateContext): Promise<Params[]> {
  switch (name) {
    case 'list':
      return listGenerator(spec, ctx);
    case 'clusters':
      return clustersGenerator(spec, ctx);
    case 'git':
      return gitGenerator(spec, ctx);
    case 'matrix':
      return matrixGenerator(spec, ctx);
    case 'merge':
      return mergeGenerator(spec, ctx);
  }
}

/** list.go: each element as it is (goTemplate), or its string values, `values` flattened to `values.KEY` (default); then elementsYaml. */
async function listGenerator(spec: Record<string, unknown>, ctx: GenerateContext): Promise<Params[]> {
  const elements = Array.isArray(spec.elements) ? spec.elements : [];
  const res: Params[] = elements.map((element, i) => {
    if (!isObject(element)) throw new GeneratorError(`error unmarshling list element ${i}: not an object`);
    if (ctx.goTemplate) return element;
    const params: Params = {};
    for (const [key, value] of Object.entries(element)) {
      if (key === 'values') {
        if (!isObject(value)) throw new GeneratorError('error parsing values map');
        for (const [k, v] of Object.entries(value)) {
          if (typeof v !== 'string') throw new GeneratorError(`error parsing value as string: list element ${i} values.${k}`);
          params[`values.${k}`] = v;
        }
      } else {
        if (typeof value !== 'string')
          throw new GeneratorError(
            `error parsing value as string: list element ${i} key ${JSON.stringify(key)} (without goTemplate, list elements hold strings)`,
          );
        params[key] = value;
      }
    }
    return params;
  });
  if (typeof spec.elementsYaml === 'string' && spec.elementsYaml !== '') {
    let parsed: unknown;
    try {
      parsed = parseYaml(spec.elementsYaml, { version: '1.1' });
    } catch (e) {
      throw new GeneratorError(`error unmarshling decoded ElementsYaml ${(e as Error).message}`);
    }
    if (!Array.isArray(parsed) || !parsed.every(isObject)) throw new GeneratorError('error unmarshling decoded ElementsYaml: expected a list of objects');
    res.push(...(parsed as Params[]));
  }
  return res;
}

/** value_interpolation.go appendTemplatedValues: each of `values` rendered with the parameters, under `values` (goTemplate) or `values.KEY`. */
async function appendValues(values: unknown, paramSets: Params[], ctx: GenerateContext): Promise<Params[]> {
  if (!isObject(values) || Object.keys(values).length === 0) return paramSets;
  const entries = Object.entries(values).map(([k, v]) => [k, goString(v)] as const);
  const rendered = await ctx.render(paramSets.flatMap((params) => entries.map(([, text]) => ({ text, params }))));
  return paramSets.map((params, i) => {
    const out = { ...params };
    const mine = entries.map(([k], j) => [k, rendered[i * entries.length + j] as string] as const);
    if (ctx.goTemplate) out.values = Object.fromEntries(mine);
    else for (const [k, v] of mine) out[`values.${k}`] = v;
    return out;
  });
}

/** cluster.go: the cluster Secrets matching `selector`, and the in-cluster default unless a selector is given. */
async function clustersGenerator(spec: Record<string, unknown>, ctx: GenerateContext): Promise<Params[]> {
  const selector = (isObject(spec.selector) ? spec.selector : {}) as LabelSelector;
  const ignoreLocal = (selector.matchExpressions?.length ?? 0) > 0 || Object.keys(selector.matchLabels ?? {}).length > 0;
  const secrets = await ctx.inputs.clusterSecrets();
  // utils.ListClusters: every Secret as db.SecretToCluster reads it (a config that does not decode fails the generator;
  // the server without its trailing slashes), then in-cluster when no Secret names its address.
  for (const s of secrets)
    if (s.configError !== undefined)
      throw new GeneratorError(
        `error listing clusters: unable to convert cluster secret to cluster object '${s.secretName ?? s.name}': failed to unmarshal cluster config: ${s.configError}`,
      );
  const clusters: { name: string; server: string }[] = secrets.map((s) => ({ name: s.name, server: s.server.replace(/\/+$/, '') }));
  if (!clusters.some((c) => c.server === IN_CLUSTER_SERVER)) clusters.push({ name: 'in-cluster', server: IN_CLUSTER_SERVER });
  // getSecretsByClusterName: the Secrets the selector matches, by their name (a later one of the same name wins)
  const byName = new Map<string, ClusterSecret>();
  for (const s of secrets) {
    let matches: boolean;
    try {
      matches = selectorMatches(selector, s.labels);
    } catch (e) {
      throw new GeneratorError(`error getting cluster secrets: ${(e as Error).message}`);
    }
    if (matches) byName.set(s.name, s);
  }
  const local: Params[] = [];
  const found: ClusterSecret[] = [];
  for (const c of clusters) {
    const secret = byName.get(c.name);
    if (secret) found.push(secret);
    else if (!ignoreLocal) local.push({ name: c.name, nameNormalized: c.name, server: c.server, project: '' });
  }
  const fromSecrets = found.map((s) => {
    const params: Params = { name: s.name, nameNormalized: sanitizeName(s.name), server: s.server, project: s.project ?? '' };
    if (ctx.goTemplate) {
      const meta: Params = {};
      if (Object.keys(s.annotations).length > 0) meta.annotations = s.annotations;
      if (Object.keys(s.labels).length > 0) meta.labels = s.labels;
      params.metadata = meta;
    } else {
      for (const [k, v] of Object.entries(s.annotations)) params[`metadata.annotations.${k}`] = v;
      for (const [k, v] of Object.entries(s.labels)) params[`metadata.labels.${k}`] = v;
    }
    return params;
  });
  const all = await appendValues(spec.values, [...local, ...fromSecrets], ctx);
  return spec.flatList === true ? [{ clusters: all }] : all;
}

/** The in-cluster address (appv1.KubernetesInternalAPIServerAddr). */
export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';

/** Go's path.Match (a `*` stops at `/`); a bad pattern matches nothing (Argo CD logs it and goes on). */
export function pathMatch(pattern: string, name: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i] as string);
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return false;
      let body = pattern.slice(i + 1, end);
      if (body.startsWith('^')) body = `^${body.slice(1)}`;
      re += `(?!/)[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else re += escapeRe(c);
  }
  try {
    return new RegExp(`^${re}$`, 's').test(name);
  } catch {
    return false;
  }
}

const escapeRe = (c: string): string => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/**
 * `git ls-files -- PATTERN` (what the repo-server runs, util/git/client.go LsFiles): a pathspec matching the path
 * itself, a folder it is in, or as a wildmatch in which `*` also crosses `/`.
 */
export function pathspecMatch(pattern: string, path: string): boolean {
  const p = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  if (p === '' || p === '.') return true;
  if (path === p || path.startsWith(`${p}/`)) return true;
  if (!/[*?[]/.test(p)) return false;
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const end = p.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = p.slice(i + 1, end);
        if (body.startsWith('!')) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += escapeRe(c);
  }
  return new RegExp(`^${re}$`, 's').test(path);
}

/** Every folder of a tree's files, without the root and without hidden folders (and what is under them), sorted as Go's WalkDir visits them. */
export function treeDirectories(files: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) {
      if ((parts[i - 1] as string).startsWith('.')) break;
      dirs.add(parts.slice(0, i).join('/'));
    }
  }
  // WalkDir: lexical order within a folder, a folder before its contents
  return [...dirs].sort((a, b) => {
    const pa = a.split('/');
    const pb = b.split('/');
    for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return (pa[i] as string) < (pb[i] as string) ? -1 : 1;
    return pa.length - pb.length;
  });
}

interface PathItem {
  path: string;
  exclude?: boolean;
}

function pathItems(v: unknown, what: string): PathItem[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x) => isObject(x) && typeof x.path === 'string'))
    throw new GeneratorError(`git.${what}: expected a list of {path, exclude}`);
  return v as PathItem[];
}

/** The path parameters of a folder (and, for files, of the file), flat or nested, under `pathParamPrefix`. */
function pathParams(dir: string, file: string | undefined, prefix: string, goTemplate: boolean): Params {
  if (goTemplate) {
    const p: Params = { path: dir, basename: posix.basename(dir), basenameNormalized: sanitizeName(posix.basename(dir)), segments: dir.split('/') };
    if (file !== undefined) {
      p.filename = posix.basename(file);
      p.filenameNormalized = sanitizeName(posix.basename(file));
    }
    return prefix !== '' ? { [prefix]: { path: p } } : { path: p };
  }
  const name = prefix !== '' ? `${prefix}.path` : 'path';
  const p: Params = { [name]: dir, [`${name}.basename`]: posix.basename(dir) };
  if (file !== undefined) p[`${name}.filename`] = posix.basename(file);
  p[`${name}.basenameNormalized`] = sanitizeName(posix.basename(dir));
  if (file !== undefined) p[`${name}.filenameNormalized`] = sanitizeName(posix.basename(file));
  dir.split('/').forEach((seg, i) => {
    if (seg !== '') p[`${name}[${i}]`] = seg;
  });
  return p;
}

/** git.go: directories (path.Match over every folder, `exclude` wins) or files (their keys, flattened or nested, plus the path parameters). */
async function gitGenerator(spec: Record<string, unknown>, ctx: GenerateContext): Promise<Params[]> {
  const repoURL = typeof spec.repoURL === 'string' ? spec.repoURL : '';
  if (repoURL === '') throw new GeneratorError('git generator: repoURL is required');
  const revision = typeof spec.revision === 'string' ? spec.revision : '';
  const prefix = typeof spec.pathParamPrefix === 'string' ? spec.pathParamPrefix : '';
  const directories = pathItems(spec.directories, 'directories');
  const files = pathItems(spec.files, 'files');
  if (directories.length > 0) {
    const all = treeDirectories(await ctx.inputs.gitFiles(repoURL, revision));
    const chosen = all.filter((dir) => {
      let include = false;
      let exclude = false;
      for (const d of directories) {
        if (!pathMatch(d.path, dir)) continue;
        if (d.exclude) exclude = true;
        else include = true;
      }
      return include && !exclude;
    });
    return appendValues(
      spec.values,
      chosen.map((dir) => pathParams(dir, undefined, prefix, ctx.goTemplate)),
      ctx,
    );
  }
  if (files.length > 0) {
    const tree = await ctx.inputs.gitFiles(repoURL, revision);
    const chosen = new Set<string>();
    for (const f of files.filter((x) => !x.exclude)) for (const path of tree) if (pathspecMatch(f.path, path)) chosen.add(path);
    for (const f of files.filter((x) => x.exclude)) for (const path of tree) if (pathspecMatch(f.path, path)) chosen.delete(path);
    const paths = [...chosen].sort();
    const contents = await ctx.inputs.gitRead(repoURL, revision, paths);
    const out: Params[] = [];
    for (const path of paths) {
      const objects = parseParamsFile(path, contents.get(path) ?? '');
      const sets = objects.map((obj) => {
        const params: Params = ctx.goTemplate ? { ...obj } : Object.fromEntries(Object.entries(flatten(obj)).map(([k, v]) => [k, goString(v)]));
        return { ...params, ...pathParams(posix.dirname(path), path, prefix, ctx.goTemplate) };
      });
      try {
        out.push(...(await appendValues(spec.values, sets, ctx)));
      } catch (e) {
        throw new GeneratorError(`unable to process file '${path}': ${(e as Error).message}`);
      }
    }
    return out;
  }
  throw new GeneratorError('ApplicationSet is empty: the git generator has neither directories nor files');
}

/**
 * A params file: one object, or a list of objects (YAML or JSON, sigs.k8s.io/yaml, which decodes the first document of
 * the file and leaves the others out).
 */
function parseParamsFile(path: string, text: string): Params[] {
  let parsed: unknown;
  try {
    const docs = parseAllDocuments(text, { version: '1.1', uniqueKeys: false });
    const first = Array.isArray(docs) ? docs[0] : docs;
    if (first && first.errors.length > 0) throw first.errors[0];
    parsed = first ? first.toJS() : null;
  } catch (e) {
    throw new GeneratorError(`unable to process file '${path}': unable to parse file: ${(e as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return [{}];
  if (isObject(parsed)) return [parsed];
  if (Array.isArray(parsed) && parsed.every(isObject)) return parsed as Params[];
  throw new GeneratorError(`unable to process file '${path}': unable to parse file: expected an object or a list of objects`);
}

function children(spec: Record<string, unknown>, name: string): Generator[] {
  const g = spec.generators;
  if (!Array.isArray(g) || !g.every(isObject)) throw new GeneratorError(`${name}: generators must be a list of generators`);
  return g as Generator[];
}

/** A nested matrix or merge: Argo CD takes only terminal generators in it (ApplicationSetTerminalGenerator). */
function checkNesting(child: Generator, name: string): void {
  for (const nest of ['matrix', 'merge']) {
    const n = child[nest];
    if (!isObject(n) || !Array.isArray(n.generators)) continue;
    for (const g of n.generators)
      if (isObject(g) && (g.matrix != null || g.merge != null))
        throw new GeneratorError(
          `${name}: a ${nest} inside a ${name} may only hold list, clusters, git (and the refused) generators: Argo CD nests matrix and merge two levels deep at most`,
        );
  }
}

async function childParams(child: Generator, ctx: GenerateContext, genParams: Params | undefined, what: string): Promise<Params[]> {
  const t = await transform(child, {}, ctx, genParams);
  if (t.length === 0) throw new GeneratorError(`${what}: child generator generated no parameters`);
  if (t.length > 1) throw new GeneratorError(`${what}: found more than one generator in matrix.Generators`);
  return (t[0] as TransformResult).params;
}

/** Deep merge of two parameter maps, `over` winning (mergo.Merge WithOverride on map[string]any). */
function mergeOver(base: Params, over: Params): Params {
  const out: Params = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(out[k]) && isObject(v) ? mergeOver(out[k] as Params, v) : v;
  return out;
}

/** matrix.go: exactly two children; each of the first's sets with each of the second's, which may use the first's parameters. */
async function matrixGenerator(spec: Record<string, unknown>, ctx: GenerateContext): Promise<Params[]> {
  const gens = children(spec, 'matrix');
  if (gens.length < 2) throw new GeneratorError('found less than two generators, Matrix support only two');
  if (gens.length > 2) throw new GeneratorError('found more than two generators, Matrix support only two');
  for (const g of gens) checkNesting(g, 'matrix');
  const [g0, g1] = gens as [Generator, Generator];
  const first = await childParams(g0, ctx, undefined, 'error failed to get params for first generator in matrix generator');
  // The second child rendered with each of the first's sets (Transform's InterpolateGenerator), all in one batch;
  // an empty set leaves it as written.
  const withParams = first.filter((a) => Object.keys(a).length > 0);
  const rendered = await renderDeep(g1, withParams, ctx.render);
  const res: Params[] = [];
  for (const a of first) {
    const i = withParams.indexOf(a);
    // the selector stays as written (Transform parses it before rendering the generator)
    const child = i >= 0 ? { ...(rendered[i] as Generator), ...(g1.selector !== undefined ? { selector: g1.selector } : {}) } : g1;
    const second = await childParams(child, ctx, undefined, 'failed to get params for second generator in the matrix generator');
    for (const b of second) {
      if (ctx.goTemplate) res.push(mergeOver(b, a));
      else res.push(combineStringMaps(a, b));
    }
  }
  return res;
}

/** utils.CombineStringMaps: both as strings; a key in both with different values is an error. */
function combineStringMaps(a: Params, b: Params): Params {
  const res: Params = {};
  for (const [k, v] of Object.entries(a)) res[k] = goString(v);
  for (const [k, v] of Object.entries(b)) {
    const s = goString(v);
    if (k in res && res[k] !== s)
      throw new GeneratorError(
        `failed to combine string maps with merging params for the matrix generator: found duplicate key ${k} with different value, a: ${String(res[k])} ,b: ${s}`,
      );
    res[k] = s;
  }
  return res;
}

/** merge.go: the first child's sets, each overridden by the later children's set with the same values of `mergeKeys`. */
async function mergeGenerator(spec: Record<string, unknown>, ctx: GenerateContext): Promise<Params[]> {
  const gens = children(spec, 'merge');
  if (gens.length < 2) throw new GeneratorError('found less than two generators, Merge requires two or more');
  for (const g of gens) checkNesting(g, 'merge');
  const sets: Params[][] = [];
  for (const [i, g] of gens.entries()) sets.push(await childParams(g, ctx, undefined, `error getting params from generator ${i + 1} of ${gens.length}`));
  const keys = Array.isArray(spec.mergeKeys) ? [...new Set(spec.mergeKeys.map(String))].sort() : [];
  if (keys.length === 0) throw new GeneratorError('no merge keys were specified, Merge requires at least one');
  const byKey = (list: Params[]): Map<string, Params> => {
    const m = new Map<string, Params>();
    for (const p of list) {
      // json.Marshal of a map: keys sorted, a missing key is null
      const k = JSON.stringify(Object.fromEntries(keys.map((key) => [key, p[key] ?? null])));
      if (m.has(k))
        throw new GeneratorError(
          `the parameters from a generator were not unique by the given mergeKeys, Merge requires all param sets to be unique. Duplicate key was ${k}`,
        );
      m.set(k, p);
    }
    return m;
  };
  const base = byKey(sets[0] as Params[]);
  for (const list of sets.slice(1)) {
    const other = byKey(list);
    for (const [k, p] of base) {
      const o = other.get(k);
      if (o) base.set(k, ctx.goTemplate ? mergeOver(p, o) : { ...p, ...o });
    }
  }
  return [...base.values()];
}
