// Argo CD's OCI source (v3.1: `repoURL: oci://REGISTRY/REPOSITORY` with a `path`, no `chart`): the artifact's
// manifest at targetRevision (a tag or a digest), its single content layer (a tar or tar+gzip of the manifests, or a
// Helm chart's archive, whose one top folder is the root) unpacked into a folder that is then rendered like a
// repository at that path. As Argo CD's repo-server (util/oci/client.go): at most 10 layers, exactly one content
// layer, of an allowed media type; the revision is the manifest's digest. Plain HTTP on loopback, as Docker does.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { InputError } from '../model/errors.js';
import { isLoopbackRegistry } from './chart-repo.js';
import { basicAuth, registryConfigFiles, registryCredentials, type RegistryCredentials } from './registry-auth.js';
import { isSemverConstraint, maxVersion } from './semver.js';

/** Argo CD's default `--oci-layer-media-types`. */
const ALLOWED_LAYERS = [
  'application/vnd.oci.image.layer.v1.tar',
  'application/vnd.oci.image.layer.v1.tar+gzip',
  'application/vnd.cncf.helm.chart.content.v1.tar+gzip',
];
const HELM_LAYER = 'application/vnd.cncf.helm.chart.content.v1.tar+gzip';
const MANIFEST_TYPES = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json'];
/** Argo CD's default limit on what one artifact unpacks to (--helm-manifest-max-extracted-size / oci: 1 GiB). */
const MAX_EXTRACTED = 1024 * 1024 * 1024;

/** A content layer, as Argo CD tells them (isContentLayer). */
function isContentLayer(mediaType: string): boolean {
  return mediaType.endsWith('tar+gzip') || mediaType.endsWith('tar.gzip') || mediaType.endsWith('tar');
}

/** `oci://host[:port]/repo/path` as registry and repository. */
export function parseOciUrl(repoURL: string): { registry: string; repository: string } {
  const rest = repoURL.replace(/^oci:\/\//, '');
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) throw new InputError(`repoURL ${repoURL}: an OCI source is oci://REGISTRY/REPOSITORY`);
  return { registry: rest.slice(0, slash), repository: rest.slice(slash + 1).replace(/\/+$/, '') };
}

interface Fetched {
  status: number;
  body: Buffer;
  headers: Headers;
}

/** How long one request to a registry may take (as a Git fetch's bound). */
const REGISTRY_TIMEOUT_MS = 120_000;

/**
 * A GET of the registry API. When the registry asks (401), as oras does: a bearer token from its realm (with the
 * user's credentials as basic authentication when there are some, else anonymous), or basic authentication itself.
 * The credentials are looked up only then (`creds`: their lookup, which may run a credential helper).
 */
async function registryGet(
  base: string,
  path: string,
  accept: string,
  signal: AbortSignal,
  creds: () => RegistryCredentials | undefined,
  authorization?: string,
): Promise<Fetched> {
  const res = await fetch(`${base}${path}`, { headers: { Accept: accept, ...(authorization ? { Authorization: authorization } : {}) }, signal });
  const body = Buffer.from(await res.arrayBuffer());
  if (res.status === 401 && authorization === undefined) {
    const challenge = res.headers.get('www-authenticate') ?? '';
    const found = creds();
    if (/^\s*basic\b/i.test(challenge)) {
      if (found) return registryGet(base, path, accept, signal, creds, basicAuth(found));
      return { status: res.status, body, headers: res.headers };
    }
    const realm = /realm="([^"]+)"/.exec(challenge)?.[1];
    if (realm) {
      const params = new URLSearchParams();
      for (const k of ['service', 'scope']) {
        const v = new RegExp(`${k}="([^"]+)"`).exec(challenge)?.[1];
        if (v) params.set(k, v);
      }
      const t = await fetch(`${realm}?${params}`, { signal, headers: found ? { Authorization: basicAuth(found) } : {} }).then((r) =>
        r.ok ? (r.json() as Promise<{ token?: string; access_token?: string }>) : undefined,
      );
      const got = t?.token ?? t?.access_token;
      if (got) return registryGet(base, path, accept, signal, creds, `Bearer ${got}`);
    }
  }
  return { status: res.status, body, headers: res.headers };
}

/** Why a registry request failed, in a line: the bound it overran, a stop asked for, or the network's own words. */
function registryFailure(err: unknown, timeoutMs: number): string {
  const name = (err as Error).name;
  if (name === 'TimeoutError') return `no answer from the registry within ${timeoutMs / 1000} s`;
  if (name === 'AbortError') return 'stopped (interrupted)';
  const cause = (err as { cause?: { message?: string } }).cause?.message;
  return cause ? `${(err as Error).message} (${cause})` : (err as Error).message;
}

/** The files of a tar archive (regular files only; folders are made as needed), each path checked to stay inside. */
export function untar(archive: Buffer, dest: string, warnings: string[]): void {
  let pos = 0;
  let longName: string | undefined;
  let paxPath: string | undefined;
  let total = 0;
  const root = resolve(dest);
  while (pos + 512 <= archive.length) {
    const header = archive.subarray(pos, pos + 512);
    if (header.every((b) => b === 0)) break;
    const field = (at: number, len: number) =>
      header
        .subarray(at, at + len)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = field(345, 155);
    const body = archive.subarray(pos + 512, pos + 512 + size);
    pos += 512 + Math.ceil(size / 512) * 512;
    if (type === 'L') {
      longName = body.toString('utf8').replace(/\0.*$/s, '');
      continue;
    }
    if (type === 'x') {
      const m = /\d+ path=([^\n]*)\n/.exec(body.toString('utf8'));
      paxPath = m?.[1];
      continue;
    }
    if (type === 'g') continue;
    const name = paxPath ?? longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = undefined;
    paxPath = undefined;
    const target = resolve(root, name);
    if (target !== root && !target.startsWith(root + sep)) throw new InputError(`the OCI layer holds ${JSON.stringify(name)}, a path outside the artifact`);
    if (type === '5') mkdirSync(target, { recursive: true });
    else if (type === '0' || type === '\0' || type === '7') {
      total += size;
      if (total > MAX_EXTRACTED) throw new InputError(`the OCI layer unpacks to more than ${MAX_EXTRACTED} bytes (Argo CD's limit)`);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, body);
    } else warnings.push(`the OCI layer's ${name} is neither a file nor a folder (tar type ${JSON.stringify(type)}): left out`);
  }
}

/** An OCI reference the registry API takes as it is: a tag (the distribution spec's grammar) or a digest. */
const TAG_OR_DIGEST = /^(?:[\w][\w.-]{0,127}|[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+)$/;

/** Every tag of the repository (`GET /v2/<name>/tags/list`, following its `Link` pages), `_` read back as `+`. */
async function registryTags(repository: string, get: (path: string) => Promise<Fetched>): Promise<string[]> {
  const tags: string[] = [];
  let path: string | undefined = `/v2/${repository}/tags/list`;
  for (let page = 0; path !== undefined && page < 1000; page++) {
    const res = await get(path);
    if (res.status !== 200) throw new InputError(`listing the tags of ${repository}: the registry answered ${res.status}`);
    let doc: { tags?: unknown };
    try {
      doc = JSON.parse(res.body.toString('utf8')) as { tags?: unknown };
    } catch {
      throw new InputError(`listing the tags of ${repository}: the registry's answer is not JSON`);
    }
    if (Array.isArray(doc.tags)) for (const t of doc.tags) if (typeof t === 'string') tags.push(t.replaceAll('_', '+'));
    // The next page, when there is one: `Link: </v2/<name>/tags/list?last=…&n=…>; rel="next"`.
    const next = /<([^>]+)>\s*;\s*rel="?next"?/.exec(res.headers.get('link') ?? '')?.[1];
    const url = next === undefined ? undefined : new URL(next, 'http://registry');
    path = url === undefined ? undefined : url.pathname + url.search;
  }
  return tags;
}

export interface PulledArtifact {
  /** The unpacked artifact: the root the source's path is read under. Remove it when done. */
  dir: string;
  /** The manifest's digest (`sha256:…`): the revision, as Argo CD records it. */
  digest: string;
  warnings: string[];
}

/**
 * Pulls and unpacks the artifact at `reference` (a tag or a digest); each request is bounded by `timeoutMs` (default
 * REGISTRY_TIMEOUT_MS) and stops at `signal` (Ctrl-C), failing as an input error that names the artifact.
 */
export async function pullOciArtifact(
  repoURL: string,
  reference: string,
  opts: { signal?: AbortSignal; timeoutMs?: number; env?: Record<string, string | undefined> } = {},
): Promise<PulledArtifact> {
  if (reference.trim() === '') throw new InputError(`repoURL ${repoURL}: an OCI source needs a targetRevision (a tag or a digest)`);
  const { registry, repository } = parseOciUrl(repoURL);
  const env = opts.env ?? process.env;
  // The user's credentials, looked up once and only when the registry asks for them (a public one never does).
  let lookedUp: { found: RegistryCredentials | undefined } | undefined;
  const creds = () => (lookedUp ??= { found: registryCredentials(registry, env) }).found;
  const base = `${isLoopbackRegistry(registry) ? 'http' : 'https'}://${registry}`;
  const where = `${repoURL} at ${reference}`;
  const timeoutMs = opts.timeoutMs ?? REGISTRY_TIMEOUT_MS;
  const get = async (path: string, accept: string, what: string): Promise<Fetched> => {
    const bound = AbortSignal.timeout(timeoutMs);
    try {
      return await registryGet(base, path, accept, opts.signal ? AbortSignal.any([opts.signal, bound]) : bound, creds);
    } catch (err) {
      throw new InputError(`reading ${what}: ${registryFailure(err, timeoutMs)}`, { cause: err });
    }
  };
  const manifestAt = (ref: string) => get(`/v2/${repository}/manifests/${ref}`, MANIFEST_TYPES.join(', '), `the OCI artifact ${where}`);
  // A tag or a digest is asked for as it is; a semver constraint (`1.*`, `>=1.0.0 <2.0.0`) that is not also a tag
  // names the greatest tag that satisfies it, as Argo CD's OCI client resolves it (ResolveRevision: versions.MaxVersion
  // over the repository's tags, `_` read as `+`).
  let manifest = TAG_OR_DIGEST.test(reference) ? await manifestAt(reference) : undefined;
  if ((manifest === undefined || manifest.status === 404) && isSemverConstraint(reference)) {
    const tags = await registryTags(repository, (path) => get(path, 'application/json', `the tags of ${repoURL}`));
    const max = maxVersion(reference, tags);
    if ('error' in max) throw new InputError(`the OCI artifact ${where}: no version for constraints: ${max.error}`);
    manifest = await manifestAt(max.version);
  }
  if (manifest === undefined)
    throw new InputError(`the OCI artifact ${where}: ${JSON.stringify(reference)} is neither a tag, a digest nor a semver constraint`);
  if (manifest.status === 404) throw new InputError(`the OCI artifact ${where} does not exist (the registry has no such tag or digest)`);
  if (manifest.status === 401) {
    // Where credentials were (or were not) found, never the credentials.
    const found = creds();
    const why = found
      ? `the registry refused the credentials for ${registry} from ${found.origin}`
      : `no credentials for ${registry} in ${registryConfigFiles(env).join(' or ')} (helm registry login ${registry})`;
    throw new InputError(`reading the OCI artifact ${where}: the registry answered 401: ${why}`);
  }
  if (manifest.status !== 200) throw new InputError(`reading the OCI artifact ${where}: the registry answered ${manifest.status}`);
  const digest = manifest.headers.get('docker-content-digest') ?? `sha256:${createHash('sha256').update(manifest.body).digest('hex')}`;
  const doc = JSON.parse(manifest.body.toString('utf8')) as { layers?: { mediaType: string; digest: string }[] };
  const layers = doc.layers ?? [];
  if (layers.length > 10) throw new InputError(`the OCI artifact ${where}: expected no more than 10 oci layers, got ${layers.length}`);
  const content = layers.filter((l) => isContentLayer(l.mediaType));
  for (const l of content)
    if (!ALLOWED_LAYERS.includes(l.mediaType))
      throw new InputError(`the OCI artifact ${where}: oci layer media type ${l.mediaType} is not in the list of allowed media types`);
  if (content.length !== 1) throw new InputError(`the OCI artifact ${where}: expected only a single oci content layer, got ${content.length}`);
  const layer = content[0]!;
  const blob = await get(`/v2/${repository}/blobs/${layer.digest}`, '*/*', `the OCI layer ${layer.digest} of ${where}`);
  if (blob.status !== 200) throw new InputError(`reading the OCI layer ${layer.digest} of ${where}: the registry answered ${blob.status}`);
  const got = `sha256:${createHash('sha256').update(blob.body).digest('hex')}`;
  if (layer.digest.startsWith('sha256:') && got !== layer.digest)
    throw new InputError(`the OCI layer of ${where} is ${got}, not the ${layer.digest} its manifest names`);
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-gitops-oci-'));
  const warnings: string[] = [];
  try {
    const tar = layer.mediaType.endsWith('tar') ? blob.body : gunzipSync(blob.body, { maxOutputLength: MAX_EXTRACTED });
    untar(tar, dir, warnings);
    if (layer.mediaType === HELM_LAYER) {
      // A Helm chart's archive holds one folder: its contents are the root (as Argo CD moves them).
      const { readdirSync, renameSync } = await import('node:fs');
      const top = readdirSync(dir, { withFileTypes: true });
      if (top.length !== 1 || !top[0]!.isDirectory()) throw new InputError(`the Helm chart layer of ${where}: expected 1 directory, found ${top.length}`);
      const inner = join(dir, top[0]!.name);
      for (const e of readdirSync(inner)) renameSync(join(inner, e), join(dir, e));
      rmSync(inner, { recursive: true, force: true });
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    if (err instanceof InputError) throw err;
    throw new InputError(`cannot extract contents of oci image with revision ${digest} (${where}): ${(err as Error).message}`, { cause: err });
  }
  return { dir, digest, warnings };
}
