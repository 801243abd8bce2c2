// The OCI source's pure parts: the repoURL, and unpacking a layer (files and folders, long names, nothing outside); and a
// pull's bounds against a loopback stand-in for a registry that does not answer (the real registry: integration).
import { spawnSync } from 'node:child_process';
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
