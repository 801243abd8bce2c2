// Credentials from the selected kubeconfig context: read directly (certificates, tokens, basic auth,
// impersonation) or through client-node (exec plugins, auth providers).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/temp-dir.js';
import { clientNodeConnection, directConnection, needsClientNode } from '../../../src/kube/auth.js';
import { resolveConnection } from '../../../src/kube/connect.js';
import { kubeConfigFor, type SelectedContext } from '../../../src/kube/kubeconfig.js';
import { InputError } from '../../../src/model/errors.js';

const dir = tempDir('kgo-auth');
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const b64 = (s: string) => Buffer.from(s).toString('base64');

function ctx(cluster: Record<string, unknown>, user?: Record<string, unknown>): SelectedContext {
  return {
    name: 'ctx',
    cluster: { name: 'c', value: { server: 'https://k.example:6443', ...cluster }, origin: '/cfg/config' },
    ...(user ? { user: { name: 'u', value: user, origin: '/cfg/config' } } : {}),
  };
}

describe('directConnection', () => {
  it('reads inline certificate data (inline data wins over the file it duplicates, as in client-go)', async () => {
    const c = await directConnection(
      ctx(
        { 'certificate-authority-data': b64('CA'), 'certificate-authority': '/nonexistent/ca' },
        { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY'), 'client-key': '/nonexistent/key' },
      ),
    );
    expect(c).toEqual({
      server: 'https://k.example:6443',
      tls: { ca: Buffer.from('CA'), cert: Buffer.from('CERT'), key: Buffer.from('KEY') },
      headers: {},
      via: 'kubeconfig',
    });
  });

  it('reads certificate files, tls-server-name and insecure-skip-tls-verify (which drops the CA)', async () => {
    const ca = file('ca.crt', 'CA-FILE');
    const cert = file('u.crt', 'CERT-FILE');
    const key = file('u.key', 'KEY-FILE');
    const c = await directConnection(
      ctx({ 'certificate-authority': ca, 'tls-server-name': 'api.internal' }, { 'client-certificate': cert, 'client-key': key }),
    );
    expect(c.tls).toEqual({ ca: Buffer.from('CA-FILE'), cert: Buffer.from('CERT-FILE'), key: Buffer.from('KEY-FILE'), servername: 'api.internal' });
    const insecure = await directConnection(ctx({ 'certificate-authority': ca, 'insecure-skip-tls-verify': true }));
    expect(insecure.tls).toEqual({ rejectUnauthorized: false });
  });

  it('sends a token as a bearer header; a token wins over a token file', async () => {
    const tok = file('tok', 'from-file\n');
    expect((await directConnection(ctx({}, { token: 'abc', 'token-file': tok }))).headers).toEqual({ Authorization: 'Bearer abc' });
    expect((await directConnection(ctx({}, { token: 'abc' }))).refresh).toBeUndefined();
  });

  it('reads a token file (trimmed) and reads it again after a 401, so a rotated token is picked up', async () => {
    const tok = file('rotating', 'first\n');
    const c = await directConnection(ctx({}, { 'token-file': tok, as: 'jane' }));
    expect(c.headers).toEqual({ Authorization: 'Bearer first', 'Impersonate-User': 'jane' });
    writeFileSync(tok, 'second');
    expect(await c.refresh!()).toEqual({ Authorization: 'Bearer second', 'Impersonate-User': 'jane' });
  });

  it('uses basic auth from username and password', async () => {
    const c = await directConnection(ctx({}, { username: 'admin', password: 's3cret' }));
    expect(c.basicAuth).toBe('admin:s3cret');
    expect(c.headers).toEqual({});
  });

  it('sends impersonation headers as kubectl --as/--as-group/--as-uid do (groups and extras repeated)', async () => {
    const c = await directConnection(
      ctx({}, { token: 't', as: 'jane', 'as-uid': '42', 'as-groups': ['dev', 'ops'], 'as-user-extra': { scopes: ['a', 'b'], 'team/x': 'y' } }),
    );
    expect(c.headers).toEqual({
      Authorization: 'Bearer t',
      'Impersonate-User': 'jane',
      'Impersonate-Uid': '42',
      'Impersonate-Group': ['dev', 'ops'],
      'Impersonate-Extra-scopes': ['a', 'b'],
      'Impersonate-Extra-team%2Fx': ['y'],
    });
  });

  it('an anonymous user (no user stanza) gets no credentials', async () => {
    expect(await directConnection(ctx({}))).toEqual({ server: 'https://k.example:6443', tls: {}, headers: {}, via: 'kubeconfig' });
  });

  it.each([
    [
      'a certificate file that does not exist',
      ctx({}, { 'client-certificate': '/nonexistent/u.crt', 'client-key-data': b64('K') }),
      /reading the client certificate of user "u" \(in \/cfg\/config\): ENOENT.*\/nonexistent\/u\.crt/,
    ],
    [
      'a CA file that does not exist',
      ctx({ 'certificate-authority': '/nonexistent/ca.crt' }),
      /reading the certificate authority of cluster "c" \(in \/cfg\/config\): ENOENT/,
    ],
    ['a token file that does not exist', ctx({}, { 'token-file': '/nonexistent/tok' }), /reading the token file of user "u" \(in \/cfg\/config\): ENOENT/],
    ['a certificate without a key', ctx({}, { 'client-certificate-data': b64('C') }), /user "u" \(in \/cfg\/config\) has a client certificate but no key/],
    ['a key without a certificate', ctx({}, { 'client-key-data': b64('K') }), /has a client key but no certificate/],
  ])('refuses %s as an input error naming it', async (_what, sel, re) => {
    const err = await directConnection(sel).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(re);
  });
});

describe('client-node only where it is needed', () => {
  it('is needed for exec plugins and auth providers only', () => {
    expect(needsClientNode(ctx({}, { exec: { command: 'x' } }))).toBe(true);
    expect(needsClientNode(ctx({}, { 'auth-provider': { name: 'oidc' } }))).toBe(true);
    expect(needsClientNode(ctx({}, { token: 't', 'client-certificate-data': 'x' }))).toBe(false);
    expect(needsClientNode(ctx({}))).toBe(false);
  });

  it('runs an exec plugin through client-node and takes its token', async () => {
    const plugin = file(
      'plugin.sh',
      '#!/bin/sh\necho \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"from-exec"}}\'\n',
    );
    chmodSync(plugin, 0o755);
    const sel = ctx(
      { 'certificate-authority-data': b64('CA') },
      { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' } },
    );
    const c = await clientNodeConnection(await kubeConfigFor(sel));
    expect(c.via).toBe('client-node');
    expect(c.headers).toEqual({ Authorization: 'Bearer from-exec' });
    expect(c.tls.ca).toEqual(Buffer.from('CA'));
    expect(await c.refresh!()).toEqual({ Authorization: 'Bearer from-exec' });
  });

  it('resolveConnection reads the kubeconfig files and picks the path by user', async () => {
    const cfg = file(
      'config',
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://k:6443', 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'tok', user: { 'token-file': 'tokfile' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'tok' } }],
        'current-context': 'x',
      }),
    );
    file('tokfile', 'relative-token');
    const c = await resolveConnection({ kubeconfig: cfg, env: {} });
    expect(c).toMatchObject({
      server: 'https://k:6443',
      via: 'kubeconfig',
      headers: { Authorization: 'Bearer relative-token' },
      tls: { rejectUnauthorized: false },
    });
  });
});
