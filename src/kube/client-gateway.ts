// The real KubeGateway: raw HTTP/2 (or HTTP/1.1 keep-alive) to the API server, bounded concurrency and retries.
//
// Why raw HTTP rather than client-node's generated APIs: we need metadata-only lists (an Accept
// header the generated clients do not expose), apply-patch bodies for any kind, Status bodies on
// errors (for SSA conflict causes), and one connection shared by every request. Over TLS the server
// is offered HTTP/2 (h2-session.ts), as kubectl's Go client does: one handshake, 32 requests in
// flight on one connection; a server or proxy that takes only HTTP/1.1 gets up to 16 keep-alive
// sockets. Credentials come from auth.ts (client-node only for exec plugins and auth providers).
import http from 'node:http';
import https from 'node:https';
import http2 from 'node:http2';
import { tlsConnectOptions, type ClusterConnection } from './auth.js';
import { H2Sessions, PING_TIMEOUT_CODE, TimeoutError, formatMs, type Phase, type PingCheck } from './h2-session.js';
import { ClusterError } from '../model/errors.js';
import { isPlainObject, type KubeObject } from '../model/object.js';
import { apiError, isRetryableAnswer, KubeApiError, redactSecretError, retryAfterMs } from './errors.js';
import {
  collectionPath,
  objectPath,
  type AccessCheck,
  type WriteOptions,
  type AccessResult,
  type ApplyOptions,
  type AsUser,
  type DeleteOptions,
  type Discovery,
  type GatewayStats,
  type KubeGateway,
  type ListOptions,
  type ListResult,
  type PatchOptions,
  type PatchType,
  type UpdateOptions,
  type WatchEvent,
  type WatchOptions,
} from './gateway.js';
import { apiVersionOf, resourceName, type ResourceType } from '../model/resource-type.js';
import { scanMetadataList } from './list-scan.js';
import { formatRequest, type LoggedRequest } from './request-log.js';
import { parseAggregatedDiscovery, parseLegacyGroupList, parseLegacyResourceList, preferredTypes } from './discovery.js';

/** Page sizes: full objects in pages of 500 (bounded memory per response); metadata-only items are ~300 bytes, so
 * pages of 5,000 save the sequential round trips that dominate a prune scan of a large namespace. */
const FULL_PAGE_SIZE = 500;
const METADATA_PAGE_SIZE = 5000;

export interface ClientGatewayOptions {
  /** Server, TLS options and credentials (src/kube/auth.ts). */
  connection: ClusterConnection;
  /** Per-request timeout in ms, from connect to the last byte; 0 means none (the connect bound still holds). */
  requestTimeoutMs: number;
  /** Bound on setting up a connection (TCP, TLS handshake, HTTP/2 settings) in ms; default 10 s, as kubectl's TLS handshake timeout. */
  connectTimeoutMs?: number;
  /** Requests in flight at once (default 32 over HTTP/2, 16 sockets over HTTP/1.1). */
  concurrency?: number;
  /** Offer HTTP/2 over TLS (default true); HTTP/1.1 is used when the server does not take it. */
  http2?: boolean;
  /** The HTTP/2 health check of a connection requests wait on (default: a PING every 30 s, answered within 15 s). */
  ping?: PingCheck;
  /** Retries of a safe request after 429/5xx/reset (default 4). */
  maxRetries?: number;
  /** Base backoff in ms (default 200; doubled per attempt). */
  backoffMs?: number;
  /** The -v level (6: each request, 7: headers, 8-9: bodies) and where its lines go. */
  verbosity?: number;
  log?: (line: string) => void;
}

interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** Safe to send again after a 429/5xx or a dropped connection. */
  retry: boolean;
  /** "-ing" context for messages. */
  doing: string;
  /** For 403 messages: what we were not allowed to do. */
  access?: { verb: string; resource: string; namespace?: string };
  /** Sent as this user (Impersonate-User). */
  impersonate?: string;
}

interface Response {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';
const METADATA_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
// Connection-level failures after which a safe request may be sent again (HTTP/1.1 and HTTP/2).
const RESET_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ECONNABORTED',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_SESSION_ERROR',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_STREAM_CANCEL',
  'ERR_HTTP2_INVALID_SESSION',
  'ERR_HTTP2_STREAM_CLOSED',
  PING_TIMEOUT_CODE,
]);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** A counting semaphore: at most `n` tasks run at once. */
class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly n: number) {}
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.n) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

/** kubectl's transport gives up on a TLS handshake after 10 s (client-go's TLSHandshakeTimeout). */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * The version Argo CD's controller hands every render (gitops-engine KubectlCmd.GetServerVersion,
 * `fmt.Sprintf("%s.%s", v.Major, v.Minor)`) from a `/version` answer: `1.35`, or `1.30+` on a cluster whose minor carries
 * a `+` (EKS, GKE); never the patch of gitVersion. '' when the answer has no major or minor (Helm's default).
 */
function serverVersionOf(v: Record<string, unknown> | undefined): string {
  const major = typeof v?.major === 'string' ? v.major : '';
  const minor = typeof v?.minor === 'string' ? v.minor : '';
  return major === '' || minor === '' ? '' : `${major}.${minor}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function errCode(err: unknown): string {
  const c = (err as { code?: unknown })?.code;
  return typeof c === 'string' ? c : '';
}

function isTlsError(err: unknown): boolean {
  const c = errCode(err);
  return (
    c.startsWith('ERR_TLS') || c.startsWith('ERR_SSL') || c.includes('CERT') || c === 'DEPTH_ZERO_SELF_SIGNED_CERT' || c === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'
  );
}

/** Strips what the server owns before a server-side apply (it would be a precondition or rejected). */
function applyBody(obj: KubeObject): KubeObject {
  const { managedFields: _mf, resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, generation: _g, ...meta } = obj.metadata;
  return { ...obj, metadata: meta };
}

/** Builds the gateway for a cluster connection (see connect.ts for how one is read from the kubeconfig). */
export async function createClientGateway(opts: ClientGatewayOptions): Promise<KubeGateway> {
  return new ClientGateway(opts.connection.server, opts);
}

/** A request's Impersonate-User, when its options name a user to act as. */
function as(opts: AsUser): { impersonate?: string } {
  return opts.impersonate !== undefined ? { impersonate: opts.impersonate } : {};
}

class ClientGateway implements KubeGateway {
  private readonly url: URL;
  private readonly agent: http.Agent;
  private readonly limiter: Limiter;
  private readonly h2: H2Sessions | undefined;
  private headers: Record<string, string | string[]>;
  private basicAuth: string | undefined;
  private discovery: Promise<Discovery> | undefined;
  private counters: GatewayStats = { requests: 0, retries: 0 };

  constructor(
    readonly server: string,
    private readonly opts: ClientGatewayOptions,
  ) {
    this.url = new URL(server);
    const h2 = this.url.protocol === 'https:' && opts.http2 !== false;
    // HTTP/1.1 sockets (and the requests in flight without HTTP/2); HTTP/2 streams on one connection go higher.
    const n = opts.concurrency ?? 16;
    this.limiter = new Limiter(h2 && opts.concurrency === undefined ? 32 : n);
    if (h2) this.h2 = new H2Sessions(this.url, opts.connection.tls, opts.ping);
    this.headers = { ...opts.connection.headers };
    this.basicAuth = opts.connection.basicAuth;
    const agentOpts = { keepAlive: true, maxSockets: n };
    this.agent = this.url.protocol === 'http:' ? new http.Agent(agentOpts) : new https.Agent({ ...agentOpts, ...tlsConnectOptions(opts.connection.tls) });
  }

  stats(): GatewayStats {
    return { ...this.counters };
  }

  close(): void {
    this.h2?.close();
    this.agent.destroy();
  }

  private async refreshAuth(): Promise<void> {
    const refresh = this.opts.connection.refresh;
    if (refresh) this.headers = await refresh();
  }

  /** The bounds of one request: the whole of it (--request-timeout, 0: none) and its connection set-up. */
  private bounds(stream: boolean): { totalMs: number; connectMs: number; connectBound: string } {
    const totalMs = stream ? 0 : this.opts.requestTimeoutMs;
    const base = this.opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const connectMs = totalMs > 0 ? Math.min(totalMs, base) : base;
    return { totalMs, connectMs, connectBound: totalMs > 0 && totalMs <= base ? '--request-timeout' : `the ${formatMs(base)} bound on connecting` };
  }

  /** One exchange; at -v 6 and up each is logged (request-log.ts), after it ended. */
  private async once(spec: RequestSpec, signal?: AbortSignal, stream?: (chunk: string) => void): Promise<Response> {
    const level = this.opts.verbosity ?? 0;
    const log = this.opts.log;
    if (level < 6 || !log) return this.exchange(spec, signal, stream);
    const started = Date.now();
    let sent: Omit<LoggedRequest, 'ms'> = { method: spec.method, url: `${this.server}${spec.path}`, headers: {} };
    const onSent = (r: Omit<LoggedRequest, 'ms'>) => (sent = r);
    try {
      const res = await this.exchange(spec, signal, stream, onSent);
      log(formatRequest({ ...sent, status: res.status, ...(stream ? {} : { responseBody: res.body }), ms: Date.now() - started }, level));
      return res;
    } catch (err) {
      log(formatRequest({ ...sent, error: (err as Error).message, ms: Date.now() - started }, level));
      throw err;
    }
  }

  private async exchange(
    spec: RequestSpec,
    signal?: AbortSignal,
    stream?: (chunk: string) => void,
    onSent?: (r: Omit<LoggedRequest, 'ms'>) => void,
  ): Promise<Response> {
    const started = Date.now();
    const { totalMs, connectMs, connectBound } = this.bounds(stream !== undefined);
    const session = await this.h2?.get(connectMs, connectBound);
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) qs.set(k, v);
    const q = qs.toString();
    const payload = spec.body === undefined ? undefined : Buffer.from(JSON.stringify(spec.body));
    const headers: Record<string, string | string[]> = {
      ...this.headers,
      Accept: spec.accept ?? 'application/json',
      'User-Agent': 'kubectl-gitops',
      ...(spec.impersonate !== undefined ? { 'Impersonate-User': spec.impersonate } : {}),
    };
    if (payload) {
      headers['Content-Type'] = spec.contentType ?? 'application/json';
      headers['Content-Length'] = String(payload.length);
    }
    const lib = this.url.protocol === 'http:' ? http : https;
    const basePath = this.url.pathname.replace(/\/$/, '');
    onSent?.({
      method: spec.method,
      url: `${this.url.origin}${basePath}${spec.path}${q ? `?${q}` : ''}`,
      headers: { ...headers, ...(this.basicAuth ? { Authorization: 'Basic' } : {}) },
      ...(payload ? { body: payload.toString() } : {}),
    });
    // What is left of --request-timeout after the connection was set up (at least 1 ms: it has not run out yet).
    const timeoutMs = totalMs > 0 ? Math.max(1, totalMs - (Date.now() - started)) : 0;
    if (session)
      return this.onceH2(session, {
        method: spec.method,
        path: `${basePath}${spec.path}${q ? `?${q}` : ''}`,
        headers,
        payload,
        timeoutMs,
        totalMs,
        signal,
        stream,
      });
    return new Promise<Response>((resolve, reject) => {
      let phase: Phase = 'connecting';
      const req = lib.request(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname,
          port: this.url.port,
          path: `${basePath}${spec.path}${q ? `?${q}` : ''}`,
          method: spec.method,
          headers,
          agent: this.agent,
          ...(this.basicAuth ? { auth: this.basicAuth } : {}),
          ...(signal ? { signal } : {}),
        },
        (res) => {
          phase = 'reading the response';
          res.setEncoding('utf8');
          let body = '';
          res.on('data', (c: string) => {
            if (stream && (res.statusCode ?? 0) < 300) stream(c);
            else body += c;
          });
          res.on('end', () => {
            clearTimeout(timer);
            clearTimeout(connectTimer);
            resolve({ status: res.statusCode ?? 0, body, headers: res.headers });
          });
          res.on('error', (e) => {
            clearTimeout(timer);
            clearTimeout(connectTimer);
            reject(e);
          });
        },
      );
      // A new socket is followed through TCP connect and the TLS handshake; a kept-alive one is ready.
      req.once('socket', (socket) => {
        if (!socket.connecting) {
          phase = 'waiting for the response';
          return;
        }
        const secure = lib === https;
        socket.once('connect', () => (phase = secure ? 'the TLS handshake' : 'waiting for the response'));
        if (secure) socket.once('secureConnect', () => (phase = 'waiting for the response'));
      });
      const timer = timeoutMs > 0 ? setTimeout(() => req.destroy(new TimeoutError(phase, totalMs, '--request-timeout')), timeoutMs) : undefined;
      const connectTimer =
        connectMs > 0 && (timeoutMs === 0 || connectMs < timeoutMs)
          ? setTimeout(() => {
              if (phase === 'connecting' || phase === 'the TLS handshake') req.destroy(new TimeoutError(phase, connectMs, connectBound));
            }, connectMs)
          : undefined;
      req.on('error', (e) => {
        clearTimeout(timer);
        clearTimeout(connectTimer);
        reject(e);
      });
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** One request as a stream of the HTTP/2 session (the same contract as the HTTP/1.1 path). */
  private onceH2(
    session: http2.ClientHttp2Session,
    r: {
      method: string;
      path: string;
      headers: Record<string, string | string[]>;
      payload?: Buffer;
      timeoutMs: number;
      totalMs: number;
      signal?: AbortSignal;
      stream?: (chunk: string) => void;
    },
  ): Promise<Response> {
    return new Promise<Response>((resolve, reject) => {
      const h: http2.OutgoingHttpHeaders = { ':method': r.method, ':path': r.path };
      for (const [k, v] of Object.entries(r.headers)) h[k.toLowerCase()] = v;
      if (this.basicAuth !== undefined && h.authorization === undefined) h.authorization = `Basic ${Buffer.from(this.basicAuth).toString('base64')}`;
      let req: http2.ClientHttp2Stream;
      try {
        req = session.request(h, { endStream: r.payload === undefined, ...(r.signal ? { signal: r.signal } : {}) });
      } catch (err) {
        reject(err);
        return;
      }
      const done = this.h2!.begin(session);
      let status = 0;
      let headers: http.IncomingHttpHeaders = {};
      let body = '';
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        done();
        fn();
      };
      if (r.timeoutMs > 0) {
        timer = setTimeout(() => {
          req.close(http2.constants.NGHTTP2_CANCEL);
          settle(() => reject(new TimeoutError(status === 0 ? 'waiting for the response' : 'reading the response', r.totalMs, '--request-timeout')));
        }, r.timeoutMs);
      }
      req.on('response', (hdrs) => {
        status = Number(hdrs[':status'] ?? 0);
        headers = hdrs as http.IncomingHttpHeaders;
      });
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        if (r.stream && status < 300) r.stream(c);
        else body += c;
      });
      req.on('end', () => {
        // Node also ends the readable side of a stream whose session went away (a cut connection, a GOAWAY with an
        // error), with the stream's code set to CANCEL: that is no answer, or only part of one, whatever came before.
        const code = req.rstCode ?? http2.constants.NGHTTP2_NO_ERROR;
        if (status === 0 || code !== http2.constants.NGHTTP2_NO_ERROR) {
          settle(() =>
            reject(Object.assign(new Error(`the HTTP/2 stream was closed (code ${code}) before the response ended`), { code: 'ERR_HTTP2_STREAM_CANCEL' })),
          );
          return;
        }
        settle(() => resolve({ status, body, headers }));
      });
      req.on('error', (e) => settle(() => reject(e)));
      // A stream reset without an error event (e.g. the session went away): no complete answer.
      req.on('close', () =>
        settle(() => reject(Object.assign(new Error('the HTTP/2 stream closed before the response ended'), { code: 'ERR_HTTP2_STREAM_CLOSED' }))),
      );
      if (r.payload) req.end(r.payload);
    });
  }

  /** Sends a request with the retry policy; resolves to the response of any status (the caller judges it). */
  private async send(spec: RequestSpec): Promise<Response> {
    const maxRetries = spec.retry ? (this.opts.maxRetries ?? 4) : 0;
    const base = this.opts.backoffMs ?? 200;
    let refreshed = false;
    for (let attempt = 0; ; attempt++) {
      this.counters.requests++;
      let res: Response;
      try {
        res = await this.limiter.run(() => this.once(spec));
      } catch (err) {
        const code = errCode(err);
        if (err instanceof TimeoutError) {
          throw new ClusterError(`${spec.doing}: the API server at ${this.server} ${err.message}`, { cause: err });
        }
        if (isTlsError(err)) {
          throw new ClusterError(`${spec.doing}: TLS handshake with ${this.server} failed (${code || 'TLS'}): ${(err as Error).message}`, { cause: err });
        }
        if (UNREACHABLE_CODES.has(code)) {
          throw new ClusterError(`${spec.doing}: cannot reach the API server at ${this.server} (${code})`, { cause: err });
        }
        if ((RESET_CODES.has(code) || (err as Error).message === 'socket hang up') && attempt < maxRetries) {
          this.counters.retries++;
          await sleep(base * 2 ** attempt);
          continue;
        }
        throw new ClusterError(`${spec.doing}: request to ${this.server} failed: ${(err as Error).message}`, { cause: err });
      }
      if (res.status === 401 && !refreshed && this.opts.connection.refresh) {
        refreshed = true;
        await this.refreshAuth().catch(() => undefined);
        attempt--;
        continue;
      }
      const retryAfter = res.headers['retry-after'] as string | undefined;
      if (attempt < maxRetries && isRetryableAnswer(res.status, retryAfter, res.body)) {
        this.counters.retries++;
        const hinted = retryAfterMs(retryAfter, Date.now());
        await sleep(hinted ?? base * 2 ** attempt);
        continue;
      }
      return res;
    }
  }

  /** Sends and decodes the body (by `decode` when given and it answers, else as JSON); any non-2xx becomes a KubeApiError. */
  private async json<T>(spec: RequestSpec, decode?: (body: string) => unknown): Promise<T> {
    const res = await this.send(spec);
    if (res.status < 200 || res.status >= 300) throw apiError(spec.doing, res.status, res.body, spec.access);
    const decoded = decode?.(res.body);
    if (decoded !== undefined) return decoded as T;
    try {
      return JSON.parse(res.body) as T;
    } catch (err) {
      throw new ClusterError(`${spec.doing}: the API server sent a body that is not JSON`, { cause: err });
    }
  }

  discover(): Promise<Discovery> {
    // A failed discovery is not kept: the next call (a later poll of status --wait) asks again.
    this.discovery ??= this.loadDiscovery().catch((err: unknown) => {
      this.discovery = undefined;
      throw err;
    });
    return this.discovery;
  }

  forgetDiscovery(): void {
    this.discovery = undefined;
  }

  private readonly openApiDocs = new Map<string, Promise<unknown>>();

  openApi(group: string, version: string): Promise<unknown> {
    const path = group === '' ? `/openapi/v3/api/${version}` : `/openapi/v3/apis/${group}/${version}`;
    let doc = this.openApiDocs.get(path);
    if (!doc) {
      doc = this.json<unknown>({ method: 'GET', path, retry: true, doing: `reading the OpenAPI schema of ${group || 'core'}/${version}` }).catch(
        (err: unknown) => {
          if (err instanceof KubeApiError && err.status === 404) return undefined;
          throw err;
        },
      );
      this.openApiDocs.set(path, doc);
    }
    return doc;
  }

  async serverVersion(): Promise<string> {
    const v = await this.json<Record<string, unknown>>({ method: 'GET', path: '/version', retry: true, doing: 'reading the API server version' });
    return serverVersionOf(v);
  }

  private async loadDiscovery(): Promise<Discovery> {
    const [core, groups] = await Promise.all(
      ['/api', '/apis'].map((p) =>
        this.json<Record<string, unknown>>({ method: 'GET', path: p, accept: AGGREGATED_ACCEPT, retry: true, doing: 'discovering API resources' }),
      ),
    );
    if (core?.kind === 'APIGroupDiscoveryList' && groups?.kind === 'APIGroupDiscoveryList') {
      const all = [...parseAggregatedDiscovery(core), ...parseAggregatedDiscovery(groups)];
      return { all, preferred: preferredTypes(all) };
    }
    // Legacy discovery: one request per group-version.
    const gvs: { group: string; version: string }[] = [];
    for (const v of (core?.versions as string[] | undefined) ?? ['v1']) gvs.push({ group: '', version: v });
    gvs.push(...parseLegacyGroupList(groups ?? {}));
    const lists = await Promise.all(
      gvs.map(async (gv) => {
        const path = gv.group === '' ? `/api/${gv.version}` : `/apis/${gv.group}/${gv.version}`;
        const res = await this.send({ method: 'GET', path, retry: true, doing: `discovering ${path}` });
        // An aggregated API that is down must not hide the rest of the cluster.
        if (res.status !== 200) return [];
        return parseLegacyResourceList(gv.group, gv.version, JSON.parse(res.body) as Record<string, unknown>);
      }),
    );
    const all = lists.flat();
    return { all, preferred: preferredTypes(all) };
  }

  async servedTypes(group: string, version: string): Promise<ResourceType[] | undefined> {
    const path = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    const doing = `discovering ${path}`;
    const res = await this.send({ method: 'GET', path, retry: true, doing });
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw apiError(doing, res.status, res.body);
    return parseLegacyResourceList(group, version, JSON.parse(res.body) as Record<string, unknown>);
  }

  async resolve(apiVersion: string, kind: string): Promise<ResourceType | undefined> {
    const d = await this.discover();
    return d.all.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
  }

  async get(type: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined> {
    const doing = `getting ${type.kind} ${type.namespaced ? `${namespace}/` : ''}${name}`;
    const spec: RequestSpec = {
      method: 'GET',
      path: objectPath(type, namespace, name),
      retry: true,
      doing,
      access: { verb: 'get', resource: resourceName(type), ...(type.namespaced ? { namespace } : {}) },
    };
    const res = await this.send(spec);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw apiError(doing, res.status, res.body, spec.access);
    return JSON.parse(res.body) as KubeObject;
  }

  async list(type: ResourceType, opts: ListOptions = {}): Promise<ListResult> {
    const where = type.namespaced ? (opts.namespace ? ` in namespace ${opts.namespace}` : ' in all namespaces') : '';
    const doing = `listing ${resourceName(type)}${where}`;
    const items: KubeObject[] = [];
    let cont = opts.continue;
    let pages = 0;
    let resourceVersion: string | undefined;
    let remaining: number | undefined;
    // Items that cannot carry the annotation asked for are left undecoded when the page has the server's usual shape.
    const withAnnotation = opts.metadataOnly ? opts.withAnnotation : undefined;
    const scan = withAnnotation === undefined ? undefined : (body: string) => scanMetadataList(body, withAnnotation);
    do {
      const body = await this.json<{ items?: KubeObject[]; metadata?: { continue?: string; resourceVersion?: string; remainingItemCount?: number } }>(
        {
          method: 'GET',
          path: collectionPath(type, opts.namespace),
          query: {
            limit: String(opts.pageSize ?? (opts.metadataOnly ? METADATA_PAGE_SIZE : FULL_PAGE_SIZE)),
            continue: cont,
            labelSelector: opts.labelSelector,
            fieldSelector: opts.fieldSelector,
          },
          ...(opts.metadataOnly ? { accept: METADATA_ACCEPT } : {}),
          retry: true,
          doing,
          access: { verb: 'list', resource: resourceName(type), ...(type.namespaced && opts.namespace ? { namespace: opts.namespace } : {}) },
        },
        scan,
      );
      pages++;
      for (const it of body.items ?? []) {
        items.push({ ...it, apiVersion: apiVersionOf(type), kind: type.kind });
      }
      cont = body.metadata?.continue || undefined;
      resourceVersion = body.metadata?.resourceVersion;
      remaining = typeof body.metadata?.remainingItemCount === 'number' ? body.metadata.remainingItemCount : undefined;
    } while (cont && !(opts.maxPages !== undefined && pages >= opts.maxPages));
    return {
      items,
      pages,
      ...(resourceVersion ? { resourceVersion } : {}),
      ...(cont ? { continue: cont, ...(remaining !== undefined ? { remainingItemCount: remaining } : {}) } : {}),
    };
  }

  async apply(type: ResourceType, obj: KubeObject, opts: ApplyOptions): Promise<KubeObject> {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    // The server's typed-patch errors quote rejected values (".data: expected map, got &{[...]}"): never a Secret's.
    return this.json<KubeObject>({
      method: 'PATCH',
      path: objectPath(type, ns, name),
      query: {
        fieldManager: opts.fieldManager,
        force: opts.force ? 'true' : undefined,
        dryRun: opts.dryRun ? 'All' : undefined,
        fieldValidation: opts.fieldValidation,
      },
      body: applyBody(obj),
      contentType: 'application/apply-patch+yaml',
      ...as(opts),
      retry: true,
      doing: `${opts.dryRun ? 'dry-run applying' : 'applying'} ${type.kind} ${type.namespaced ? `${ns}/` : ''}${name}`,
      access: { verb: 'patch', resource: resourceName(type), ...(type.namespaced ? { namespace: ns } : {}) },
    }).catch((err: unknown) => {
      throw err instanceof KubeApiError ? redactSecretError(err, obj) : err;
    });
  }

  /** PUT (replace) or POST (create) of the whole object. */
  private write(method: 'PUT' | 'POST', type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    const verb = method === 'PUT' ? 'replacing' : 'creating';
    return this.json<KubeObject>({
      method,
      path: method === 'PUT' ? objectPath(type, ns, name) : collectionPath(type, ns),
      query: { fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined, fieldValidation: opts.fieldValidation },
      body: applyBody(obj),
      ...as(opts),
      retry: method === 'PUT',
      doing: `${opts.dryRun ? `dry-run ${verb}` : verb} ${type.kind} ${type.namespaced ? `${ns}/` : ''}${name}`,
      access: { verb: method === 'PUT' ? 'update' : 'create', resource: resourceName(type), ...(type.namespaced ? { namespace: ns } : {}) },
    }).catch((err: unknown) => {
      throw err instanceof KubeApiError ? redactSecretError(err, obj) : err;
    });
  }

  replace(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    return this.write('PUT', type, obj, opts);
  }

  create(type: ResourceType, obj: KubeObject, opts: WriteOptions): Promise<KubeObject> {
    return this.write('POST', type, obj, opts);
  }

  async update(type: ResourceType, obj: KubeObject, opts: UpdateOptions): Promise<KubeObject> {
    const ns = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    // Sent again only after no answer or a 5xx/429: with its resourceVersion, a repeat of one that landed is a 409.
    return this.json<KubeObject>({
      method: 'PUT',
      path: objectPath(type, ns, name),
      query: { fieldManager: opts.fieldManager },
      body: obj,
      ...as(opts),
      retry: true,
      doing: `updating ${type.kind} ${type.namespaced ? `${ns}/` : ''}${name}`,
      access: { verb: 'update', resource: resourceName(type), ...(type.namespaced ? { namespace: ns } : {}) },
    });
  }

  async patch(type: ResourceType, namespace: string, name: string, patch: unknown, patchType: PatchType, opts: PatchOptions): Promise<KubeObject> {
    const contentType = { json: 'application/json-patch+json', merge: 'application/merge-patch+json', strategic: 'application/strategic-merge-patch+json' }[
      patchType
    ];
    return this.json<KubeObject>({
      method: 'PATCH',
      path: objectPath(type, namespace, name),
      query: { fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined, fieldValidation: opts.fieldValidation },
      body: patch,
      contentType,
      ...as(opts),
      // A JSON patch with a `test` and a merge patch of the same content land once: a repeat fails the test or changes nothing.
      retry: true,
      doing: `${opts.dryRun ? 'dry-run patching' : 'patching'} ${type.kind} ${type.namespaced ? `${namespace}/` : ''}${name}`,
      access: { verb: 'patch', resource: resourceName(type), ...(type.namespaced ? { namespace } : {}) },
    });
  }

  async delete(type: ResourceType, namespace: string, name: string, opts: DeleteOptions = {}): Promise<KubeObject | undefined> {
    const policy = opts.propagationPolicy ? opts.propagationPolicy[0]!.toUpperCase() + opts.propagationPolicy.slice(1) : undefined;
    const body = {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      ...(policy ? { propagationPolicy: policy } : {}),
      ...(opts.preconditions ? { preconditions: opts.preconditions } : {}),
      ...(opts.dryRun ? { dryRun: ['All'] } : {}),
    };
    const out = await this.json<Record<string, unknown>>({
      method: 'DELETE',
      path: objectPath(type, namespace, name),
      body,
      ...as(opts),
      // With a uid precondition a repeated delete can only hit the same object.
      retry: opts.preconditions?.uid !== undefined,
      doing: `deleting ${type.kind} ${type.namespaced ? `${namespace}/` : ''}${name}`,
      access: { verb: 'delete', resource: resourceName(type), ...(type.namespaced ? { namespace } : {}) },
    });
    return isPlainObject(out) && out.kind !== 'Status' ? (out as unknown as KubeObject) : undefined;
  }

  async canI(check: AccessCheck): Promise<AccessResult> {
    const out = await this.json<{ status?: { allowed?: boolean; reason?: string } }>({
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb: check.verb, group: check.group, resource: check.resource, namespace: check.namespace, name: check.name } },
      },
      ...as(check),
      retry: true,
      doing: `checking access to ${check.verb} ${check.resource}`,
    });
    const allowed = out.status?.allowed === true;
    return { allowed, ...(out.status?.reason ? { reason: out.status.reason } : {}) };
  }

  async watch(type: ResourceType, opts: WatchOptions, onEvent: (e: WatchEvent) => void): Promise<void> {
    let buf = '';
    const spec: RequestSpec = {
      method: 'GET',
      path: collectionPath(type, opts.namespace),
      query: {
        watch: '1',
        allowWatchBookmarks: 'true',
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        resourceVersion: opts.resourceVersion,
      },
      ...(opts.metadataOnly ? { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json' } : {}),
      retry: false,
      doing: `watching ${resourceName(type)}`,
    };
    this.counters.requests++;
    let res: Response;
    try {
      res = await this.once(spec, opts.signal, (chunk) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) onEvent(JSON.parse(line) as WatchEvent);
        }
      });
    } catch (err) {
      if (opts.signal?.aborted) return;
      throw new ClusterError(`${spec.doing}: ${(err as Error).message}`, { cause: err });
    }
    if (res.status >= 300) throw apiError(spec.doing, res.status, res.body);
  }
}
