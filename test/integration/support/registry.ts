// The CNCF distribution registry the local control plane builds from its Go module (clusterBin()/registry), served on
// a free loopback port with its storage under `work`, for the suites that read OCI registries (Helm charts, OCI sources).
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { clusterBin } from './index.js';

export interface LocalRegistry {
  /** `127.0.0.1:PORT`, as an oci:// URL names it. */
  host: string;
  process: ChildProcess;
}

/** Starts the registry and resolves once its API answers; throws when it does not within 20 s. */
export async function startRegistry(work: string): Promise<LocalRegistry> {
  const port = await new Promise<number>((resolve) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const p = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(p));
    });
  });
  const host = `127.0.0.1:${port}`;
  const config = join(work, 'registry.yaml');
  writeFileSync(config, `version: 0.1\nlog: {level: error}\nstorage: {filesystem: {rootdirectory: ${join(work, 'data')}}}\nhttp: {addr: ${host}}\n`);
  const child = spawn(join(clusterBin(), 'registry'), ['serve', config], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://${host}/v2/`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (up) return { host, process: child };
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`the registry on ${host} did not answer within 20 s`);
}
