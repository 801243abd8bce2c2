// A static file server on loopback for the tests that need an HTTP repository (a Helm chart repository): GETs of the
// files under `dir`, 404 for anything else or outside it.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export async function serveFiles(dir: string, onRequest?: (url: string) => void): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    onRequest?.(req.url ?? '');
    const file = join(dir, decodeURIComponent((req.url ?? '/').split('?')[0]!).replace(/^\/+/, ''));
    if (!file.startsWith(dir + '/') || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
