// An HTTP receiver for GitHub- and Gitea-style push events that asks the loop to refresh at once.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import { InputError } from '../model/errors.js';
import { repoKey } from '../model/repo-url.js';

/** A push that was accepted: what we could read of it. */
export interface PushEvent {
  provider: 'github' | 'gitea';
  /** `refs/heads/main`, when the payload says. */
  ref?: string;
  /** The commit the ref now points at, when the payload says. */
  after?: string;
  repository?: string;
}

/**
 * Whether a push is to one of `repoURLs`: the same repository once both are normalized (repoKey), or, when the payload
 * names only `owner/name`, a URL ending in it. A push that names no repository touches every app (it cannot be matched).
 */
export function pushTouches(push: PushEvent, repoURLs: readonly string[]): boolean {
  if (push.repository === undefined || push.repository === '') return true;
  const pushed = repoKey(push.repository);
  const fullNameOnly = !pushed.includes('.') && pushed.split('/').length === 2;
  return repoURLs.some((u) => {
    const k = repoKey(u);
    return fullNameOnly ? k.endsWith(`/${pushed}`) : k === pushed;
  });
}

/** What happened to one request, for the loop's log (refused ones included). */
export interface WebhookRecord {
  status: number;
  /** `push`, `ignored`, `refused`, `invalid`. */
  outcome: 'push' | 'ignored' | 'refused' | 'invalid';
  reason: string;
  provider?: 'github' | 'gitea';
  event?: string;
  remote?: string;
  push?: PushEvent;
}

export interface WebhookOptions {
  /** `HOST:PORT`, `:PORT` or `PORT`; a missing host means 127.0.0.1. */
  addr: string;
  /** With a secret, every request must carry a valid HMAC-SHA256 signature of its body. */
  secret?: string;
  onPush(event: PushEvent): void;
  onRequest(record: WebhookRecord): void;
  maxBodyBytes?: number;
}

export interface WebhookServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

/** Parses `--webhook-addr`: `HOST:PORT`, `[IPv6]:PORT`, `:PORT` or `PORT`; the host defaults to loopback. */
export function parseWebhookAddr(addr: string): { host: string; port: number } {
  const text = addr.trim();
  let host = '127.0.0.1';
  let portText = text;
  const bracket = /^\[([^\]]+)\]:(\d+)$/.exec(text);
  if (bracket) {
    host = bracket[1] ?? host;
    portText = bracket[2] ?? '';
  } else if (text.includes(':')) {
    const colon = text.lastIndexOf(':');
    host = text.slice(0, colon) || host;
    portText = text.slice(colon + 1);
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new InputError(`--webhook-addr ${JSON.stringify(addr)} is not HOST:PORT (e.g. 127.0.0.1:9000, or :9000 for loopback)`);
  }
  if (host !== 'localhost' && isIP(host) === 0) {
    throw new InputError(`--webhook-addr ${JSON.stringify(addr)}: the host must be an IP address or localhost`);
  }
  return { host, port };
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** The hex HMAC-SHA256 of a body, as GitHub (after `sha256=`) and Gitea send it. */
export function signBody(body: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Whether `signatureHex` is the body's HMAC-SHA256 under `secret`, compared in constant time. */
export function verifySignature(body: Buffer, secret: string, signatureHex: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(signatureHex)) return false;
  const expected = Buffer.from(signBody(body, secret), 'hex');
  const given = Buffer.from(signatureHex, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Which provider sent the request and which event it names, from the event headers. */
function eventOf(headers: IncomingHttpHeaders): { provider: 'github' | 'gitea'; event: string } | undefined {
  const gitea = header(headers, 'x-gitea-event') ?? header(headers, 'x-gogs-event');
  if (gitea !== undefined) return { provider: 'gitea', event: gitea };
  const github = header(headers, 'x-github-event');
  if (github !== undefined) return { provider: 'github', event: github };
  return undefined;
}

/** The signature the provider sent, as bare hex, or undefined when the request is unsigned. */
function signatureOf(headers: IncomingHttpHeaders, provider: 'github' | 'gitea'): string | undefined {
  if (provider === 'gitea') return header(headers, 'x-gitea-signature') ?? header(headers, 'x-gogs-signature');
  const sig = header(headers, 'x-hub-signature-256');
  if (sig === undefined) return undefined;
  return sig.startsWith('sha256=') ? sig.slice('sha256='.length) : '';
}

function payloadOf(body: Buffer, contentType: string | undefined): unknown {
  let text = body.toString('utf8');
  if (contentType?.startsWith('application/x-www-form-urlencoded')) text = new URLSearchParams(text).get('payload') ?? '';
  return JSON.parse(text) as unknown;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * Decides what one request means: pure, so the policy is tested without sockets. With a secret, anything
 * unsigned or wrongly signed is refused (401) before its body is even parsed.
 */
function judgeRequest(method: string, headers: IncomingHttpHeaders, body: Buffer, secret: string | undefined): WebhookRecord {
  if (method !== 'POST') return { status: 405, outcome: 'invalid', reason: `method ${method} not allowed (POST push events)` };
  const ev = eventOf(headers);
  if (ev === undefined) return { status: 400, outcome: 'invalid', reason: 'no X-GitHub-Event or X-Gitea-Event header' };
  const base = { provider: ev.provider, event: ev.event };
  if (secret !== undefined && secret !== '') {
    const sig = signatureOf(headers, ev.provider);
    if (sig === undefined) return { ...base, status: 401, outcome: 'refused', reason: 'unsigned request (a secret is configured)' };
    if (!verifySignature(body, secret, sig)) return { ...base, status: 401, outcome: 'refused', reason: 'signature does not match' };
  }
  if (ev.event !== 'push') return { ...base, status: 202, outcome: 'ignored', reason: `event ${ev.event} is not a push` };
  let payload: unknown;
  try {
    payload = payloadOf(body, header(headers, 'content-type'));
  } catch {
    return { ...base, status: 400, outcome: 'invalid', reason: 'the body is not a JSON push payload' };
  }
  const p = (payload ?? {}) as Record<string, unknown>;
  const repo = (p.repository ?? {}) as Record<string, unknown>;
  const push: PushEvent = {
    provider: ev.provider,
    ref: str(p.ref),
    after: str(p.after),
    repository: str(repo.clone_url) ?? str(repo.html_url) ?? str(repo.full_name),
  };
  return { ...base, status: 202, outcome: 'push', reason: 'push accepted: refreshing', push };
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  res.end(`${message}\n`);
}

/** Starts listening; resolves once bound (port 0 picks a free port, reported back). */
export async function startWebhook(opts: WebhookOptions): Promise<WebhookServer> {
  const { host, port } = parseWebhookAddr(opts.addr);
  const limit = opts.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const server = createServer((req, res) => {
    const remote = req.socket.remoteAddress;
    readBody(req, limit).then(
      (body) => {
        const record: WebhookRecord =
          body === undefined
            ? { status: 413, outcome: 'invalid', reason: `body larger than ${limit} bytes` }
            : judgeRequest(req.method ?? 'GET', req.headers, body, opts.secret);
        reply(res, record.status, record.reason);
        opts.onRequest({ ...record, remote });
        if (record.outcome === 'push' && record.push) opts.onPush(record.push);
      },
      () => reply(res, 400, 'could not read the request'),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(new InputError(`listening on ${opts.addr} for webhooks`, { cause: e })));
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  return {
    host: bound.address,
    port: bound.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
