// HTTP/2 to the API server when it offers it (TLS ALPN), as kubectl's Go client does: one TLS
// connection and one handshake instead of one per socket, and many requests in flight on it. A
// server (or proxy) that answers only http/1.1 is remembered, and the caller uses HTTP/1.1.
import http2 from 'node:http2';
import { isIP } from 'node:net';
import tls from 'node:tls';
import { tlsConnectOptions, type ClusterConnection } from './auth.js';

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
  ) {}

  /** The open session, or a new one; undefined when the server speaks only HTTP/1.1. Connection errors reject. */
  async get(): Promise<http2.ClientHttp2Session | undefined> {
    if (this.http1Only || this.closed) return undefined;
    const s = this.session;
    if (s && !s.closed && !s.destroyed) return s;
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
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

  private connect(): Promise<http2.ClientHttp2Session | undefined> {
    const { hostname, port } = this.url;
    const host = hostname.replace(/^\[(.*)\]$/, '$1');
    return new Promise((resolve, reject) => {
      const socket = tls.connect({
        host,
        port: Number(port || 443),
        ALPNProtocols: ['h2', 'http/1.1'],
        ...(this.tlsOpts.servername === undefined && !isIP(host) ? { servername: host } : {}),
        ...tlsConnectOptions(this.tlsOpts),
      });
      socket.once('error', reject);
      socket.once('secureConnect', () => {
        socket.removeListener('error', reject);
        if (socket.alpnProtocol !== 'h2' || this.closed) {
          this.http1Only = socket.alpnProtocol !== 'h2';
          socket.destroy();
          resolve(undefined);
          return;
        }
        const session = http2.connect(this.url.origin, { createConnection: () => socket });
        // Errors reach the requests on it (as stream errors); the session itself is simply dropped.
        session.on('error', () => undefined);
        const drop = () => {
          if (this.session === session) this.session = undefined;
        };
        session.once('close', drop);
        session.once('goaway', drop);
        session.unref();
        this.session = session;
        resolve(session);
      });
    });
  }
}
