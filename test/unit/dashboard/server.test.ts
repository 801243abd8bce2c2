// The dashboard server over a fixture source: the token and Host checks, the routes, read-only methods, events.
import { request } from 'node:http';
import { startDashboardServer, type DashboardEvent, type DashboardSource, type RunningServer } from '../../../src/dashboard/server.js';
import type { AppView } from '../../../src/dashboard/view.js';
import { listHtml, PAGE_JS } from '../../../src/dashboard/page.js';

const TOKEN = 'a'.repeat(48);

function fixtureSource() {
  const listeners = new Set<(ev: DashboardEvent) => void>();
  const refreshed: (string | undefined)[] = [];
  const view: AppView = {
    schemaVersion: 1,
    row: { id: 'argocd/shop', name: 'shop', namespace: 'argocd', project: 'default', labels: {}, sync: 'Synced', health: 'Healthy', destination: {} },
    svg: '<svg></svg>',
    nodes: [{ id: 'app', kind: 'Application', name: 'shop', namespace: 'argocd', depth: 0 }],
    warnings: [],
  };
  const source: DashboardSource = {
    list: () => ({ apps: [view.row], loading: false }),
    app: (id) => (id === 'argocd/shop' ? view : undefined),
    node: async (appId, nodeId) => (appId === 'argocd/shop' && nodeId === 'app' ? { node: view.nodes[0]! } : undefined),
    refresh: (id) => void refreshed.push(id),
    subscribe: (fn) => {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
  return { source, refreshed, emit: (ev: DashboardEvent) => listeners.forEach((fn) => fn(ev)) };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(port: number, path: string, opts: { host?: string; method?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { Host: opts.host ?? `127.0.0.1:${port}`, ...opts.headers } },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the page script', () => {
  it('parses, and loads nothing from elsewhere', () => {
    expect(() => new Function(PAGE_JS)).not.toThrow();
    expect(PAGE_JS).not.toMatch(/https?:\/\//);
    expect(PAGE_JS).not.toMatch(/innerHTML = (?!view\.svg)/);
  });
});

describe('dashboard server', () => {
  let server: RunningServer;
  let fx: ReturnType<typeof fixtureSource>;
  beforeEach(async () => {
    fx = fixtureSource();
    server = await startDashboardServer({ source: fx.source, address: '127.0.0.1', port: 0, token: TOKEN });
  });
  afterEach(async () => server.close());

  it('prints a loopback URL with the token', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?token=${TOKEN}`);
  });

  it('answers 403 without the token, with a wrong one, and with a foreign Host', async () => {
    for (const path of ['/', '/api/apps', '/assets/page.js', '/api/events', '/favicon.ico']) expect((await get(server.port, path)).status).toBe(403);
    expect((await get(server.port, `/api/apps?token=${'b'.repeat(48)}`)).status).toBe(403);
    const foreign = await get(server.port, `/api/apps?token=${TOKEN}`, { host: `evil.example.com:${server.port}` });
    expect(foreign.status).toBe(403);
    expect(foreign.body).not.toContain('shop');
    expect((await get(server.port, '/api/apps', { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('paints the list on the server: the first HTML already has each app with its badges, as the script draws them', async () => {
    const page = await get(server.port, `/?token=${TOKEN}`);
    expect(page.body).toContain(
      '<main id="main"><div class="filter"><span id="count">1 applications</span></div>\n<table id="apps"><thead><tr><th>Name</th><th>Namespace</th><th>Project</th><th>Sync</th><th>Health</th><th>Revision</th><th>Destination</th><th>Last sync</th><th>Reason</th></tr></thead><tbody>\n' +
        '<tr data-app="argocd/shop"><td><a href="#/app/argocd/shop">shop</a></td><td>argocd</td><td>default</td>' +
        '<td><span class="badge sync-Synced" data-sync="Synced">\u2713 Synced</span></td><td><span class="badge health-Healthy" data-health="Healthy">\u2665 Healthy</span></td>' +
        '<td class="mono"></td><td></td><td></td><td class="reason">comparing\u2026</td></tr>\n</tbody></table></main>',
    );
  });

  it("escapes every value of the server's list, and says when the first comparison is still running", () => {
    const html = listHtml({
      apps: [
        {
          id: 'ns/<b>x</b>',
          name: '<b>x</b>',
          namespace: 'ns',
          project: '"p"',
          labels: {},
          sync: 'OutOfSync',
          health: 'Degraded',
          revision: '0123456789abcdef',
          destination: { server: 'https://kubernetes.default.svc', namespace: "a'b" },
          lastSync: '2026-12-04T10:00:00Z',
          reason: 'Pod/web: <img src=x onerror=alert(1)>',
          comparedAt: '2026-12-04T10:00:01Z',
        },
      ],
      loading: true,
    });
    expect(html).not.toMatch(/<(b|img)[ >]/);
    expect(html).toContain('<span id="count">1 applications (comparing\u2026)</span>');
    expect(html).toContain(
      '<tr data-app="ns/&#60;b&#62;x&#60;/b&#62;"><td><a href="#/app/ns/%3Cb%3Ex%3C%2Fb%3E">&#60;b&#62;x&#60;/b&#62;</a></td><td>ns</td><td>&#34;p&#34;</td>' +
        '<td><span class="badge sync-OutOfSync" data-sync="OutOfSync">\u26a0 OutOfSync</span></td><td><span class="badge health-Degraded" data-health="Degraded">\u2716 Degraded</span></td>' +
        '<td class="mono">0123456</td><td>https://kubernetes.default.svc (a&#39;b)</td><td>2026-12-04 10:00:00 UTC</td><td class="reason">Pod/web: &#60;img src=x onerror=alert(1)&#62;</td></tr>',
    );
    expect(listHtml({ apps: [], loading: false })).toContain('<span id="count">0 applications</span>');
  });

  it('serves the page, its assets and the JSON API with the token, with a strict CSP and no caching', async () => {
    const page = await get(server.port, `/?token=${TOKEN}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/default-src 'none'; script-src 'self'/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).toContain(`<script src="/assets/page.js?token=${TOKEN}"></script>`);
    expect(page.body).not.toMatch(/https?:\/\//);
    const js = await get(server.port, `/assets/page.js?token=${TOKEN}`);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.body).toContain('EventSource');
    expect(JSON.parse((await get(server.port, `/api/apps?token=${TOKEN}`)).body)).toEqual({
      apps: [expect.objectContaining({ id: 'argocd/shop', sync: 'Synced' })],
      loading: false,
    });
    expect(JSON.parse((await get(server.port, `/api/apps/argocd/shop?token=${TOKEN}`)).body).row.name).toBe('shop');
    expect(JSON.parse((await get(server.port, `/api/apps/argocd/shop/nodes/app?token=${TOKEN}`)).body).node.kind).toBe('Application');
    expect((await get(server.port, `/api/apps/argocd/nope?token=${TOKEN}`)).status).toBe(404);
    expect((await get(server.port, `/api/apps/argocd/shop/nodes/n99?token=${TOKEN}`)).status).toBe(404);
  });

  it('is read-only: PUT and DELETE are refused, POST only asks for a new comparison', async () => {
    expect((await get(server.port, `/api/apps/argocd/shop?token=${TOKEN}`, { method: 'DELETE' })).status).toBe(405);
    expect((await get(server.port, `/api/apps/argocd/shop?token=${TOKEN}`, { method: 'PUT' })).status).toBe(405);
    expect((await get(server.port, `/api/apps/argocd/shop/refresh?token=${TOKEN}`, { method: 'POST' })).status).toBe(202);
    expect((await get(server.port, `/api/refresh?token=${TOKEN}`, { method: 'POST' })).status).toBe(202);
    expect((await get(server.port, `/api/refresh`, { method: 'POST' })).status).toBe(403);
    expect(fx.refreshed).toEqual(['argocd/shop', undefined]);
  });

  it("streams the source's events as Server-Sent Events", async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: server.port, path: `/api/events?token=${TOKEN}`, headers: { Host: `127.0.0.1:${server.port}` } },
        (res) => {
          expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
          let text = '';
          res.on('data', (c: Buffer) => {
            text += c.toString();
            if (text.includes(': connected')) fx.emit({ type: 'app', id: 'argocd/shop' });
            if (text.includes('event: app\n')) {
              req.destroy();
              resolve(text);
            }
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(received).toContain('event: app\ndata: {"type":"app","id":"argocd/shop"}\n\n');
  });
});
