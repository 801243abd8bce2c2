// The OCI source's pure parts: the repoURL, and unpacking a layer (files and folders, long names, nothing outside).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseOciUrl, untar } from '../../../src/source/oci.js';
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
