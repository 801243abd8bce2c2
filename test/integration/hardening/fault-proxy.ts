// A fault-injecting TLS proxy in front of the test API server: terminates TLS with its own self-signed certificate, speaks HTTP/2 or HTTP/1.1 to the client (as ALPN settles), forwards over HTTP/1.1 with the admin client certificate, and can delay, reset streams, send GOAWAY, cut connections, answer 429 (with Retry-After) or 503, or stop listening altogether.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { constants as h2, createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

/** The protocol a request came in on: `h2` (ALPN chose HTTP/2) or `http/1.1`. */
export type Protocol = 'h2' | 'http/1.1';

export interface ProxiedRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/namespaces/x/configmaps/a?fieldManager=m&dryRun=All`. */
  url: string;
}

/** What to do with one request. Each fault has a meaning in both protocols; where they differ it is said. */
export type Fault =
  | { kind: 'status'; status: 429 | 503 | 500 | 504; retryAfterSeconds?: number }
  /** Destroy the client connection (TCP, no HTTP frame) before the API server sees the request; over HTTP/2 every stream on it dies too. */
  | { kind: 'cut' }
  /** Forward, let the API server act, then destroy the client connection instead of answering. */
  | { kind: 'cut-after' }
  /** Over HTTP/2, RST_STREAM (INTERNAL_ERROR) on this request's stream only, before the API server sees it: the connection and its other streams live on. HTTP/1.1 has nothing finer than a cut. */
  | { kind: 'reset' }
  /**
   * Forward and answer, and close the connection gracefully: over HTTP/2 a GOAWAY (NO_ERROR) naming the last stream
   * the proxy has taken (kube-apiserver's --goaway-chance does this), so the client must open a new connection for
   * later requests and any it started meanwhile are refused; over HTTP/1.1 the answer says `Connection: close`.
   */
  | { kind: 'goaway' }
  | { kind: 'delay'; ms: number }
  /**
   * Forward and stream the answer, then `afterMs` after its headers break it off where it stands (for a watch, whose
   * answer does not end): over HTTP/2 RST_STREAM (INTERNAL_ERROR) on its stream, over HTTP/1.1 a cut.
   */
  | { kind: 'reset-during'; afterMs: number }
  /** Forward, then stop the proxy (the API server "goes away" right after this request). */
  | { kind: 'stop-after' };

export interface FaultRule {
  /** Which requests the rule considers (all when absent). */
  when?: (r: ProxiedRequest) => boolean;
  fault: Fault;
  /** Apply to the first N matching requests only. */
  times?: number;
  /** Apply to this fraction of matching requests (seeded, so runs repeat). */
  fraction?: number;
}

export interface LogEntry extends ProxiedRequest {
  /** The protocol the request came in on (what ALPN settled for its connection). */
  protocol: Protocol;
  /** Which TLS connection it came on: 1 for the first the proxy accepted, and so on. */
  connection: number;
  contentType?: string;
  /** The request body for writes (not for GETs). */
  body?: string;
  /** `forwarded 200`, `429`, `cut`, `reset`, `goaway 200`, `cut-after 200`, `reset-during 200`, `delayed 300ms 200`, `refused: stopping`... */
  outcome: string;
  /** When the request reached the proxy (Date.now(), ms), before its body was read. */
  at: number;
  /** For an injected status answer (429, 503...): when the proxy had written it (Date.now(), ms). */
  answeredAt?: number;
  /** The User-Agent header the client sent, if any. */
  userAgent?: string;
}

interface Upstream {
  server: URL;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

/** The admin kubeconfig's server and credentials (embedded certificate data). */
function upstreamFrom(kubeconfig: string): Upstream {
  const file = parse(readFileSync(kubeconfig, 'utf8')) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  const c = file.clusters[0]!.cluster;
  const u = file.users[0]!.user;
  const b64 = (s: string | undefined, what: string) => {
    if (!s) throw new Error(`reading ${kubeconfig}: no ${what}`);
    return Buffer.from(s, 'base64');
  };
  return {
    server: new URL(c.server!),
    ca: b64(c['certificate-authority-data'], 'CA data'),
    cert: b64(u['client-certificate-data'], 'client certificate'),
    key: b64(u['client-key-data'], 'client key'),
  };
}

/** A self-signed certificate for 127.0.0.1 made with openssl (it is its own CA). */
function selfSignedCert(dir: string): { cert: Buffer; key: Buffer } {
  const key = join(dir, 'proxy.key');
  const cert = join(dir, 'proxy.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=fault-proxy',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
    ],
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(cert), key: readFileSync(key) };
}

/** mulberry32: a small seeded generator, so that fractions repeat from run to run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Headers that belong to one hop (HTTP/1.1 connection management): never forwarded, and forbidden in HTTP/2. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'host', 'http2-settings']);

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':') && !HOP_BY_HOP.has(k) && v !== undefined) out[k] = v;
  return out;
}

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

const isH2 = (req: Req): req is Http2ServerRequest => req.httpVersionMajor === 2;

export class FaultProxy {
  readonly log: LogEntry[] = [];
  private rules: { rule: FaultRule; used: number }[] = [];
  private server?: Http2SecureServer;
  /** Raw TCP connections, by which a cut or a stop ends them without any HTTP frame. */
  private readonly sockets = new Set<Socket>();
  private port = 0;
  /** Connection numbers by the client's port (a port reused later gets the new connection's number). */
  private readonly connectionIds = new Map<number, number>();
  private connectionSeq = 0;
  /** TLS connections accepted since the last setRules (a client that reconnects adds one each time). */
  connections = 0;
  private readonly upstream: Upstream;
  private readonly tls: { cert: Buffer; key: Buffer };
  private random = seeded(42);
  /** Set from the moment a stop-after request is answered: later requests find the server gone. */
  private stopping = false;
  /** The highest stream id each HTTP/2 session has taken: what a GOAWAY names as the last one processed. */
  private readonly lastStream = new WeakMap<object, number>();
  /** Upstream connections, dropped on stop so nothing keeps the test process alive. */
  private agent = new Agent({ keepAlive: true });

  /**
   * `offer`: the protocols the proxy takes. With `h2` ALPN settles on HTTP/2 whenever the client offers it (and on
   * HTTP/1.1 otherwise); with `http/1.1` alone it always settles on HTTP/1.1, as a proxy without HTTP/2 does.
   */
  constructor(
    adminKubeconfig: string,
    private readonly dir: string,
    readonly offer: Protocol = 'h2',
  ) {
    this.upstream = upstreamFrom(adminKubeconfig);
    this.tls = selfSignedCert(dir);
  }

  /** Replaces the rules (and resets their counters, the log, the connection count and the random sequence). */
  setRules(rules: FaultRule[], seed = 42): void {
    this.rules = rules.map((rule) => ({ rule, used: 0 }));
    this.log.length = 0;
    this.connections = 0;
    this.random = seeded(seed);
  }

  /** Starts listening (again, on the same port after a stop). */
  async start(): Promise<void> {
    const server = createSecureServer({
      cert: this.tls.cert,
      key: this.tls.key,
      allowHTTP1: true,
      ALPNCallback: ({ protocols }) => (this.offer === 'h2' && protocols.includes('h2') ? 'h2' : protocols.includes('http/1.1') ? 'http/1.1' : undefined),
    });
    server.on('request', (req: Req, res: Res) => void this.handle(req, res));
    server.on('secureConnection', (tls: TLSSocket) => {
      this.connections++;
      this.connectionIds.set(tls.remotePort ?? 0, ++this.connectionSeq);
    });
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('stream', (stream) => {
      const id = stream.id ?? 0;
      if (id > (this.lastStream.get(stream.session ?? stream) ?? 0)) this.lastStream.set(stream.session ?? stream, id);
    });
    server.on('tlsClientError', () => undefined);
    server.on('sessionError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
    this.stopping = false;
  }

  /** The API server "goes away": no new connections, open ones destroyed. */
  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    const closed = new Promise<void>((r) => s.close(() => r()));
    for (const sock of this.sockets) sock.destroy();
    this.agent.destroy();
    this.agent = new Agent({ keepAlive: true });
    await closed;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Writes a kubeconfig pointing at the proxy, trusting its certificate; returns its path. */
  writeKubeconfig(name = 'proxy.kubeconfig'): string {
    const path = join(this.dir, name);
    writeFileSync(
      path,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'proxy', cluster: { server: this.url, 'certificate-authority-data': this.tls.cert.toString('base64') } }],
        users: [{ name: 'proxy', user: { token: 'the-proxy-authenticates-upstream' } }],
        contexts: [{ name: 'proxy', context: { cluster: 'proxy', user: 'proxy' } }],
        'current-context': 'proxy',
      }),
    );
    return path;
  }

  private pick(r: ProxiedRequest): Fault | undefined {
    for (const entry of this.rules) {
      const { rule } = entry;
      if (rule.when && !rule.when(r)) continue;
      if (rule.times !== undefined && entry.used >= rule.times) continue;
      if (rule.fraction !== undefined && this.random() >= rule.fraction) continue;
      entry.used++;
      return rule.fault;
    }
    return undefined;
  }

  /** Ends the TCP connection a request came on, without a word (over HTTP/2 every stream on it dies). */
  private cutConnection(req: Req): void {
    if (!isH2(req)) {
      req.socket.destroy();
      return;
    }
    // The compatibility API hides the session's socket behind a proxy that may not be destroyed: find the raw one.
    const port = req.stream.session?.socket.remotePort;
    for (const sock of this.sockets) if (sock.remotePort === port) sock.destroy();
  }

  private async handle(req: Req, res: Res): Promise<void> {
    const at = Date.now();
    const r: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/' };
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const protocol: Protocol = isH2(req) ? 'h2' : 'http/1.1';
    const connection = this.connectionIds.get(req.socket.remotePort ?? 0) ?? 0;
    const entry: LogEntry = {
      ...r,
      protocol,
      connection,
      outcome: '',
      at,
      ...(req.headers['user-agent'] !== undefined ? { userAgent: req.headers['user-agent'] } : {}),
      ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
      ...(r.method !== 'GET' ? { body: body.toString('utf8') } : {}),
    };
    this.log.push(entry);
    if (this.stopping) {
      entry.outcome = 'refused: stopping';
      this.cutConnection(req);
      return;
    }
    const fault = this.pick(r);
    if (fault?.kind === 'status') {
      entry.outcome = String(fault.status);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      (res as ServerResponse).writeHead(fault.status, headers);
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          message: `injected ${fault.status}`,
          reason: fault.status === 429 ? 'TooManyRequests' : 'ServiceUnavailable',
          code: fault.status,
        }),
      );
      entry.answeredAt = Date.now();
      return;
    }
    if (fault?.kind === 'cut' || (fault?.kind === 'reset' && !isH2(req))) {
      entry.outcome = 'cut';
      this.cutConnection(req);
      return;
    }
    if (fault?.kind === 'reset' && isH2(req)) {
      entry.outcome = 'reset';
      req.stream.close(h2.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const headers = endToEnd(req.headers);
    delete headers.authorization;
    const up = request({
      protocol: 'https:',
      hostname: this.upstream.server.hostname,
      port: this.upstream.server.port,
      method: r.method,
      path: r.url,
      headers,
      ca: this.upstream.ca,
      cert: this.upstream.cert,
      key: this.upstream.key,
      agent: this.agent,
    });
    up.on('response', (ur) => {
      const prefix = fault?.kind === 'delay' ? `delayed ${fault.ms}ms ` : fault ? `${fault.kind} ` : 'forwarded ';
      entry.outcome = `${prefix}${ur.statusCode}`;
      if (fault?.kind === 'cut-after') {
        ur.resume();
        ur.on('end', () => this.cutConnection(req));
        return;
      }
      if (fault?.kind === 'stop-after') {
        // From here on the server is gone: nothing new is taken, and the connections end once this answer is out.
        this.stopping = true;
        this.server?.close();
        res.on('finish', () => setTimeout(() => void this.stop(), 20));
      }
      const out = endToEnd(ur.headers);
      if (fault?.kind === 'goaway') {
        if (isH2(req)) {
          // Graceful: every stream taken so far is answered; streams the client opened after it are refused, and it
          // opens a new connection for them and for what comes next.
          const session = req.stream.session;
          session?.goaway(h2.NGHTTP2_NO_ERROR, session ? (this.lastStream.get(session) ?? 0) : 0);
          res.on('finish', () => session?.close());
        } else {
          out.connection = 'close';
        }
      }
      (res as ServerResponse).writeHead(ur.statusCode ?? 502, out);
      ur.pipe(res);
      if (fault?.kind === 'reset-during') {
        const timer = setTimeout(() => {
          // close() would end the stream cleanly before resetting it; destroy() resets it mid-answer.
          if (isH2(req)) req.stream.destroy(new Error('injected reset'));
          else this.cutConnection(req);
          up.destroy();
        }, fault.afterMs);
        res.on('close', () => clearTimeout(timer));
      }
    });
    up.on('error', (err) => {
      entry.outcome = `upstream error ${err.message}`;
      res.destroy();
    });
    res.on('close', () => {
      if (!res.writableEnded && fault?.kind !== 'cut-after') up.destroy();
    });
    up.end(body);
  }
}
