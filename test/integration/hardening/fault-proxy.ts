// A fault-injecting HTTPS proxy in front of the test API server: terminates TLS with its own self-signed certificate, forwards to the API server with the admin client certificate, and can delay, cut connections, answer 429 (with Retry-After) or 503, or stop listening altogether.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

export interface ProxiedRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/namespaces/x/configmaps/a?fieldManager=m&dryRun=All`. */
  url: string;
}

/** What to do with one request. */
export type Fault =
  | { kind: 'status'; status: 429 | 503 | 500 | 504; retryAfterSeconds?: number }
  /** Destroy the client connection without an answer, before the API server sees the request. */
  | { kind: 'cut' }
  /** Forward, let the API server act, then destroy the client connection instead of answering. */
  | { kind: 'cut-after' }
  | { kind: 'delay'; ms: number }
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
  contentType?: string;
  /** The request body for writes (not for GETs). */
  body?: string;
  /** `forwarded 200`, `429`, `cut`, `cut-after 200`, `delayed 300ms 200`... */
  outcome: string;
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
  return { server: new URL(c.server!), ca: b64(c['certificate-authority-data'], 'CA data'), cert: b64(u['client-certificate-data'], 'client certificate'), key: b64(u['client-key-data'], 'client key') };
}

/** A self-signed certificate for 127.0.0.1 made with openssl (it is its own CA). */
function selfSignedCert(dir: string): { cert: Buffer; key: Buffer } {
  const key = join(dir, 'proxy.key');
  const cert = join(dir, 'proxy.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=fault-proxy', '-addext', 'subjectAltName=IP:127.0.0.1', '-addext', 'basicConstraints=critical,CA:TRUE'], { stdio: 'ignore' });
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

export class FaultProxy {
  readonly log: LogEntry[] = [];
  private rules: { rule: FaultRule; used: number }[] = [];
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private readonly upstream: Upstream;
  private readonly tls: { cert: Buffer; key: Buffer };
  private random = seeded(42);
  /** Upstream connections, dropped on stop so nothing keeps the test process alive. */
  private agent = new Agent({ keepAlive: true });

  constructor(adminKubeconfig: string, private readonly dir: string) {
    this.upstream = upstreamFrom(adminKubeconfig);
    this.tls = selfSignedCert(dir);
  }

  /** Replaces the rules (and resets their counters, the log and the random sequence). */
  setRules(rules: FaultRule[], seed = 42): void {
    this.rules = rules.map((rule) => ({ rule, used: 0 }));
    this.log.length = 0;
    this.random = seeded(seed);
  }

  /** Starts listening (again, on the same port after a stop). */
  async start(): Promise<void> {
    const server = createServer({ cert: this.tls.cert, key: this.tls.key }, (req, res) => void this.handle(req, res));
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const r: ProxiedRequest = { method: req.method ?? 'GET', url: req.url ?? '/' };
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const fault = this.pick(r);
    const entry: LogEntry = { ...r, outcome: '', ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}), ...(r.method !== 'GET' ? { body: body.toString('utf8') } : {}) };
    this.log.push(entry);
    if (fault?.kind === 'status') {
      entry.outcome = String(fault.status);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
      res.writeHead(fault.status, headers);
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: `injected ${fault.status}`, reason: fault.status === 429 ? 'TooManyRequests' : 'ServiceUnavailable', code: fault.status }));
      return;
    }
    if (fault?.kind === 'cut') {
      entry.outcome = 'cut';
      req.socket.destroy();
      return;
    }
    if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
    const headers = { ...req.headers };
    delete headers.authorization;
    delete headers.host;
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
      const prefix = fault?.kind === 'delay' ? `delayed ${fault.ms}ms ` : fault?.kind === 'cut-after' ? 'cut-after ' : fault?.kind === 'stop-after' ? 'stop-after ' : 'forwarded ';
      entry.outcome = `${prefix}${ur.statusCode}`;
      if (fault?.kind === 'cut-after') {
        ur.resume();
        ur.on('end', () => req.socket.destroy());
        return;
      }
      res.writeHead(ur.statusCode ?? 502, ur.headers);
      ur.pipe(res);
      if (fault?.kind === 'stop-after') ur.on('end', () => void this.stop());
    });
    up.on('error', (err) => {
      entry.outcome = `upstream error ${err.message}`;
      res.destroy();
    });
    res.on('close', () => {
      if (!res.writableFinished && fault?.kind !== 'cut-after') up.destroy();
    });
    up.end(body);
  }
}
