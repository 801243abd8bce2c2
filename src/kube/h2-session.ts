// HTTP/2 to the API server when it offers it (TLS ALPN), as kubectl's Go client does: one TLS
// connection and one handshake instead of one per socket, and many requests in flight on it. A
// server (or proxy) that answers only http/1.1 is remembered, and the caller uses HTTP/1.1.
import http2 from 'node:http2';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { tlsConnectOptions, type ClusterConnection } from './auth.js';

/** What a request was doing when its time ran out (named in the error). */
export type Phase = 'connecting' | 'the TLS handshake' | 'setting up the HTTP/2 session' | 'waiting for the response' | 'reading the response';

/** A request (or its connection) that ran out of time in a phase; `bound` says which limit it was. */
export class TimeoutError extends Error {
  constructor(
    readonly phase: Phase,
    readonly ms: number,
    readonly bound: string,
  ) {
    super(`timed out ${phase.startsWith('the ') ? `in ${phase}` : phase}: nothing within ${formatMs(ms)} (${bound})`);
  }
}

/** `10s`, `1.5s`, `250ms`. */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(3)}s` : `${ms}ms`;
}

/**
 * How a session that went silent is found out while requests wait on it (a peer gone without closing the connection:
 * no FIN, no RST): a PING every `everyMs`, and the session destroyed when one is not answered within `timeoutMs`.
 * The defaults are client-go's HTTP/2 health check (ReadIdleTimeout 30 s, PingTimeout 15 s).
 */
export interface PingCheck {
  everyMs: number;
  timeoutMs: number;
}

const DEFAULT_PING: PingCheck = { everyMs: 30_000, timeoutMs: 15_000 };

/**
 * The flow-control windows this client gives the server, as Go's HTTP/2 transport (hence kubectl) gives them
 * (golang.org/x/net/http2 transport.go: transportDefaultStreamFlow 4 MiB per stream, transportDefaultConnFlow 1 GiB for
 * the connection). With HTTP/2's default 64 KiB the server stops after each 64 KiB of a LIST until this process, busy
 * decoding another answer, sends a WINDOW_UPDATE: a 1,000-object status spent ~37 ms more reading its 62 LISTs (medians
 * of 20 alternating runs, test/bench/analysis.md section 16).
 */
const STREAM_WINDOW = 4 << 20;
const CONNECTION_WINDOW = 1 << 30;

/** The code of the error the requests on a session get when it did not answer a PING (retried like a reset). */
export const PING_TIMEOUT_CODE = 'ERR_HTTP2_PING_TIMEOUT';

/** One HTTP/2 session per server, opened on first use and again after the server closed it. */
export class H2Sessions {
  private session: http2.ClientHttp2Session | undefined;
  private connecting: Promise<http2.ClientHttp2Session | undefined> | undefined;
  /** Set once the server chose http/1.1: it is not asked again. */
  private http1Only = false;
  private readonly inFlight = new WeakMap<http2.ClientHttp2Session, number>();
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly tlsOpts: ClusterConnection['tls'],
    private readonly ping: PingCheck = DEFAULT_PING,
  ) {}

  /**
   * The open session, or a new one; undefined when the server speaks only HTTP/1.1. Connection errors reject,
   * and so does a connection (TCP, TLS handshake, the server's HTTP/2 settings) not set up within `timeoutMs`.
   */
  async get(timeoutMs = 0, bound = ''): Promise<http2.ClientHttp2Session | undefined> {
    if (this.http1Only || this.closed) return undefined;
    const s = this.session;
    if (s && !s.closed && !s.destroyed) return s;
    this.connecting ??= this.connect(timeoutMs, bound).finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** Counts a request in flight on `session`: a session keeps the process alive only while one is. */
  begin(session: http2.ClientHttp2Session): () => void {
    const n = this.inFlight.get(session) ?? 0;
    if (n === 0) session.ref();
    this.inFlight.set(session, n + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.inFlight.get(session) ?? 1) - 1;
      this.inFlight.set(session, left);
      if (left === 0 && !session.destroyed) session.unref();
    };
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }

  /** While requests are in flight on `s`, PINGs it; an unanswered PING destroys it, failing those requests (they are retried). */
  private watchHealth(s: http2.ClientHttp2Session): void {
    const { everyMs, timeoutMs } = this.ping;
    let waiting = false;
    const timer = setInterval(() => {
      if (waiting || s.destroyed || s.closed || (this.inFlight.get(s) ?? 0) === 0) return;
      waiting = true;
      const deadline = setTimeout(() => {
        if (this.session === s) this.session = undefined;
        s.destroy(Object.assign(new Error(`the HTTP/2 connection did not answer a ping within ${formatMs(timeoutMs)}`), { code: PING_TIMEOUT_CODE }));
      }, timeoutMs);
      deadline.unref();
      const answered = () => {
        clearTimeout(deadline);
        waiting = false;
      };
      try {
        if (!s.ping(answered)) answered();
      } catch {
        answered();
      }
    }, everyMs);
    timer.unref();
    s.once('close', () => clearInterval(timer));
  }

  private connect(timeoutMs: number, bound: string): Promise<http2.ClientHttp2Session | undefined> {
    const { hostname, port } = this.url;
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    return new Promise((resolve, reject) => {
      let phase: Phase = 'connecting';
      let session: http2.ClientHttp2Session | undefined;
      let timer: NodeJS.Timeout | undefined;
      const fail = (err: unknown) => {
        clearTimeout(timer);
        session?.destroy();
        socket.destroy();
        reject(err);
      };
      const socket = tls.connect({
        host,
        port: Number(port || 443),
        ALPNProtocols: ['h2', 'http/1.1'],
        ...(this.tlsOpts.servername === undefined && !isIP(host) ? { servername: host } : {}),
        ...tlsConnectOptions(this.tlsOpts),
      });
      if (timeoutMs > 0) timer = setTimeout(() => fail(new TimeoutError(phase, timeoutMs, bound)), timeoutMs);
      socket.once('error', fail);
      socket.once('connect', () => (phase = 'the TLS handshake'));
      socket.once('secureConnect', () => {
        if (socket.alpnProtocol !== 'h2' || this.closed) {
          clearTimeout(timer);
          socket.removeListener('error', fail);
          this.http1Only = socket.alpnProtocol !== 'h2';
          socket.destroy();
          resolve(undefined);
          return;
        }
        // The session is set up once the server's first SETTINGS frame has arrived.
        phase = 'setting up the HTTP/2 session';
        const s = http2.connect(this.url.origin, { createConnection: () => socket, settings: { initialWindowSize: STREAM_WINDOW } });
        session = s;
        const closed = () => fail(Object.assign(new Error('the server closed the connection while the HTTP/2 session was set up'), { code: 'ECONNRESET' }));
        s.once('error', fail);
        s.once('close', closed);
        s.once('remoteSettings', () => {
          clearTimeout(timer);
          socket.removeListener('error', fail);
          s.removeListener('error', fail);
          s.removeListener('close', closed);
          s.setLocalWindowSize(CONNECTION_WINDOW);
          // Errors reach the requests on it (as stream errors); the session itself is simply dropped.
          s.on('error', () => undefined);
          const drop = () => {
            if (this.session === s) this.session = undefined;
          };
          s.once('close', drop);
          s.once('goaway', drop);
          this.watchHealth(s);
          s.unref();
          this.session = s;
          resolve(s);
        });
      });
    });
  }
}
