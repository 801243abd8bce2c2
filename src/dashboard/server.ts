// The dashboard's HTTP server: the page, its assets, a JSON API and Server-Sent Events, all behind the per-run token and
// the Host check (guard.ts). Read-only: the only POST asks for a new comparison, which changes nothing in a cluster.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppRow, AppView, NodeView } from './view.js';
import { hostAllowed, requestToken, tokenMatches } from './guard.js';
import { listHtml, PAGE_CSS, PAGE_JS, pageHtml } from './page.js';

/** A change the page should fetch again: the list, or one app. */
export type DashboardEvent = { type: 'apps' } | { type: 'app'; id: string };

export interface NodeDetail {
  node: NodeView;
  /** The live object, normalized, Secret values masked; absent for the Application node or a missing object. */
  yaml?: string;
  error?: string;
}

/** What the server serves; the workflow (workflows/dashboard.ts) implements it over the cluster, tests and the bench over fixtures. */
export interface DashboardSource {
  list(): { apps: AppRow[]; loading: boolean };
  app(id: string): AppView | undefined;
  node(appId: string, nodeId: string): Promise<NodeDetail | undefined>;
  /** Asks for a new comparison of one app, or of all. */
  refresh(appId?: string): void;
  subscribe(fn: (ev: DashboardEvent) => void): () => void;
}

export interface ServerOptions {
  source: DashboardSource;
  address: string;
  /** 0 for a free port. */
  port: number;
  token: string;
}

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const SECURITY_HEADERS: Record<string, string> = {
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

function send(res: ServerResponse, status: number, type: string, body: string, method = 'GET'): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  res.end(method === 'HEAD' ? undefined : body);
}

function json(res: ServerResponse, status: number, doc: unknown, method?: string): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(doc), method);
}

/** `/api/apps/<ns>/<name>[/nodes/<id>|/refresh]`, decoded. */
function appPath(path: string): { id: string; rest: string[] } | undefined {
  const parts = path.split('/').slice(3);
  if (parts.length < 2) return undefined;
  try {
    const [ns, name, ...rest] = parts.map((p) => decodeURIComponent(p));
    return { id: `${ns}/${name}`, rest };
  } catch {
    return undefined;
  }
}

/** Starts serving; resolves once listening. */
export async function startDashboardServer(opts: ServerOptions): Promise<RunningServer> {
  const { source, token } = opts;
  const streams = new Set<ServerResponse>();
  let port = opts.port;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    if (!hostAllowed(req.headers.host, port, opts.address)) return json(res, 403, { error: 'forbidden: this Host is not the one served (DNS rebinding)' });
    const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
    if (!tokenMatches(requestToken(url, req.headers.authorization), token))
      return json(res, 403, { error: 'forbidden: the token is missing or wrong (use the URL the command printed)' });
    const path = url.pathname;
    if (method === 'POST') {
      if (path === '/api/refresh') {
        source.refresh();
        return json(res, 202, { refreshing: 'all' });
      }
      const a = path.startsWith('/api/apps/') ? appPath(path) : undefined;
      if (a && a.rest.length === 1 && a.rest[0] === 'refresh' && source.app(a.id)) {
        source.refresh(a.id);
        return json(res, 202, { refreshing: a.id });
      }
      return json(res, 404, { error: 'not found' });
    }
    if (method !== 'GET' && method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD, POST');
      return json(res, 405, { error: 'read-only: GET, or POST to refresh' });
    }
    // The first paint is the list, rendered here (an app's page is chosen by the URL's fragment, which no server sees).
    if (path === '/' || path === '/index.html') return send(res, 200, 'text/html; charset=utf-8', pageHtml(token, listHtml(source.list())), method);
    if (path === '/assets/page.js') return send(res, 200, 'text/javascript; charset=utf-8', PAGE_JS, method);
    if (path === '/assets/page.css') return send(res, 200, 'text/css; charset=utf-8', PAGE_CSS, method);
    if (path === '/api/apps') return json(res, 200, source.list(), method);
    if (path === '/api/events') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
      res.write(': connected\n\n');
      streams.add(res);
      req.on('close', () => streams.delete(res));
      return;
    }
    if (path.startsWith('/api/apps/')) {
      const a = appPath(path);
      const view = a ? source.app(a.id) : undefined;
      if (!a || !view) return json(res, 404, { error: 'no such Application in this dashboard' });
      if (a.rest.length === 0) return json(res, 200, view, method);
      if (a.rest.length === 2 && a.rest[0] === 'nodes') {
        const detail = await source.node(a.id, a.rest[1]!);
        return detail ? json(res, 200, detail, method) : json(res, 404, { error: 'no such node' });
      }
    }
    return json(res, 404, { error: 'not found' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: (err as Error).message });
      else res.end();
    });
  });
  const unsubscribe = source.subscribe((ev) => {
    const line = `event: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`;
    for (const s of streams) s.write(line);
  });
  // A comment now and then keeps idle proxies and the browser from closing the stream.
  const heartbeat = setInterval(() => {
    for (const s of streams) s.write(': ping\n\n');
  }, 15_000);
  heartbeat.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.address, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const host = opts.address.includes(':') ? `[${opts.address}]` : opts.address;
  return {
    url: `http://${host}:${port}/?token=${token}`,
    port,
    close: async () => {
      unsubscribe();
      clearInterval(heartbeat);
      for (const s of streams) s.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
