// A Kustomize source: the commit's tree in a temporary folder, Argo CD's edits applied to the kustomization there,
// then `kustomize build` (the kustomize binary named or on PATH, else `kubectl kustomize`).
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, posix, resolve, sep } from 'node:path';
import type { KustomizeOptions } from '../../app/source-options.js';
import { InputError, ManifestError } from '../../model/errors.js';
import { filepathMatch, hasMeta } from '../../model/glob.js';
import { KUSTOMIZATION_NAMES } from './detect.js';
import type { RenderEnv } from './envsubst.js';
import { type ComponentCheck, editKustomization } from './kustomize-edit.js';
import { kubeVersionArg, type HelmCapabilities } from './helm.js';
import { findOnPath, resolveToolPath, runTool } from './tools.js';
import { scrubToolMessage } from './tool-message.js';

/** The environment variable that names a kustomize binary (like --kustomize). */
const KUSTOMIZE_ENV = 'KUBECTL_GITOPS_KUSTOMIZE';

export interface KustomizeTool {
  /** `kustomize` runs `<path> build DIR`; `kubectl` runs `<path> kustomize DIR`. */
  kind: 'kustomize' | 'kubectl';
  path: string;
}

const HOW_TO_NAME = `name one with --kustomize PATH or ${KUSTOMIZE_ENV}=PATH`;

/**
 * The binary of a named kustomize version (spec.source.kustomize.version), as Argo CD's repo-server picks it from
 * argocd-cm's `kustomize.path.<version>` (util/settings GetKustomizeBinaryPath). An unregistered version is Argo CD's
 * error whatever binary is at hand (`error getting kustomize binary path: kustomize version X is not registered`), so it
 * is refused even with --kustomize (`given`). A registered version is built with `given` when there is one, else with
 * the registered path, and a registered path that is no executable file here (it names a file in Argo CD's image) is
 * bad input saying so.
 */
export function namedKustomize(version: string, versions: ReadonlyMap<string, string>, env: Record<string, string | undefined>, given?: string): KustomizeTool {
  const registered = versions.get(version);
  if (registered === undefined)
    throw new InputError(
      `kustomize version ${version} is not registered (argocd-cm kustomize.path.${version}), so Argo CD's repo-server fails this render: add kustomize.path.${version} to argocd-cm or drop spec.source.kustomize.version`,
    );
  if (given !== undefined) return findKustomize(given, env);
  const path = resolveToolPath(registered, env);
  if (!path)
    throw new InputError(
      `kustomize version ${version}: argocd-cm's kustomize.path.${version} ${registered} is not an executable file on this machine (a path in Argo CD's image?); ${HOW_TO_NAME}`,
    );
  return { kind: 'kustomize', path };
}

/** The tool to build with: the one named (flag, then environment), else kustomize on PATH, else kubectl on PATH. */
export function findKustomize(named: string | undefined, env: Record<string, string | undefined>): KustomizeTool {
  const given = named ?? env[KUSTOMIZE_ENV];
  if (given !== undefined && given !== '') {
    const path = resolveToolPath(given, env);
    if (!path) throw new InputError(`the kustomize binary ${given} (${named !== undefined ? '--kustomize' : KUSTOMIZE_ENV}) is not an executable file`);
    return { kind: 'kustomize', path };
  }
  const kustomize = findOnPath('kustomize', env);
  if (kustomize) return { kind: 'kustomize', path: kustomize };
  const kubectl = findOnPath('kubectl', env);
  if (kubectl) return { kind: 'kubectl', path: kubectl };
  throw new InputError(`rendering a Kustomize source needs kustomize or kubectl, and neither is on PATH: install one, or ${HOW_TO_NAME}`);
}

/** The tool's version line, for the render cache key (`kustomize version`, `kubectl version --client`). */
export async function kustomizeVersion(tool: KustomizeTool, env: Record<string, string | undefined>): Promise<string> {
  const args = tool.kind === 'kustomize' ? ['version'] : ['version', '--client'];
  const res = await runTool(tool.path, args, { env }).catch(() => undefined);
  return `${tool.kind} ${res?.stdout.trim().split('\n').join(' ') ?? 'unknown'}`;
}

export interface KustomizeRender {
  /** The folder holding the commit's tree (materialised). */
  root: string;
  /** source.path inside it ('' = the root). */
  path: string;
  options: KustomizeOptions | undefined;
  env: RenderEnv;
  tool: KustomizeTool;
  /** The environment the tool runs in (the process's). */
  processEnv: Record<string, string | undefined>;
  /** `<repo>@<sha7>:<path>`, for messages. */
  origin: string;
  /** Extra `kustomize build` arguments (Argo CD's kustomize.buildOptions), split at whitespace as Argo CD does. */
  buildOptions?: string;
  /** The destination cluster's version and types, for charts inflated with --enable-helm (the source's own win). */
  capabilities?: HelmCapabilities;
  signal?: AbortSignal;
}

/** Whether the build options turn on Kustomize's Helm chart inflation (Argo CD's isHelmEnabled: the text anywhere). */
export function helmEnabled(buildOptions: string | undefined): boolean {
  return (buildOptions ?? '').includes('--enable-helm');
}

/**
 * The build command's arguments as Argo CD makes them: `build DIR` and the build options; with `--enable-helm`
 * among them, --helm-kube-version / --helm-api-versions: the source's kubeVersion and apiVersions, else the
 * destination cluster's (GetKubeVersionOrDefault / GetAPIVersionsOrDefault), the version as k8s ParseGeneric reads it
 * (`v1.31.4` is `1.31.4`). A kubeVersion that is no version fails the render, as in Argo CD.
 */
export function buildArgs(
  tool: KustomizeTool,
  target: string,
  buildOptions: string | undefined,
  options: KustomizeOptions | undefined,
  capabilities?: HelmCapabilities,
): string[] {
  const extra = (buildOptions ?? '').split(/\s+/).filter((a) => a !== '');
  const args = [...(tool.kind === 'kustomize' ? ['build', target] : ['kustomize', target]), ...extra];
  const kubeVersion = kubeVersionArg(options?.kubeVersion ? options.kubeVersion : helmEnabled(buildOptions) ? (capabilities?.kubeVersion ?? '') : '');
  if (helmEnabled(buildOptions)) {
    if (kubeVersion !== '') args.push('--helm-kube-version', kubeVersion);
    const apiVersions = options && options.apiVersions.length > 0 ? options.apiVersions : (capabilities?.apiVersions ?? []);
    for (const v of apiVersions) args.push('--helm-api-versions', v);
  }
  return args;
}

/** Go's sort.Strings order: by UTF-8 bytes. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * Go's filepath.Glob(pattern) run in the folder `cwd` (Linux): a pattern without meta characters is itself when it
 * exists (Lstat); else the names of its folder (itself globbed when it has meta characters) that match its last part,
 * each folder's names sorted, joined as filepath.Join does. Folders and paths for which `inside` (given the absolute
 * path) is false are neither read nor returned. The pattern is taken to be well-formed (filepath.Match's syntax).
 */
export function goGlob(cwd: string, pattern: string, inside: (abs: string) => boolean): string[] {
  if (!hasMeta(pattern)) {
    const p = resolve(cwd, pattern);
    try {
      return inside(p) && lstatSync(p, { throwIfNoEntry: false }) ? [pattern] : [];
    } catch {
      return [];
    }
  }
  const slash = pattern.lastIndexOf('/');
  const file = pattern.slice(slash + 1);
  const head = pattern.slice(0, slash + 1);
  // filepath's cleanGlobPath: no folder is `.`, the root stays, else the trailing separator goes.
  const dir = head === '' ? '.' : head === '/' ? '/' : head.slice(0, -1);
  const dirs = hasMeta(dir) ? goGlob(cwd, dir, inside) : [dir];
  const out: string[] = [];
  for (const d of dirs) {
    const abs = resolve(cwd, d);
    if (!inside(abs)) continue;
    let names: string[];
    try {
      if (!statSync(abs).isDirectory()) continue;
      names = readdirSync(abs);
    } catch {
      continue; // Go's glob ignores I/O errors
    }
    for (const n of names.sort(byBytes)) {
      const m = posix.join(d, n);
      if (filepathMatch(file, n) && inside(resolve(cwd, m))) out.push(m);
    }
  }
  return out;
}

/** The component paths of a kustomization in `dir`, looked up only inside the materialised tree at `root`. */
export function componentCheck(root: string, dir: string): ComponentCheck {
  const inside = (p: string) => p === root || p.startsWith(root + sep);
  return {
    exists: (c) => {
      const p = resolve(dir, c);
      return inside(p) && existsSync(p);
    },
    glob: (pattern) => goGlob(dir, pattern, inside),
  };
}

/** Applies the options to the kustomization in the materialised tree and builds; returns the tool's YAML output. */
export async function buildKustomize(r: KustomizeRender): Promise<string> {
  const dir = join(r.root, r.path);
  if (r.options) {
    const file = KUSTOMIZATION_NAMES.map((n) => join(dir, n)).find((p) => existsSync(p));
    // Without a kustomization file there is nothing to edit: the build says so in kustomize's words.
    if (file) {
      const text = readFileSync(file, 'utf8');
      let edited: string;
      try {
        edited = editKustomization(text, r.options, r.env, componentCheck(r.root, dir));
      } catch (e) {
        // Argo CD's `kustomize edit` of the kustomization file at this revision (KustomizeEditError, or its YAML).
        throw new ManifestError(`applying spec.source.kustomize to ${r.origin}: ${(e as Error).message}`, { cause: e });
      }
      if (edited !== text) writeFileSync(file, edited);
    }
  }
  const target = r.path === '' ? '.' : r.path;
  const args = buildArgs(r.tool, target, r.buildOptions, r.options, r.capabilities);
  const env = { ...r.processEnv, ...r.env };
  let res;
  try {
    res = await runTool(r.tool.path, args, { cwd: r.root, env, signal: r.signal });
  } catch (e) {
    throw new InputError(`running ${r.tool.path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: ${HOW_TO_NAME}`, { cause: e });
  }
  if (res.code !== 0) {
    const said = scrubToolMessage(
      res.stderr
        .split(r.root + sep)
        .join('')
        .split(r.root)
        .join('.')
        .trim(),
      'kustomize',
    );
    const command = r.tool.kind === 'kustomize' ? 'kustomize build' : 'kubectl kustomize';
    const remote =
      /github\.com|git@|https?:\/\//.test(said) && /fetch|clone|git|remote|dial|resolve/i.test(said) ? ' (a remote base could not be fetched)' : '';
    throw new ManifestError(`${command} failed for ${r.origin}${remote}: ${said || `exit ${res.code}`}`);
  }
  return res.stdout;
}
