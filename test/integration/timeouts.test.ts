// Timeouts that hold: an API server address that accepts TCP connections and never answers (not even
// the TLS handshake) makes `diff` exit 3 naming the server and the phase, within the 10 s connect bound
// without --request-timeout and within --request-timeout with it. Times are printed, and asserted only
// generously (a loaded machine is slow, never early). The kubeconfig's one context names the silent
// server; the Application's in-cluster destination resolves to it.
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { AddressInfo } from 'node:net';
import { pluginPath, run } from './support/index.js';
import { configMap, tempDir, writeApp, writeDesired } from './hardening/support.js';

let server: Server;
const sockets = new Set<Socket>();
let url: string;
let work: ReturnType<typeof tempDir>;
let args: string[];
let kubeconfig: string;

beforeAll(async () => {
  server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  work = tempDir('timeouts');
  const app = writeApp(work.dir, { name: 'timeouts', destinationNamespace: 'default' });
  const desired = writeDesired(work.dir, 'desired', [configMap('alpha')]);
  kubeconfig = join(work.dir, 'silent.kubeconfig');
  writeFileSync(
    kubeconfig,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'silent', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'u', user: { token: 'unused' } }],
      contexts: [{ name: 'silent', context: { cluster: 'silent', user: 'u' } }],
      'current-context': 'silent',
    }),
  );
  args = ['diff', '-f', app, '--desired', desired, '--kubeconfig', kubeconfig];
});

afterAll(async () => {
  work?.cleanup();
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

async function timed(extra: string[]) {
  const started = Date.now();
  const res = await run(pluginPath, [...args, ...extra], { timeoutMs: 90_000 });
  return { ...res, ms: Date.now() - started };
}

it('without --request-timeout, the connect bound (10 s) ends it: exit 3, naming the server and the TLS handshake', async () => {
  const r = await timed([]);
  process.stderr.write(`timeouts: no --request-timeout: diff exited ${r.code} after ${r.ms} ms (bound 10 s)\n`);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain(`the API server at ${url} timed out in the TLS handshake: nothing within 10s (the 10s bound on connecting)`);
  expect(r.ms).toBeGreaterThanOrEqual(9_000);
  expect(r.ms).toBeLessThan(45_000);
  expect(sockets.size).toBeGreaterThan(0);
});

it('with --request-timeout 2s, that bound ends it', async () => {
  const r = await timed(['--request-timeout', '2s']);
  process.stderr.write(`timeouts: --request-timeout 2s: diff exited ${r.code} after ${r.ms} ms (bound 2 s)\n`);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain(`the API server at ${url} timed out in the TLS handshake: nothing within 2s (--request-timeout)`);
  expect(r.ms).toBeLessThan(30_000);
});

it('over HTTP/1.1 too (KUBECTL_GITOPS_HTTP1=1)', async () => {
  const started = Date.now();
  const r = await run(pluginPath, [...args, '--request-timeout=1500ms'], { env: { KUBECTL_GITOPS_HTTP1: '1' }, timeoutMs: 90_000 });
  process.stderr.write(`timeouts: HTTP/1.1, --request-timeout 1500ms: diff exited ${r.code} after ${Date.now() - started} ms\n`);
  expect(r.code).toBe(3);
  expect(r.stderr).toContain(`the API server at ${url} timed out in the TLS handshake: nothing within 1.5s (--request-timeout)`);
});
