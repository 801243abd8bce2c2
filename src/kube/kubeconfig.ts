// Finds, merges and narrows kubeconfig files the way kubectl does, then hands the result to client-node.
//
// Rules (k8s.io/client-go/tools/clientcmd, ClientConfigLoadingRules): `--kubeconfig` replaces
// KUBECONFIG; KUBECONFIG is a path list (duplicates dropped, missing files skipped); with
// neither, ~/.kube/config (missing: empty). The first file that defines a cluster, user or
// context name wins, and current-context comes from the first file that sets it. Relative
// certificate, key and token-file paths (and an exec command that names a path) resolve against
// the directory of the file that named them.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { parseYamlValues } from '../manifest/parse.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { InputError } from '../model/errors.js';
import { isPlainObject } from '../model/object.js';

type Fields = Record<string, unknown>;

/** One named entry of a kubeconfig list, remembering which file defined it. */
export interface NamedEntry {
  name: string;
  value: Fields;
  /** Path of the file the entry came from. */
  origin: string;
}

/** The merged view of every kubeconfig file kubectl would read. */
export interface MergedKubeconfig {
  clusters: NamedEntry[];
  users: NamedEntry[];
  contexts: NamedEntry[];
  currentContext?: string;
  /** Files that were actually read, in precedence order. */
  files: string[];
}

/** The context the command will use, with its cluster and user (paths already absolute). */
export interface SelectedContext {
  name: string;
  cluster: NamedEntry;
  user?: NamedEntry;
  /** The context's default namespace, if it sets one. */
  namespace?: string;
}

export interface KubeconfigSource {
  /** `--kubeconfig`: the only file read when given; it must exist. */
  kubeconfig?: string;
  env: Record<string, string | undefined>;
  /** Base for relative paths in `--kubeconfig`/KUBECONFIG (default: the process's cwd). */
  cwd?: string;
}

/** Which files to read and whether a missing one is an error (kubectl's loading precedence). */
export function kubeconfigPaths(src: KubeconfigSource): { paths: string[]; mustExist: boolean } {
  const cwd = src.cwd ?? process.cwd();
  if (src.kubeconfig !== undefined && src.kubeconfig !== '') {
    return { paths: [resolve(cwd, src.kubeconfig)], mustExist: true };
  }
  const list = src.env.KUBECONFIG;
  if (list !== undefined && list !== '') {
    const seen = new Set<string>();
    for (const p of list.split(delimiter)) {
      if (p === '') continue;
      seen.add(resolve(cwd, p));
    }
    return { paths: [...seen], mustExist: false };
  }
  const home = src.env.HOME ?? src.env.USERPROFILE ?? homedir();
  return { paths: [join(home, '.kube', 'config')], mustExist: false };
}

/** Reads and parses the files; a missing file is skipped unless `mustExist`; bad YAML is an InputError. */
export async function readKubeconfigFiles(paths: string[], mustExist: boolean): Promise<{ path: string; doc: unknown }[]> {
  const files: { path: string; doc: unknown }[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      if (!mustExist && (err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw new InputError(`reading kubeconfig ${path}: ${(err as Error).message}`, { cause: err });
    }
    let doc: unknown;
    try {
      // The first document, as kubectl's loader reads it.
      doc = parseYamlValues(text, path)[0] ?? {};
    } catch (err) {
      // The parser's InputError names the file, line and column already.
      throw new InputError(`parsing kubeconfig ${err instanceof InputError ? err.message : `${path}: ${(err as Error).message}`}`, { cause: err });
    }
    files.push({ path, doc });
  }
  return files;
}

const LISTS = [
  ['clusters', 'cluster'],
  ['users', 'user'],
  ['contexts', 'context'],
] as const;

/** Merges parsed kubeconfig documents in precedence order (pure: the inputs are not changed). */
export function mergeKubeconfigs(files: readonly { path: string; doc: unknown }[]): MergedKubeconfig {
  const merged: MergedKubeconfig = { clusters: [], users: [], contexts: [], files: [] };
  for (const { path, doc } of files) {
    if (!isPlainObject(doc)) throw new InputError(`reading kubeconfig ${path}: the document is not a mapping`);
    merged.files.push(path);
    for (const [listKey, valueKey] of LISTS) {
      const list = doc[listKey];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list)) throw new InputError(`reading kubeconfig ${path}: ${listKey} is not a list`);
      const target = merged[listKey];
      list.forEach((item, i) => {
        if (!isPlainObject(item) || typeof item.name !== 'string' || item.name === '') {
          throw new InputError(`reading kubeconfig ${path}: ${listKey}[${i}] has no name`);
        }
        if (target.some((e) => e.name === item.name)) return; // the first file to define a name wins
        const value = item[valueKey];
        if (value !== undefined && value !== null && !isPlainObject(value)) {
          throw new InputError(`reading kubeconfig ${path}: ${listKey}[${i}].${valueKey} is not a mapping`);
        }
        const fields = resolvePaths(valueKey, isPlainObject(value) ? value : {}, dirname(path));
        target.push({ name: item.name, value: fields, origin: path });
      });
    }
    const current = doc['current-context'];
    if (merged.currentContext === undefined && typeof current === 'string' && current !== '') {
      merged.currentContext = current;
    }
  }
  return merged;
}

/** A copy of a cluster or user stanza with its file references made absolute against `base`. */
function resolvePaths(kind: 'cluster' | 'user' | 'context', value: Fields, base: string): Fields {
  const abs = (p: unknown) => (typeof p === 'string' && p !== '' && !isAbsolute(p) ? join(base, p) : p);
  const out: Fields = { ...value };
  const keys = kind === 'cluster' ? ['certificate-authority'] : kind === 'user' ? ['client-certificate', 'client-key', 'token-file'] : [];
  for (const k of keys) if (k in out) out[k] = abs(out[k]);
  if (kind === 'user' && isPlainObject(out.exec)) {
    const command = out.exec.command;
    // Only a command that names a path is resolved; a bare name is looked up on PATH.
    if (typeof command === 'string' && command.includes(sep)) out.exec = { ...out.exec, command: abs(command) };
  }
  return out;
}

/** The context to use (`--context` over current-context); a missing one names those that exist. */
export function selectContext(merged: MergedKubeconfig, contextFlag?: string): SelectedContext {
  const known = merged.contexts.map((c) => c.name);
  const listing = known.length ? `contexts in kubeconfig: ${known.join(', ')}` : `no contexts in ${describeFiles(merged)}`;
  const name = contextFlag !== undefined && contextFlag !== '' ? contextFlag : merged.currentContext;
  if (name === undefined) {
    throw new InputError(`no current-context is set and --context was not given (${listing})`);
  }
  const ctx = merged.contexts.find((c) => c.name === name);
  if (!ctx) {
    throw new InputError(`context "${name}" does not exist (${listing})`);
  }
  const clusterName = ctx.value.cluster;
  const cluster = merged.clusters.find((c) => c.name === clusterName);
  if (typeof clusterName !== 'string' || !cluster) {
    throw new InputError(`context "${name}" refers to cluster "${String(clusterName ?? '')}", which no kubeconfig file defines`);
  }
  if (typeof cluster.value.server !== 'string' || cluster.value.server === '') {
    throw new InputError(`cluster "${cluster.name}" (in ${cluster.origin}) has no server defined`);
  }
  const userName = ctx.value.user;
  let user: NamedEntry | undefined;
  if (typeof userName === 'string' && userName !== '') {
    user = merged.users.find((u) => u.name === userName);
    if (!user) throw new InputError(`context "${name}" refers to user "${userName}", which no kubeconfig file defines`);
  }
  const ns = ctx.value.namespace;
  return { name, cluster, user, namespace: typeof ns === 'string' && ns !== '' ? ns : undefined };
}

/** Every context with its cluster's name and server (contexts whose cluster is undefined or has no server are left out). */
export function contextsOf(merged: MergedKubeconfig): { name: string; cluster: string; server: string }[] {
  const out: { name: string; cluster: string; server: string }[] = [];
  for (const c of merged.contexts) {
    const clusterName = c.value.cluster;
    const cluster = merged.clusters.find((x) => x.name === clusterName);
    const server = cluster?.value.server;
    if (typeof clusterName === 'string' && typeof server === 'string' && server !== '') out.push({ name: c.name, cluster: clusterName, server });
  }
  return out;
}

/** Reads and merges the kubeconfig files kubectl would read (no context selected yet). */
export async function readMergedKubeconfig(src: KubeconfigSource): Promise<MergedKubeconfig> {
  const { paths, mustExist } = kubeconfigPaths(src);
  return mergeKubeconfigs(await readKubeconfigFiles(paths, mustExist));
}

function describeFiles(merged: MergedKubeconfig): string {
  return merged.files.length ? merged.files.join(', ') : 'any kubeconfig file (none was found)';
}

/** A kubeconfig document holding only the selected context, its cluster and its user (as `kubectl config view --minify`). */
function minifiedDocument(sel: SelectedContext): Fields {
  const context: Fields = { cluster: sel.cluster.name };
  if (sel.user) context.user = sel.user.name;
  if (sel.namespace) context.namespace = sel.namespace;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: sel.cluster.name, cluster: sel.cluster.value }],
    users: sel.user ? [{ name: sel.user.name, user: sel.user.value }] : [],
    contexts: [{ name: sel.name, context }],
    'current-context': sel.name,
  };
}

export interface LoadKubeConfigOptions extends KubeconfigSource {
  context?: string;
}

/** Reads, merges and narrows the kubeconfig and returns a client-node KubeConfig for the selected context. */
export async function loadKubeConfig(opts: LoadKubeConfigOptions): Promise<KubeConfig> {
  return kubeConfigFor((await resolveKubeconfig(opts)).selected);
}

/** A client-node KubeConfig holding only the selected context (for exec plugins and auth providers). */
export async function kubeConfigFor(selected: SelectedContext): Promise<KubeConfig> {
  // Loaded lazily: only users that need its authenticators pay for client-node (see auth.ts).
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  try {
    kc.loadFromString(JSON.stringify(minifiedDocument(selected)));
  } catch (err) {
    throw new InputError(`loading kubeconfig context "${selected.name}": ${(err as Error).message}`, { cause: err });
  }
  return kc;
}

/** The merged kubeconfig and the selected context, without client-node (for messages and tests). */
export async function resolveKubeconfig(opts: LoadKubeConfigOptions): Promise<{ merged: MergedKubeconfig; selected: SelectedContext }> {
  const merged = await readMergedKubeconfig(opts);
  return { merged, selected: selectContext(merged, opts.context) };
}
