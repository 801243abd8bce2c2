import { request } from 'node:http';
import { InputError } from '../../../src/model/errors.js';
import {
  isLoopback,
  parseWebhookAddr,
  signBody,
  startWebhook,
  verifySignature,
  type PushEvent,
  type WebhookRecord,
  type WebhookServer,
} from '../../../src/watch/webhook.js';

function post(port: number, body: string, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/api/webhook', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const payload = JSON.stringify({
  ref: 'refs/heads/main',
  after: 'a'.repeat(40),
  repository: { clone_url: 'https://git.example.invalid/shop.git' },
});

describe('parseWebhookAddr', () => {
  it.each([
    ['127.0.0.1:9000', '127.0.0.1', 9000],
    [':9000', '127.0.0.1', 9000],
    ['9000', '127.0.0.1', 9000],
    ['0.0.0.0:80', '0.0.0.0', 80],
    ['[::1]:9000', '::1', 9000],
    ['localhost:0', 'localhost', 0],
  ])('%s -> %s port %d', (addr, host, port) => {
    expect(parseWebhookAddr(addr)).toEqual({ host, port });
  });
  it.each(['', 'abc', '127.0.0.1:http', '1.2.3.4:70000', 'example.com:80'])('refuses %j', (addr) => {
    expect(() => parseWebhookAddr(addr)).toThrow(InputError);
  });
  it('knows loopback from the rest', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
  });
});

describe('verifySignature', () => {
  const body = Buffer.from(payload);
  it('accepts the right HMAC and rejects a wrong one, a wrong secret or junk', () => {
    const sig = signBody(body, 's3cret');
    expect(verifySignature(body, 's3cret', sig)).toBe(true);
    expect(verifySignature(body, 's3cret', sig.toUpperCase())).toBe(true);
    expect(verifySignature(body, 'other', sig)).toBe(false);
    expect(verifySignature(Buffer.from(payload + ' '), 's3cret', sig)).toBe(false);
    expect(verifySignature(body, 's3cret', sig.slice(0, 62))).toBe(false);
    expect(verifySignature(body, 's3cret', 'zz' + sig.slice(2))).toBe(false);
  });
});

describe('the webhook server on 127.0.0.1', () => {
  let server: WebhookServer | undefined;
  let pushes: PushEvent[];
  let records: WebhookRecord[];
  async function start(secret?: string) {
    pushes = [];
    records = [];
    server = await startWebhook({ addr: '127.0.0.1:0', secret, onPush: (p) => pushes.push(p), onRequest: (r) => records.push(r), maxBodyBytes: 4096 });
    return server.port;
  }
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('binds to loopback when only a port is given', async () => {
    server = await startWebhook({ addr: ':0', onPush: () => undefined, onRequest: () => undefined });
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
  });

  it('without a secret, a GitHub push triggers a refresh carrying ref and commit', async () => {
    const port = await start();
    const res = await post(port, payload, { 'X-GitHub-Event': 'push' });
    expect(res.status).toBe(202);
    expect(pushes).toEqual([{ provider: 'github', ref: 'refs/heads/main', after: 'a'.repeat(40), repository: 'https://git.example.invalid/shop.git' }]);
    expect(records[0]).toMatchObject({ status: 202, outcome: 'push', remote: '127.0.0.1' });
  });

  it('with a secret, accepts correctly signed GitHub and Gitea pushes', async () => {
    const port = await start('s3cret');
    const sig = signBody(payload, 's3cret');
    expect((await post(port, payload, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': `sha256=${sig}` })).status).toBe(202);
    expect((await post(port, payload, { 'X-Gitea-Event': 'push', 'X-Gitea-Signature': sig })).status).toBe(202);
    expect(pushes.map((p) => p.provider)).toEqual(['github', 'gitea']);
  });

  it('with a secret, refuses unsigned and wrongly signed requests with 401 and logs them', async () => {
    const port = await start('s3cret');
    const wrong = signBody(payload, 'guess');
    const results = [
      await post(port, payload, { 'X-GitHub-Event': 'push' }),
      await post(port, payload, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': `sha256=${wrong}` }),
      await post(port, payload, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': signBody(payload, 's3cret') }), // no sha256= prefix
      await post(port, payload, { 'X-Gitea-Event': 'push', 'X-Gitea-Signature': wrong }),
      await post(port, payload, { 'X-Gitea-Event': 'push' }),
    ];
    expect(results.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(pushes).toEqual([]);
    expect(records.map((r) => r.outcome)).toEqual(['refused', 'refused', 'refused', 'refused', 'refused']);
    expect(records[0]?.reason).toMatch(/unsigned/);
    expect(records[1]?.reason).toMatch(/signature/);
  });

  it('answers but does not refresh for pings, other methods, bad JSON and oversized bodies', async () => {
    const port = await start();
    expect((await post(port, '{"zen":"x"}', { 'X-GitHub-Event': 'ping' })).status).toBe(202);
    expect((await post(port, '', {}, 'GET')).status).toBe(405);
    expect((await post(port, payload, {})).status).toBe(400);
    expect((await post(port, '{not json', { 'X-GitHub-Event': 'push' })).status).toBe(400);
    expect((await post(port, 'x'.repeat(5000), { 'X-GitHub-Event': 'push' })).status).toBe(413);
    expect(pushes).toEqual([]);
    expect(records.map((r) => r.outcome)).toEqual(['ignored', 'invalid', 'invalid', 'invalid', 'invalid']);
  });

  it('reads form-encoded GitHub payloads', async () => {
    const port = await start('k');
    const body = `payload=${encodeURIComponent(payload)}`;
    const res = await post(port, body, {
      'content-type': 'application/x-www-form-urlencoded',
      'X-GitHub-Event': 'push',
      'X-Hub-Signature-256': `sha256=${signBody(body, 'k')}`,
    });
    expect(res.status).toBe(202);
    expect(pushes[0]?.ref).toBe('refs/heads/main');
  });

  it('reports a port already in use as an input error', async () => {
    const port = await start();
    await expect(startWebhook({ addr: `127.0.0.1:${port}`, onPush: () => undefined, onRequest: () => undefined })).rejects.toThrow(InputError);
  });
});
