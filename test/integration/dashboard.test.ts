// `kubectl gitops dashboard` served by the built binary on the local control plane, looked at in Debian's headless
// Chromium: the list's badges, the live map (Deployment → ReplicaSet → Pod), the scheduler's reason, hand drift turning a
// node OutOfSync without a reload with its field owners, a new commit showing up (on --interval, or at once on a refresh asked through the annotation; `hard` renders the source again), the 403s, and no Secret value anywhere.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';
import type { Page } from 'playwright-core';
import { GitFixture } from '../support/git-source.js';
import { launchChromium, SCREENSHOTS, type Browser } from './support/browser.js';
import { applyYaml, childEnv, clusterBin, createTestNamespace, deleteNamespace, kubectlOk, pluginPath, runPlugin, waitFor } from './support/index.js';
import { applicationYaml, inCluster } from '../support/application.js';

const TIMEOUT = 180_000;
const SECRET_VALUE = 'hunter2-never-shown-7f3a';
const SECRET_B64 = Buffer.from(SECRET_VALUE).toString('base64');
/** What a hand edit puts into the Secret: no more shown than the declared value. */
const HAND_VALUE = 'by-hand-also-never-shown-91c2';
const HAND_B64 = Buffer.from(HAND_VALUE).toString('base64');
const SCHEDULER = /0\/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector/;

function deployment(name: string, nodeSelector = ''): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:${nodeSelector ? `\n      nodeSelector: ${nodeSelector}` : ''}
      containers: [{name: ${name}, image: registry.local/${name}:1.0.0}]
`;
}

interface Reply {
  status: number;
  body: string;
}

/** The URL a started dashboard prints (`Dashboard: URL`); rejects, with what it wrote on stderr, when it exits first. */
function printedUrl(child: ChildProcess, stderr: () => string = () => ''): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /^Dashboard: (\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited ${code}: ${stderr()}`)));
  });
}

/** A raw request, so the Host header can be anything. */
function raw(base: URL, path: string, host = base.host): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, path, headers: { Host: host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A row of the dashboard's /api/apps, as the refresh tests read it. */
interface ApiRow {
  name: string;
  sync: string;
  revision?: string;
  comparedAt?: string;
}

/** A dashboard of one app of its own, whose --interval never comes round during a test: the app's row, and its stop. */
async function ownDashboard(app: string, ns: string, env: Record<string, string> = {}) {
  const child = spawn(pluginPath, ['dashboard', app, '--app-namespace', ns, '--interval', '1h'], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  try {
    const own = new URL(await printedUrl(child));
    const row = async () => {
      const reply = await raw(own, `/api/apps?token=${own.searchParams.get('token') ?? ''}`);
      return (JSON.parse(reply.body) as { apps: ApiRow[] }).apps.find((a) => a.name === app);
    };
    return { row, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

describe('kubectl gitops dashboard in a browser', () => {
  let fx: GitFixture;
  let ns = '';
  let dashboard: ChildProcess | undefined;
  let stderr = '';
  let url: URL;
  let token = '';
  let browser: Browser | undefined;
  let page: Page;

  const api = async (path: string): Promise<Reply> => raw(url, `${path}${path.includes('?') ? '&' : '?'}token=${token}`);
  const appUrl = (app: string) => `${url.origin}/?token=${token}#/app/${ns}/${app}`;
  /** Each text piece of a table cell (between its <wbr>s) with the number of lines it is drawn on, and the cell's lines. */
  const segmentLines = (cellLocator: ReturnType<Page['locator']>) =>
    cellLocator.evaluate((cell) => {
      // The page's DOM, typed here (the tests compile without the DOM library).
      interface DomNode {
        nodeType: number;
        textContent: string | null;
        childNodes: ArrayLike<DomNode>;
      }
      const doc = (
        globalThis as unknown as {
          document: { createRange(): { selectNodeContents(n: DomNode): void; getClientRects(): ArrayLike<{ width: number; top: number }> } };
        }
      ).document;
      const segments = Array.from((cell as unknown as DomNode).childNodes).filter((n) => n.nodeType === 3);
      const tops = segments.map((n) => {
        const range = doc.createRange();
        range.selectNodeContents(n);
        const rects = Array.from(range.getClientRects()).filter((r) => r.width > 0);
        return { text: n.textContent, lines: new Set(rects.map((r) => Math.round(r.top))).size, top: Math.round(rects[0]?.top ?? -1) };
      });
      return { segments: tops.map((t) => `${t.text}:${t.lines}`), rows: new Set(tops.map((t) => t.top)).size };
    });

  beforeAll(async () => {
    fx = new GitFixture();
    fx.write('apps/shop/web.yaml', deployment('web'));
    fx.write('apps/shop/settings.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n');
    fx.write('apps/shop/creds.yaml', `apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {password: ${SECRET_VALUE}}\n`);
    fx.write('apps/broken/broken.yaml', deployment('broken', '{disktype: nvme}'));
    fx.commit('v1');
    ns = await createTestNamespace('dashboard');
    for (const app of ['shop', 'broken']) {
      await applyYaml(
        applicationYaml({
          name: app,
          namespace: ns,
          labels: { team: app === 'shop' ? 'web' : 'infra' },
          spec: { source: { repoURL: fx.repo, path: `apps/${app}`, targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      const res = await runPlugin(['sync', app, '--app-namespace', ns]);
      if (res.code !== 0) throw new Error(`sync ${app} exited ${res.code}: ${res.stderr}`);
    }
    const child = spawn(pluginPath, ['dashboard', '--app-namespace', ns, '--interval', '5s'], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    dashboard = child;
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    url = new URL(await printedUrl(child, () => stderr));
    token = url.searchParams.get('token') ?? '';
    browser = await launchChromium();
    page = await browser.context.newPage();
  }, TIMEOUT);

  afterAll(async () => {
    await browser?.close();
    if (dashboard && dashboard.exitCode === null) {
      const exited = new Promise((resolve) => dashboard!.once('exit', resolve));
      dashboard.kill('SIGTERM');
      await exited;
    }
    fx?.cleanup();
    if (ns) await deleteNamespace(ns);
  }, 60_000);

  it('prints a loopback URL with a long random token', () => {
    expect(url.hostname).toBe('127.0.0.1');
    expect(token).toMatch(/^[0-9a-f]{48}$/);
    expect(stderr).not.toMatch(/warning/);
  });

  it(
    'lists both apps with their sync and health badges, revision and destination',
    async () => {
      await page.goto(`${url.origin}/?token=${token}`);
      const row = (app: string) => page.locator(`tr[data-app="${ns}/${app}"]`);
      // The pods start on kwok nodes after the sync: the list turns Healthy live.
      await row('shop').locator('[data-health="Healthy"]').waitFor({ timeout: 90_000 });
      await row('shop').locator('[data-sync="Synced"]').waitFor();
      await row('broken').locator('[data-health="Progressing"]').waitFor({ timeout: 60_000 });
      await row('broken').locator('[data-sync="Synced"]').waitFor();
      expect(await row('shop').locator('[data-health]').textContent()).toBe('♥ Healthy');
      expect(await row('shop').textContent()).toContain(`https://kubernetes.default.svc (${ns})`);
      expect(await row('shop').locator('td.mono').textContent()).toMatch(/^[0-9a-f]{7}$/);
      await page.fill('#filter', 'team=infra');
      expect(await page.locator('tbody tr').count()).toBe(1);
      expect(await page.locator('tbody tr').getAttribute('data-app')).toBe(`${ns}/broken`);
      await page.fill('#filter', '');
      await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-list.png'), fullPage: true });
    },
    TIMEOUT,
  );

  it(
    'paints the list on the server: a browser without JavaScript shows both apps with their badges',
    async () => {
      // Once both are compared (the list test above waited for that), the first HTML holds their verdicts.
      const plain = await launchChromium({ scripts: false });
      try {
        const still = await plain.context.newPage();
        await still.goto(`${url.origin}/?token=${token}`);
        const rows = await still.$$eval('#apps tbody tr', (trs) =>
          trs.map((tr) => [tr.getAttribute('data-app'), tr.querySelector('[data-sync]')?.textContent, tr.querySelector('[data-health]')?.textContent]),
        );
        expect(rows.sort()).toEqual([
          [`${ns}/broken`, '✓ Synced', '◌ Progressing'],
          [`${ns}/shop`, '✓ Synced', '♥ Healthy'],
        ]);
        await still.screenshot({ path: join(SCREENSHOTS, 'dashboard-first-paint.png'), fullPage: true });
      } finally {
        await plain.close();
      }
    },
    TIMEOUT,
  );

  it(
    'zooms the map (buttons and fit to the box) and keeps the zoom while the app is redrawn',
    async () => {
      await page.goto(appUrl('shop'));
      await page.locator('#map svg g.node').first().waitFor();
      const size = () =>
        page.$eval('#map svg', (svg) => [Number(svg.getAttribute('width')), Number(svg.getAttribute('height')), Number(svg.getAttribute('data-width'))]);
      const [w0, , natural] = await size();
      expect(w0).toBe(natural);
      await page.click('#zoom-in');
      expect((await size())[0]).toBe(Math.round(natural! * 1.25));
      expect(await page.textContent('#zoom-level')).toBe('125%');
      await page.click('#zoom-out');
      await page.click('#zoom-out');
      expect((await size())[0]).toBe(Math.round(natural! * 0.8));
      await page.click('#zoom-fit');
      const box = await page.$eval('#map', (m) => [m.clientWidth, m.clientHeight]);
      const [wf, hf] = await size();
      expect(wf).toBeLessThanOrEqual(box[0]!);
      expect(hf).toBeLessThanOrEqual(Math.max(200, box[1]!));
      await page.click('#zoom-reset');
      expect((await size())[0]).toBe(natural);
    },
    TIMEOUT,
  );

  it(
    'draws the app as Application → Deployment → ReplicaSet → Pod, each with its health',
    async () => {
      await page.goto(appUrl('shop'));
      await page.locator('#map g.node.health-healthy[data-node]').first().waitFor();
      const nodes = await page.$$eval('#map g.node', (gs) =>
        gs.map((g) => ({ id: g.getAttribute('data-node'), cls: g.getAttribute('class'), title: g.querySelector('title')?.textContent ?? '' })),
      );
      const find = (re: RegExp) => nodes.find((n) => re.test(n.title.split('\n')[0]!));
      expect(find(/^Application\/shop$/)?.cls).toContain('health-healthy');
      expect(find(/^Deployment\/web$/)?.cls).toBe('node health-healthy sync-synced');
      expect(find(/^ReplicaSet\/web-[a-z0-9]+$/)?.cls).toBe('node health-healthy');
      expect(find(/^Pod\/web-[a-z0-9]+-[a-z0-9]+$/)?.cls).toBe('node health-healthy');
      expect(find(/^ConfigMap\/settings$/)?.title).toContain('Synced');
      expect(find(/^Secret\/creds$/)).toBeDefined();
      // The edges: the page's data names each node's parent.
      const view = JSON.parse((await api(`/api/apps/${ns}/shop`)).body) as { nodes: { id: string; kind: string; parent?: string }[] };
      const byKind = (k: string) => view.nodes.find((n) => n.kind === k)!;
      expect(byKind('Pod').parent).toBe(byKind('ReplicaSet').id);
      expect(byKind('ReplicaSet').parent).toBe(byKind('Deployment').id);
      expect(byKind('Deployment').parent).toBe('app');
      // Left to right: each level in a column further right.
      const x = async (title: RegExp) => {
        const id = find(title)!.id!;
        return (await page.locator(`#map g.node[data-node="${id}"] rect`).first().getAttribute('x')) ?? '';
      };
      expect(Number(await x(/^ReplicaSet\//))).toBeGreaterThan(Number(await x(/^Deployment\//)));
      expect(Number(await x(/^Pod\//))).toBeGreaterThan(Number(await x(/^ReplicaSet\//)));
      await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-app.png'), fullPage: true });
    },
    TIMEOUT,
  );

  it(
    "shows a Deployment no node accepts as Progressing, with the scheduler's reason",
    async () => {
      await page.goto(appUrl('broken'));
      const reason = page.locator('#reason');
      await reason.waitFor();
      expect(await reason.textContent()).toMatch(SCHEDULER);
      expect(await reason.textContent()).toMatch(/^Reason: Pod\/broken-[a-z0-9]+-[a-z0-9]+: Unschedulable/);
      const worst = await page.$$eval('#map g.node.worst title', (ts) => ts.map((t) => t.textContent?.split('\n')[0]));
      expect(worst).toEqual(expect.arrayContaining(['Application/broken', 'Deployment/broken']));
      expect(worst.some((t) => /^Pod\/broken-/.test(t ?? ''))).toBe(true);
      await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-broken.png'), fullPage: true });
    },
    TIMEOUT,
  );

  it(
    'turns the node OutOfSync live after kubectl set image and kubectl scale, naming the owners in its field table',
    async () => {
      await page.goto(appUrl('shop'));
      const deploymentNode = page.locator('#map g.node[data-node]', { has: page.locator('title', { hasText: /^Deployment\/web\n/ }) });
      await deploymentNode.waitFor();
      expect(await deploymentNode.getAttribute('class')).toContain('sync-synced');
      await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
      const started = Date.now();
      await kubectlOk(['set', 'image', 'deployment/web', '-n', ns, 'web=registry.local/web:1.0.1']);
      await page.locator('#map g.node.sync-outofsync', { has: page.locator('title', { hasText: /^Deployment\/web\n/ }) }).waitFor({ timeout: 20_000 });
      const seconds = (Date.now() - started) / 1000;
      expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect(await page.locator('[data-sync]').first().getAttribute('data-sync')).toBe('OutOfSync');
      await page.locator('#map g.node', { has: page.locator('title', { hasText: /^Deployment\/web\n/ }) }).click();
      const image = page.locator('#fields tr', { hasText: 'spec.template.spec.containers[name=web].image' });
      await image.waitFor();
      expect(await image.locator('td').allTextContents()).toEqual([
        'spec.template.spec.containers[name=web].image',
        '"registry.local/web:1.0.0"',
        '"registry.local/web:1.0.1"',
        expect.stringMatching(/^kubectl-set \(Update, \d+s\)$/),
        expect.stringMatching(/^(drift|conflict)$/),
      ]);
      // In a narrow window the path wraps at its boundaries only: every segment stays on one line, the cell on several.
      await page.setViewportSize({ width: 1000, height: 1000 });
      const path = await segmentLines(image.locator('td.path'));
      expect(path.segments).toEqual(['spec.:1', 'template.:1', 'spec.:1', 'containers:1', '[name=web].:1', 'image:1']);
      expect(path.rows).toBeGreaterThan(1);
      // The values wrap at their own boundaries (after . / : , - =), each piece on one line.
      expect((await segmentLines(image.locator('td.value').first())).segments).toEqual(['"registry.:1', 'local/:1', 'web::1', '1.:1', '0.:1', '0":1']);
      await page.setViewportSize({ width: 1600, height: 1000 });
      await kubectlOk(['scale', 'deployment/web', '-n', ns, '--replicas=2']);
      // The open details follow the live update too.
      const replicas = page.locator('#fields tr', { hasText: 'spec.replicas' });
      await replicas.waitFor({ timeout: 20_000 });
      expect(await replicas.locator('td.owners').textContent()).toMatch(/^kubectl(-scale)? \(Update\/scale/);
      expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
      await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-drift.png'), fullPage: true });
      expect(seconds).toBeLessThan(20);
    },
    TIMEOUT,
  );

  it(
    'never shows a Secret value: not in the page, its YAML, its field table or any API response',
    async () => {
      await page.goto(appUrl('shop'));
      await kubectlOk(['patch', 'secret', 'creds', '-n', ns, '--type', 'merge', '-p', JSON.stringify({ data: { password: HAND_B64 } })]);
      const secretNode = page.locator('#map g.node.sync-outofsync', { has: page.locator('title', { hasText: /^Secret\/creds\n/ }) });
      await secretNode.waitFor({ timeout: 20_000 });
      await secretNode.click();
      await page.locator('#yaml', { hasText: 'kind: Secret' }).waitFor();
      expect(await page.locator('#yaml').textContent()).toMatch(/password: "?\+{8,}"?/);
      // The drifted field is there, its two values as different masks.
      const row = page.locator('#fields tr', { hasText: 'data.password' });
      await row.waitFor();
      const cells = await row.locator('td').allTextContents();
      expect(cells[1]).toMatch(/^"\+{8,}"$/);
      expect(cells[2]).toMatch(/^"\+{8,}"$/);
      expect(cells[1]).not.toBe(cells[2]);
      const bodies = [await page.content(), (await api('/api/apps')).body, (await api(`/api/apps/${ns}/shop`)).body];
      const view = JSON.parse(bodies[2]!) as { nodes: { id: string }[] };
      for (const n of view.nodes) bodies.push((await api(`/api/apps/${ns}/shop/nodes/${n.id}`)).body);
      expect(bodies.length).toBeGreaterThan(6);
      for (const b of bodies) {
        for (const value of [SECRET_VALUE, SECRET_B64, HAND_VALUE, HAND_B64]) expect(b).not.toContain(value);
      }
    },
    TIMEOUT,
  );

  it(
    'answers 403 without the token, with a wrong one, and to a foreign Host header',
    async () => {
      for (const path of ['/', '/api/apps', `/api/apps/${ns}/shop`, '/api/events']) {
        const res = await raw(url, path);
        expect([path, res.status]).toEqual([path, 403]);
        expect(res.body).not.toContain('shop');
      }
      expect((await raw(url, `/api/apps?token=${'0'.repeat(48)}`)).status).toBe(403);
      const rebinding = await raw(url, `/api/apps?token=${token}`, `attacker.example:${url.port}`);
      expect(rebinding.status).toBe(403);
      expect(rebinding.body).not.toContain(ns);
      expect((await raw(url, `/api/apps?token=${token}`, `localhost:${url.port}`)).status).toBe(200);
      // In the browser too: the page without its token is refused.
      const res = await page.goto(`${url.origin}/`);
      expect(res?.status()).toBe(403);
    },
    TIMEOUT,
  );

  it(
    'warns when told to listen beyond loopback, and stops cleanly on SIGTERM',
    async () => {
      const child = spawn(pluginPath, ['dashboard', '--app-namespace', ns, '--address', '0.0.0.0'], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (/^Dashboard: /m.test(out)) resolve();
        });
        void exited.then((code) => reject(new Error(`exited ${code}: ${err}`)));
      });
      expect(out).toMatch(/^Dashboard: http:\/\/0\.0\.0\.0:\d+\/\?token=[0-9a-f]{48}\n$/);
      expect(err).toMatch(/^warning: listening on 0\.0\.0\.0, not loopback: other machines can reach this dashboard/m);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    },
    TIMEOUT,
  );

  it(
    'shows only the apps named, says which one does not exist, and --open hands the URL to xdg-open',
    async () => {
      const bin = tempDir('dashboard-open');
      const opened = join(bin, 'opened');
      writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`);
      chmodSync(join(bin, 'xdg-open'), 0o755);
      const env = childEnv();
      const child = spawn(pluginPath, ['dashboard', 'shop', 'nope', '--app-namespace', ns, '--open'], {
        env: { ...env, PATH: `${bin}:${env.PATH ?? ''}` },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const printed = await printedUrl(child, () => err);
        const own = new URL(printed);
        expect(await waitFor(() => existsSync(opened) && readFileSync(opened, 'utf8'), { what: 'xdg-open called', timeoutMs: 10_000 })).toBe(printed);
        const list = JSON.parse((await raw(own, `/api/apps?token=${own.searchParams.get('token') ?? ''}`)).body) as { apps: { id: string; error?: string }[] };
        expect(list.apps.map((a) => a.id).sort()).toEqual([`${ns}/nope`, `${ns}/shop`]);
        expect(list.apps.find((a) => a.id === `${ns}/nope`)?.error).toBe(`Application nope not found in namespace ${ns}`);
        expect(own.searchParams.get('token')).not.toBe(token);
      } finally {
        child.kill('SIGTERM');
        await exited;
      }
    },
    TIMEOUT,
  );

  it(
    "is read-only: a refresh compares again and writes nothing, not even the Application's status",
    async () => {
      const rv = async () =>
        (JSON.parse(await kubectlOk(['get', 'application', 'shop', '-n', ns, '-o', 'json'])) as { metadata: { resourceVersion: string } }).metadata
          .resourceVersion;
      const before = await rv();
      const comparedAt = async () => (JSON.parse((await api(`/api/apps/${ns}/shop`)).body) as { row: { comparedAt: string } }).row.comparedAt;
      const first = await comparedAt();
      const post = await new Promise<number>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, method: 'POST', path: `/api/apps/${ns}/shop/refresh?token=${token}` }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(post).toBe(202);
      await waitFor(async () => (await comparedAt()) !== first, { what: 'a new comparison', timeoutMs: 30_000 });
      expect(await rv()).toBe(before);
    },
    TIMEOUT,
  );

  it(
    "draws a child Application (app-of-apps) on its parent's map with the child's own health, linking to the child's page",
    async () => {
      fx.write('apps/leaf/leaf.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: leaf}\ndata: {a: b}\n');
      const app = (name: string) =>
        applicationYaml({
          name,
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: `apps/${name}`, targetRevision: 'main' }, destination: inCluster(ns) },
        });
      fx.write('apps/root/leaf-app.yaml', app('leaf'));
      fx.commit('app of apps');
      await applyYaml(app('root'));
      const synced = await runPlugin(['sync', 'root', '--recursive', '--app-namespace', ns]);
      expect(synced.code).toBe(0);
      // The dashboard compares the new leaf as soon as its Application appears, maybe before the recursive sync applied
      // its ConfigMap (then OutOfSync, yet Healthy: a ConfigMap has no health), and again from its watch: wait for that.
      const leafSync = async () => {
        const r = await api(`/api/apps/${ns}/leaf`);
        return r.status === 200 ? (JSON.parse(r.body) as { row?: { sync?: string } }).row?.sync : undefined;
      };
      await waitFor(async () => (await leafSync()) === 'Synced', { what: 'the leaf compared after its sync', timeoutMs: 30_000 });
      await page.goto(appUrl('root'));
      const leaf = (cls = '') => page.locator(`#map g.node${cls}[data-node]`, { has: page.locator('title', { hasText: /^Application\/leaf\n/ }) });
      // The leaf's own health, from its own comparison (Argo CD has no health check for Applications).
      await leaf('.health-healthy').waitFor({ timeout: 30_000 });
      await leaf().click();
      await page.locator('#child-app [data-health="Healthy"]').waitFor();
      expect(await page.locator('#child-app [data-sync]').getAttribute('data-sync')).toBe('Synced');
      await page.locator('#child-link').click();
      await page.locator('#app-name', { hasText: `${ns}/leaf` }).waitFor();
      expect(page.url()).toContain(`#/app/${ns}/leaf`);
    },
    TIMEOUT,
  );

  it(
    'lists an Application created while it runs, compared, and drops it when deleted, without a reload',
    async () => {
      fx.write('apps/late/late.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late}\ndata: {a: b}\n');
      fx.commit('late');
      await page.goto(`${url.origin}/?token=${token}`);
      await page.locator(`tr[data-app="${ns}/shop"]`).waitFor();
      await page.evaluate(() => ((globalThis as unknown as { notReloaded: boolean }).notReloaded = true));
      await applyYaml(
        applicationYaml({
          name: 'late',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'apps/late', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      // Never synced: its ConfigMap is missing, so it is OutOfSync; Healthy, as Argo CD's setApplicationHealth leaves a
      // missing ConfigMap (a kind without a health check) out of the app's health.
      await page.locator(`tr[data-app="${ns}/late"] [data-sync="OutOfSync"]`).waitFor({ timeout: 20_000 });
      expect(await page.locator(`tr[data-app="${ns}/late"] [data-health]`).getAttribute('data-health')).toBe('Healthy');
      await kubectlOk(['delete', 'application', 'late', '-n', ns]);
      await page.locator(`tr[data-app="${ns}/late"]`).waitFor({ state: 'detached', timeout: 20_000 });
      expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    },
    TIMEOUT,
  );

  it(
    'compares an app again at once when a refresh is asked through its annotation, not only on --interval',
    async () => {
      fx.write('apps/fresh/a.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fresh-a}\ndata: {a: b}\n');
      fx.commit('fresh');
      await applyYaml(
        applicationYaml({
          name: 'fresh',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'apps/fresh', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      expect((await runPlugin(['sync', 'fresh', '--app-namespace', ns])).code).toBe(0);
      // A dashboard of its own for this app, whose interval never comes round during the test.
      const { row, stop } = await ownDashboard('fresh', ns);
      try {
        await waitFor(async () => (await row())?.sync === 'Synced', { timeoutMs: 30_000, what: 'fresh compared, Synced' });
        // A new commit: not seen before the hour is up, unless a refresh is asked.
        fx.write('apps/fresh/b.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fresh-b}\ndata: {a: b}\n');
        const head = fx.commit('fresh b');
        await new Promise((r) => setTimeout(r, 2_000));
        expect(await row()).toMatchObject({ sync: 'Synced' });
        await kubectlOk(['annotate', 'application', 'fresh', '-n', ns, 'argocd.argoproj.io/refresh=normal']);
        await waitFor(async () => (await row())?.sync === 'OutOfSync', { timeoutMs: 20_000, what: 'fresh OutOfSync after the refresh' });
        expect((await row())?.revision).toBe(head);
        // Read-only: the annotation is left for Argo CD's controller or `sync --watch` to serve and remove.
        expect(await kubectlOk(['get', 'application', 'fresh', '-n', ns, '-o', 'jsonpath={.metadata.annotations.argocd\\.argoproj\\.io/refresh}'])).toBe(
          'normal',
        );
      } finally {
        await stop();
      }
    },
    TIMEOUT,
  );

  it(
    'a hard refresh asked through the annotation renders the source again; a normal one reads the render cache',
    async () => {
      fx.write('apps/kz/kustomization.yaml', 'resources: [cm.yaml]\n');
      fx.write('apps/kz/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kz-a}\ndata: {a: b}\n');
      fx.commit('kz');
      await applyYaml(
        applicationYaml({
          name: 'kz',
          namespace: ns,
          spec: { source: { repoURL: fx.repo, path: 'apps/kz', targetRevision: 'main' }, destination: inCluster(ns) },
        }),
      );
      // kustomize through a wrapper that counts its builds, and a render cache of this test's own.
      const dir = tempDir('dashboard-hard-');
      const log = join(dir, 'builds.log');
      const counting = join(dir, 'counting-kustomize');
      writeFileSync(counting, `#!/bin/sh\n[ "$1" = build ] && echo build >> ${log}\nexec ${join(clusterBin(), 'kustomize')} "$@"\n`);
      chmodSync(counting, 0o755);
      const extra = { KUBECTL_GITOPS_KUSTOMIZE: counting, XDG_CACHE_HOME: join(dir, 'cache'), KUBECACHEDIR: '' };
      const builds = () =>
        existsSync(log)
          ? readFileSync(log, 'utf8')
              .split('\n')
              .filter((l) => l === 'build').length
          : 0;
      expect((await runPlugin(['sync', 'kz', '--app-namespace', ns], { env: extra })).code).toBe(0);
      expect(builds()).toBe(1);
      const { row, stop } = await ownDashboard('kz', ns, extra);
      try {
        await waitFor(async () => (await row())?.sync === 'Synced', { timeoutMs: 30_000, what: 'kz compared, Synced' });
        const comparedAgain = async (since: string | undefined, what: string) => {
          await waitFor(async () => ((await row())?.comparedAt ?? '') > (since ?? ''), { timeoutMs: 20_000, what });
          return (await row())?.comparedAt;
        };
        // The first comparison reads the render the sync left in the cache.
        let at = (await row())?.comparedAt;
        expect(builds()).toBe(1);
        await kubectlOk(['annotate', 'application', 'kz', '-n', ns, 'argocd.argoproj.io/refresh=normal']);
        at = await comparedAgain(at, 'kz compared again after refresh=normal');
        expect(builds()).toBe(1);
        await kubectlOk(['annotate', '--overwrite', 'application', 'kz', '-n', ns, 'argocd.argoproj.io/refresh=hard']);
        await waitFor(async () => builds() === 2, { timeoutMs: 20_000, what: 'kustomize run again after refresh=hard' });
        await comparedAgain(at, 'kz compared again after refresh=hard');
        expect(builds()).toBe(2);
        expect(await row()).toMatchObject({ sync: 'Synced' });
      } finally {
        await stop();
      }
    },
    TIMEOUT,
  );

  it(
    'shows a new commit in the source without a reload (re-compared on --interval)',
    async () => {
      await page.goto(`${url.origin}/?token=${token}`);
      await page.locator(`tr[data-app="${ns}/broken"] [data-sync="Synced"]`).waitFor();
      fx.write('apps/broken/extra.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: broken-extra}\ndata: {a: b}\n');
      fx.commit('v2');
      await page.locator(`tr[data-app="${ns}/broken"] [data-sync="OutOfSync"]`).waitFor({ timeout: 30_000 });
    },
    TIMEOUT,
  );
});
