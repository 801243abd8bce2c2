// The gateway over TLS: HTTP/2 when the server offers it (one connection for many requests), HTTP/1.1
// when it does not, with the same retries, timeouts, headers and error mapping on both.
import http2 from 'node:http2';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { createClientGateway } from '../../../src/kube/client-gateway.js';
import type { ClusterConnection } from '../../../src/kube/auth.js';
import type { KubeGateway } from '../../../src/kube/gateway.js';
import type { ResourceType } from '../../../src/model/resource-type.js';

const FIXTURES = join(process.cwd(), 'test', 'fixtures', 'tls');
const cert = readFileSync(join(FIXTURES, 'server.crt'));
const key = readFileSync(join(FIXTURES, 'server.key'));
const CM: ResourceType = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, verbs: ['list', 'patch'] };

interface Seen {
  version: string;
  method: string;
  path: string;
  auth: string;
  group: string;
  contentType: string;
  body: string;
}
type Reply = (req: Seen) => { status: number; body: unknown; headers?: Record<string, string>; delayMs?: number };

/** A TLS server speaking HTTP/2 (with HTTP/1.1 allowed) or HTTP/1.1 only; records requests and TLS connections. */
async function tlsServer(kind: 'h2' | 'http1', reply: Reply) {
  const seen: Seen[] = [];
  let connections = 0;
  const handler = (
    req: http2.Http2ServerRequest | import('node:http').IncomingMessage,
    res: http2.Http2ServerResponse | import('node:http').ServerResponse,
  ) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s: Seen = {
        version: req.httpVersion,
        method: req.method ?? '',
        path: req.url ?? '',
        auth: String(req.headers.authorization),
        group: String(req.headers['impersonate-group']),
        contentType: String(req.headers['content-type']),
        body,
      };
      seen.push(s);
      const r = reply(s);
      const send = () => {
        (res as import('node:http').ServerResponse).writeHead(r.status, { 'content-type': 'application/json', ...(r.headers ?? {}) });
        res.end(JSON.stringify(r.body));
      };
      // A held answer does not keep the test process alive once its client is gone.
      if (r.delayMs) setTimeout(send, r.delayMs).unref();
      else send();
    });
  };
  const server = kind === 'h2' ? http2.createSecureServer({ cert, key, allowHTTP1: true }, handler) : https.createServer({ cert, key }, handler);
  const sockets = new Set<TLSSocket>();
  server.on('secureConnection', (sock: TLSSocket) => {
    connections++;
    sockets.add(sock);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    seen,
    connections: () => connections,
    url: `https://127.0.0.1:${port}`,
    /** Cuts every connection, as an API server restart does, and keeps listening. */
    dropConnections: () => {
      for (const sock of sockets) sock.destroy();
      sockets.clear();
    },
    close: () =>
      new Promise<void>((r) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => r());
      }),
  };
}

function connection(server: string, extra: Partial<ClusterConnection> = {}): ClusterConnection {
  return { server, tls: { ca: cert }, headers: { Authorization: 'Bearer tok', 'Impersonate-Group': ['dev', 'ops'] }, via: 'kubeconfig', ...extra };
}

const cmList = (names: string[]) => ({ kind: 'ConfigMapList', metadata: {}, items: names.map((name) => ({ metadata: { name } })) });

describe('over HTTP/2', () => {
  let srv: Awaited<ReturnType<typeof tlsServer>>;
  let gw: KubeGateway;
  let failNext = 0;
  beforeAll(async () => {
    srv = await tlsServer('h2', (req) => {
      if (failNext > 0) {
        failNext--;
        return { status: 429, body: { kind: 'Status', message: 'slow down' }, headers: { 'retry-after': '0' } };
      }
      if (req.path.includes('/slow')) return { status: 200, body: {}, delayMs: 6000 };
      if (req.method === 'PATCH') return { status: 200, body: JSON.parse(req.body) };
      return { status: 200, body: cmList([`n${srv.seen.length}`]) };
    });
    // The bound includes the TLS handshake: generous enough for a loaded machine running the whole suite.
    gw = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 2500, backoffMs: 5 });
  });
  afterAll(async () => {
    gw.close();
    await srv.close();
  });

  it('sends 40 requests at once over one TLS connection, with the credentials and repeated headers', async () => {
    const lists = await Promise.all(Array.from({ length: 40 }, () => gw.list(CM, { namespace: 'shop' })));
    expect(lists.every((l) => l.items.length === 1 && l.items[0]!.kind === 'ConfigMap')).toBe(true);
    expect(srv.connections()).toBe(1);
    expect(new Set(srv.seen.map((s) => s.version))).toEqual(new Set(['2.0']));
    expect(srv.seen[0]).toMatchObject({ method: 'GET', path: '/api/v1/namespaces/shop/configmaps?limit=500', auth: 'Bearer tok', group: 'dev, ops' });
  });

  it('sends a server-side apply body and reads the answer', async () => {
    const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'shop' }, data: { k: 'v' } };
    const out = await gw.apply(CM, obj, { fieldManager: 'argocd-controller', force: false, dryRun: false });
    expect(out).toEqual(obj);
    const patch = srv.seen.at(-1)!;
    expect(patch).toMatchObject({ method: 'PATCH', contentType: 'application/apply-patch+yaml', version: '2.0' });
    expect(patch.path).toBe('/api/v1/namespaces/shop/configmaps/a?fieldManager=argocd-controller');
  });

  it('retries a 429 on the same connection, and times out a request that does not answer', async () => {
    failNext = 2;
    const before = srv.seen.length;
    expect((await gw.list(CM, { namespace: 'shop' })).items).toHaveLength(1);
    expect(srv.seen.length - before).toBe(3);
    await expect(gw.get(CM, 'shop', 'slow')).rejects.toThrow(/timed out waiting for the response: nothing within 2\.5s \(--request-timeout\)/);
    expect(srv.connections()).toBe(1);
  });

  it('reconnects when the server cut the connection (an API server restart)', async () => {
    const before = srv.connections();
    await gw.list(CM, { namespace: 'shop' });
    srv.dropConnections();
    await new Promise((r) => setTimeout(r, 50));
    expect((await gw.list(CM, { namespace: 'shop' })).items).toHaveLength(1);
    expect(srv.connections()).toBe(before + 1);
  });
});

describe('over HTTP/2, the flow-control windows are Go’s (kubectl’s): 4 MiB a stream, 1 GiB the connection', () => {
  it('the server sees them before the first answer; a 6 MB LIST is read whole', async () => {
    const server = http2.createSecureServer({ cert, key });
    const seen: { streamWindow?: number; connectionWindow?: number } = {};
    const names = Array.from({ length: 60_000 }, (_, i) => `cm-${String(i).padStart(6, '0')}-${'x'.repeat(80)}`);
    const body = JSON.stringify(cmList(names));
    server.on('stream', (stream) => {
      const session = stream.session!;
      seen.streamWindow = session.remoteSettings.initialWindowSize;
      // What the server may still send on the connection before the client reads anything.
      seen.connectionWindow = session.state.remoteWindowSize;
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.end(body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const gw = await createClientGateway({ connection: connection(`https://127.0.0.1:${(server.address() as AddressInfo).port}`), requestTimeoutMs: 10_000 });
    try {
      expect(body.length).toBeGreaterThan(6_000_000);
      expect((await gw.list(CM, { namespace: 'shop' })).items).toHaveLength(names.length);
      expect(seen.streamWindow).toBe(4 * 1024 * 1024);
      // HTTP/2's default is 65,535; the client raised its connection window to 1 GiB before its first request.
      expect(seen.connectionWindow).toBe(1024 * 1024 * 1024);
    } finally {
      gw.close();
      await new Promise<void>((r) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => r());
      });
    }
  });
});

/** What an HTTP/2 server does with one request, in the middle of it. */
type H2Fault = 'cut' | 'cut-mid-body' | 'reset' | 'reset-mid-body' | 'goaway-refused' | 'goaway-mid-body';

/** An HTTP/2-only server that meets its first requests with `faults` (one each, in order) and answers the rest. */
async function faultyH2Server(faults: H2Fault[]) {
  const server = http2.createSecureServer({ cert, key });
  const sockets = new Set<TLSSocket>();
  let connections = 0;
  let requests = 0;
  server.on('secureConnection', (sock: TLSSocket) => {
    connections++;
    sockets.add(sock);
    sock.on('close', () => sockets.delete(sock));
  });
  server.on('sessionError', () => undefined);
  server.on('stream', (stream) => {
    stream.on('error', () => undefined);
    requests++;
    const fault = faults.shift();
    const full = JSON.stringify(cmList(['a']));
    const cut = () => {
      const port = stream.session?.socket.remotePort;
      for (const s of sockets) if (s.remotePort === port) s.destroy();
    };
    const halfBody = () => {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.write(full.slice(0, 20));
    };
    if (fault === 'cut') cut();
    else if (fault === 'reset') stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    else if (fault === 'goaway-refused') {
      // The last stream processed is 0: this one was not, and the client must send it again elsewhere.
      stream.session?.goaway(http2.constants.NGHTTP2_NO_ERROR, 0);
      stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    } else if (fault === 'cut-mid-body') {
      halfBody();
      setTimeout(cut, 20);
    } else if (fault === 'reset-mid-body') {
      // close() would end the stream first and reset it after; destroy() resets it where it stands.
      halfBody();
      setTimeout(() => stream.destroy(new Error('handler failed')), 20);
    } else if (fault === 'goaway-mid-body') {
      // A GOAWAY with an error code ends the session at once, this stream with it.
      halfBody();
      setTimeout(() => stream.session?.destroy(undefined, http2.constants.NGHTTP2_INTERNAL_ERROR), 20);
    } else {
      stream.respond({ ':status': 200, 'content-type': 'application/json' });
      stream.end(full);
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    connections: () => connections,
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe('over HTTP/2, a request whose stream or connection fails before the answer is complete is sent again', () => {
  it.each<[H2Fault, number]>([
    ['cut', 2],
    ['cut-mid-body', 2],
    ['reset', 1],
    ['reset-mid-body', 1],
    ['goaway-refused', 2],
    ['goaway-mid-body', 2],
  ])('%s: the retry gets the whole answer (on %i connection(s))', async (fault, connections) => {
    const srv = await faultyH2Server([fault]);
    const gw = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 5000, backoffMs: 5 });
    try {
      const list = await gw.list(CM, { namespace: 'shop' });
      expect(list.items.map((i) => i.metadata.name)).toEqual(['a']);
      expect(srv.requests()).toBe(2);
      expect(srv.connections()).toBe(connections);
      expect(gw.stats()).toEqual({ requests: 2, retries: 1 });
    } finally {
      gw.close();
      await srv.close();
    }
  });

  it('a request that is never answered whole fails after the retries, naming the connection failure (not "HTTP error (0)")', async () => {
    const srv = await faultyH2Server(['cut', 'cut', 'cut', 'cut', 'cut']);
    const gw = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 5000, backoffMs: 5 });
    try {
      const err = await gw.list(CM, { namespace: 'shop' }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(/^listing configmaps in namespace shop: request to https:\/\/127\.0\.0\.1:\d+ failed: /);
      expect(err?.message).not.toMatch(/HTTP error/);
      expect(srv.requests()).toBe(5);
    } finally {
      gw.close();
      await srv.close();
    }
  });
});

/** A TCP relay in front of `target` whose connections can be frozen: bytes stop flowing both ways, nothing is closed. */
async function freezableRelay(target: string) {
  const { port: targetPort } = new URL(target);
  const pairs: { frozen: boolean }[] = [];
  const relay = net.createServer((client) => {
    const pair = { frozen: false };
    pairs.push(pair);
    const upstream = net.connect(Number(targetPort), '127.0.0.1');
    client.on('data', (b) => void (pair.frozen || upstream.write(b)));
    upstream.on('data', (b) => void (pair.frozen || client.write(b)));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
    client.on('error', end);
    upstream.on('error', end);
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  return {
    url: `https://127.0.0.1:${(relay.address() as AddressInfo).port}`,
    connections: () => pairs.length,
    /** The network drops every connection made so far, silently (new ones get through). */
    freeze: () => pairs.forEach((p) => (p.frozen = true)),
    close: () =>
      new Promise<void>((r) => {
        (relay as { closeAllConnections?: () => void }).closeAllConnections?.();
        relay.close(() => r());
      }),
  };
}

describe('over HTTP/2, a connection that goes silent under a request', () => {
  it('is found out by an unanswered PING and the request is sent again on a new one (no --request-timeout needed)', async () => {
    let held = 0;
    const srv = await tlsServer('h2', (req) =>
      req.path.includes('/hold') && held++ === 0
        ? { status: 200, body: cmList(['late']), delayMs: 60_000 }
        : { status: 200, body: { kind: 'ConfigMap', metadata: { name: 'hold' } } },
    );
    const relay = await freezableRelay(srv.url);
    const gw = await createClientGateway({ connection: connection(relay.url), requestTimeoutMs: 0, backoffMs: 5, ping: { everyMs: 200, timeoutMs: 1000 } });
    try {
      const started = Date.now();
      const pending = gw.get(CM, 'shop', 'hold');
      await new Promise((r) => setTimeout(r, 300));
      relay.freeze();
      const obj = await pending;
      expect(obj?.metadata.name).toBe('hold');
      expect(relay.connections()).toBe(2);
      expect(gw.stats()).toEqual({ requests: 2, retries: 1 });
      // Found out by the check (a PING within 200 ms, 1 s for its answer), not by the server's 60 s.
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      gw.close();
      await relay.close();
      await srv.close();
    }
  });

  it('is left alone while it answers PINGs, however long the server takes to answer', async () => {
    // The PINGs' bound is 1 s (a PING every 100 ms, a dozen during the answer): a busy machine may stall this process
    // for some hundred milliseconds, which is not the connection's fault.
    const srv = await tlsServer('h2', () => ({ status: 200, body: { kind: 'ConfigMap', metadata: { name: 'slow' } }, delayMs: 1500 }));
    const gw = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 0, backoffMs: 5, ping: { everyMs: 100, timeoutMs: 1000 } });
    try {
      expect((await gw.get(CM, 'shop', 'slow'))?.metadata.name).toBe('slow');
      expect(srv.connections()).toBe(1);
      expect(gw.stats()).toEqual({ requests: 1, retries: 0 });
    } finally {
      gw.close();
      await srv.close();
    }
  });
});

describe('over HTTP/1.1 when the server does not offer HTTP/2', () => {
  it('falls back after the ALPN answer and still works (credentials, retries)', async () => {
    let fail = 1;
    const srv = await tlsServer('http1', () =>
      fail-- > 0 ? { status: 503, body: { kind: 'Status', message: 'busy' } } : { status: 200, body: cmList(['a']) },
    );
    const gw = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 0, backoffMs: 5 });
    const lists = await Promise.all(Array.from({ length: 5 }, () => gw.list(CM, { namespace: 'shop' })));
    expect(lists.every((l) => l.items[0]?.metadata.name === 'a')).toBe(true);
    expect(new Set(srv.seen.map((s) => s.version))).toEqual(new Set(['1.1']));
    expect(srv.seen[0]).toMatchObject({ auth: 'Bearer tok', group: 'dev, ops' });
    gw.close();
    await srv.close();
  });

  it('with http2: false, never offers HTTP/2', async () => {
    const srv = await tlsServer('h2', () => ({ status: 200, body: cmList(['a']) }));
    const gw = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 0, http2: false });
    await gw.list(CM, { namespace: 'shop' });
    expect(srv.seen.map((s) => s.version)).toEqual(['1.1']);
    gw.close();
    await srv.close();
  });
});

describe('TLS failures are cluster errors on the HTTP/2 path too', () => {
  it('an untrusted server certificate fails the handshake, naming it', async () => {
    const srv = await tlsServer('h2', () => ({ status: 200, body: {} }));
    const gw = await createClientGateway({ connection: connection(srv.url, { tls: {} }), requestTimeoutMs: 0 });
    await expect(gw.get(CM, 'shop', 'a')).rejects.toThrow(
      /TLS handshake with https:\/\/127\.0\.0\.1:\d+ failed \(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT/,
    );
    gw.close();
    await srv.close();
  });

  it('a server that is not there is unreachable', async () => {
    const gw = await createClientGateway({ connection: connection('https://127.0.0.1:1'), requestTimeoutMs: 0 });
    await expect(gw.get(CM, 'shop', 'a')).rejects.toThrow('cannot reach the API server at https://127.0.0.1:1 (ECONNREFUSED)');
    gw.close();
  });
});

describe('connection set-up is bounded, phase by phase', () => {
  /** A loopback TCP server that accepts connections and never sends a byte. */
  async function silentServer() {
    const net = await import('node:net');
    const sockets = new Set<import('node:net').Socket>();
    const server = net.createServer((s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      close: () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy();
          server.close(() => r());
        }),
    };
  }

  it.each([true, false])('a server that accepts and never answers the TLS handshake (http2: %s): the connect bound, then the request timeout', async (h2) => {
    const srv = await silentServer();
    try {
      const bounded = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 0, connectTimeoutMs: 200, http2: h2 });
      await expect(bounded.get(CM, 'shop', 'a')).rejects.toThrow(
        /the API server at https:\/\/127\.0\.0\.1:\d+ timed out in the TLS handshake: nothing within 200ms \(the 200ms bound on connecting\)/,
      );
      bounded.close();
      const shorter = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 150, connectTimeoutMs: 5000, http2: h2 });
      await expect(shorter.get(CM, 'shop', 'a')).rejects.toThrow(/timed out in the TLS handshake: nothing within 150ms \(--request-timeout\)/);
      shorter.close();
    } finally {
      await srv.close();
    }
  });

  it('a TLS server that completes the handshake but never starts HTTP/2: timed out setting up the session', async () => {
    const tls = await import('node:tls');
    const sockets = new Set<TLSSocket>();
    const server = tls.createServer({ cert, key, ALPNProtocols: ['h2'] }, (s) => {
      sockets.add(s);
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const gw = await createClientGateway({ connection: connection(url), requestTimeoutMs: 0, connectTimeoutMs: 300 });
      await expect(gw.get(CM, 'shop', 'a')).rejects.toThrow(/timed out setting up the HTTP\/2 session: nothing within 300ms/);
      gw.close();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('requests in flight are bounded: 32 streams over HTTP/2, 16 sockets over HTTP/1.1', () => {
  it.each([
    ['h2', 32, 1],
    ['http1', 16, 16],
  ] as const)('%s: 60 requests at once, at most %i answered at a time, over at most %i connections', async (kind, limit, maxConnections) => {
    let inFlight = 0;
    let most = 0;
    // Each answer is held a while, so the client's bound (not the server's speed) decides how many are open at once.
    const srv = await tlsServer(kind, () => {
      inFlight++;
      most = Math.max(most, inFlight);
      return { status: 200, body: cmList(['x']), delayMs: 150 };
    });
    const gw = await createClientGateway({ connection: connection(srv.url), requestTimeoutMs: 20_000, backoffMs: 5 });
    try {
      // The count goes down when the client has the answer (the next request may start only then).
      const lists = await Promise.all(
        Array.from({ length: 60 }, () =>
          gw.list(CM, { namespace: 'shop' }).finally(() => {
            inFlight--;
          }),
        ),
      );
      expect(lists).toHaveLength(60);
      expect(srv.seen).toHaveLength(60);
      expect(most).toBe(limit);
      expect(srv.connections()).toBeLessThanOrEqual(maxConnections);
      if (kind === 'h2') expect(srv.connections()).toBe(1);
    } finally {
      gw.close();
      await srv.close();
    }
  });
});
