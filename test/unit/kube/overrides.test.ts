// kubectl's connection flags over the kubeconfig, as client-go's ConfigOverrides apply them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/temp-dir.js';
import { applyOverrides, hasOverrides, resolveWithOverrides } from '../../../src/kube/overrides.js';
import { directConnection } from '../../../src/kube/auth.js';
import { resolveConnection } from '../../../src/kube/connect.js';
import type { MergedKubeconfig } from '../../../src/kube/kubeconfig.js';

const dir = tempDir('kgo-overrides');
const b64 = (s: string) => Buffer.from(s).toString('base64');

const merged: MergedKubeconfig = {
  clusters: [
    { name: 'prod', value: { server: 'https://prod:6443', 'certificate-authority-data': b64('PROD-CA'), 'tls-server-name': 'api.prod' }, origin: '/k/config' },
    { name: 'dev', value: { server: 'https://dev:6443', 'insecure-skip-tls-verify': true }, origin: '/k/config' },
  ],
  users: [
    { name: 'admin', value: { 'client-certificate-data': b64('CERT'), 'client-key-data': b64('KEY') }, origin: '/k/config' },
    { name: 'robot', value: { token: 'robot-token' }, origin: '/k/config' },
    { name: 'sso', value: { exec: { command: 'get-token', apiVersion: 'client.authentication.k8s.io/v1' } }, origin: '/k/config' },
  ],
  contexts: [{ name: 'main', value: { cluster: 'prod', user: 'admin', namespace: 'shop' }, origin: '/k/config' }],
  currentContext: 'main',
  files: ['/k/config'],
};

describe('applyOverrides', () => {
  it('changes nothing without flags', () => {
    expect(hasOverrides({})).toBe(false);
    const sel = applyOverrides(merged, undefined, {});
    expect(sel.cluster.value).toEqual(merged.clusters[0]!.value);
    expect(sel.user?.value).toEqual(merged.users[0]!.value);
    expect(sel.namespace).toBe('shop');
  });

  it("--cluster and --user pick other entries than the context's", () => {
    const sel = applyOverrides(merged, undefined, { cluster: 'dev', user: 'robot' });
    expect([sel.name, sel.cluster.name, sel.user?.name]).toEqual(['main', 'dev', 'robot']);
    expect(sel.cluster.value.server).toBe('https://dev:6443');
    expect(sel.user?.value.token).toBe('robot-token');
  });

  it('an unknown --cluster or --user names the ones there are', () => {
    expect(() => applyOverrides(merged, undefined, { cluster: 'nope' })).toThrow('cluster "nope" (--cluster) is not in the kubeconfig (clusters: prod, dev)');
    expect(() => applyOverrides(merged, undefined, { user: 'nope' })).toThrow('user "nope" (--user) is not in the kubeconfig (users: admin, robot, sso)');
  });

  it("--server replaces the server and drops the kubeconfig's tls-server-name; --tls-server-name sets one", () => {
    expect(applyOverrides(merged, undefined, { server: 'https://other:6443' }).cluster.value).toEqual({
      server: 'https://other:6443',
      'certificate-authority-data': b64('PROD-CA'),
    });
    expect(applyOverrides(merged, undefined, { server: 'https://other:6443', tlsServerName: 'x' }).cluster.value['tls-server-name']).toBe('x');
  });

  it('--certificate-authority replaces the inline CA and the skip setting; --insecure-skip-tls-verify drops the CA', () => {
    const ca = applyOverrides(merged, undefined, { certificateAuthority: 'ca.crt' }, '/work').cluster.value;
    expect(ca).toEqual({
      server: 'https://prod:6443',
      'tls-server-name': 'api.prod',
      'certificate-authority': '/work/ca.crt',
      'insecure-skip-tls-verify': false,
    });
    const dev = applyOverrides(merged, undefined, { cluster: 'dev', certificateAuthority: '/ca.crt' }).cluster.value;
    expect(dev['insecure-skip-tls-verify']).toBe(false);
    const skip = applyOverrides(merged, undefined, { insecureSkipTlsVerify: true }).cluster.value;
    expect(skip).toEqual({ server: 'https://prod:6443', 'tls-server-name': 'api.prod', 'insecure-skip-tls-verify': true });
    expect(() => applyOverrides(merged, undefined, { insecureSkipTlsVerify: true, certificateAuthority: '/ca.crt' })).toThrow(/cannot both be given/);
    // An explicit false changes nothing, as in client-go.
    expect(applyOverrides(merged, undefined, { insecureSkipTlsVerify: false }).cluster.value).toEqual(merged.clusters[0]!.value);
  });

  it('--token replaces token files and exec plugins; --client-certificate/--client-key replace inline data', () => {
    expect(applyOverrides(merged, undefined, { user: 'sso', token: 't' }).user?.value).toEqual({ token: 't' });
    const u = applyOverrides(merged, undefined, { clientCertificate: 'c.crt', clientKey: '/abs/c.key' }, '/work').user?.value;
    expect(u).toEqual({ 'client-certificate': '/work/c.crt', 'client-key': '/abs/c.key' });
  });

  it('--username and --password are basic authentication; with a bearer token they are an error, as in client-go', async () => {
    const sel = applyOverrides(merged, undefined, { username: 'alice', password: 'pw' });
    expect((await directConnection(sel)).basicAuth).toBe('alice:pw');
    expect(() => applyOverrides(merged, undefined, { user: 'robot', username: 'alice' })).toThrow(
      'a bearer token and basic authentication (--username/--password) cannot both be used: give one of them',
    );
    expect(() => applyOverrides(merged, undefined, { token: 't', username: 'alice', password: 'pw' })).toThrow(/cannot both be used/);
  });

  it("--as, --as-group and --as-uid become the user's impersonation, sent as kubectl sends it", async () => {
    const sel = applyOverrides(merged, undefined, { as: 'jane', asGroups: ['dev', 'ops'], asUid: '42' });
    const conn = await directConnection(sel);
    expect(conn.headers).toEqual({ 'Impersonate-User': 'jane', 'Impersonate-Uid': '42', 'Impersonate-Group': ['dev', 'ops'] });
    expect(() => applyOverrides(merged, undefined, { asGroups: ['dev'] })).toThrow('--as-group and --as-uid impersonate a user: give the user with --as');
  });

  it('with no kubeconfig at all, --server (with --token and --certificate-authority) is enough', async () => {
    const ca = join(dir, 'ca.crt');
    writeFileSync(ca, 'CA-PEM');
    const empty: MergedKubeconfig = { clusters: [], users: [], contexts: [], files: [] };
    const sel = applyOverrides(empty, undefined, { server: 'https://127.0.0.1:6443', token: 'abc', certificateAuthority: ca });
    expect(sel.cluster.value.server).toBe('https://127.0.0.1:6443');
    const conn = await directConnection(sel);
    expect(conn).toMatchObject({ server: 'https://127.0.0.1:6443', tls: { ca: Buffer.from('CA-PEM') }, headers: { Authorization: 'Bearer abc' } });
    // Through the loading rules: a KUBECONFIG naming files that do not exist is no kubeconfig.
    const viaFiles = await resolveConnection(
      { env: { KUBECONFIG: join(dir, 'missing') } },
      { server: 'https://127.0.0.1:6443', token: 'abc', insecureSkipTlsVerify: true },
    );
    expect(viaFiles).toMatchObject({ server: 'https://127.0.0.1:6443', tls: { rejectUnauthorized: false }, headers: { Authorization: 'Bearer abc' } });
    await expect(resolveWithOverrides({ env: { KUBECONFIG: join(dir, 'missing') } }, { token: 'abc' })).rejects.toThrow(/no current-context is set/);
  });
});
