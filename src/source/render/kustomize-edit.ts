// The edits Argo CD makes to a copy of the kustomization before `kustomize build` (util/kustomize Build), done on
// the parsed file with the semantics of the `kustomize edit` command each stands for. Pure: text in, text out.
import { parse, type ScalarTag, stringify, type Tags } from 'yaml';
import type { KustomizeOptions } from '../../app/source-options.js';
import { compileFilepathMatch } from '../../model/glob.js';
import type { JsonObject, JsonValue } from '../../model/object.js';
import { isPlainObject } from '../../model/object.js';
import { envsubst, type RenderEnv } from './envsubst.js';

/** An edit that `kustomize edit` itself would refuse; the message is kustomize's. */
export class KustomizeEditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KustomizeEditError';
  }
}

interface Image {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
  tagSuffix?: string;
}

/** kustomize's image.Split: name, tag and digest of an image reference (a registry host's port is not a tag). */
export function splitImage(ref: string): [name: string, tag: string, digest: string] {
  let search = ref;
  let slash = ref.indexOf('/');
  if (slash > 0) search = ref.slice(slash);
  else slash = 0;
  let id = search.indexOf('@');
  let ic = search.indexOf(':');
  if (ic < 0 && id < 0) return [ref, '', ''];
  if (id >= 0 && (id < ic || ic < 0)) {
    id += slash;
    return [ref.slice(0, id), '', ref.slice(id + 1)];
  }
  if (id >= 0 && ic >= 0) {
    id += slash;
    ic += slash;
    return [ref.slice(0, ic), ref.slice(ic + 1, id), ref.slice(id + 1)];
  }
  ic += slash;
  return [ref.slice(0, ic), ref.slice(ic + 1), ''];
}

const IMAGE_FORMATS = `invalid format of image, use one of the following options:
- <image>=<newimage>:<newtag>
- <image>=<newimage>@<digest>
- <image>=<newimage>:<newtag>@<digest>
- <image>=<newimage>
- <image>:<newtag>
- <image>:<newtag>@<digest>
- <image>@<digest>`;

/** One `kustomize edit set image` argument as an images entry. */
export function parseImageArg(arg: string): Image {
  const eq = arg.indexOf('=');
  const key = eq < 0 ? '' : arg.slice(0, eq);
  const value = eq < 0 ? arg : arg.slice(eq + 1);
  const [name, tag, digest] = splitImage(value);
  if (name === arg) throw new KustomizeEditError(IMAGE_FORMATS);
  const img: Image = key === '' ? { name } : { name: key, newName: name };
  if (tag !== '') img.newTag = tag;
  if (digest !== '') img.digest = digest;
  return img;
}

const byName = <T extends { name: string }>(a: T, b: T) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function asImage(v: JsonValue): Image {
  const o = isPlainObject(v) ? v : {};
  const img: Image = { name: typeof o.name === 'string' ? o.name : '' };
  for (const f of ['newName', 'newTag', 'digest', 'tagSuffix'] as const) {
    if (typeof o[f] === 'string' && o[f] !== '') img[f] = o[f];
  }
  return img;
}

/** Go's encoding/json name of a JSON value's kind, as in its UnmarshalTypeError. */
function jsonKind(v: JsonValue): string {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'array' : 'object';
}

/**
 * The typed read every `kustomize edit` starts with (types.Kustomization.Unmarshal: YAML to JSON, then into Go
 * structs), for the lists Argo CD's edits rewrite: an images field that is not a string (`newTag: 1.2` is a YAML
 * number) or a replicas count that is not an integer fails it, and so Argo CD's render, in kustomize's words. Writing
 * the entry back as a string, or dropping it, would render what Argo CD refuses.
 */
function checkTyped(k: JsonObject): void {
  const fail = (value: JsonValue, struct: string, field: string, type: string) => {
    throw new KustomizeEditError(`invalid Kustomization: json: cannot unmarshal ${jsonKind(value)} into Go struct field ${struct}.${field} of type ${type}`);
  };
  for (const list of ['images', 'imageTags'] as const) {
    const entries = k[list];
    if (!Array.isArray(entries)) continue;
    for (const e of entries) {
      if (!isPlainObject(e)) continue;
      for (const f of ['name', 'newName', 'newTag', 'digest', 'tagSuffix'] as const) {
        const v = e[f];
        if (v !== undefined && v !== null && typeof v !== 'string') fail(v, 'Image', `${list}.${f}`, 'string');
      }
    }
  }
  if (Array.isArray(k.replicas)) {
    for (const r of k.replicas) {
      if (!isPlainObject(r)) continue;
      if (r.name !== undefined && r.name !== null && typeof r.name !== 'string') fail(r.name, 'Replica', 'replicas.name', 'string');
      const c = r.count;
      if (c === undefined || c === null || (typeof c === 'number' && Number.isInteger(c))) continue;
      // A fraction is named with its text, as Go's decoder names it (`number 1.5`).
      if (typeof c === 'number')
        throw new KustomizeEditError(`invalid Kustomization: json: cannot unmarshal number ${c} into Go struct field Replica.replicas.count of type int64`);
      fail(c, 'Replica', 'replicas.count', 'int64');
    }
  }
}

/** `kustomize edit set image ARGS...`: an argument replaces the entry of its name (`*` keeps that field), sorted by name. */
function setImages(k: JsonObject, args: readonly string[]): void {
  const wanted = new Map<string, Image>();
  for (const a of args) {
    const img = parseImageArg(a);
    wanted.set(img.name, img);
  }
  const existing = [...(Array.isArray(k.images) ? k.images : []), ...(Array.isArray(k.imageTags) ? k.imageTags : [])].map(asImage);
  delete k.imageTags;
  for (const im of existing) {
    const arg = wanted.get(im.name);
    if (!arg) {
      wanted.set(im.name, im);
      continue;
    }
    const merged: Image = { ...arg };
    for (const f of ['newName', 'newTag', 'digest'] as const) {
      if (arg[f] === '*') {
        if (im[f] !== undefined) merged[f] = im[f];
        else delete merged[f];
      }
    }
    wanted.set(im.name, merged);
  }
  const images = [...wanted.values()].map((im) => {
    const out: Image = { ...im };
    for (const f of ['newName', 'newTag', 'digest'] as const) if (out[f] === '*') delete out[f];
    return out;
  });
  images.sort(byName);
  k.images = images as unknown as JsonValue;
}

/** `kustomize edit set replicas NAME=COUNT...`: an argument replaces the entry of its name; sorted by name. */
function setReplicas(k: JsonObject, replicas: readonly { name: string; count: number }[]): void {
  const wanted = new Map<string, { name: string; count: number }>();
  for (const r of replicas) wanted.set(r.name, { name: r.name, count: r.count });
  for (const r of Array.isArray(k.replicas) ? k.replicas : []) {
    if (isPlainObject(r) && typeof r.name === 'string' && !wanted.has(r.name)) wanted.set(r.name, r as unknown as { name: string; count: number });
  }
  k.replicas = [...wanted.values()].sort(byName) as unknown as JsonValue;
}

/** kustomize's ConvertSliceToMap over Argo CD's `key:value` arguments: split at the first colon, value quotes trimmed. */
function asEditPairs(kind: string, values: Record<string, string>): [string, string][] {
  return Object.entries(values).map(([key, value]) => {
    const input = `${key}:${value}`;
    const c = input.indexOf(':');
    if (c === 0) throw new KustomizeEditError(`invalid ${kind}: '${input}' (need k:v pair where v may be quoted)`);
    let v = input.slice(c + 1);
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    return [input.slice(0, c), v];
  });
}

function writeEntry(m: JsonObject, key: string, value: string, kind: string, force: boolean): void {
  if (Object.hasOwn(m, key) && !force) throw new KustomizeEditError(`${kind} ${key} already in kustomization file. Use --force to override.`);
  m[key] = value;
}

function mapField(k: JsonObject, field: string): JsonObject {
  const v = k[field];
  if (isPlainObject(v)) return v;
  const m: JsonObject = {};
  k[field] = m;
  return m;
}

/** `kustomize edit add label [--force] [--without-selector [--include-templates]] k:v...`. */
function addLabels(k: JsonObject, pairs: [string, string][], force: boolean, withoutSelector: boolean, includeTemplates: boolean): void {
  if (!withoutSelector && includeTemplates) throw new KustomizeEditError('--without-selector flag must be specified for --include-templates to work');
  if (!withoutSelector) {
    const m = mapField(k, 'commonLabels');
    for (const [key, v] of pairs) writeEntry(m, key, v, 'label', force);
    return;
  }
  const labels = (Array.isArray(k.labels) ? k.labels : []) as JsonObject[];
  const matches = (l: JsonObject) => (l.includeSelectors === true) === false && (l.includeTemplates === true) === includeTemplates;
  for (const [key, v] of pairs) {
    const i = labels.findIndex(matches);
    if (i >= 0) {
      const l = labels[i]!;
      if (!isPlainObject(l.pairs)) l.pairs = {};
      writeEntry(l.pairs as JsonObject, key, v, 'label', force);
      continue;
    }
    const lbl: JsonObject = { pairs: {} };
    if (includeTemplates) lbl.includeTemplates = true;
    writeEntry(lbl.pairs as JsonObject, key, v, 'label', force);
    labels.push(lbl);
  }
  k.labels = labels;
}

export interface ComponentCheck {
  /** Whether a component path (relative to the kustomization's folder) exists in the repository's tree. */
  exists(path: string): boolean;
  /**
   * Go's filepath.Glob of a well-formed pattern run in the kustomization's folder: the matches in Go's order, each in
   * the pattern's relative form (`../components/a`), only those in the repository's tree.
   */
  glob(pattern: string): string[];
}

/** A component Argo CD passes on for kustomize to fetch: a URL, a GitHub path or an scp-like git address. */
const REMOTE_COMPONENT = /^[a-z]+:\/\/|^github\.com\/|^git@/;

/**
 * The components `kustomize edit add component ENTRIES...` adds (util.GlobPatternsWithLoader): each entry's
 * filepath.Glob matches, else the entry itself when kustomize can load it (a remote target or a folder), else an error.
 */
function expandComponents(entries: readonly string[], components: ComponentCheck): string[] {
  const out: string[] = [];
  for (const entry of entries) {
    if (REMOTE_COMPONENT.test(entry)) {
      out.push(entry);
      continue;
    }
    // filepath.Glob first checks the whole pattern with Match(pattern, ""): ErrBadPattern.
    if (compileFilepathMatch(entry) === null) throw new KustomizeEditError(`${entry}: syntax error in pattern`);
    const matches = components.glob(entry);
    if (matches.length > 0) out.push(...matches);
    else if (components.exists(entry)) out.push(entry);
    else throw new KustomizeEditError(`${entry} has no match: must build at directory: not a valid directory: evalsymlink failure on '${entry}'`);
  }
  return out;
}

/**
 * How kustomize reads a kustomization: YAML 1.1 as go-yaml v2 resolves it (sigs.k8s.io/yaml), where `yes`, `on`, `n`,
 * `0777` are no strings. The yaml package's 1.1 schema less what go-yaml v2 leaves a string (`1:20`, `2001-12-14`).
 */
const readTags = (tags: Tags): Tags => tags.filter((t) => !(typeof t === 'object' && (t.format === 'TIME' || t.tag === 'tag:yaml.org,2002:timestamp')));

/**
 * Every plain scalar go-yaml v2 (kustomize's reader) resolves to something other than a string, and then some: its
 * bool, null and float words, and whatever starts with a digit, sign or `.digit` and holds only number
 * characters (`0o17`, `0X1F`, `1_000` are numbers to Go's ParseInt). A string the edit writes that looks like one is
 * quoted, so kustomize reads back the same string; a superset only quotes more.
 */
const GO_YAML_NON_STRING =
  /^(?:[yYnN]|[Yy]es|YES|[Nn]o|NO|[Tt]rue|TRUE|[Ff]alse|FALSE|[Oo]n|ON|[Oo]ff|OFF|~|[Nn]ull|NULL|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|\.[0-9].*|[-+0-9][0-9a-zA-Z_.+-]*)$/s;

/** A tag no value is given (it identifies nothing): only there to make the writer quote GO_YAML_NON_STRING strings. */
const goYamlNonString: ScalarTag = {
  tag: 'tag:kubectl-gitops,2025:go-yaml-v2-non-string',
  default: true,
  test: GO_YAML_NON_STRING,
  resolve: (s) => s,
};

/**
 * The writer: YAML 1.1's schema (its quoting of `yes`, `1:20`, `2001-12-14`…) and go-yaml v2's non-strings quoted. A
 * key `<<` stays plain, as `kustomize edit` writes it (a merge key to go-yaml: the build fails, as Argo CD's does).
 */
const WRITE = { version: '1.1', customTags: (tags: Tags) => [...tags, goYamlNonString], lineWidth: 0 } as const;

/**
 * The kustomization text after Argo CD's edits for `opts`, in Argo CD's order: namePrefix, nameSuffix, images,
 * replicas, commonLabels, commonAnnotations, namespace, patches, components. Label values, images and (with
 * commonAnnotationsEnvsubst) annotation values go through Argo CD's envsubst. Unchanged text when nothing applies.
 */
export function editKustomization(text: string, opts: KustomizeOptions, env: RenderEnv, components: ComponentCheck): string {
  // Read as kustomize reads it and written so that it reads every value back the same (a key or value `n`, `yes`,
  // `on` stays a string, as `kustomize edit`'s own writer quotes it).
  const parsed: unknown = parse(text, { version: '1.1', customTags: readTags }) ?? {};
  if (!isPlainObject(parsed)) throw new KustomizeEditError('the kustomization file is not a map');
  const k = parsed;
  const edits =
    opts.namePrefix !== '' ||
    opts.nameSuffix !== '' ||
    opts.images.length > 0 ||
    opts.replicas.length > 0 ||
    Object.keys(opts.commonLabels).length > 0 ||
    Object.keys(opts.commonAnnotations).length > 0 ||
    opts.namespace !== '' ||
    opts.patches.length > 0 ||
    opts.components.length > 0;
  // Without an edit the file is left as it is and kustomize build's own typed read says what is wrong with it.
  if (edits) checkTyped(k);
  let changed = false;
  if (opts.namePrefix !== '') {
    k.namePrefix = opts.namePrefix;
    changed = true;
  }
  if (opts.nameSuffix !== '') {
    k.nameSuffix = opts.nameSuffix;
    changed = true;
  }
  if (opts.images.length > 0) {
    setImages(
      k,
      opts.images.map((i) => envsubst(i, env)),
    );
    changed = true;
  }
  if (opts.replicas.length > 0) {
    setReplicas(k, opts.replicas);
    changed = true;
  }
  const labels = Object.fromEntries(Object.entries(opts.commonLabels).map(([n, v]) => [n, envsubst(v, env)]));
  if (Object.keys(labels).length > 0) {
    addLabels(k, asEditPairs('label', labels), opts.forceCommonLabels, opts.labelWithoutSelector, opts.labelIncludeTemplates);
    changed = true;
  }
  if (Object.keys(opts.commonAnnotations).length > 0) {
    const values = opts.commonAnnotationsEnvsubst
      ? Object.fromEntries(Object.entries(opts.commonAnnotations).map(([n, v]) => [n, envsubst(v, env)]))
      : opts.commonAnnotations;
    const m = mapField(k, 'commonAnnotations');
    for (const [key, v] of asEditPairs('annotation', values)) writeEntry(m, key, v, 'annotation', opts.forceCommonAnnotations);
    changed = true;
  }
  if (opts.namespace !== '') {
    k.namespace = opts.namespace;
    changed = true;
  }
  if (opts.patches.length > 0) {
    const existing = k.patches;
    if (existing !== undefined && existing !== null && !Array.isArray(existing))
      throw new KustomizeEditError(`expected 'patches' field in kustomization.yaml to be a list`);
    k.patches = [...(existing ?? []), ...opts.patches];
    changed = true;
  }
  if (opts.components.length > 0) {
    // Argo CD's ignoreMissingComponents stats each entry as a literal path (a glob entry stays only if a file has its name).
    const found = opts.ignoreMissingComponents ? opts.components.filter((c) => components.exists(c)) : opts.components;
    if (found.length > 0) {
      const added = expandComponents(found, components);
      const list = (Array.isArray(k.components) ? k.components : []) as JsonValue[];
      for (const c of added) if (!list.includes(c)) list.push(c);
      k.components = list;
      changed = true;
    }
  }
  return changed ? stringify(k, WRITE) : text;
}
