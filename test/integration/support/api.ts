// A raw HTTPS request to the test cluster's API server with the admin client certificate from its
// kubeconfig, for tests that must see status codes and bodies exactly as the server sends them.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parse } from 'yaml';
import { kubeconfigPath } from './index.js';

interface Credentials {
  server: URL;
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
}

interface KubeconfigFile {
  clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  users?: { user?: { 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
}

function credentials(): Credentials {
  const file = parse(readFileSync(kubeconfigPath(), 'utf8')) as KubeconfigFile;
  const cluster = file.clusters?.[0]?.cluster;
  const user = file.users?.[0]?.user;
  const server = cluster?.server;
  const ca = cluster?.['certificate-authority-data'];
  const cert = user?.['client-certificate-data'];
  const key = user?.['client-key-data'];
  if (!server || !ca || !cert || !key) throw new Error(`reading ${kubeconfigPath()}: expected embedded certificate data`);
  const b64 = (s: string) => Buffer.from(s, 'base64');
  return { server: new URL(server), ca: b64(ca), cert: b64(cert), key: b64(key) };
}

export interface ApiResponse {
  status: number;
  /** The body parsed as JSON when it is JSON, else the raw text. */
  body: unknown;
}

/** Sends one request (path with query string, e.g. `/api/v1/namespaces?limit=1`) and returns status and body. */
export function apiRequest(method: string, path: string, body?: string, contentType = 'application/json'): Promise<ApiResponse> {
  const creds = credentials();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: creds.server.hostname,
        port: creds.server.port,
        method,
        path,
        ca: creds.ca,
        cert: creds.cert,
        key: creds.key,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(body) }),
        },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out after 30 s')));
    req.on('error', (e) => reject(new Error(`requesting ${method} ${path}`, { cause: e })));
    if (body !== undefined) req.write(body);
    req.end();
  });
}
