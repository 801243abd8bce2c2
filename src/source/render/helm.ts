// A Helm source rendered as Argo CD's repo-server renders it (reposerver/repository helmTemplate, util/helm/cmd.go):
// the user's `helm` binary runs `helm template .` in the chart's folder with Argo CD's arguments and value precedence,
// and `helm dependency build` once when the template says a dependency is missing from charts/.
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { HelmOptions } from '../../app/source-options.js';
import { InputError, ManifestError } from '../../model/errors.js';
import { DEFAULT_VALUES_FILE_SCHEMES } from '../../settings/argocd-cm.js';
import { envsubst, type RenderEnv } from './envsubst.js';
import { findOnPath, resolveToolPath, runTool } from './tools.js';
import { scrubToolMessage } from './tool-message.js';

/** The environment variable that names a helm binary (like --helm). */
const HELM_ENV = 'KUBECTL_GITOPS_HELM';

const HOW_TO_NAME = `install helm, or name it with --helm PATH or ${HELM_ENV}=PATH`;

/** The helm binary: the one named (flag, then environment), else `helm` on PATH; missing is exit 2 naming it. */
export function findHelm(named: string | undefined, env: Record<string, string | undefined>): string {
  const given = named ?? env[HELM_ENV];
  if (given !== undefined && given !== '') {
    const path = resolveToolPath(given, env);
    if (!path) throw new InputError(`the helm binary ${given} (${named !== undefined ? '--helm' : HELM_ENV}) is not an executable file`);
    return path;
  }
  const found = findOnPath('helm', env);
  if (!found) throw new InputError(`rendering a Helm source needs helm, and it is not on PATH: ${HOW_TO_NAME}`);
  return found;
}

/** `helm version --short`, for the render cache key. */
export async function helmVersion(tool: string, env: Record<string, string | undefined>): Promise<string> {
  const res = await runTool(tool, ['version', '--short'], { env }).catch(() => undefined);
  return res?.stdout.trim() || 'unknown';
}

/** What the cluster serves, as Argo CD hands it to Helm (`.Capabilities`). */
export interface HelmCapabilities {
  /** The cluster's version as Argo CD's controller sends it (`1.35`: major.minor, see KubeGateway.serverVersion); '' = Helm's default. */
  kubeVersion: string;
  /** `group/version` and `group/version/Kind` of every served type, sorted (Argo CD's APIResourcesToStrings). */
  apiVersions: string[];
}

/** The `--api-versions` list of a discovery: every group/version and group/version/Kind, sorted and unique. */
export function apiVersionStrings(types: readonly { group: string; version: string; kind: string }[]): string[] {
  const out = new Set<string>();
  for (const t of types) {
    const gv = t.group === '' ? t.version : `${t.group}/${t.version}`;
    out.add(gv);
    out.add(`${gv}/${t.kind}`);
  }
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * A Kubernetes version as Argo CD passes it to `--kube-version` (reposerver parseKubeVersion: k8s
 * ParseGeneric(...).String()): no `v`, nothing after the numbers, each number as written without leading zeros, as many
 * numbers as given (at least two). So the cluster's `1.35` (what the controller sends, see KubeGateway.serverVersion)
 * stays `1.35`, `1.30+` is `1.30`, and a source's `v1.29.0-eks-1` is `1.29.0`. Only '' is no version.
 */
export function kubeVersionArg(version: string): string {
  if (version === '') return '';
  const fail = () => new InputError(`could not parse kubernetes version ${version}`);
  const m = /^[\t\n\f\r ]*v?([0-9]+(?:\.[0-9]+)*)(.*)$/.exec(version);
  if (!m) throw fail();
  const parts = m[1]!.split('.');
  if (parts.length < 2) throw fail();
  // ParseGeneric refuses a leading zero in the first number only, and numbers past a uint64.
  if (parts[0]!.length > 1 && parts[0]!.startsWith('0')) throw fail();
  const numbers = parts.map((p) => BigInt(p));
  if (numbers.some((n) => n > 0xffffffffffffffffn)) throw fail();
  return numbers.map(String).join('.');
}

/**
 * A `--set` value as Argo CD escapes it (cleanSetParameters): commas become `\,` (Helm would split there) unless
 * already escaped, and a `{a,b}` list is left as it is.
 */
export function cleanSetParameter(val: string): string {
  if (val.startsWith('{') && val.endsWith('}')) return val;
  let out = '';
  for (let i = 0; i < val.length; i++) {
    if (val[i] === ',' && (i === 0 || val[i - 1] !== '\\')) out += '\\,';
    else out += val[i];
  }
  return out;
}

/** Everything `helm template` is given, resolved. */
export interface TemplateOptions {
  releaseName: string;
  namespace: string;
  /** As `--kube-version` takes it, '' = none. */
  kubeVersion: string;
  set: [string, string][];
  setString: [string, string][];
  setFile: [string, string][];
  /** Value files (paths or URLs), in order, then the file holding `values`/`valuesObject`. */
  values: string[];
  apiVersions: string[];
  skipCrds: boolean;
  skipSchemaValidation: boolean;
  skipTests: boolean;
}

/** `helm template .` with Argo CD's arguments, in its order (util/helm/cmd.go template). */
export function templateArgs(o: TemplateOptions): string[] {
  const args = ['template', '.', '--name-template', o.releaseName];
  if (o.namespace !== '') args.push('--namespace', o.namespace);
  if (o.kubeVersion !== '') args.push('--kube-version', o.kubeVersion);
  for (const [k, v] of o.set) args.push('--set', `${k}=${cleanSetParameter(v)}`);
  for (const [k, v] of o.setString) args.push('--set-string', `${k}=${cleanSetParameter(v)}`);
  for (const [k, v] of o.setFile) args.push('--set-file', `${k}=${cleanSetParameter(v)}`);
  for (const v of o.values) args.push('--values', v);
  for (const v of o.apiVersions) args.push('--api-versions', v);
  if (!o.skipCrds) args.push('--include-crds');
  if (o.skipSchemaValidation) args.push('--skip-schema-validation');
  if (o.skipTests) args.push('--skip-tests');
  return args;
}

/** Another source's files, for `$ref/...` value files: its folder and its label for messages. */
export interface RefTree {
  root: string;
  label: string;
}

/**
 * A value file's path as Argo CD resolves it (util/io/path ResolveValueFilePathOrUrl): a URL with a scheme of
 * `schemes` (argocd-cm helm.valuesFileSchemes, any case; Argo CD's default `https, http`) as it is, any other scheme
 * refused; a relative path against the chart's folder, an absolute one against the repository root; anything that
 * resolves outside the repository root is refused (exit 2).
 */
export function resolveValueFile(
  appDir: string,
  repoRoot: string,
  file: string,
  where: string,
  schemes: readonly string[] = DEFAULT_VALUES_FILE_SCHEMES,
): { path: string; remote: boolean } {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(file)?.[1];
  if (scheme !== undefined) {
    if (schemes.some((s) => s.toLowerCase() === scheme.toLowerCase())) return { path: file, remote: true };
    throw new InputError(
      `${where}: the URL scheme '${scheme}' is not allowed (argocd-cm helm.valuesFileSchemes: ${schemes.length > 0 ? schemes.join(', ') : 'none'})`,
    );
  }
  const root = resolve(repoRoot);
  const path = isAbsolute(file) ? join(root, file) : resolve(appDir, file);
  if (path !== root && !path.startsWith(root + sep)) throw new InputError(`${where}: file '${file}' resolved to outside repository root`);
  if (path === root) throw new InputError(`${where}: file '${file}' resolved to the repository root, which is not allowed`);
  return { path, remote: false };
}

export interface HelmRender {
  /** The chart's folder (materialised). */
  chartDir: string;
  /** The repository's root (materialised): value files may not leave it. */
  repoRoot: string;
  /** The Application's name: the release name unless helm.releaseName is set. */
  appName: string;
  /** The destination namespace (helm.namespace overrides it). */
  namespace: string;
  helm: HelmOptions | undefined;
  /** The cluster's version and types; each is overridden by helm.kubeVersion / helm.apiVersions. */
  capabilities: HelmCapabilities;
  /** `$name` → the files of the source with `ref: name`. */
  refs: ReadonlyMap<string, RefTree>;
  /** The URL schemes a value file may use (argocd-cm helm.valuesFileSchemes); Argo CD's default `https, http` when absent. */
  valueFileSchemes?: readonly string[];
  /** ARGOCD_APP_* for Argo CD's envsubst of value file paths and parameter values. */
  env: RenderEnv;
  tool: string;
  processEnv: Record<string, string | undefined>;
  /** `<repo>@<sha7>:<path>` or `<chart>@<version>`, for messages. */
  origin: string;
  signal?: AbortSignal;
}

/** A value file's path: in the referenced source (`$ref/...`, substituted after) or the chart's repository. */
function resolveRaw(r: HelmRender, raw: string): { path: string; remote: boolean; ref: RefTree | undefined; where: string } {
  const where = `${r.origin}: spec.source.helm.valueFiles ${raw}`;
  const refName = raw.startsWith('$') ? raw.split('/')[0]! : '';
  const ref = refName !== '' ? r.refs.get(refName) : undefined;
  // Resolved in the referenced source, then substituted (getResolvedRefValueFile).
  const schemes = r.valueFileSchemes ?? DEFAULT_VALUES_FILE_SCHEMES;
  const resolved = ref
    ? resolveValueFile(ref.root, ref.root, `/${envsubst(raw.split('/').slice(1).join('/'), r.env)}`, where, schemes)
    : resolveValueFile(r.chartDir, r.repoRoot, envsubst(raw, r.env), where, schemes);
  return { ...resolved, ref, where };
}

/** Whether `path` (links resolved) is inside `root` (links resolved). */
function inside(root: string, path: string): boolean {
  const realRoot = realpathSync(root);
  const real = realpathSync(path);
  return real === realRoot || real.startsWith(realRoot + sep);
}

/**
 * The value files of the options, resolved as Argo CD v3.2 does (getResolvedValueFiles): each entry as given, in
 * order, none left out for appearing twice (Helm merges them in turn, so the last wins). Glob characters are no
 * pattern (globs came in Argo CD v3.5): `envs/*.yaml` is a file by that name. A missing file is left out with
 * ignoreMissingValueFiles; without it Helm fails to open it, said here before Helm runs.
 */
function valueFiles(r: HelmRender, h: HelmOptions): string[] {
  const out: string[] = [];
  for (const raw of h.valueFiles) {
    const resolved = resolveRaw(r, raw);
    const { ref, where } = resolved;
    if (!resolved.remote && !existsSync(resolved.path)) {
      if (h.ignoreMissingValueFiles) continue;
      // As Helm's message reads once the checkout's folders are taken out of it.
      const shown = relative(ref ? ref.root : resolved.path.startsWith(r.chartDir + sep) ? r.chartDir : r.repoRoot, resolved.path);
      throw new ManifestError(
        `helm template failed for ${where}: open ${shown}: no such file or directory${ref ? ` in ${ref.label}` : ''} (set helm.ignoreMissingValueFiles to skip missing value files)`,
      );
    }
    // A symbolic link may not lead out of the repository either (Argo CD resolves links before its check).
    if (!resolved.remote && !inside(ref ? ref.root : r.repoRoot, resolved.path))
      throw new ManifestError(`${where}: file '${raw}' resolved to outside repository root`);
    out.push(resolved.path);
  }
  return out;
}

/** Entries of a list in order, a later one with the same name replacing the earlier (Go map semantics). */
function lastWins(pairs: [string, string][]): [string, string][] {
  const m = new Map<string, string>();
  for (const [k, v] of pairs) {
    m.delete(k);
    m.set(k, v);
  }
  return [...m.entries()];
}

/** The `helm template` options of a render; `valuesFile` is where `values`/`valuesObject` were written. */
export function templateOptions(r: HelmRender, valuesFile: string | undefined): TemplateOptions {
  const h = r.helm;
  const set: [string, string][] = [];
  const setString: [string, string][] = [];
  const setFile: [string, string][] = [];
  const values: string[] = [];
  if (h) {
    values.push(...valueFiles(r, h));
    if (valuesFile !== undefined) values.push(valuesFile);
    for (const p of h.parameters) (p.forceString ? setString : set).push([p.name, envsubst(p.value, r.env)]);
    for (const p of h.fileParameters) {
      const where = `${r.origin}: spec.source.helm.fileParameters ${p.name}`;
      const refName = p.path.startsWith('$') ? p.path.split('/')[0]! : '';
      const ref = refName !== '' ? r.refs.get(refName) : undefined;
      const schemes = r.valueFileSchemes ?? DEFAULT_VALUES_FILE_SCHEMES;
      const resolved = ref
        ? resolveValueFile(ref.root, ref.root, `/${envsubst(p.path.split('/').slice(1).join('/'), r.env)}`, where, schemes)
        : resolveValueFile(r.chartDir, r.repoRoot, envsubst(p.path, r.env), where, schemes);
      setFile.push([p.name, resolved.path]);
    }
  }
  const kube = h?.kubeVersion ? h.kubeVersion : r.capabilities.kubeVersion;
  return {
    releaseName: h?.releaseName ? h.releaseName : r.appName,
    namespace: h?.namespace ? h.namespace : r.namespace,
    kubeVersion: kubeVersionArg(kube),
    set: lastWins(set),
    setString: lastWins(setString),
    setFile: lastWins(setFile),
    values,
    apiVersions: h && h.apiVersions.length > 0 ? h.apiVersions : r.capabilities.apiVersions,
    skipCrds: h?.skipCrds ?? false,
    skipSchemaValidation: h?.skipSchemaValidation ?? false,
    skipTests: h?.skipTests ?? false,
  };
}

/** Helm's words for a dependency that is not in charts/ (util/helm IsMissingDependencyErr). */
export function isMissingDependency(message: string): boolean {
  return message.includes('found in requirements.yaml, but missing in charts') || message.includes('found in Chart.yaml, but missing in charts/ directory');
}

/** Renders the chart; returns `helm template`'s YAML. Helm's failures are exit 2 with its message and the origin. */
export async function renderHelm(r: HelmRender): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'kubectl-gitops-helm-'));
  try {
    let valuesFile: string | undefined;
    if (r.helm && r.helm.values.trim() !== '') {
      valuesFile = join(scratch, 'values.yaml');
      writeFileSync(valuesFile, r.helm.values);
    }
    const opts = templateOptions(r, valuesFile);
    const args = templateArgs(opts);
    // Helm's own settings (repositories, registry logins) are the user's: the process environment as it is.
    const run = (a: string[]) =>
      runTool(r.tool, a, { cwd: r.chartDir, env: r.processEnv, ...(r.signal ? { signal: r.signal } : {}) }).catch((e: unknown) => {
        throw new InputError(`running ${r.tool}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}: ${HOW_TO_NAME}`, { cause: e });
      });
    const said = (stderr: string) => {
      let s = stderr;
      for (const p of [r.chartDir, r.repoRoot, ...[...r.refs.values()].map((x) => x.root)])
        s = s
          .split(p + sep)
          .join('')
          .split(p)
          .join('.');
      if (valuesFile !== undefined) s = s.split(valuesFile).join('<values from spec.source.helm.values/valuesObject>');
      return scrubToolMessage(s.trim(), 'helm');
    };
    let res = await run(args);
    if (res.code !== 0 && isMissingDependency(res.stderr)) {
      const build = await run(['dependency', 'build']);
      if (build.code !== 0) throw new ManifestError(`helm dependency build failed for ${r.origin}: ${said(build.stderr) || `exit ${build.code}`}`);
      res = await run(args);
    }
    if (res.code !== 0) throw new ManifestError(`helm template failed for ${r.origin}: ${said(res.stderr) || `exit ${res.code}`}`);
    return res.stdout;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
