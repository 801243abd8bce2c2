// The OCI source's pure parts: the repoURL, and unpacking a layer (files and folders, long names, nothing outside); and a
// pull's bounds against a loopback stand-in for a registry that does not answer (the real registry: integration).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { InputError } from '../../../src/model/errors.js';
import { parseOciUrl, pullOciArtifact, untar } from '../../../src/source/oci.js';
import { tempDir } from '../../support/temp-dir.js';

describe('parseOciUrl', () => {
  it('splits oci://REGISTRY/REPOSITORY; a URL without a repository is an input error', () => {
    expect(parseOciUrl('oci://127.0.0.1:5000/manifests/shop')).toEqual({ registry: '127.0.0.1:5000', repository: 'manifests/shop' });
    expect(parseOciUrl('oci://ghcr.io/org/app/')).toEqual({ registry: 'ghcr.io', repository: 'org/app' });
    expect(() => parseOciUrl('oci://ghcr.io')).toThrow('an OCI source is oci://REGISTRY/REPOSITORY');
  });
});

describe('untar', () => {
  it('writes the files and folders of a tar, long names included', () => {
    const src = tempDir('oci-src');
    const long = `${'d'.repeat(60)}/${'f'.repeat(80)}.yaml`;
    mkdirSync(join(src, 'deploy', 'd'.repeat(60)), { recursive: true });
    writeFileSync(join(src, 'deploy', 'a.yaml'), 'a: 1\n');
    writeFileSync(join(src, 'deploy', long), 'b: 2\n');
    const archive = join(tempDir('oci-tar'), 'x.tar');
    expect(spawnSync('tar', ['cf', archive, '-C', src, '.']).status).toBe(0);
    const dest = tempDir('oci-dest');
    const warnings: string[] = [];
    untar(readFileSync(archive), dest, warnings);
    expect(readFileSync(join(dest, 'deploy', 'a.yaml'), 'utf8')).toBe('a: 1\n');
    expect(readFileSync(join(dest, 'deploy', long), 'utf8')).toBe('b: 2\n');
    expect(warnings).toEqual([]);
  });

  it('refuses a path that leaves the artifact', () => {
    const header = Buffer.alloc(512);
    header.write('../escape.yaml', 0);
    header.write('0000644\0', 100);
    header.write('00000000005\0', 124);
    header.write('0', 156);
    const archive = Buffer.concat([header, Buffer.from('a: 1\n'.padEnd(512, '\0')), Buffer.alloc(1024)]);
    expect(() => untar(archive, tempDir('oci-dest'), [])).toThrow('the OCI layer holds "../escape.yaml", a path outside the artifact');
  });
});

describe('pullOciArtifact', () => {
  let server: Server;
  let host: string;
  const held: ServerResponse[] = [];
  const manifest = JSON.stringify({
    schemaVersion: 2,
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: `sha256:${'0'.repeat(64)}` }],
  });
  beforeAll(async () => {
    // Answers a manifest at tag `ok`; never answers anything else (a registry that hangs).
    server = createServer((req, res) => {
      if (req.url?.endsWith('/manifests/ok')) res.end(manifest);
      else held.push(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('gives up on a registry that does not answer within the bound, naming the artifact', async () => {
    const p = pullOciArtifact(`oci://${host}/manifests/shop`, 'v1', { timeoutMs: 300 });
    await expect(p).rejects.toThrow(InputError);
    await expect(p).rejects.toThrow(`reading the OCI artifact oci://${host}/manifests/shop at v1: no answer from the registry within 0.3 s`);
  });

  it('names the layer when the registry hangs on it after the manifest', async () => {
    // A bound the manifest's own answer keeps within on a loaded machine (at 0.3 s the manifest itself timed out in a
    // CI run beside the integration suite); only the layer's request waits it out.
    await expect(pullOciArtifact(`oci://${host}/manifests/shop`, 'ok', { timeoutMs: 2000 })).rejects.toThrow(
      `reading the OCI layer sha256:${'0'.repeat(64)} of oci://${host}/manifests/shop at ok: no answer from the registry within 2 s`,
    );
  });

  // The default bound is 120 s: this ends within jest's 5 s only because the stop ends the request.
  it('stops when the command is stopped (Ctrl-C), not at the bound', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 100);
    await expect(pullOciArtifact(`oci://${host}/manifests/shop`, 'v1', { signal: stop.signal })).rejects.toThrow(
      `reading the OCI artifact oci://${host}/manifests/shop at v1: stopped (interrupted)`,
    );
  });
});

describe('pullOciArtifact with the credentials of helm registry login (or Docker) for a registry that asks', () => {
  let server: Server;
  let host: string;
  const user = 'robot';
  const password = 's3cr3t-pa55';
  let layer: Buffer;
  let manifest: string;
  let basicOnly = false;
  const basic = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  beforeAll(async () => {
    const src = tempDir('oci-auth-src');
    mkdirSync(join(src, 'deploy'));
    writeFileSync(join(src, 'deploy', 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: private}\n');
    const archive = join(tempDir('oci-auth-tar'), 'layer.tgz');
    expect(spawnSync('tar', ['czf', archive, '-C', src, '.']).status).toBe(0);
    layer = readFileSync(archive);
    const digest = `sha256:${createHash('sha256').update(layer).digest('hex')}`;
    manifest = JSON.stringify({ schemaVersion: 2, layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest }] });
    // A registry that answers only with a token its realm gives for the right basic credentials (or, basicOnly, that
    // takes the basic credentials themselves).
    server = createServer((req, res) => {
      const auth = req.headers.authorization ?? '';
      if (req.url?.startsWith('/token')) {
        if (auth !== basic) return void res.writeHead(401).end();
        return void res.end(JSON.stringify({ token: 'granted' }));
      }
      const allowed = basicOnly ? auth === basic : auth === 'Bearer granted';
      if (!allowed) {
        const challenge = basicOnly ? 'Basic realm="registry"' : `Bearer realm="http://${host}/token",service="test",scope="repository:private/app:pull"`;
        return void res.writeHead(401, { 'www-authenticate': challenge }).end();
      }
      if (req.url?.endsWith('/manifests/v1')) return void res.end(manifest);
      if (req.url?.includes('/blobs/')) return void res.end(layer);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  /** A home whose Helm registry config (or Docker config) holds these entries. */
  const home = (which: 'helm' | 'docker', config: object) => {
    const h = tempDir('oci-auth-home');
    const dir = which === 'helm' ? join(h, '.config', 'helm', 'registry') : join(h, '.docker');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    return { HOME: h, PATH: process.env.PATH };
  };
  const auth = (u: string, p: string) => ({ auths: { [host]: { auth: Buffer.from(`${u}:${p}`).toString('base64') } } });

  it("pulls with helm registry login's credentials through the registry's token realm, and with Docker's by basic authentication", async () => {
    basicOnly = false;
    const pulled = await pullOciArtifact(`oci://${host}/private/app`, 'v1', { env: home('helm', auth(user, password)) });
    expect(readFileSync(join(pulled.dir, 'deploy', 'cm.yaml'), 'utf8')).toContain('name: private');
    basicOnly = true;
    const docker = await pullOciArtifact(`oci://${host}/private/app`, 'v1', {
      env: home('docker', { auths: { [`https://${host}/v2/`]: { username: user, password } } }),
    });
    expect(readFileSync(join(docker.dir, 'deploy', 'cm.yaml'), 'utf8')).toContain('name: private');
  });

  it('takes a credential helper for the host (docker-credential-NAME get)', async () => {
    basicOnly = false;
    const bin = tempDir('oci-auth-bin');
    writeFileSync(
      join(bin, 'docker-credential-test'),
      `#!/bin/sh\nread host\n[ "$host" = "${host}" ] || exit 1\necho '{"Username":"${user}","Secret":"${password}"}'\n`,
      { mode: 0o755 },
    );
    const env = { ...home('docker', { credHelpers: { [host]: 'test' } }), PATH: `${bin}:${process.env.PATH}` };
    const pulled = await pullOciArtifact(`oci://${host}/private/app`, 'v1', { env });
    expect(readFileSync(join(pulled.dir, 'deploy', 'cm.yaml'), 'utf8')).toContain('name: private');
  });

  it('says where credentials were (or were not) found when the registry refuses, never the credentials', async () => {
    basicOnly = false;
    const wrong = home('helm', auth(user, 'not-the-password'));
    const refused = await pullOciArtifact(`oci://${host}/private/app`, 'v1', { env: wrong }).catch((e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(InputError);
    expect((refused as Error).message).toBe(
      `reading the OCI artifact oci://${host}/private/app at v1: the registry answered 401: the registry refused the credentials for ${host} from ${join(wrong.HOME, '.config', 'helm', 'registry', 'config.json')}`,
    );
    expect((refused as Error).message).not.toContain('not-the-password');
    const none = { HOME: tempDir('oci-auth-empty') };
    await expect(pullOciArtifact(`oci://${host}/private/app`, 'v1', { env: none })).rejects.toThrow(
      `the registry answered 401: no credentials for ${host} in ${join(none.HOME, '.config', 'helm', 'registry', 'config.json')} or ${join(none.HOME, '.docker', 'config.json')} (helm registry login ${host})`,
    );
  });
});
