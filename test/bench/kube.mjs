// A minimal Kubernetes API client for the benchmark: Node HTTP/2 (or https keep-alive), the
// kubeconfig's client certificate (or token), and a bounded pool of requests in flight. No client library.
import http2 from 'node:http2';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse } from 'yaml';

/** Reads the current context of a kubeconfig file into {server, ca, cert, key, token}. */
export function readKubeconfig(path) {
  const cfg = parse(readFileSync(path, 'utf8'));
  const ctxName = cfg['current-context'];
  const ctx = (cfg.contexts ?? []).find((c) => c.name === ctxName)?.context;
  if (!ctx) throw new Error(`reading ${path}: no current context`);
  const cluster = (cfg.clusters ?? []).find((c) => c.name === ctx.cluster)?.cluster ?? {};
  const user = (cfg.users ?? []).find((u) => u.name === ctx.user)?.user ?? {};
  const base = dirname(path);
  const pick = (data, file) => (data ? Buffer.from(data, 'base64') : file ? readFileSync(resolve(base, file)) : undefined);
  return {
    server: cluster.server,
    ca: pick(cluster['certificate-authority-data'], cluster['certificate-authority']),
    cert: pick(user['client-certificate-data'], user['client-certificate']),
    key: pick(user['client-key-data'], user['client-key']),
    token: user.token,
  };
}

/**
 * A client bound to one kubeconfig: `request(method, path, {body, contentType, accept})` and
 * `pool(items, fn)`. HTTP/2 over one TLS connection (as Go's client, hence kubectl, talks to the API
 * server), so concurrency costs streams, not handshakes; `http1: true` uses an https keep-alive agent instead.
 */
export function makeClient(kubeconfigPath, { concurrency = 48, http1 = process.env.BENCH_HTTP1 === '1' } = {}) {
  const kc = readKubeconfig(kubeconfigPath);
  const url = new URL(kc.server);
  const tls = { ca: kc.ca, cert: kc.cert, key: kc.key };
  const agent = http1 ? new https.Agent({ keepAlive: true, maxSockets: concurrency, ...tls }) : undefined;
  let session;
  const h2 = () => {
    if (!session || session.closed || session.destroyed) {
      // Go's HTTP/2 transport's flow-control windows (4 MiB a stream, 1 GiB the connection), as kubectl's client,
      // and as the plugin's (src/kube/h2-session.ts), instead of HTTP/2's default 64 KiB.
      const s = http2.connect(url.origin, { ...tls, settings: { initialWindowSize: 4 << 20 } });
      s.once('connect', () => s.setLocalWindowSize(1 << 30));
      s.on('error', () => {});
      session = s;
    }
    return session;
  };
  let requests = 0;

  function finish(method, path, status, text, res, rej) {
    if (status >= 400) {
      const err = new Error(`${method} ${path}: HTTP ${status}: ${text.slice(0, 300)}`);
      err.status = status;
      rej(err);
    } else res(text.length ? JSON.parse(text) : undefined);
  }

  function request(method, path, { body, contentType = 'application/json', accept = 'application/json' } = {}) {
    requests++;
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers = { accept };
    if (payload !== undefined) headers['content-type'] = contentType;
    if (kc.token) headers.authorization = `Bearer ${kc.token}`;
    return new Promise((res, rej) => {
      const chunks = [];
      if (!http1) {
        const stream = h2().request({ ':method': method, ':path': path, ...headers });
        let status = 0;
        stream.on('response', (h) => (status = h[':status']));
        stream.on('data', (c) => chunks.push(c));
        stream.on('end', () => finish(method, path, status, Buffer.concat(chunks).toString('utf8'), res, rej));
        stream.on('error', (e) => rej(new Error(`${method} ${path}: ${e.message}`, { cause: e })));
        stream.end(payload);
        return;
      }
      if (payload !== undefined) headers['content-length'] = Buffer.byteLength(payload);
      const req = https.request({ agent, host: url.hostname, port: url.port || 443, method, path, headers }, (resp) => {
        resp.on('data', (c) => chunks.push(c));
        resp.on('end', () => finish(method, path, resp.statusCode, Buffer.concat(chunks).toString('utf8'), res, rej));
        resp.on('error', rej);
      });
      req.on('error', (e) => rej(new Error(`${method} ${path}: ${e.message}`, { cause: e })));
      req.end(payload);
    });
  }

  /** Runs fn over items with at most `concurrency` in flight; rejects on the first failure. */
  async function pool(items, fn, n = concurrency) {
    const out = new Array(items.length);
    let next = 0;
    async function worker() {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }
    await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
    return out;
  }

  const close = () => (http1 ? agent.destroy() : session?.close());
  return { request, pool, close, requests: () => requests };
}

/** REST path of a collection: core kinds under /api/v1, others under /apis/<group>/<version>. */
export function collectionPath(apiVersion, plural, namespace) {
  const prefix = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace ? `${prefix}/namespaces/${namespace}/${plural}` : `${prefix}/${plural}`;
}

/** The plural resource names of the kinds the generator writes (discovery is not needed for these). */
export const PLURALS = {
  Deployment: 'deployments',
  Service: 'services',
  ConfigMap: 'configmaps',
  Secret: 'secrets',
  ServiceAccount: 'serviceaccounts',
  Role: 'roles',
  ReplicaSet: 'replicasets',
  Pod: 'pods',
};

/** Path of one object for GET/PATCH/DELETE. */
export function objectPath(obj, namespace) {
  return `${collectionPath(obj.apiVersion, PLURALS[obj.kind], obj.metadata.namespace ?? namespace)}/${obj.metadata.name}`;
}
