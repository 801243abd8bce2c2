// A directory source as Argo CD's repo-server reads it (reposerver/repository findManifests): which files count, and
// which YAML files that are not Kubernetes objects are passed over.
import type { DirectoryOptions } from '../../app/source-options.js';
import { InputError } from '../../model/errors.js';
import { parseManifests, parseYamlValues, type ManifestObject } from '../../manifest/parse.js';
import { isPlainObject } from '../../model/object.js';
import { GlobSyntaxError, parseGlob } from '../../model/glob.js';

/** File names a directory source reads (case-sensitive, as Argo CD's manifestFile pattern). */
const DIRECTORY_FILE = /\.(yaml|yml|json|jsonnet)$/;
/** A file holding this text is skipped (Argo CD's skip-file-rendering marker). */
export const SKIP_MARKER = '+argocd:skip-file-rendering';

/** Folder by folder, name by name: the order filepath.Walk visits a tree in. */
function comparePaths(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    const x = as[i] ?? '';
    const y = bs[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

function glob(pattern: string, field: string): RegExp | undefined {
  if (pattern === '') return undefined;
  try {
    return parseGlob(pattern);
  } catch (e) {
    if (e instanceof GlobSyntaxError) throw new InputError(`spec.source.directory.${field} ${e.message}`);
    throw e;
  }
}

/**
 * The files a directory source reads, from every file path under source.path (relative to it, `/`-separated), in
 * walk order: those directly in it unless `recurse`, named *.yaml/*.yml/*.json/*.jsonnet, not matching `exclude`,
 * and matching `include` when given (both matched against the relative path). InputError on a glob that does not compile.
 */
export function selectDirectoryFiles(relPaths: readonly string[], opts: DirectoryOptions): string[] {
  const include = glob(opts.include, 'include');
  const exclude = glob(opts.exclude, 'exclude');
  return relPaths
    .filter((rel) => {
      if (!opts.recurse && rel.includes('/')) return false;
      const name = rel.slice(rel.lastIndexOf('/') + 1);
      if (!DIRECTORY_FILE.test(name)) return false;
      if (exclude?.test(rel)) return false;
      if (include && !include.test(rel)) return false;
      return true;
    })
    .sort(comparePaths);
}

const looksLikeManifest = (text: string) => text.includes('apiVersion:') && text.includes('kind:') && text.includes('metadata:');

/**
 * Whether Argo CD passes over a YAML file that does not read as Kubernetes objects: no document before the first
 * bad one (not a map with a `kind`, or a syntax error) was an object, and the text lacks one of `apiVersion:`,
 * `kind:` and `metadata:`.
 */
export function ignoredAsNotKubernetes(text: string, file: string): boolean {
  let docs: unknown[];
  try {
    docs = parseYamlValues(text, file);
  } catch {
    return !looksLikeManifest(text);
  }
  const bad = docs.findIndex((d) => !isPlainObject(d) || typeof d.kind !== 'string' || d.kind === '');
  if (bad < 0) return false;
  return bad === 0 && !looksLikeManifest(text);
}

/**
 * The objects of one YAML or JSON file of a directory source (`label` names it in messages): none when it holds the
 * skip marker, or when it is YAML that Argo CD passes over as not Kubernetes objects; otherwise the manifests' own
 * parse and its errors.
 */
export function parseDirectoryFile(text: string, label: string): ManifestObject[] {
  if (text.includes(SKIP_MARKER)) return [];
  try {
    return parseManifests(text, label);
  } catch (e) {
    if (e instanceof InputError && !label.endsWith('.json') && ignoredAsNotKubernetes(text, label)) return [];
    throw e;
  }
}
