// Faults between the tool and the API server, injected by our own TLS proxy, over HTTP/2 (the default, when the server offers it) and over HTTP/1.1 (what a client gets from a server or proxy without HTTP/2): 429 with Retry-After, 503, cut connections, reset streams, GOAWAY, delays, the server gone mid-sync and mid-prune; and two syncs of one app at once.
import { spawn } from 'node:child_process';
import { jest } from '@jest/globals';
import { childEnv, createTestNamespace, kubeconfigPath, kubectlOk, pluginPath, run, runPlugin, waitFor, type RunResult } from '../support/index.js';
import { countsClaims, reportClaims, tally } from '../support/claims.js';
import { FaultProxy, type ProxiedRequest, type Protocol } from './fault-proxy.js';
import { configMap, snapshot, snapshotChanges, tempDir, writeApp, writeDesired } from './support.js';
import type { KubeObject } from '../../../src/model/object.js';

countsClaims('faults.h2-runs', 'faults.http1-runs');

jest.setTimeout(300_000);

const isGet = (r: ProxiedRequest) => r.method === 'GET';
const isRealPatch = (r: ProxiedRequest) => r.method === 'PATCH' && !r.url.includes('dryRun=');
const isRealDelete = (r: ProxiedRequest) => r.method === 'DELETE';
const isWatch = (r: ProxiedRequest) => r.method === 'GET' && /[?&]watch=1(&|$)/.test(r.url);
const WAVE = 'argocd.argoproj.io/sync-wave';

/** The status JSON without the context it was reached through (the proxy's kubeconfig context differs, the cluster does not). */
function sameCluster(json: string): string {
  return json.replace(/,\n\s*"context": "[^"]*",\n\s*"contextServer": "[^"]*"/, '');
}

/**
 * stderr without the warnings about other suites' throw-away CRDs (group *.kgitops.test): one that vanishes between
 * discovery and its list while this suite runs is warned about, with or without faults.
 */
function ownStderr(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => !/^warning: cannot list \S+\.kgitops\.test /.test(l))
    .join('\n');
}

/** An app of its own per test (so prune plans never overlap), synced to a baseline through the admin kubeconfig. */
async function appWithBaseline(dir: string, ns: string, name: string, objects: KubeObject[]): Promise<string> {
  const app = writeApp(dir, { name: `${name}-${ns}`, destinationNamespace: ns, prune: true });
  const res = await runPlugin(['sync', '-f', app, '--desired', writeDesired(dir, `${name}-baseline`, objects)]);
  if (res.code !== 0) throw new Error(`baseline sync of ${name} exited ${res.code}: ${res.stderr}`);
  return app;
}

/** uid and resourceVersion of the objects no app owns in `ns` (and the namespace): none may change. */
const outsidersOf = async (ns: string) => new Map([...(await snapshot(ns)).entries()].filter(([k]) => k.includes('/outsider-') || k.startsWith('Namespace/')));

/** The documentation's counts (docs/engineering/survives.md) of plugin runs through the proxy whose every request used the protocol (support/claims.ts). */
const claimOf = (p: Protocol) => (p === 'h2' ? 'faults.h2-runs' : 'faults.http1-runs');

afterAll(() => reportClaims());

// Every fault scenario, once per protocol the proxy settles on with the plugin (which always offers h2 and http/1.1):
// `http/1.1` is a proxy without HTTP/2 (the plugin falls back), `h2` is the plugin's default path.
describe.each<Protocol>(['http/1.1', 'h2'])('over %s', (protocol) => {
  let ns: string;
  let work: ReturnType<typeof tempDir>;
  let proxy: FaultProxy;
  let proxyKubeconfig: string;
  /** uid and resourceVersion of the objects no app here owns, taken before any fault. */
  let outsiders: Map<string, string>;

  const exists = async (kind: string, name: string) => (await kubectlOk(['get', kind, name, '-n', ns, '--ignore-not-found', '-o', 'name'])).trim() !== '';
  const dataOf = async (name: string) => (JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'json'])) as KubeObject).data;
  const appWith = (name: string, objects: KubeObject[]) => appWithBaseline(work.dir, ns, name, objects);

  /** Runs the plugin through the proxy, measures how long it took, and fails unless every request it sent came over `protocol`. */
  async function viaProxy(args: string[]): Promise<RunResult & { ms: number }> {
    const from = proxy.log.length;
    const started = Date.now();
    const res = await run(pluginPath, [...args, '--kubeconfig', proxyKubeconfig], { timeoutMs: 150_000 });
    const ms = Date.now() - started;
    const seen = proxy.log.slice(from);
    expect(seen.length).toBeGreaterThan(0);
    expect([...new Set(seen.map((e) => e.protocol))]).toEqual([protocol]);
    tally(claimOf(protocol));
    return { ...res, ms };
  }

  beforeAll(async () => {
    ns = await createTestNamespace(`hardening-faults-${protocol === 'h2' ? 'h2' : 'h1'}`);
    work = tempDir('faults');
    proxy = new FaultProxy(kubeconfigPath(), work.dir, protocol);
    await proxy.start();
    proxyKubeconfig = proxy.writeKubeconfig();
    // Objects beside the apps, without any app's mark (one looks like a leftover of the same names).
    for (const name of ['outsider-a', 'outsider-w1', 'outsider-t0']) await kubectlOk(['create', 'configmap', name, '-n', ns, '--from-literal=k=v']);
    await kubectlOk(['create', 'secret', 'generic', 'outsider-s', '-n', ns, '--from-literal=k=v']);
    outsiders = await outsidersOf(ns);
  });

  afterAll(async () => {
    await proxy?.stop();
    work?.cleanup();
  });

  beforeEach(() => proxy.setRules([]));

  describe('reads under faults', () => {
    let app: string;
    let desired: string;
    let direct: RunResult;

    beforeAll(async () => {
      app = await appWith('reads', [configMap('r1'), configMap('r2')]);
      desired = writeDesired(work.dir, 'reads-desired', [configMap('r1', { k: 'drifted' }), configMap('r2')]);
      direct = await runPlugin(['status', '-f', app, '--desired', desired, '-o', 'json']);
      expect(direct.code).toBe(0);
      // The answer the faults must not change: r1 drifted (so a wrong read would show).
      expect(direct.stdout).toMatch(/OutOfSync/);
    });

    it('the proxy itself is transparent', async () => {
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '-o', 'json']);
      expect({ code: res.code, out: sameCluster(res.stdout) }).toEqual({ code: direct.code, out: sameCluster(direct.stdout) });
      // Argo CD's settings and the default project are read where they may not exist: their 404 is an answer too.
      const settingsRead = (e: { url: string }) => /\/configmaps\/argocd-(cm|cmd-params-cm)(\?|$)|\/appprojects\//.test(e.url);
      expect(proxy.log.every((e) => e.outcome.startsWith('forwarded 2') || (settingsRead(e) && e.outcome === 'forwarded 404'))).toBe(true);
      // Over HTTP/2 every request of the run shares one connection.
      if (protocol === 'h2') expect(proxy.connections).toBe(1);
    });

    it('429 with Retry-After on the first 3 GETs: waits as asked, retries, same answer', async () => {
      proxy.setRules([{ when: isGet, fault: { kind: 'status', status: 429, retryAfterSeconds: 1 }, times: 3 }]);
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '-o', 'json']);
      expect({ code: res.code, out: sameCluster(res.stdout) }).toEqual({ code: direct.code, out: sameCluster(direct.stdout) });
      const refused = proxy.log.filter((e) => e.outcome === '429');
      expect(refused).toHaveLength(3);
      // Retry-After: 1 was honoured, as the proxy saw it: each refused request came again (the next request with its
      // method and URL), and not before a second after the 429 was answered (50 ms for the clocks' granularity).
      for (const e of refused) {
        const retry = proxy.log.slice(proxy.log.indexOf(e) + 1).find((x) => x.method === e.method && x.url === e.url);
        const gapMs = retry && e.answeredAt !== undefined ? retry.at - e.answeredAt : undefined;
        expect({ url: e.url, gapMs, honoured: gapMs !== undefined && gapMs >= 1000 - 50 }).toEqual({ url: e.url, gapMs, honoured: true });
      }
      expect(res.ms).toBeLessThan(60_000);
    });

    it('503 on a seeded 20% of all requests: same answer', async () => {
      proxy.setRules([{ fault: { kind: 'status', status: 503 }, fraction: 0.2 }], 7);
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '-o', 'json']);
      expect({ code: res.code, out: sameCluster(res.stdout) }).toEqual({ code: direct.code, out: sameCluster(direct.stdout) });
      expect(proxy.log.filter((e) => e.outcome === '503').length).toBeGreaterThan(0);
    });

    it('connections cut on the first 3 GETs: retried, same answer', async () => {
      proxy.setRules([{ when: isGet, fault: { kind: 'cut' }, times: 3 }]);
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '-o', 'json']);
      expect({ code: res.code, out: sameCluster(res.stdout), err: ownStderr(res.stderr) }).toEqual({
        code: direct.code,
        out: sameCluster(direct.stdout),
        err: ownStderr(direct.stderr),
      });
      const cuts = proxy.log.filter((e) => e.outcome === 'cut');
      expect(cuts).toHaveLength(3);
      // Each cut ended its connection (over HTTP/2 the session, with every stream on it): the client opened another.
      expect(proxy.connections).toBeGreaterThan(new Set(cuts.map((e) => e.connection)).size);
    });

    it('streams reset on the first 3 GETs (HTTP/2 RST_STREAM; over HTTP/1.1 a cut): retried, same answer', async () => {
      proxy.setRules([{ when: isGet, fault: { kind: 'reset' }, times: 3 }]);
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '-o', 'json']);
      expect({ code: res.code, out: sameCluster(res.stdout), err: ownStderr(res.stderr) }).toEqual({
        code: direct.code,
        out: sameCluster(direct.stdout),
        err: ownStderr(direct.stderr),
      });
      expect(proxy.log.filter((e) => e.outcome === (protocol === 'h2' ? 'reset' : 'cut'))).toHaveLength(3);
      // A reset stream leaves its HTTP/2 connection up: the retries went on the same one. An HTTP/1.1 cut ends it.
      if (protocol === 'h2') expect(new Set(proxy.log.map((e) => e.connection))).toEqual(new Set([proxy.log[0]!.connection]));
      else expect(proxy.connections).toBeGreaterThan(new Set(proxy.log.filter((e) => e.outcome === 'cut').map((e) => e.connection)).size);
    });

    it('GOAWAY after the first 3 GETs (over HTTP/1.1 "Connection: close"): the client reconnects, same answer', async () => {
      proxy.setRules([{ when: isGet, fault: { kind: 'goaway' }, times: 3 }]);
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '-o', 'json']);
      expect({ code: res.code, out: sameCluster(res.stdout), err: ownStderr(res.stderr) }).toEqual({
        code: direct.code,
        out: sameCluster(direct.stdout),
        err: ownStderr(direct.stderr),
      });
      // Answered, each (the argocd-cm read among the first is a 404 without the proxy too).
      expect(proxy.log.filter((e) => e.outcome.startsWith('goaway ')).map((e) => e.outcome)).toEqual([
        expect.stringMatching(/^goaway (200|404)$/),
        expect.stringMatching(/^goaway (200|404)$/),
        expect.stringMatching(/^goaway (200|404)$/),
      ]);
      expect(proxy.connections).toBeGreaterThanOrEqual(2);
    });

    it('a 300 ms delay on every request: same answer', async () => {
      proxy.setRules([{ fault: { kind: 'delay', ms: 300 } }]);
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '-o', 'json']);
      expect({ code: res.code, out: sameCluster(res.stdout) }).toEqual({ code: direct.code, out: sameCluster(direct.stdout) });
    });

    it('503 on every request: gives up after bounded back-off, exit 3 naming the failure', async () => {
      proxy.setRules([{ fault: { kind: 'status', status: 503 } }]);
      const res = await viaProxy(['status', '-f', app, '--desired', desired]);
      expect(res.code).toBe(3);
      expect(res.stderr).toMatch(/503/);
      expect(res.ms).toBeLessThan(60_000);
      // Bounded: a handful of attempts per request, not an endless loop.
      expect(proxy.log.length).toBeLessThan(40);
    });

    it('429 on every request: gives up, exit 3, "too many requests"', async () => {
      proxy.setRules([{ fault: { kind: 'status', status: 429, retryAfterSeconds: 0 } }]);
      const res = await viaProxy(['diff', '-f', app, '--desired', desired]);
      expect(res.code).toBe(3);
      expect(res.stderr).toMatch(/429|too many requests/i);
      expect(res.ms).toBeLessThan(60_000);
    });

    it('a delay longer than --request-timeout: exit 3 naming the timeout', async () => {
      proxy.setRules([{ fault: { kind: 'delay', ms: 4000 } }]);
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '--request-timeout', '1s']);
      expect(res.code).toBe(3);
      expect(res.stderr).toMatch(/timed out|timeout/i);
      expect(res.ms).toBeLessThan(60_000);
    });

    test('with -v the tool reports the retries it made', async () => {
      proxy.setRules([{ when: isGet, fault: { kind: 'status', status: 503 }, times: 2 }]);
      const res = await viaProxy(['status', '-f', app, '--desired', desired, '-v']);
      expect(res.code).toBe(direct.code);
      // The request summary counts them: two 503s answered, so at least two requests were sent again.
      const summary = /status: (\d+) API requests, (\d+) retried/.exec(res.stderr);
      expect(summary).not.toBeNull();
      expect(Number(summary![2])).toBeGreaterThanOrEqual(2);
    });
  });

  describe('writes under faults', () => {
    it('an apply reset before the server saw it (HTTP/2 RST_STREAM; over HTTP/1.1 a cut) is retried and the sync succeeds', async () => {
      const app = await appWith('wreset', [configMap('x1')]);
      proxy.setRules([{ when: isRealPatch, fault: { kind: 'reset' }, times: 1 }]);
      const res = await viaProxy(['sync', '-f', app, '--desired', writeDesired(work.dir, 'wreset-d', [configMap('x1', { k: 'new' })])]);
      expect(res.code).toBe(0);
      expect(await dataOf('x1')).toEqual({ k: 'new' });
      expect(proxy.log.filter((e) => isRealPatch(e)).map((e) => e.outcome)).toEqual([protocol === 'h2' ? 'reset' : 'cut', 'forwarded 200']);
    });

    it('a GOAWAY with the first dry-run apply (over HTTP/1.1 "Connection: close"): the applies go on another connection, the sync succeeds', async () => {
      const app = await appWith('wgoaway', [configMap('g1'), configMap('g2')]);
      const isDryRunPatch = (r: ProxiedRequest) => r.method === 'PATCH' && r.url.includes('dryRun=All');
      proxy.setRules([{ when: isDryRunPatch, fault: { kind: 'goaway' }, times: 1 }]);
      const res = await viaProxy([
        'sync',
        '-f',
        app,
        '--desired',
        writeDesired(work.dir, 'wgoaway-d', [configMap('g1', { k: 'one' }), configMap('g2', { k: 'two' }), configMap('g3')]),
        '-o',
        'json',
      ]);
      expect(res.code).toBe(0);
      expect({ g1: await dataOf('g1'), g2: await dataOf('g2'), g3: await dataOf('g3') }).toEqual({ g1: { k: 'one' }, g2: { k: 'two' }, g3: { k: 'v' } });
      const closing = proxy.log.filter((e) => e.outcome.startsWith('goaway '));
      expect(closing.map((e) => e.outcome)).toEqual([expect.stringMatching(/^goaway 20[01]$/)]);
      // The connection was closed after the dry run (requests it had already taken were answered on it): every real apply went on another.
      const applies = proxy.log.filter(isRealPatch);
      expect(applies.map((e) => e.outcome).sort()).toEqual(['forwarded 200', 'forwarded 200', 'forwarded 201']);
      expect(applies.filter((e) => e.connection === closing[0]!.connection)).toEqual([]);
    });

    it('an apply answered 503 is retried (server-side apply is idempotent) and the sync succeeds', async () => {
      const app = await appWith('w503', [configMap('w1')]);
      proxy.setRules([{ when: isRealPatch, fault: { kind: 'status', status: 503 }, times: 1 }]);
      const res = await viaProxy(['sync', '-f', app, '--desired', writeDesired(work.dir, 'w503-d', [configMap('w1', { k: 'new' })])]);
      expect(res.code).toBe(0);
      expect(await dataOf('w1')).toEqual({ k: 'new' });
      expect(proxy.log.filter((e) => isRealPatch(e)).map((e) => e.outcome)).toEqual(['503', 'forwarded 200']);
    });

    it('an apply whose answer is lost after the server applied it: retried safely, end state correct', async () => {
      const app = await appWith('wcut', [configMap('c1')]);
      proxy.setRules([{ when: isRealPatch, fault: { kind: 'cut-after' }, times: 1 }]);
      const res = await viaProxy(['sync', '-f', app, '--desired', writeDesired(work.dir, 'wcut-d', [configMap('c1', { k: 'after-cut' }), configMap('c2')])]);
      expect(res.code).toBe(0);
      expect(await dataOf('c1')).toEqual({ k: 'after-cut' });
      expect(await exists('configmap', 'c2')).toBe(true);
      expect(proxy.log.filter((e) => e.outcome.startsWith('cut-after'))).toHaveLength(1);
    });

    it('a prune delete answered 503 is retried only because it carries uid/resourceVersion preconditions; the object is gone once', async () => {
      const app = await appWith('dprune', [configMap('keep'), configMap('drop')]);
      proxy.setRules([{ when: isRealDelete, fault: { kind: 'status', status: 503 }, times: 1 }]);
      const res = await viaProxy(['prune', '--confirm', '-f', app, '--desired', writeDesired(work.dir, 'dprune-d', [configMap('keep')])]);
      expect(res.code).toBe(0);
      expect(await exists('configmap', 'drop')).toBe(false);
      expect(await exists('configmap', 'keep')).toBe(true);
      const deletes = proxy.log.filter(isRealDelete);
      expect(deletes.map((e) => e.outcome)).toEqual(['503', 'forwarded 200']);
      // What makes the retry safe: both attempts name the very object (uid) and version they meant to delete.
      for (const d of deletes)
        expect(JSON.parse(d.body ?? '{}')).toEqual(
          expect.objectContaining({ preconditions: expect.objectContaining({ uid: expect.any(String), resourceVersion: expect.any(String) }) }),
        );
    });

    it('every write a sync and prune send is a server-side apply or a guarded delete (the only kinds that are safe to retry); POSTs are access reviews', async () => {
      const app = await appWith('kinds', [configMap('k1'), configMap('k2')]);
      await viaProxy(['sync', '-f', app, '--desired', writeDesired(work.dir, 'kinds-d', [configMap('k1', { k: 'x' }), configMap('k3')]), '--prune']);
      const writes = proxy.log.filter((e) => e.method !== 'GET');
      expect(writes.length).toBeGreaterThan(0);
      for (const w of writes) {
        if (w.method === 'PATCH') expect(w.contentType).toBe('application/apply-patch+yaml');
        else if (w.method === 'DELETE') expect(JSON.parse(w.body ?? '{}').preconditions?.uid).toEqual(expect.any(String));
        else expect({ method: w.method, url: w.url.split('?')[0] }).toEqual({ method: 'POST', url: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews' });
      }
      expect(writes.some((w) => w.method === 'DELETE')).toBe(true);
    });

    it('every request of a read, a sync with a prune and a wait names the tool as docs/commands/flags.md promises: User-Agent: kubectl-gitops', async () => {
      const app = await appWith('agent', [configMap('u1'), configMap('u2')]);
      const desired = writeDesired(work.dir, 'agent-d', [configMap('u1', { k: 'x' }), configMap('u3')]);
      expect((await viaProxy(['status', '-f', app, '--desired', desired])).code).toBe(0);
      expect((await viaProxy(['sync', '-f', app, '--desired', desired, '--prune'])).code).toBe(0);
      expect((await viaProxy(['status', '-f', app, '--desired', desired, '--wait', '--timeout', '60s'])).code).toBe(0);
      // Reads, access reviews, applies and the prune's delete all went through the proxy, and each said who sent it.
      expect([...new Set(proxy.log.map((e) => e.method))].sort()).toEqual(['DELETE', 'GET', 'PATCH', 'POST']);
      expect([...new Set(proxy.log.map((e) => e.userAgent))]).toEqual(['kubectl-gitops']);
    });
  });

  describe('the API server stops in the middle of a sync', () => {
    it('the report names what was applied and what not, prune never runs, and a second sync converges', async () => {
      const app = await appWith('stop', [configMap('s0'), configMap('stale')]);
      const wave = (name: string, w: number) => ({ ...configMap(name, { k: `wave-${w}` }), metadata: { name, annotations: { [WAVE]: String(w) } } });
      const desired = writeDesired(work.dir, 'stop-d', [wave('s0', 0), wave('s1', 1), wave('s2', 2)]);
      proxy.setRules([{ when: isRealPatch, fault: { kind: 'stop-after' }, times: 1 }]);
      const res = await viaProxy(['sync', '-f', app, '--desired', desired, '--prune', '-o', 'json']);
      expect(res.code).toBe(3);
      const report = JSON.parse(res.stdout) as {
        applied: number;
        steps: { name: string; outcome: string; message?: string }[];
        failures: { message: string }[];
        prune: { blocked?: string; results: unknown[] };
      };
      const outcome = Object.fromEntries(report.steps.map((s) => [s.name, s.outcome]));
      // Waves are waited for, as Argo CD does: the sync stops at wave 0, whose health it cannot read, and says so.
      expect(outcome).toEqual({ s0: 'applied', s1: 'skipped', s2: 'skipped' });
      expect(report.steps.find((s) => s.name === 's1')?.message).toBe('not applied: the sync stopped before this wave');
      expect(report.failures.map((f) => f.message).join('\n')).toMatch(/cannot reach|ECONNREFUSED|connect/i);
      expect(report.prune.results).toEqual([]);
      expect(report.prune.blocked).toMatch(/nothing was pruned/);
      // The cluster agrees with the report.
      expect(await dataOf('s0')).toEqual({ k: 'wave-0' });
      expect(await exists('configmap', 's1')).toBe(false);
      expect(await exists('configmap', 'stale')).toBe(true);

      await proxy.start();
      proxy.setRules([]);
      const again = await viaProxy(['sync', '-f', app, '--desired', desired, '--prune', '-o', 'json']);
      expect(again.code).toBe(0);
      for (const [n, w] of [
        ['s0', 0],
        ['s1', 1],
        ['s2', 2],
      ] as const)
        expect(await dataOf(n)).toEqual({ k: `wave-${w}` });
      expect(await exists('configmap', 'stale')).toBe(false);
      const third = await viaProxy(['diff', '-f', app, '--desired', desired]);
      expect(third.code).toBe(0);
    });
  });

  describe('the API server stops in the middle of a prune', () => {
    it('the report names what was deleted and what not, exit 3, and a second prune finishes the job', async () => {
      const app = await appWith('pstop', [configMap('p-keep'), configMap('p-a'), configMap('p-b'), configMap('p-c')]);
      const desired = writeDesired(work.dir, 'pstop-d', [configMap('p-keep')]);
      proxy.setRules([{ when: isRealDelete, fault: { kind: 'stop-after' }, times: 1 }]);
      const res = await viaProxy(['prune', '--confirm', '-f', app, '--desired', desired, '-o', 'json']);
      expect(res.code).toBe(3);
      const report = JSON.parse(res.stdout) as { entries: { name: string; outcome: string; message?: string }[] };
      const deleted = report.entries.filter((e) => e.outcome === 'deleted').map((e) => e.name);
      const failed = report.entries.filter((e) => e.outcome === 'failed').map((e) => e.name);
      expect(deleted).toHaveLength(1);
      expect([...deleted, ...failed].sort()).toEqual(['p-a', 'p-b', 'p-c']);
      // The cluster agrees with the report, object by object.
      for (const e of report.entries)
        expect({ name: e.name, live: await exists('configmap', e.name) }).toEqual({ name: e.name, live: e.outcome !== 'deleted' });
      expect(await exists('configmap', 'p-keep')).toBe(true);

      await proxy.start();
      proxy.setRules([]);
      const again = await viaProxy(['prune', '--confirm', '-f', app, '--desired', desired, '-o', 'json']);
      expect(again.code).toBe(0);
      for (const n of ['p-a', 'p-b', 'p-c']) expect(await exists('configmap', n)).toBe(false);
      expect(await exists('configmap', 'p-keep')).toBe(true);
    });
  });

  describe('the API server stops in the middle of a delete', () => {
    it('the report names what was deleted and what not (one outcome at most unknown), exit 3, and a second delete finishes the job', async () => {
      const app = await appWith('dstop', [configMap('d-a'), configMap('d-b'), configMap('d-c')]);
      const desired = writeDesired(work.dir, 'dstop-d', [configMap('d-a'), configMap('d-b'), configMap('d-c')]);
      proxy.setRules([{ when: isRealDelete, fault: { kind: 'stop-after' }, times: 1 }]);
      const res = await viaProxy(['delete', '-f', app, '--desired', desired, '--yes', '-o', 'json']);
      expect(res.code).toBe(3);
      const report = JSON.parse(res.stdout) as { phase: string; entries: { name: string; outcome: string }[] };
      expect(report.phase).toBe('Failed');
      const deleted = report.entries.filter((e) => e.outcome === 'deleted').map((e) => e.name);
      expect(deleted).toHaveLength(1);
      expect(report.entries.map((e) => e.name).sort()).toEqual(['d-a', 'd-b', 'd-c']);
      // The cluster agrees with the report, object by object.
      for (const e of report.entries)
        expect({ name: e.name, live: await exists('configmap', e.name) }).toEqual({ name: e.name, live: e.outcome !== 'deleted' });

      await proxy.start();
      proxy.setRules([]);
      const again = await viaProxy(['delete', '-f', app, '--desired', desired, '--yes', '-o', 'json']);
      expect(again.code).toBe(0);
      for (const n of ['d-a', 'd-b', 'd-c']) expect(await exists('configmap', n)).toBe(false);
    });
  });

  describe('status --wait while the API server is away', () => {
    it('rides out the outage (telling it), and exits 0 once the app is seen Synced and Healthy', async () => {
      const app = await appWith('wait', [configMap('w1')]);
      const desired = writeDesired(work.dir, 'wait-d', [configMap('w1')]);
      await proxy.stop();
      const waiting = viaProxy(['status', '-f', app, '--desired', desired, '--wait', '--timeout', '90s']);
      await new Promise((r) => setTimeout(r, 4000));
      await proxy.start();
      const res = await waiting;
      expect(res.stderr).toMatch(/waiting: cluster error, retrying: .*cannot reach the API server/);
      expect(res.code).toBe(0);
      expect(res.ms).toBeGreaterThanOrEqual(4000);
    });
  });

  describe('sync --watch while its watch stream is reset', () => {
    it('reports the reset, resumes the watch, and still heals a drift made after it; SIGINT exits 0', async () => {
      const app = writeApp(work.dir, { name: `watch-${ns}`, destinationNamespace: ns, prune: true, selfHeal: true });
      const desired = writeDesired(work.dir, 'watch-d', [configMap('wh1', { k: 'declared' })]);
      proxy.setRules([{ when: isWatch, fault: { kind: 'reset-during', afterMs: 1500 }, times: 1 }]);
      // A 10-minute poll interval: only the watch can bring the drift to its attention within the test.
      const child = spawn(
        pluginPath,
        ['sync', '-f', app, '--desired', desired, '--watch', '--interval', '10m', '-o', 'json', '--kubeconfig', proxyKubeconfig],
        { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const lines: { action: string; result?: string; object?: string; message?: string }[] = [];
      let stderr = '';
      let buf = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        buf += c;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          if (buf.slice(0, nl).trim()) lines.push(JSON.parse(buf.slice(0, nl)) as (typeof lines)[number]);
          buf = buf.slice(nl + 1);
        }
      });
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      const seen = (what: string) =>
        `${what}\nstdout:\n${lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${stderr}\nproxy:\n${proxy.log.map((e) => `${e.method} ${e.url} ${e.outcome}`).join('\n')}`;
      let code: number | null;
      try {
        const reconnect = await waitFor(() => lines.find((l) => l.action === 'reconnect'), {
          what: seen('the reconnect line'),
          timeoutMs: 60_000,
          intervalMs: 100,
        });
        expect(reconnect.result).toBe('retrying');
        // The watch was resumed: a watch sent after the reset was answered.
        await waitFor(
          () => proxy.log.slice(proxy.log.findIndex((e) => e.outcome.startsWith('reset-during')) + 1).some((e) => isWatch(e) && e.outcome === 'forwarded 200'),
          {
            what: seen('the resumed watch'),
            timeoutMs: 30_000,
            intervalMs: 100,
          },
        );
        const mark = lines.length;
        await kubectlOk(['patch', 'configmap', 'wh1', '-n', ns, '--type', 'merge', '-p', '{"data":{"k":"drifted"}}']);
        await waitFor(async () => JSON.stringify(await dataOf('wh1')) === JSON.stringify({ k: 'declared' }), {
          what: seen('the drift healed'),
          timeoutMs: 60_000,
          intervalMs: 200,
        });
        await waitFor(() => lines.slice(mark).find((l) => l.action === 'heal' && l.object === 'ConfigMap/wh1'), {
          what: seen('the heal line'),
          timeoutMs: 10_000,
          intervalMs: 100,
        });
      } finally {
        child.kill('SIGINT');
        const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
        code = await exited;
        clearTimeout(timer);
      }
      expect(code).toBe(0);
      expect(proxy.log.filter((e) => e.outcome.startsWith('reset-during '))).toHaveLength(1);
      expect([...new Set(proxy.log.map((e) => e.protocol))]).toEqual([protocol]);
      tally(claimOf(protocol));
    });
  });

  describe('nothing lost, shown', () => {
    it('after every fault above, the objects outside the apps (and the namespace) have the uid and resourceVersion they had before', async () => {
      expect(outsiders.size).toBe(5);
      expect(snapshotChanges(outsiders, await outsidersOf(ns))).toEqual([]);
    });
  });
});

// Not through the proxy: two plugin processes against the API server itself (over HTTP/2, which it offers).
describe('two syncs of the same app at once', () => {
  let ns: string;
  let work: ReturnType<typeof tempDir>;
  let outsiders: Map<string, string>;
  const exists = async (kind: string, name: string) => (await kubectlOk(['get', kind, name, '-n', ns, '--ignore-not-found', '-o', 'name'])).trim() !== '';
  const dataOf = async (name: string) => (JSON.parse(await kubectlOk(['get', 'configmap', name, '-n', ns, '-o', 'json'])) as KubeObject).data;

  beforeAll(async () => {
    ns = await createTestNamespace('hardening-faults-twice');
    work = tempDir('faults-twice');
    // An unmarked object with the name of one of the app's: it has the same uid and resourceVersion at the end.
    await kubectlOk(['create', 'configmap', 'outsider-t0', '-n', ns, '--from-literal=k=v']);
    outsiders = await outsidersOf(ns);
  });

  afterAll(() => work?.cleanup());

  it('three rounds of two concurrent syncs: the declared state, the stale objects pruned, nothing else deleted', async () => {
    const app = await appWithBaseline(work.dir, ns, 'twice', [configMap('t0'), configMap('t-stale-0')]);
    // Objects that must survive: unmarked, and another app's.
    await kubectlOk(['create', 'configmap', 'bystander', '-n', ns, '--from-literal=k=v']);
    const other = await appWithBaseline(work.dir, ns, 'other', [configMap('others-own')]);
    void other;
    for (let round = 1; round <= 3; round++) {
      const objects = [configMap('t0', { round: String(round) }), configMap(`t-${round}`), configMap(`t-extra-${round}`)];
      const desired = writeDesired(work.dir, `twice-${round}`, objects);
      const [a, b] = await Promise.all([
        runPlugin(['sync', '-f', app, '--desired', desired, '--prune', '-o', 'json']),
        runPlugin(['sync', '-f', app, '--desired', desired, '--prune', '-o', 'json']),
      ]);
      // Each either succeeded or reports, per object, that the other got there first; neither crashed.
      for (const r of [a, b]) {
        expect([0, 3]).toContain(r.code);
        const rep = JSON.parse(r.stdout) as { failures: { phase: string; message: string }[] };
        for (const f of rep.failures) expect(f).toEqual(expect.objectContaining({ phase: 'prune' }));
      }
      expect(await dataOf('t0')).toEqual({ round: String(round) });
      for (const o of objects) expect(await exists('configmap', o.metadata.name!)).toBe(true);
      expect(await exists('configmap', round === 1 ? 't-stale-0' : `t-${round - 1}`)).toBe(false);
      expect(await exists('configmap', 'bystander')).toBe(true);
      expect(await exists('configmap', 'others-own')).toBe(true);
      const settled = await runPlugin(['diff', '-f', app, '--desired', desired]);
      expect(settled.code).toBe(0);
    }
    expect(outsiders.size).toBe(2);
    expect(snapshotChanges(outsiders, await outsidersOf(ns))).toEqual([]);
  });
});
