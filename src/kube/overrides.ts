// kubectl's connection flags over the kubeconfig (client-go's ConfigOverrides): `--cluster` and `--user`
// pick other entries than the context's, and `--server`, `--certificate-authority`, `--token`, `--as`, …
// replace single fields of them. With `--server` no kubeconfig is needed at all.
//
// As client-go does (clientcmd.DirectClientConfig.getCluster): `--certificate-authority` or
// `--insecure-skip-tls-verify` replaces the kubeconfig's CA and skip setting together, and `--server`
// drops the kubeconfig's `tls-server-name` unless `--tls-server-name` is given too. A flag given for a
// file (`--client-certificate`, `--client-key`) also replaces the inline `*-data` it would otherwise lose
// to, and `--token` replaces an exec plugin or auth provider.
import { InputError } from '../model/errors.js';
import type { KubeOverrides } from '../model/context.js';
import { resolve } from 'node:path';
import {
  kubeconfigPaths,
  mergeKubeconfigs,
  readKubeconfigFiles,
  selectContext,
  type KubeconfigSource,
  type LoadKubeConfigOptions,
  type MergedKubeconfig,
  type NamedEntry,
  type SelectedContext,
} from './kubeconfig.js';

/** True when some flag changes what the kubeconfig says. */
export function hasOverrides(o: KubeOverrides | undefined): o is KubeOverrides {
  return o !== undefined && Object.keys(o).length > 0;
}

function named(list: NamedEntry[], name: string, what: 'cluster' | 'user'): NamedEntry {
  const e = list.find((x) => x.name === name);
  if (!e) {
    const known = list.map((x) => x.name);
    throw new InputError(`${what} "${name}" (--${what}) is not in the kubeconfig (${known.length ? `${what}s: ${known.join(', ')}` : `no ${what}s`})`);
  }
  return e;
}

/**
 * The selected context with the flags applied (pure: the merged kubeconfig is not changed).
 * Without a context to start from, `--server` (or `--cluster`) makes one of the flags alone.
 */
export function applyOverrides(merged: MergedKubeconfig, context: string | undefined, o: KubeOverrides, cwd = process.cwd()): SelectedContext {
  const contextName = context !== undefined && context !== '' ? context : merged.currentContext;
  if (contextName === undefined && (o.server !== undefined || o.cluster !== undefined)) {
    const sel: SelectedContext = {
      name: '(command-line flags)',
      cluster: o.cluster ? named(merged.clusters, o.cluster, 'cluster') : { name: '(--server)', value: {}, origin: 'the command line' },
    };
    return overrideContext(merged, sel, { ...o, cluster: undefined }, cwd);
  }
  return overrideContext(merged, selectContext(merged, context), o, cwd);
}

/** An already selected context (e.g. the one an Application's destination names) with the flags applied. */
export async function overrideSelected(sel: SelectedContext, o: KubeOverrides, src: KubeconfigSource): Promise<SelectedContext> {
  // --cluster and --user name entries: only then is the kubeconfig read again.
  if (o.cluster === undefined && o.user === undefined) return overrideContext(EMPTY, sel, o, src.cwd);
  const { paths, mustExist } = kubeconfigPaths(src);
  return overrideContext(mergeKubeconfigs(await readKubeconfigFiles(paths, mustExist)), sel, o, src.cwd);
}

const EMPTY: MergedKubeconfig = { clusters: [], users: [], contexts: [], files: [] };

/** The context with the flags applied (pure). */
function overrideContext(merged: MergedKubeconfig, selected: SelectedContext, o: KubeOverrides, cwd = process.cwd()): SelectedContext {
  let sel = selected;
  if (o.cluster !== undefined) sel = { ...sel, cluster: named(merged.clusters, o.cluster, 'cluster') };
  if (o.user !== undefined) sel = { ...sel, user: named(merged.users, o.user, 'user') };

  const c = { ...sel.cluster.value };
  if (o.server !== undefined) {
    c.server = o.server;
    delete c['tls-server-name'];
  }
  // As client-go: only a CA or a true skip replaces them (`--insecure-skip-tls-verify=false` changes nothing).
  if (o.certificateAuthority !== undefined || o.insecureSkipTlsVerify === true) {
    delete c['certificate-authority'];
    delete c['certificate-authority-data'];
    c['insecure-skip-tls-verify'] = o.insecureSkipTlsVerify === true;
    if (o.certificateAuthority !== undefined) c['certificate-authority'] = resolve(cwd, o.certificateAuthority);
  }
  if (o.tlsServerName !== undefined) c['tls-server-name'] = o.tlsServerName;
  if (c['insecure-skip-tls-verify'] === true && (c['certificate-authority'] !== undefined || c['certificate-authority-data'] !== undefined)) {
    throw new InputError('--insecure-skip-tls-verify and a certificate authority cannot both be given: the CA would not be checked');
  }
  if (typeof c.server !== 'string' || c.server === '') throw new InputError(`cluster "${sel.cluster.name}" (in ${sel.cluster.origin}) has no server defined`);

  const u = { ...(sel.user?.value ?? {}) };
  if (o.token !== undefined) {
    u.token = o.token;
    delete u['token-file'];
    delete u.exec;
    delete u['auth-provider'];
  }
  if (o.clientCertificate !== undefined) {
    u['client-certificate'] = resolve(cwd, o.clientCertificate);
    delete u['client-certificate-data'];
  }
  if (o.clientKey !== undefined) {
    u['client-key'] = resolve(cwd, o.clientKey);
    delete u['client-key-data'];
  }
  if (o.username !== undefined) u.username = o.username;
  if (o.password !== undefined) u.password = o.password;
  // As client-go's transport: a bearer token and basic authentication together are an error, not a choice.
  if (
    (o.username !== undefined || o.password !== undefined || o.token !== undefined) &&
    (u.token !== undefined || u['token-file'] !== undefined) &&
    (u.username !== undefined || u.password !== undefined)
  ) {
    throw new InputError('a bearer token and basic authentication (--username/--password) cannot both be used: give one of them');
  }
  if (o.as !== undefined) u.as = o.as;
  if (o.asGroups !== undefined) u['as-groups'] = o.asGroups;
  if (o.asUid !== undefined) u['as-uid'] = o.asUid;
  const groups = u['as-groups'];
  if ((typeof u.as !== 'string' || u.as === '') && ((Array.isArray(groups) && groups.length > 0) || (typeof u['as-uid'] === 'string' && u['as-uid'] !== ''))) {
    throw new InputError('--as-group and --as-uid impersonate a user: give the user with --as');
  }
  const userEntry = sel.user ?? { name: '(command-line flags)', value: {}, origin: 'the command line' };
  const userChanged = Object.keys(u).length > 0 || sel.user !== undefined;
  return { ...sel, cluster: { ...sel.cluster, value: c }, ...(userChanged ? { user: { ...userEntry, value: u } } : {}) };
}

/** Reads the kubeconfig as kubectl does (a missing one is fine with --server) and selects the context with the flags applied. */
export async function resolveWithOverrides(opts: LoadKubeConfigOptions, o: KubeOverrides): Promise<SelectedContext> {
  const { paths, mustExist } = kubeconfigPaths(opts);
  const merged = mergeKubeconfigs(await readKubeconfigFiles(paths, mustExist));
  return applyOverrides(merged, opts.context, o, opts.cwd);
}
