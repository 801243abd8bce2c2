// The desired manifests of an Application: from --desired, or from a Git revision's tree read without any checkout.
import type { KustomizeSettings } from '../settings/argocd-cm.js';
import type { Application, AppSource, SourceRevision } from '../app/types.js';
import type { Io, WorkflowIo } from '../model/context.js';
import { InputError, ManifestError, UnrenderableError } from '../model/errors.js';
import { loadManifests, localFiles, parseManifestFiles, readManifestFiles, rejectDuplicates } from '../manifest/index.js';
import { createHash } from 'node:crypto';
import { versionInfo } from '../version.js';
import { readRenderCache, renderCacheDir, renderCacheKey, writeRenderCache } from './render/cache.js';
import type { ManifestObject } from '../manifest/parse.js';
import { fileBlockers, sourcesBlockers, specBlockers } from './renderability.js';
import { fetchIntoCache, REMOTE_HEAD_REF } from './cache.js';
import { entriesUnder, type SourceReads } from './shared-reads.js';
import { findGitDir, listTags, listTree, objectTypeAt, resolveCommit, runGit, type GitDir, type TreeEntry } from './git.js';
import { isSemverConstraint, maxVersion } from './semver.js';
import { isOciRepoURL } from '../model/repo-url.js';
import { commitFiles, renderSource, type RenderInput, type SourceType } from './render/index.js';
import type { HelmCapabilities, RefTree } from './render/helm.js';
import { materialiseTree, type MaterialisedTree } from './render/tree.js';
import { isDirectory, listLocal, localFiles as localFolderFiles } from './render/local.js';
import { findHelm } from './render/helm.js';
import { pullChart, unpackChart, type PulledChart } from './chart-repo.js';
import { realpath } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { checkRevision, classifyRepoURL, normalizeSourcePath, redactURL } from './repo-url.js';
import { refSourceProblem, refTargets } from './ref-sources.js';

export interface DesiredOptions {
  /** A file, directory or `-`: overrides the Application's source entirely. */
  desired?: string;
  /** Overrides source.targetRevision. */
  revision?: string;
  /**
   * Overrides each spec.sources[i].targetRevision, in order (a retry of a multi-source sync at the revisions it synced;
   * --revisions with --source-positions, where an undefined entry keeps that source's targetRevision).
   */
  revisions?: readonly (string | undefined)[];
  /** A local clone to read a remote repoURL from, instead of fetching it. */
  repoDir?: string;
  /** Resolves relative repoURL paths (default: the process working directory). */
  cwd?: string;
  signal?: AbortSignal;
  /** A kustomize binary to build Kustomize sources with (--kustomize). */
  kustomize?: string;
  /** Extra `kustomize build` arguments (--kustomize-build-options). */
  kustomizeBuildOptions?: string;
  /** argocd-cm's kustomize settings, asked for only when a Kustomize source is rendered. */
  kustomizeSettings?: () => Promise<KustomizeSettings | undefined>;
  /** argocd-cm's helm.valuesFileSchemes, asked for only when a Helm source is rendered (Argo CD's default when absent). */
  helmValuesFileSchemes?: () => Promise<readonly string[] | undefined>;
  /** Render again even when the render cache has it (--hard-refresh). */
  hardRefresh?: boolean;
  /** Render `desired` (a folder) like a source instead of reading plain manifests (--render). */
  render?: boolean;
  /** A helm binary to render Helm sources with (--helm). */
  helm?: string;
  /** The destination cluster's version and types, for Helm's .Capabilities (asked only when a chart is rendered). */
  capabilities?: () => Promise<HelmCapabilities>;
  /** The destination namespace (Helm's --namespace); the Application's destination.namespace when absent. */
  namespace?: string;
  /** Shared by the apps of one many-app command: repositories, revisions and trees read once (shared-reads.ts). */
  reads?: SourceReads;
  /** The namespace Argo CD runs in: ARGOCD_APP_NAME is `<namespace>_<name>` for an Application outside it (default `argocd`). */
  controlPlaneNamespace?: string;
}

/** `read()` through the command's shared reads, when it has them. */
function shared<T>(opts: Pick<DesiredOptions, 'reads'>, key: string, read: () => Promise<T>): Promise<T> {
  return opts.reads ? opts.reads.once(key, read) : read();
}

export interface DesiredManifests {
  objects: ManifestObject[];
  /** The resolved commit SHA (absent for --desired). */
  revision?: string;
  /** Where the manifests came from, for messages: the --desired path or `<repo>@<sha7>:<path>`. */
  origin: string;
  /** Files skipped on purpose (symlinks, submodules), said rather than dropped silently. */
  warnings: string[];
  /** How the source was rendered (absent for --desired; for several sources, when they all were rendered alike). */
  sourceType?: SourceType;
  /** Each entry of spec.sources and what it was read at (absent for a single source). */
  sources?: SourceRevision[];
  /** The Git commits read (for the signature check an AppProject with signatureKeys asks for). */
  commits?: { dir: GitDir; sha: string }[];
}

/**
 * The objects of `--desired PATH`, through the render cache keyed by the files' paths and contents (and this build): as
 * Argo CD's repo-server keeps a commit's manifests, a folder read again unchanged (a drift drill's repeated status,
 * diff and sync) is not parsed again. `-` (stdin) and `hardRefresh` read and parse as they are.
 */
async function localManifests(path: string, io: WorkflowIo, hardRefresh: boolean): Promise<ManifestObject[]> {
  if (path === '-') return loadManifests(path, io);
  const files = await readManifestFiles(path);
  const v = versionInfo();
  const contents = createHash('sha256');
  for (const f of files) contents.update(f.path).update('\0').update(f.text).update('\0');
  const key = renderCacheKey({
    sha: contents.digest('hex'),
    path,
    options: null,
    appEnv: {},
    tool: 'local manifests',
    build: `${v.version} ${v.gitCommit}`,
  });
  const dir = renderCacheDir(io.env);
  const hit = hardRefresh ? undefined : readRenderCache(dir, key);
  if (hit) return hit.objects;
  const objects = parseManifestFiles(files);
  writeRenderCache(dir, key, { objects, warnings: [] });
  return objects;
}

/**
 * Loads the desired manifests: `desired` given → that file or directory; otherwise the Application's
 * source.repoURL (a local path, a file:// URL, or a remote fetched into a cache, or read from `repoDir`) at
 * `revision` ?? source.targetRevision ?? HEAD, under source.path; a `chart` from its Helm repository or OCI registry at
 * that version; every entry of spec.sources (loadSources). Any error is an InputError (or the refusal of what cannot be
 * rendered) and nothing is returned.
 */
export async function loadDesiredManifests(app: Application, opts: DesiredOptions, io: WorkflowIo): Promise<DesiredManifests> {
  if (opts.render && (opts.desired === undefined || opts.desired === ''))
    throw new InputError('--render renders the folder given by --desired DIR: give --desired');
  if (opts.desired !== undefined && opts.desired !== '' && opts.render) {
    return renderLocalDirectory(opts.desired, app, opts, io);
  }
  if (opts.desired !== undefined && opts.desired !== '') {
    // Plain manifests, read recursively; a folder that is really another type of source is refused, not half read.
    if (opts.desired !== '-') refuseUnrenderable(fileBlockers(await localFiles(opts.desired), `--desired ${opts.desired}`));
    return { objects: await localManifests(opts.desired, io, opts.hardRefresh === true), origin: opts.desired, warnings: [] };
  }
  if (app.sources !== undefined) return loadSources(app, app.sources, opts, io);
  refuseUnrenderable(specBlockers(app));
  const repoURL = app.source.repoURL ?? '';
  if (repoURL.trim() === '') {
    throw new InputError(`the Application ${app.name} (${app.origin}) has no spec.source.repoURL: give --desired DIR|FILE`);
  }
  const chart = app.source.options?.chart;
  if (chart !== undefined) requireChartVersion(app, app.source, 'spec.source');
  // Any oci:// repoURL is an OCI source, a `chart` beside it or not (Argo CD v3.2's repo-server asks IsOCI before
  // IsHelm): the artifact at the repoURL itself is pulled, a Helm chart's folder its root; the chart's name is not
  // added to the repoURL. (A chart from an OCI registry by name is a repoURL without a scheme.)
  if (isOciRepoURL(repoURL)) return readOciSource(app, opts.revision ?? app.source.targetRevision ?? '', opts, io);
  if (chart !== undefined) {
    const pulled = await pullSourceChart(app.source, opts.revision ?? app.source.targetRevision ?? '', opts, io);
    return readChart(app, pulled, opts, io);
  }
  const flag = opts.revision !== undefined ? '--revision' : 'source.targetRevision';
  const revision = checkRevision(opts.revision ?? app.source.targetRevision ?? '', flag);
  const path = normalizeSourcePath(app.source.path);
  const repo = await openRepository(repoURL, opts, io);
  const sha = await shared(opts, `rev|${repo.dir.gitDir}|${repo.label}|${revision}`, () => resolveRevision(repo, revision));
  if (sha === undefined) {
    throw new InputError(`${flag} ${JSON.stringify(revision)} names no commit in ${repo.label}: expected a branch, tag, commit SHA or HEAD`);
  }
  return readManifestsAt(repo, sha, path, app, opts, io);
}

/**
 * A repository (repoURL as a source names it: a local path, a file:// URL or a remote fetched into the Git cache, or
 * `repoDir`) at a revision ('' = HEAD), as the sources of an Application are read: the git directory, the commit and
 * a printable label. `what` names the field for messages (`git generator revision`).
 */
export async function openRevision(
  repoURL: string,
  revision: string,
  what: string,
  opts: DesiredOptions,
  io: WorkflowIo,
): Promise<{ dir: GitDir; sha: string; label: string }> {
  const rev = checkRevision(revision, what);
  const repo = await openRepository(repoURL, opts, io);
  const sha = await shared(opts, `rev|${repo.dir.gitDir}|${repo.label}|${rev}`, () => resolveRevision(repo, rev));
  if (sha === undefined) throw new InputError(`${what} ${JSON.stringify(rev)} names no commit in ${repo.label}: expected a branch, tag, commit SHA or HEAD`);
  return { dir: repo.dir, sha, label: repo.label };
}

type ToolOptions = Pick<DesiredOptions, 'kustomize' | 'kustomizeBuildOptions' | 'kustomizeSettings' | 'helmValuesFileSchemes' | 'helm' | 'capabilities'>;

/** The tool settings of the options, for the renderer. */
function toolOptions(opts: ToolOptions): ToolOptions {
  return {
    ...(opts.kustomize !== undefined ? { kustomize: opts.kustomize } : {}),
    ...(opts.kustomizeBuildOptions !== undefined ? { kustomizeBuildOptions: opts.kustomizeBuildOptions } : {}),
    ...(opts.kustomizeSettings !== undefined ? { kustomizeSettings: opts.kustomizeSettings } : {}),
    ...(opts.helmValuesFileSchemes !== undefined ? { helmValuesFileSchemes: opts.helmValuesFileSchemes } : {}),
    ...(opts.helm !== undefined ? { helm: opts.helm } : {}),
    ...(opts.capabilities !== undefined ? { capabilities: opts.capabilities } : {}),
  };
}

/** What every render of a source takes from the command: the tools, --hard-refresh, Ctrl-C, the namespaces. */
function renderContext(
  opts: ToolOptions & Pick<DesiredOptions, 'hardRefresh' | 'signal' | 'namespace' | 'controlPlaneNamespace'>,
  io: Pick<Io, 'env'>,
): Pick<RenderInput, 'tools' | 'signal' | 'namespace' | 'controlPlaneNamespace'> {
  return {
    tools: { env: io.env, ...toolOptions(opts), ...(opts.hardRefresh ? { hardRefresh: true } : {}) },
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}),
    ...(opts.controlPlaneNamespace !== undefined ? { controlPlaneNamespace: opts.controlPlaneNamespace } : {}),
  };
}

/** Throws the refusal when a source cannot be rendered completely as Argo CD would. */
function refuseUnrenderable(reasons: readonly string[]): void {
  if (reasons.length > 0) throw new UnrenderableError(reasons);
}

/**
 * Renders a local folder like a source (directory, Jsonnet or Kustomize, with the Application's source options when
 * there is one): its enclosing git work tree is the repository root (the folder itself outside one); nothing is cached.
 */
export async function renderLocalDirectory(
  dir: string,
  app: Application | undefined,
  opts: ToolOptions & Pick<DesiredOptions, 'namespace' | 'controlPlaneNamespace'>,
  io: Pick<Io, 'env'>,
): Promise<DesiredManifests> {
  if (!isDirectory(dir)) throw new InputError(`--render needs a directory: ${dir} is not one`);
  const abs = resolve(dir);
  let root = abs;
  try {
    const top = (await runGit(['rev-parse', '--show-toplevel'], { cwd: abs, env: io.env })).toString('utf8').trim();
    if (top !== '') root = await realpath(top);
  } catch {
    // not in a git work tree (or no git): the folder is the root
  }
  const real = await realpath(abs);
  const path = relative(root, real).split(sep).join('/');
  const forRender: Application = app ?? {
    name: '',
    namespace: '',
    source: {},
    sourcesCount: 0,
    sourceOptions: {},
    destination: {},
    syncOptions: {} as Application['syncOptions'],
    ignoreDifferences: [],
    warnings: [],
    origin: dir,
  };
  const rendered = await renderSource({
    files: localFolderFiles(root),
    label: dir,
    sha: '',
    path,
    entries: listLocal(root, real),
    app: forRender,
    ...renderContext(opts, io),
  });
  rejectDuplicates(rendered.objects);
  return { objects: rendered.objects, origin: dir, warnings: rendered.warnings, sourceType: rendered.sourceType };
}

/**
 * Argo CD's OCI source (any `oci://` repoURL, a `chart` beside it or not): the artifact at the tag or digest pulled and unpacked
 * (source/oci.ts), then its path rendered as a repository's would be, the artifact's root as the repository root; the
 * revision is the manifest's digest, as Argo CD records it.
 */
async function readOciSource(app: Application, reference: string, opts: DesiredOptions, io: WorkflowIo): Promise<DesiredManifests> {
  const { pullOciArtifact } = await import('./oci.js');
  const repoURL = app.source.repoURL ?? '';
  const pulled = await pullOciArtifact(repoURL, reference, { ...opts, env: io.env });
  try {
    const m = await renderOciArtifact(app, pulled, reference, opts, io);
    rejectDuplicates(m.objects);
    return m;
  } finally {
    const { rmSync } = await import('node:fs');
    rmSync(pulled.dir, { recursive: true, force: true });
  }
}

/** The app's source path of an unpacked OCI artifact, rendered with the artifact's root as the repository root. */
async function renderOciArtifact(
  app: Application,
  pulled: { dir: string; digest: string; warnings: string[] },
  reference: string,
  opts: DesiredOptions,
  io: WorkflowIo,
): Promise<DesiredManifests> {
  const repoURL = app.source.repoURL ?? '';
  const path = normalizeSourcePath(app.source.path);
  const at = resolve(pulled.dir, path);
  // A `chart` beside an oci:// repoURL names nothing (see loadDesiredManifests): the type is found from the files, as Argo CD's
  // ExplicitType, which does not read `chart`, leaves it to discovery.
  if (app.source.options?.chart !== undefined) {
    const { chart: _chart, ...options } = app.source.options;
    app = { ...app, source: { ...app.source, options } };
  }
  if (!isDirectory(at)) throw new ManifestError(`source.path ${JSON.stringify(path)} does not exist in the OCI artifact ${repoURL} at ${reference}`);
  const rendered = await renderSource({
    files: localFolderFiles(pulled.dir),
    label: repoURL,
    sha: pulled.digest,
    path,
    entries: listLocal(pulled.dir, at),
    app,
    ...renderContext(opts, io),
  });
  return {
    objects: rendered.objects,
    revision: pulled.digest,
    origin: `${repoURL}@${pulled.digest.slice(0, 19)}:${path || '.'}`,
    warnings: [...pulled.warnings, ...rendered.warnings],
    sourceType: rendered.sourceType,
  };
}

interface OpenRepository {
  dir: GitDir;
  /** The repository as people named it, safe to print. */
  label: string;
  /** Refs to try, in order, for a revision name (a mirror's HEAD lives elsewhere; a clone's branches under origin/). */
  candidates(revision: string): string[];
}

async function openRepository(repoURL: string, opts: DesiredOptions, io: WorkflowIo): Promise<OpenRepository> {
  const location = classifyRepoURL(repoURL, opts.cwd ?? process.cwd());
  const env = io.env;
  if (opts.repoDir !== undefined && opts.repoDir !== '') {
    const gitDir = await findGitDir(opts.repoDir, env);
    if (gitDir === undefined) throw new InputError(`--repo-dir ${opts.repoDir} is not a git repository (its root or a bare repository)`);
    return {
      dir: { gitDir, env },
      label: opts.repoDir,
      candidates: (rev) => (rev === 'HEAD' || /^[0-9a-f]{7,64}$/i.test(rev) ? [rev] : [rev, `refs/remotes/origin/${rev}`]),
    };
  }
  if (location.kind === 'local') {
    const gitDir = await shared(opts, `gitdir|${location.path}`, () => findGitDir(location.path, env));
    if (gitDir === undefined) {
      throw new InputError(`source.repoURL ${repoURL} is not a git repository (expected its root, a bare repository, or a file:// URL to one)`);
    }
    return { dir: { gitDir, env }, label: repoURL, candidates: (rev) => [rev] };
  }
  const dir = await shared(opts, `fetch|${location.url}`, () => fetchIntoCache(location.url, env, { signal: opts.signal }));
  return { dir, label: redactURL(location.url), candidates: (rev) => (rev === 'HEAD' ? [REMOTE_HEAD_REF] : [rev]) };
}

async function resolveRevision(repo: OpenRepository, revision: string): Promise<string | undefined> {
  // A semver constraint (`1.*`, `^1.2`, `>=1.0.0 <2.0.0`) names the greatest tag that satisfies it, as Argo CD's
  // LsRemote resolves it (versions.MaxVersion over the tags); when none does, the revision is looked up as written (a
  // branch may have such a name), and a revision that is no constraint is never changed.
  if (isSemverConstraint(revision)) {
    const max = maxVersion(revision, await listTags(repo.dir));
    if ('version' in max) {
      const sha = await resolveCommit(repo.dir, `refs/tags/${max.version}`);
      if (sha !== undefined) return sha;
    }
  }
  for (const candidate of repo.candidates(revision)) {
    try {
      const sha = await resolveCommit(repo.dir, candidate);
      if (sha !== undefined) return sha;
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new InputError(`resolving revision ${JSON.stringify(revision)} in ${repo.label}`, { cause: e });
    }
  }
  return undefined;
}

/**
 * A chart source must name its version (an exact one or a range): Argo CD's controller refuses one without
 * targetRevision as an InvalidSpecError (util/argo validateSourcePermissions), whatever revision a command pins, and
 * its repo-server could not resolve it either ("improper constraint: "). Exit 2.
 */
function requireChartVersion(app: Application, source: AppSource | Application['source'], at: string): void {
  if ((source.targetRevision ?? '') !== '') return;
  throw new InputError(
    `${app.origin}: Application ${at}.targetRevision: spec.source.targetRevision is required if the manifest source is a helm chart (Argo CD refuses ${app.name} as an InvalidSpecError): set the chart's version or a range such as '1.*' or '*'`,
  );
}

/** The chart of a source with `chart:` at `version` (exact or a range), pulled or taken from the cache. */
function pullSourceChart(source: Application['source'], version: string, opts: DesiredOptions, io: WorkflowIo): Promise<PulledChart & { chart: string }> {
  const chart = source.options?.chart ?? '';
  return pullChart({
    repoURL: source.repoURL ?? '',
    chart,
    version,
    helm: findHelm(opts.helm, io.env),
    env: io.env,
    ...(source.options?.helm?.passCredentials ? { passCredentials: true } : {}),
    ...(opts.hardRefresh ? { hardRefresh: true } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  }).then((p) => ({ ...p, chart }));
}

/** A pulled chart unpacked and rendered with the source's helm options: origin and revision are `<chart>@<version>`. */
async function readChart(
  app: Application,
  pulled: PulledChart & { chart: string },
  opts: DesiredOptions,
  io: WorkflowIo,
  refs?: ReadonlyMap<string, RefTree & { revision: string }>,
): Promise<DesiredManifests> {
  const origin = `${pulled.chart}@${pulled.version}`;
  const tree = await unpackChart(pulled.archive, origin, io.env);
  try {
    const rendered = await renderSource({
      files: localFolderFiles(tree.root),
      label: pulled.chart,
      // The chart version stands for the commit: ARGOCD_APP_REVISION and the render cache key (with the repoURL and chart).
      sha: pulled.version,
      path: tree.top,
      entries: listLocal(tree.root, `${tree.root}/${tree.top}`),
      app,
      origin,
      ...renderContext(opts, io),
      ...(refs ? { refs } : {}),
    });
    rejectDuplicates(rendered.objects);
    return { objects: rendered.objects, revision: pulled.version, origin, warnings: rendered.warnings, sourceType: rendered.sourceType };
  } finally {
    await tree.dispose();
  }
}

/** Argo CD's rule for a `ref` name (util/argo GetRefSources). */
const REF_NAME = /^[a-zA-Z0-9_-]+$/;

/**
 * A multi-source Application (spec.sources): every source resolved to its commit first, the files of `ref` sources
 * laid out for the `$ref/...` value files of the others, then every source with a path rendered and the objects
 * united. Any source that fails stops everything (nothing is returned, so nothing is applied or pruned).
 */
async function loadSources(app: Application, sources: readonly AppSource[], opts: DesiredOptions, io: WorkflowIo): Promise<DesiredManifests> {
  if (opts.revision !== undefined)
    throw new InputError(
      `--revision names one revision, and ${app.name} has ${sources.length} sources (spec.sources): set each source's targetRevision instead`,
    );
  if (opts.repoDir !== undefined && opts.repoDir !== '')
    throw new InputError(`--repo-dir stands for one repository, and ${app.name} has ${sources.length} sources (spec.sources)`);
  refuseUnrenderable(sourcesBlockers(sources));
  const refNames = new Set<string>();
  sources.forEach((s, i) => {
    if (s.ref === undefined || s.ref === '') return;
    if (!REF_NAME.test(s.ref))
      throw new InputError(`${app.origin}: Application spec.sources[${i}].ref ${s.ref} cannot contain any special characters except '_' and '-'`);
    if (refNames.has(s.ref)) throw new InputError(`${app.origin}: Application spec.sources: multiple sources had the same \`ref\` key (${s.ref})`);
    refNames.add(s.ref);
  });
  const resolved: (
    | { source: AppSource; repo: OpenRepository; sha: string; chart?: undefined; oci?: undefined }
    | { source: AppSource; chart: PulledChart & { chart: string }; sha: string; repo?: undefined; oci?: undefined }
    | { source: AppSource; oci: { dir: string; digest: string; warnings: string[]; reference: string }; sha: string; repo?: undefined; chart?: undefined }
  )[] = [];
  // Unpacked OCI artifacts, removed when the render is done.
  const artifacts: string[] = [];
  try {
    for (const [i, source] of sources.entries()) {
      const repoURL = source.repoURL ?? '';
      if (repoURL.trim() === '') throw new InputError(`the Application ${app.name} (${app.origin}) has no spec.sources[${i}].repoURL`);
      const pinned = opts.revisions?.[i];
      if (source.options?.chart !== undefined) requireChartVersion(app, source, `spec.sources[${i}]`);
      // An oci:// entry is an OCI source even with a `chart` (as for spec.source, above).
      if (source.options?.chart !== undefined && !isOciRepoURL(repoURL)) {
        const chart = await pullSourceChart(source, pinned ?? source.targetRevision ?? '', opts, io);
        resolved.push({ source, chart, sha: chart.version });
        continue;
      }
      if (isOciRepoURL(repoURL)) {
        const { pullOciArtifact } = await import('./oci.js');
        const reference = pinned ?? source.targetRevision ?? '';
        const pulled = await pullOciArtifact(repoURL, reference, { ...opts, env: io.env });
        artifacts.push(pulled.dir);
        resolved.push({ source, oci: { ...pulled, reference }, sha: pulled.digest });
        continue;
      }
      const field = `spec.sources[${i}].targetRevision`;
      const revision = checkRevision(pinned ?? source.targetRevision ?? '', field);
      const repo = await openRepository(repoURL, opts, io);
      const sha = await shared(opts, `rev|${repo.dir.gitDir}|${repo.label}|${revision}`, () => resolveRevision(repo, revision));
      if (sha === undefined)
        throw new InputError(`${field} ${JSON.stringify(revision)} names no commit in ${repo.label}: expected a branch, tag, commit SHA or HEAD`);
      resolved.push({ source, repo, sha });
    }
  } catch (err) {
    // An artifact pulled before a later source failed is not left behind.
    const { rmSync } = await import('node:fs');
    for (const dir of artifacts) rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const trees: MaterialisedTree[] = [];
  try {
    const refs = new Map<string, RefTree & { revision: string }>();
    for (const r of resolved) {
      if (r.source.ref === undefined || r.source.ref === '' || r.repo === undefined) continue;
      const tree = await materialiseTree(r.repo.dir, r.sha).catch((e: unknown) => {
        // A link out of the repository in the ref's tree is its content's failure, like one in a source's own path.
        const As = e instanceof ManifestError ? ManifestError : InputError;
        throw new As(`reading ${r.repo.label}@${r.sha.slice(0, 7)} (spec.sources ref ${r.source.ref})`, { cause: e });
      });
      trees.push(tree);
      refs.set(`$${r.source.ref}`, { root: tree.root, label: `${r.repo.label}@${r.sha.slice(0, 7)}`, revision: r.sha });
    }
    // What each `ref` source stands for in the repo-server's checks (at its pinned revision when --revisions names one).
    const revisionOf = (i: number) => opts.revisions?.[i] || (sources[i]?.targetRevision ?? '');
    const targets = refTargets(
      resolved.map((r, i) => ({
        ref: r.source.ref,
        target: { repoURL: r.source.repoURL ?? '', targetRevision: revisionOf(i), chart: r.chart !== undefined, sha: r.repo ? r.sha : undefined },
      })),
    );
    const objects: DesiredManifests['objects'] = [];
    const warnings: string[] = [];
    const origins: string[] = [];
    const out: SourceRevision[] = [];
    const types = new Set<SourceType>();
    for (const [position, r] of resolved.entries()) {
      const s = r.source;
      const entry: SourceRevision = {
        repoURL: s.repoURL ?? '',
        ...(s.path !== undefined ? { path: s.path } : {}),
        ...(s.options?.chart !== undefined ? { chart: s.options.chart } : {}),
        ...(s.ref !== undefined ? { ref: s.ref } : {}),
        ...(s.targetRevision !== undefined ? { targetRevision: s.targetRevision } : {}),
        revision: r.sha,
      };
      out.push(entry);
      // A source without a path (and no chart) lends its files only: Argo CD generates nothing for it.
      if ((s.path === undefined || s.path === '') && s.options?.chart === undefined) continue;
      // Its `$name/...` value files and file parameters, checked as the repo-server checks them before rendering.
      const problem = refSourceProblem(s.options?.helm, targets, {
        repoURL: s.repoURL ?? '',
        revision: revisionOf(position),
        sha: r.sha,
      });
      if (problem !== undefined)
        throw new ManifestError(
          `${app.origin}: Application spec.sources[${position}]: ${problem} (Argo CD fails to generate manifest for source ${position + 1} of ${resolved.length})`,
        );
      const forSource: Application = {
        ...app,
        sourceOptions: s.sourceOptions ?? {},
        source: {
          repoURL: entry.repoURL,
          ...(s.path !== undefined ? { path: s.path } : {}),
          ...(s.targetRevision !== undefined ? { targetRevision: s.targetRevision } : {}),
          ...(s.options ? { options: s.options } : {}),
        },
      };
      const m =
        r.chart !== undefined
          ? await readChart(forSource, r.chart, opts, io, refs)
          : r.oci !== undefined
            ? await renderOciArtifact(forSource, r.oci, r.oci.reference, opts, io)
            : await readManifestsAt(r.repo, r.sha, normalizeSourcePath(s.path), forSource, opts, io, refs);
      // Each object knows its source's position (manifests --source-position).
      objects.push(...m.objects.map((o) => ({ ...o, source: { ...o.source, sourcePosition: position + 1 } })));
      warnings.push(...m.warnings);
      origins.push(m.origin);
      if (m.sourceType) {
        entry.type = m.sourceType;
        types.add(m.sourceType);
      }
    }
    // One object from two sources is refused (which one Argo CD would apply is not this tool's guess).
    rejectDuplicates(objects);
    const only = types.size === 1 ? [...types][0] : undefined;
    return {
      objects,
      origin: origins.length > 0 ? origins.join(', ') : `${app.name}: no source with a path`,
      warnings,
      sources: out,
      commits: resolved.flatMap((r) => (r.repo ? [{ dir: r.repo.dir, sha: r.sha }] : [])),
      ...(only ? { sourceType: only } : {}),
    };
  } finally {
    await Promise.all(trees.map((t) => t.dispose()));
    const { rmSync } = await import('node:fs');
    for (const dir of artifacts) rmSync(dir, { recursive: true, force: true });
  }
}

async function readManifestsAt(
  repo: OpenRepository,
  sha: string,
  path: string,
  app: Application,
  opts: DesiredOptions,
  io: WorkflowIo,
  refs?: ReadonlyMap<string, RefTree & { revision: string }>,
): Promise<DesiredManifests> {
  const at = `${repo.label}@${sha.slice(0, 7)}`;
  const origin = `${at}:${path === '' ? '/' : path}`;
  let entries: TreeEntry[];
  try {
    if (opts.reads) {
      // The commit's whole tree, listed once for every app of the command that reads it.
      const whole = await opts.reads.wholeTree(repo.dir, sha);
      const under = entriesUnder(whole, path);
      if (under === undefined) throw new ManifestError(`source.path ${JSON.stringify(path)} does not exist at ${at}`);
      if (path !== '' && under.length === 1 && under[0]!.path === path) throw notADirectory(path, at);
      entries = under;
    } else {
      const type = path === '' ? 'tree' : await objectTypeAt(repo.dir, sha, path);
      if (type === undefined) throw new ManifestError(`source.path ${JSON.stringify(path)} does not exist at ${at}`);
      if (type !== 'tree') throw notADirectory(path, at);
      entries = await listTree(repo.dir, sha, path);
    }
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`listing ${origin}`, { cause: e });
  }
  const reads = opts.reads;
  const rendered = await renderSource({
    files: commitFiles(repo.dir, sha, reads ? () => reads.blobs(repo.dir) : undefined, reads),
    label: repo.label,
    sha,
    path,
    entries,
    app,
    ...renderContext(opts, io),
    ...(refs ? { refs } : {}),
  });
  rejectDuplicates(rendered.objects);
  return { objects: rendered.objects, revision: sha, origin, warnings: rendered.warnings, sourceType: rendered.sourceType, commits: [{ dir: repo.dir, sha }] };
}

/** A source path that names a file: Argo CD's repo-server refuses it (util/io/path: "app path is not a directory"). */
function notADirectory(path: string, at: string): ManifestError {
  return new ManifestError(
    `source.path ${JSON.stringify(path)} is a file at ${at}: an Application's path must be a directory, as Argo CD requires (app path is not a directory)`,
  );
}
