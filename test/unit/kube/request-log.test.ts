// The -v request log: one line per request at 6, headers at 7 (credentials masked), bodies at 8 (cut) and 9,
// and never a Secret's value, whether the Secret is read, listed, applied or quoted back in an error.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClientGateway } from '../../../src/kube/client-gateway.js';
import type { ResourceType } from '../../../src/model/resource-type.js';
import { formatRequest, maskHeaders, printableBody, redactSecrets } from '../../../src/kube/request-log.js';

const SECRET: ResourceType = { group: '', version: 'v1', kind: 'Secret', resource: 'secrets', namespaced: true, verbs: ['list', 'get', 'patch'] };
const CM: ResourceType = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, verbs: ['list', 'get'] };
const VALUE = 'hunter2-top-secret';
const B64 = Buffer.from(VALUE).toString('base64');
const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', data: { password: B64 } });
const secretObj = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'db', namespace: 'shop', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } },
  data: { password: B64 },
};

describe('redaction', () => {
  it('masks data, stringData and the last-applied annotation of Secrets, also in list items that carry no kind', () => {
    const list = {
      kind: 'SecretList',
      items: [
        {
          metadata: { name: 'db', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } },
          data: { password: B64 },
          stringData: { x: VALUE },
        },
      ],
    };
    const text = JSON.stringify(redactSecrets(list, true));
    expect(text).not.toContain(B64);
    expect(text).not.toContain(VALUE);
    expect(text).toContain('"password":"++++++++"');
    expect(JSON.stringify(redactSecrets(secretObj, false))).not.toContain(B64);
    // A Secret of the wrong shape (data as a list) is masked whole.
    expect(JSON.stringify(redactSecrets({ kind: 'Secret', data: [VALUE], stringData: 'x' + VALUE }, false))).toBe(
      '{"kind":"Secret","data":"++++++++","stringData":"++++++++"}',
    );
    const cm = { kind: 'ConfigMap', data: { k: 'visible' } };
    expect(redactSecrets(cm, false)).toEqual(cm);
  });

  it("masks every annotation value of a Secret but Argo CD's own (argocd-cm may name any as sensitive, and the log cannot wait for it)", () => {
    const tokened = {
      kind: 'Secret',
      metadata: { name: 'db', annotations: { 'openshift.io/token-secret.value': VALUE, 'argocd.argoproj.io/tracking-id': 'shop:/Secret:shop/db' } },
    };
    expect(redactSecrets(tokened, false)).toEqual({
      kind: 'Secret',
      metadata: { name: 'db', annotations: { 'openshift.io/token-secret.value': '++++++++', 'argocd.argoproj.io/tracking-id': 'shop:/Secret:shop/db' } },
    });
    const cm = { kind: 'ConfigMap', metadata: { name: 'c', annotations: { note: 'visible' } } };
    expect(redactSecrets(cm, false)).toEqual(cm);
  });

  it('a secrets body that is not JSON is not shown; other bodies are cut at 1 KiB below level 9', () => {
    expect(printableBody(`password: ${VALUE}`, 'https://k/api/v1/namespaces/a/secrets/db', 9)).toBe(
      `<${`password: ${VALUE}`.length} bytes, not shown: not JSON, on a secrets path>`,
    );
    const long = JSON.stringify({ kind: 'ConfigMap', data: { k: 'x'.repeat(3000) } });
    expect(printableBody(long, 'https://k/api/v1/configmaps', 8)).toMatch(/… \(\d+ bytes in all; -v 9 shows all\)$/);
    expect(printableBody(long, 'https://k/api/v1/configmaps', 9)).toBe(long);
    // A Status answering a Secret's write: what it quotes of a value it could not type is hidden, the JSON kept whole.
    const status = JSON.stringify({ kind: 'Status', message: '.stringData.pin: expected string, got []interface {}{"abc"}', reason: 'Invalid' });
    expect(JSON.parse(printableBody(status, 'https://k/api/v1/namespaces/a/secrets/db?fieldManager=x', 9))).toEqual({
      kind: 'Status',
      message: '.stringData.pin: expected string, got ++++++++',
      reason: 'Invalid',
    });
  });

  it('masks credentials in headers', () => {
    expect(maskHeaders({ Authorization: 'Bearer abc.def', 'Impersonate-User': 'jane' })).toEqual({
      Authorization: 'Bearer <masked>',
      'Impersonate-User': 'jane',
    });
    expect(formatRequest({ method: 'GET', url: 'https://k/api', headers: { Authorization: 'Bearer abc' }, status: 200, ms: 3 }, 6)).toBe(
      'I GET https://k/api 200 in 3 ms\n',
    );
  });
});

describe('the gateway logs at -v 6 to 9', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        if (req.method === 'PATCH') {
          // A typed-patch error that quotes the rejected value, as the API server's do.
          res.statusCode = 422;
          res.end(JSON.stringify({ kind: 'Status', reason: 'Invalid', message: `data.password: invalid value ${VALUE}`, code: 422 }));
        } else if (req.url?.includes('/secrets'))
          res.end(JSON.stringify({ kind: 'SecretList', metadata: {}, items: [{ metadata: { name: 'db' }, data: { password: B64 } }] }));
        else res.end(JSON.stringify({ kind: 'ConfigMapList', metadata: {}, items: [{ metadata: { name: 'c' }, data: { k: 'visible' } }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  async function logged(level: number): Promise<string> {
    const lines: string[] = [];
    const gw = await createClientGateway({
      connection: { server: url, tls: {}, headers: { Authorization: 'Bearer sekrit-token' }, via: 'kubeconfig' },
      requestTimeoutMs: 0,
      verbosity: level,
      log: (l) => lines.push(l),
      maxRetries: 0,
    });
    await gw.list(CM, { namespace: 'shop' });
    await gw.list(SECRET, { namespace: 'shop' });
    await gw.apply(SECRET, { ...secretObj, stringData: { other: VALUE } } as never, { fieldManager: 'm', force: false, dryRun: false }).catch(() => undefined);
    gw.close();
    return lines.join('');
  }

  it('nothing below 6; one line per request at 6', async () => {
    expect(await logged(5)).toBe('');
    const six = await logged(6);
    expect(six.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^I GET http:\/\/127\.0\.0\.1:\d+\/api\/v1\/namespaces\/shop\/configmaps\?limit=500 200 in \d+ ms$/),
      expect.stringMatching(/^I GET .*\/secrets\?limit=500 200 in \d+ ms$/),
      expect.stringMatching(/^I PATCH .*\/secrets\/db\?fieldManager=m 422 in \d+ ms$/),
    ]);
  });

  it('headers at 7 with the token masked; bodies at 8 and 9 without a Secret value anywhere', async () => {
    const seven = await logged(7);
    expect(seven).toContain('I   request header Authorization: Bearer <masked>');
    expect(seven).not.toContain('sekrit-token');
    for (const level of [8, 9]) {
      const text = await logged(level);
      expect(text).toContain('"k":"visible"');
      expect(text).toContain('"password":"++++++++"');
      expect(text).not.toContain(VALUE);
      expect(text).not.toContain(B64);
      expect(text).not.toContain('sekrit-token');
    }
  });
});
