// Turns the selected kubeconfig context into what the gateway needs to talk to the API server: the
// server URL, TLS options and request headers.
//
// The common kubeconfigs (client certificates, bearer tokens and token files, basic auth,
// impersonation) are read here directly, as client-go's rest config does. Only users with an `exec`
// plugin or an `auth-provider` go through @kubernetes/client-node, which is loaded for them alone:
// loading it costs ~100 MB of memory and ~100-150 ms of CPU per command (measured: test/bench/analysis.md).
//
// Precedence follows client-go (k8s.io/client-go/tools/clientcmd): inline `*-data` wins over the
// file it duplicates; a `token` wins over `token-file`, and the file is read again after a 401.
import { readFile } from 'node:fs/promises';
import type { KubeConfig } from '@kubernetes/client-node';
import { InputError } from '../model/errors.js';
import { isPlainObject } from '../model/object.js';
import type { SelectedContext } from './kubeconfig.js';

/** What the gateway needs to open connections and authenticate requests. */
export interface ClusterConnection {
  server: string;
  tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; servername?: string; rejectUnauthorized?: boolean };
  /** Sent with every request (Authorization, Impersonate-*); a list value is sent as repeated headers. */
  headers: Record<string, string | string[]>;
  /** `user:password` for basic auth. */
  basicAuth?: string;
  /** After a 401: fresh headers (a rotated token file, an exec plugin's new token). */
  refresh?: () => Promise<Record<string, string | string[]>>;
  /** How the credentials were read (shown with -v). */
  via: 'kubeconfig' | 'client-node';
}

/** The connection's TLS settings as Node's TLS options take them (only those that are set). */
export function tlsConnectOptions(t: ClusterConnection['tls']): Pick<ClusterConnection['tls'], 'ca' | 'cert' | 'key' | 'servername' | 'rejectUnauthorized'> {
  return Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined));
}

/** True when the user needs client-node's authenticators (exec plugins, auth providers). */
export function needsClientNode(sel: SelectedContext): boolean {
  const u = sel.user?.value ?? {};
  return (u.exec ?? u['auth-provider'] ?? null) !== null;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Inline base64 data, else the file's bytes, else nothing; a file that cannot be read names itself. */
async function dataOrFile(data: unknown, file: unknown, what: string, owner: string): Promise<Buffer | undefined> {
  const d = str(data);
  if (d !== undefined) return Buffer.from(d, 'base64');
  const f = str(file);
  if (f === undefined) return undefined;
  try {
    return await readFile(f);
  } catch (err) {
    throw new InputError(`reading the ${what} of ${owner}: ${(err as Error).message}`, { cause: err });
  }
}

async function readToken(file: string, owner: string): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (err) {
    throw new InputError(`reading the token file of ${owner}: ${(err as Error).message}`, { cause: err });
  }
}

/** Impersonation headers from `as`, `as-uid`, `as-groups` and `as-user-extra` (as kubectl --as sends them). */
function impersonation(u: Record<string, unknown>): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = {};
  const as = str(u.as);
  if (as !== undefined) h['Impersonate-User'] = as;
  const uid = str(u['as-uid']);
  if (uid !== undefined) h['Impersonate-Uid'] = uid;
  const groups = u['as-groups'];
  if (Array.isArray(groups) && groups.length > 0) h['Impersonate-Group'] = groups.map(String);
  const extra = u['as-user-extra'];
  if (isPlainObject(extra)) {
    for (const [k, v] of Object.entries(extra)) {
      const values = Array.isArray(v) ? v.map(String) : [String(v)];
      h[`Impersonate-Extra-${encodeURIComponent(k)}`] = values;
    }
  }
  return h;
}

/** A client-node connection with the user's impersonation (`as`, `--as`, …) added to its headers, also after a refresh. */
export function withImpersonation(conn: ClusterConnection, sel: SelectedContext): ClusterConnection {
  const extra = impersonation(sel.user?.value ?? {});
  if (Object.keys(extra).length === 0) return conn;
  const refresh = conn.refresh;
  return { ...conn, headers: { ...conn.headers, ...extra }, ...(refresh ? { refresh: async () => ({ ...(await refresh()), ...extra }) } : {}) };
}

/** Reads the credentials of a context that needs no client-node (see needsClientNode). */
export async function directConnection(sel: SelectedContext): Promise<ClusterConnection> {
  const c = sel.cluster.value;
  const u = sel.user?.value ?? {};
  const clusterOwner = `cluster "${sel.cluster.name}" (in ${sel.cluster.origin})`;
  const userOwner = sel.user ? `user "${sel.user.name}" (in ${sel.user.origin})` : 'the user';
  const server = str(c.server);
  if (server === undefined) throw new InputError(`${clusterOwner} has no server defined`);
  const tls: ClusterConnection['tls'] = {};
  if (c['insecure-skip-tls-verify'] === true) tls.rejectUnauthorized = false;
  else {
    const ca = await dataOrFile(c['certificate-authority-data'], c['certificate-authority'], 'certificate authority', clusterOwner);
    if (ca) tls.ca = ca;
  }
  const servername = str(c['tls-server-name']);
  if (servername !== undefined) tls.servername = servername;
  const cert = await dataOrFile(u['client-certificate-data'], u['client-certificate'], 'client certificate', userOwner);
  const key = await dataOrFile(u['client-key-data'], u['client-key'], 'client key', userOwner);
  if ((cert === undefined) !== (key === undefined)) {
    throw new InputError(`${userOwner} has a client ${cert ? 'certificate but no key' : 'key but no certificate'}`);
  }
  if (cert && key) Object.assign(tls, { cert, key });

  const headers = impersonation(u);
  const token = str(u.token);
  const tokenFile = str(u['token-file']);
  let refresh: ClusterConnection['refresh'];
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  else if (tokenFile !== undefined) {
    headers.Authorization = `Bearer ${await readToken(tokenFile, userOwner)}`;
    refresh = async () => ({ ...headers, Authorization: `Bearer ${await readToken(tokenFile, userOwner)}` });
  }
  const username = str(u.username);
  const basicAuth =
    username !== undefined && token === undefined && tokenFile === undefined ? `${username}:${typeof u.password === 'string' ? u.password : ''}` : undefined;
  return { server, tls, headers, ...(basicAuth !== undefined ? { basicAuth } : {}), ...(refresh ? { refresh } : {}), via: 'kubeconfig' };
}

/** The connection client-node derives from a loaded KubeConfig (exec plugins, auth providers). */
export async function clientNodeConnection(kc: KubeConfig): Promise<ClusterConnection> {
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new InputError('reading kubeconfig: the current context names no cluster server');
  const apply = async () => {
    const o: {
      headers: Record<string, unknown>;
      ca?: unknown;
      cert?: unknown;
      key?: unknown;
      servername?: string;
      rejectUnauthorized?: boolean;
      auth?: string;
    } = { headers: {} };
    await kc.applyToHTTPSOptions(o as Parameters<KubeConfig['applyToHTTPSOptions']>[0]);
    return o;
  };
  const first = await apply();
  const toHeaders = (h: Record<string, unknown>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)]));
  const buf = (v: unknown) => (v === undefined || v === null ? undefined : Buffer.isBuffer(v) ? v : Buffer.from(String(v)));
  const tls: ClusterConnection['tls'] = {};
  const ca = buf(first.ca);
  if (ca) tls.ca = ca;
  const cert = buf(first.cert);
  if (cert) tls.cert = cert;
  const key = buf(first.key);
  if (key) tls.key = key;
  if (first.servername !== undefined) tls.servername = first.servername;
  if (first.rejectUnauthorized !== undefined) tls.rejectUnauthorized = first.rejectUnauthorized;
  return {
    server: cluster.server,
    tls,
    headers: toHeaders(first.headers),
    ...(typeof first.auth === 'string' ? { basicAuth: first.auth } : {}),
    refresh: async () => toHeaders((await apply()).headers),
    via: 'client-node',
  };
}
