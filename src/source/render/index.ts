// Renders an Application's source at one commit the way Argo CD's repo-server does: detects the type, then reads a
// directory (YAML, JSON, Jsonnet), builds a Kustomize source or templates a Helm chart; plugins are refused with the reason.
import type { Application } from '../../app/types.js';
import { DEFAULT_DIRECTORY } from '../../app/source-options.js';
import { InputError, ManifestError, UnrenderableError } from '../../model/errors.js';
import type { ManifestObject } from '../../manifest/parse.js';
import { manifestText, parseManifests } from '../../manifest/parse.js';
import { listTree, readBlobs, type BlobReader, type GitDir, type TreeEntry } from '../git.js';
import { firstOutOfBounds, outOfBoundsMessage, resolveLinkTarget } from './symlinks.js';
import type { SourceReads } from '../shared-reads.js';
import { applySourceOverrides, overrideFileNames } from './overrides.js';
import { detectSourceType, type SourceType } from './detect.js';
import { parseDirectoryFile, selectDirectoryFiles, SKIP_MARKER } from './directory.js';
import { renderEnv, type RenderEnv } from './envsubst.js';
import { buildKustomize, findKustomize, helmEnabled, kustomizeVersion, namedKustomize } from './kustomize.js';
import { DEFAULT_VALUES_FILE_SCHEMES, type KustomizeSettings } from '../../settings/argocd-cm.js';
import { readRenderCache, renderCacheDir, renderCacheKey, writeRenderCache } from './cache.js';
import { versionInfo } from '../../version.js';
import { instanceName } from '../../tracking/tracking-id.js';
import { evaluateJsonnet, JSONNET_WASM_ENV } from './jsonnet.js';
import { materialiseTree, type MaterialisedTree } from './tree.js';
import { findHelm, helmVersion, renderHelm, type HelmCapabilities, type RefTree } from './helm.js';
import { join } from 'node:path';

export type { SourceType } from './detect.js';

/** Where a render reads files: a commit's tree, or a local folder (--desired DIR --render). */
export interface SourceFiles {
  /** The contents of files by their entries' `sha` (a blob SHA, or for a local folder the file's path). */
  read(entries: readonly TreeEntry[]): Promise<Map<string, Buffer>>;
  /** A folder holding the whole tree that tools may edit and read (a temporary copy), with its disposal; an InputError for a link out of the repository. */
  materialise(): Promise<MaterialisedTree>;
  /** The target a symbolic link's entry names (as written in the link). */
  linkTarget(entry: TreeEntry): Promise<string>;
  /** The entry at a repository-relative path: a file (or link), `dir` for a directory, undefined when absent. */
  lookup(path: string): Promise<TreeEntry | 'dir' | undefined>;
  /**
   * The first link anywhere in the repository that leaves it (Argo CD checks a Git checkout whole before rendering it),
   * or undefined; absent where no such check is made (a local folder, an unpacked chart or artifact).
   */
  outOfBoundsLink?(): Promise<string | undefined>;
}

/**
 * The files of a commit, read from git's object store (through `reader`, a cat-file kept open, when given). With the
 * command's shared reads, the whole tree is listed and its links checked once for every app of the commit.
 */
export function commitFiles(dir: GitDir, sha: string, blobReader?: BlobReader | (() => BlobReader), shared?: SourceReads): SourceFiles {
  const read = (entries: readonly TreeEntry[]) => {
    const shas = entries.map((e) => e.sha);
    // Asked for (and so started) only when a file is read: a render the cache holds starts no git process.
    const reader = typeof blobReader === 'function' ? blobReader() : blobReader;
    // A kept process out of step is not trusted again: this read starts git once, as without one.
    return reader ? reader.read(shas).catch(() => readBlobs(dir, shas)) : readBlobs(dir, shas);
  };
  const outOfBoundsLink = async () => {
    const whole = shared ? await shared.wholeTree(dir, sha) : await listTree(dir, sha, '');
    const links = whole.filter((e) => e.type === 'blob' && e.mode === '120000');
    if (links.length === 0) return undefined;
    const targets = await read(links);
    return firstOutOfBounds(links.map((e) => ({ path: e.path, target: (targets.get(e.sha) ?? Buffer.alloc(0)).toString('utf8') })));
  };
  return {
    read,
    outOfBoundsLink: () => (shared ? shared.once(`links|${dir.gitDir}|${sha}`, outOfBoundsLink) : outOfBoundsLink()),
    materialise: () => materialiseTree(dir, sha),
    linkTarget: async (entry) => ((await readBlobs(dir, [entry.sha])).get(entry.sha) ?? Buffer.alloc(0)).toString('utf8'),
    lookup: async (path) => {
      const found = await listTree(dir, sha, path);
      if (found.length === 1 && found[0]!.path === path) return found[0];
      return found.length > 0 ? 'dir' : undefined;
    },
  };
}

/** The tree written out for a tool; its refusals name the repository and commit. */
async function materialiseAt(files: SourceFiles, at: string): Promise<MaterialisedTree> {
  try {
    return await files.materialise();
  } catch (e) {
    if (e instanceof ManifestError) throw new ManifestError(`${at}: ${e.message}`, { cause: e });
    if (e instanceof InputError) throw new InputError(`${at}: ${e.message}`, { cause: e });
    throw e;
  }
}

/** How many links in a row are followed (Linux's own limit is 40; a loop ends here). */
const MAX_LINK_HOPS = 16;

/**
 * A symbolic link in a directory source, as Argo CD reads it: out of bounds fails the render; a link to a file is
 * that file under the link's name; a link to a directory, or to nothing, is not followed (undefined, with a warning).
 */
async function followLink(files: SourceFiles, entry: TreeEntry, at: string, warnings: string[]): Promise<TreeEntry | undefined> {
  let current = entry;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    const target = await files.linkTarget(current);
    const resolved = resolveLinkTarget(current.path, target);
    if (resolved === undefined) throw new ManifestError(`${at}: ${outOfBoundsMessage(entry.path)}`);
    const found = await files.lookup(resolved);
    // A link whose target is missing: passed over with a warning, as Argo CD's getPotentiallyValidManifestFile does.
    if (found === undefined) {
      warnings.push(`skipped ${at}:${entry.path}: a symbolic link to ${resolved}, which does not exist (Argo CD skips it too)`);
      return undefined;
    }
    if (found === 'dir') {
      warnings.push(`skipped ${at}:${entry.path}: a symbolic link to the directory ${resolved} (Argo CD does not descend into linked directories)`);
      return undefined;
    }
    if (found.type !== 'blob')
      throw new ManifestError(`${at}:${entry.path}: a symbolic link to ${resolved}, which is a ${found.type === 'commit' ? 'submodule' : found.type}`);
    if (found.mode !== '120000') return { ...found, path: entry.path };
    current = found;
  }
  throw new ManifestError(`${at}:${entry.path}: too many levels of symbolic links`);
}

/** Where and how to render. */
export interface RenderInput {
  files: SourceFiles;
  /** The repository as people named it, safe to print. */
  label: string;
  /** The commit ('' for a local folder: no revision, no cache). */
  sha: string;
  /** source.path, normalised ('' = the root). */
  path: string;
  /** Every entry under `path` at `sha` (recursive). */
  entries: TreeEntry[];
  app: Application;
  tools: RenderTools;
  signal?: AbortSignal;
  /** The destination namespace (Helm's --namespace); the Application's destination.namespace when absent. */
  namespace?: string;
  /** The namespace Argo CD runs in, for ARGOCD_APP_NAME (Argo CD's instance name); `argocd` when absent. */
  controlPlaneNamespace?: string;
  /** Overrides `<label>@<sha7>:<path>` in messages (a chart from a repository: `<chart>@<version>`). */
  origin?: string;
  /** `$name` → the files of the other source with `ref: name`, for `$name/...` value files. */
  refs?: ReadonlyMap<string, RefTree & { revision: string }>;
}

export interface RenderTools {
  /** A kustomize binary named by the user (--kustomize). */
  kustomize?: string;
  /** Extra `kustomize build` arguments (--kustomize-build-options, over argocd-cm's kustomize.buildOptions). */
  kustomizeBuildOptions?: string;
  /** argocd-cm's kustomize settings (build options, named binaries), asked for only when a Kustomize source is rendered. */
  kustomizeSettings?: () => Promise<KustomizeSettings | undefined>;
  /** argocd-cm's helm.valuesFileSchemes, asked for only when a Helm source is rendered (Argo CD's `https, http` when absent). */
  helmValuesFileSchemes?: () => Promise<readonly string[] | undefined>;
  /** The process environment (PATH, KUBECTL_GITOPS_KUSTOMIZE; passed on to the tools). */
  env: Record<string, string | undefined>;
  /** Render again even when the render cache has this render (--hard-refresh); the new render is stored. */
  hardRefresh?: boolean;
  /** Use no render cache at all (unit tests). */
  noCache?: boolean;
  /** A helm binary named by the user (--helm). */
  helm?: string;
  /** The destination cluster's version and types, for Helm's .Capabilities (asked only when a chart is rendered). */
  capabilities?: () => Promise<HelmCapabilities>;
}

export interface Rendered {
  objects: ManifestObject[];
  sourceType: SourceType;
  warnings: string[];
  /** Taken from the render cache. */
  cached?: boolean;
}

/** Takes a render from the cache, or makes and stores it. */
async function throughCache(
  input: RenderInput,
  tool: string,
  sourceType: SourceType,
  make: () => Promise<Omit<Rendered, 'sourceType'>>,
  extra?: unknown,
): Promise<Rendered> {
  if (input.tools.noCache || input.sha === '') return { ...(await make()), sourceType };
  const v = versionInfo();
  const key = renderCacheKey({
    sha: input.sha,
    path: input.path,
    options: input.app.source.options,
    appEnv: appRenderEnv(input, input.sha, input.path),
    tool,
    build: `${v.version} ${v.gitCommit}`,
    ...(extra !== undefined ? { extra } : {}),
  });
  const dir = renderCacheDir(input.tools.env);
  if (!input.tools.hardRefresh) {
    const hit = readRenderCache(dir, key);
    if (hit) return { ...hit, sourceType, cached: true };
  }
  const made = await make();
  writeRenderCache(dir, key, { objects: made.objects, warnings: made.warnings });
  return { ...made, sourceType };
}

/**
 * The variables of the render's environment for this Application and commit, as Argo CD's controller asks its repo-server
 * for them (controller/state.go): the app's instance name and its destination namespace (the one Helm gets as --namespace).
 * The source path is spec.source.path as written (reposerver newEnv's q.ApplicationSource.Path: `.` stays `.`, a
 * trailing `/` stays; a chart's is its own, mostly ''), not the normalised `path` the files are found by; only a local
 * folder rendered without an Application has none and gets `path`, its place in the work tree.
 */
function appRenderEnv(input: Pick<RenderInput, 'app' | 'namespace' | 'controlPlaneNamespace'>, sha: string, path: string): RenderEnv {
  const app = input.app;
  const sourcePath = app.name === '' && app.source.path === undefined ? path : (app.source.path ?? '');
  return renderEnv({
    appName: app.name === '' ? '' : instanceName(app, input.controlPlaneNamespace),
    appNamespace: input.namespace ?? app.destination.namespace ?? '',
    projectName: app.project ?? 'default',
    revision: sha,
    repoURL: app.source.repoURL ?? '',
    path: sourcePath,
    targetRevision: app.source.targetRevision ?? '',
  });
}

export async function renderSource(given: RenderInput): Promise<Rendered> {
  let input = given;
  const { path, entries, sha } = input;
  const at = sha === '' ? input.label : `${input.label}@${sha.slice(0, 7)}`;
  const origin = input.origin ?? `${at}:${path === '' ? '/' : path}`;
  const prefix = path === '' ? '' : `${path}/`;
  const single = entries.length === 1 && entries[0]?.path === path;
  const topNames = single ? [] : entries.map((e) => e.path.slice(prefix.length)).filter((rel) => !rel.includes('/'));
  // Argo CD merges parameter overrides from these files into the source before detecting its type (mergeSourceParameters).
  const overrideEntries = overrideFileNames(input.app.name)
    .map((n) => entries.find((e) => e.path === `${prefix}${n}` && e.type === 'blob' && e.mode !== '120000'))
    .filter((e): e is TreeEntry => e !== undefined);
  if (overrideEntries.length > 0) {
    const blobs = await input.files.read(overrideEntries);
    const texts = overrideEntries.map((e) => ({ label: `${at}:${e.path}`, text: (blobs.get(e.sha) ?? Buffer.alloc(0)).toString('utf8') }));
    input = { ...input, app: applySourceOverrides(input.app, texts) };
  }
  const detected = detectSourceType(input.app.source.options, topNames);
  if ('error' in detected) throw new InputError(`${input.app.origin}: Application spec.source: ${detected.error}`);
  const options = input.app.source.options ?? {};
  switch (detected.type) {
    case 'Helm': {
      return renderHelmSource(input, origin);
    }
    case 'Plugin':
      throw new UnrenderableError(["spec.source.plugin: Config Management Plugins run in Argo CD's repo-server sidecar, which this tool does not have"]);
    case 'Kustomize': {
      const settings = await input.tools.kustomizeSettings?.();
      const named = options.kustomize?.version ?? '';
      const tool =
        named !== ''
          ? namedKustomize(named, settings?.versions ?? new Map(), input.tools.env, input.tools.kustomize)
          : findKustomize(input.tools.kustomize, input.tools.env);
      const version = input.tools.noCache ? '' : await kustomizeVersion(tool, input.tools.env);
      const buildOptions = input.tools.kustomizeBuildOptions ?? settings?.buildOptions;
      // Charts inflated by kustomize get the cluster's version and types, as Helm sources do (asked only then).
      const capabilities = helmEnabled(buildOptions) ? ((await input.tools.capabilities?.()) ?? { kubeVersion: '', apiVersions: [] }) : undefined;
      return throughCache(
        input,
        `${tool.path} ${version} ${buildOptions ?? ''}`,
        'Kustomize',
        async () => {
          const tree = await materialiseAt(input.files, at);
          try {
            const text = await buildKustomize({
              root: tree.root,
              path,
              options: options.kustomize,
              env: appRenderEnv(input, sha, path),
              tool,
              processEnv: input.tools.env,
              origin,
              ...(buildOptions !== undefined ? { buildOptions } : {}),
              ...(capabilities ? { capabilities } : {}),
              ...(input.signal ? { signal: input.signal } : {}),
            });
            return { objects: parseManifests(text, `${origin} (kustomize build)`), warnings: [] };
          } finally {
            await tree.dispose();
          }
        },
        capabilities ? { capabilities } : undefined,
      );
    }
    case 'Directory':
      return renderDirectory(input, at, single);
  }
}

/** A chart in the source's tree: `helm template` in a temporary copy of the commit, cached like the other tools. */
async function renderHelmSource(input: RenderInput, origin: string): Promise<Rendered> {
  const tool = findHelm(input.tools.helm, input.tools.env);
  const version = input.tools.noCache ? '' : await helmVersion(tool, input.tools.env);
  const capabilities = (await input.tools.capabilities?.()) ?? { kubeVersion: '', apiVersions: [] };
  const namespace = input.namespace ?? input.app.destination.namespace ?? '';
  const refs = new Map([...(input.refs ?? new Map<string, RefTree & { revision: string }>()).entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  const valueFileSchemes = (await input.tools.helmValuesFileSchemes?.()) ?? DEFAULT_VALUES_FILE_SCHEMES;
  // What a Helm render depends on beyond the commit and the options: the release's name and namespace, the cluster's
  // capabilities, the revisions of the sources its value files come from and the URL schemes they may use.
  const extra = {
    appName: input.app.name,
    namespace,
    capabilities,
    refs: [...refs.entries()].map(([k, v]) => [k, v.label, v.revision]),
    valueFileSchemes,
  };
  return throughCache(
    input,
    `helm ${tool} ${version}`,
    'Helm',
    async () => {
      const tree = await materialiseAt(input.files, origin);
      try {
        const text = await renderHelm({
          chartDir: join(tree.root, input.path),
          repoRoot: tree.root,
          appName: input.app.name,
          namespace,
          helm: input.app.source.options?.helm,
          capabilities,
          refs,
          valueFileSchemes,
          env: appRenderEnv(input, input.sha, input.path),
          tool,
          processEnv: input.tools.env,
          origin,
          ...(input.signal ? { signal: input.signal } : {}),
        });
        return { objects: parseManifests(text, `${origin} (helm template)`), warnings: [] };
      } finally {
        await tree.dispose();
      }
    },
    extra,
  );
}

/** A Jsonnet file's output as objects: a list of objects, or one object (a List's items taken apart), as Argo CD reads it. */
function jsonnetObjects(json: string, label: string): ManifestObject[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new ManifestError(`${label}: the Jsonnet output is not JSON: ${(e as Error).message}`, { cause: e });
  }
  const items = Array.isArray(value) ? value : [value];
  return items.flatMap((item, i) => parseManifests(JSON.stringify(item), Array.isArray(value) ? `${label}[${i}]` : label));
}

async function renderDirectory(input: RenderInput, at: string, single: boolean): Promise<Rendered> {
  const { path, entries } = input;
  const opts = input.app.source.options?.directory ?? DEFAULT_DIRECTORY;
  const prefix = path === '' ? '' : `${path}/`;
  const byRel = new Map(entries.map((e) => [single ? e.path.slice(e.path.lastIndexOf('/') + 1) : e.path.slice(prefix.length), e]));
  const selected = (single ? [...byRel.keys()] : selectDirectoryFiles([...byRel.keys()], opts)).map((rel) => byRel.get(rel)!);
  // A directory at a commit is cached like the tools' renders, as Argo CD's repo-server caches every source's
  // manifests by revision: a repeated read of the same commit (every app of a fleet in list, status -A, the dashboard's
  // rounds) takes the parsed objects instead of reading and parsing the files again. The Jsonnet engine is part of
  // the build, named by the build in the key.
  const jsonnet = selected.some((e) => e.type === 'blob' && e.path.endsWith('.jsonnet'));
  const tool = jsonnet ? `jsonnet ${input.tools.env[JSONNET_WASM_ENV] ?? 'embedded'}` : 'directory';
  return throughCache(input, tool, 'Directory', async () => {
    // Argo CD checks the whole checkout before it renders (runRepoOperation: CheckOutOfBoundsSymlinks): a link out
    // of the repository anywhere in it fails the render, under the app's path or not. Only a render made is checked:
    // the cache holds renders of commits that passed (the commit is the key), and a fleet's apps share one check.
    const outside = await input.files.outOfBoundsLink?.();
    if (outside !== undefined) throw new ManifestError(`${at}: ${outOfBoundsMessage(outside)}`);
    const warnings: string[] = [];
    const files: TreeEntry[] = [];
    for (const entry of selected) {
      if (entry.type !== 'blob') warnings.push(`skipped ${at}:${entry.path}: a ${entry.type === 'commit' ? 'submodule' : entry.type}, not a file`);
      else if (entry.mode === '120000') {
        const linked = await followLink(input.files, entry, at, warnings);
        if (linked) files.push(linked);
      } else files.push(entry);
    }
    return { objects: await readDirectoryFiles(input, at, single, files), warnings };
  });
}

/** The objects of the selected files of a directory source, in walk order (Jsonnet evaluated, YAML/JSON parsed). */
async function readDirectoryFiles(input: RenderInput, at: string, single: boolean, files: TreeEntry[]): Promise<ManifestObject[]> {
  const path = input.path;
  const opts = input.app.source.options?.directory ?? DEFAULT_DIRECTORY;
  const jsonnetFiles = files.filter((f) => f.path.endsWith('.jsonnet'));
  let blobs: Map<string, Buffer>;
  try {
    blobs = await input.files.read(files);
  } catch (e) {
    throw new InputError(`reading ${at}:${path === '' ? '/' : path}`, { cause: e });
  }
  // Jsonnet imports read files anywhere in the repository: the tree is written out once for all of them.
  const tree = jsonnetFiles.length > 0 ? await materialiseAt(input.files, at) : undefined;
  const objects: ManifestObject[] = [];
  try {
    for (const file of files) {
      const label = `${at}:${file.path}`;
      const bytes = blobs.get(file.sha);
      const text = bytes ? manifestText(bytes, label) : '';
      if (file.path.endsWith('.jsonnet')) {
        if (text.includes(SKIP_MARKER)) continue;
        const json = await evaluateJsonnet({
          root: tree!.root,
          file: file.path,
          path: single ? file.path.slice(0, Math.max(0, file.path.lastIndexOf('/'))) : path,
          options: opts.jsonnet,
          env: appRenderEnv(input, input.sha, path),
          processEnv: input.tools.env,
          label,
        });
        for (const o of jsonnetObjects(json, label)) objects.push(o);
        continue;
      }
      for (const o of parseDirectoryFile(text, label)) objects.push(o);
    }
  } finally {
    await tree?.dispose();
  }
  return objects;
}
