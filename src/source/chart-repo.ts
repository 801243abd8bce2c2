// Charts from a Helm repository (source.chart with an http(s) repoURL) or an OCI registry (a repoURL without a scheme,
// as Argo CD writes it, or oci://), fetched as Argo CD's repo-server fetches them: `helm pull` of targetRevision (an
// exact version, or a semver range such as `6.*` that Helm resolves to the highest match, as Argo CD's MaxVersion
// does) with the user's own Helm settings and credentials; the archive is cached by repository, chart and version in
// <cache home>/charts/ (see cache-home.ts), and unpacked for each render.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cacheHome } from './cache-home.js';
import { join } from 'node:path';
import { InputError } from '../model/errors.js';
import { runTool } from './render/tools.js';
import type { MaterialisedTree } from './render/tree.js';
import { redactURL } from './repo-url.js';

/** Where a chart's repoURL points: a Helm repository over HTTP(S), or an OCI registry (`oci://`, or no scheme). */
export function chartRepoKind(repoURL: string): 'http' | 'oci' {
  return /^https?:\/\//i.test(repoURL.trim()) ? 'http' : 'oci';
}

/** A registry on this machine (localhost, 127.0.0.0/8, ::1): spoken to over plain HTTP, as Docker treats such registries. */
export function isLoopbackRegistry(base: string): boolean {
  const host = base
    .replace(/\/.*$/, '')
    .replace(/:\d+$/, '')
    .replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** What `helm pull` is given for the chart: `CHART --repo URL`, or `oci://REGISTRY/PATH/CHART` (--plain-http on loopback). */
export function pullTarget(repoURL: string, chart: string, passCredentials?: boolean): string[] {
  if (chartRepoKind(repoURL) === 'http') return [chart, '--repo', repoURL.trim(), ...(passCredentials ? ['--pass-credentials'] : [])];
  const base = repoURL
    .trim()
    .replace(/^oci:\/\//i, '')
    .replace(/\/+$/, '');
  return [`oci://${base}/${chart}`, ...(isLoopbackRegistry(base) ? ['--plain-http'] : [])];
}

/** An exact chart version (no range operator, wildcard or space): used as it is, and found in the cache without asking. */
export function isExactVersion(v: string): boolean {
  return /^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(v.trim());
}

export function chartCacheDir(env: Record<string, string | undefined>, repoURL: string): string {
  return join(cacheHome(env), 'charts', createHash('sha256').update(repoURL.trim()).digest('hex').slice(0, 16));
}

export interface PulledChart {
  /** The chart version that was resolved and pulled. */
  version: string;
  /** The archive in the cache. */
  archive: string;
}

/**
 * The chart archive for `version` (exact or a range; '' = the newest, which Application sources never ask for: Argo CD
 * requires a targetRevision for a chart, see requireChartVersion): from the cache when the version is exact and
 * cached, else `helm pull --repo` (with --pass-credentials when asked). Failures are exit 2 with Helm's words.
 */
export async function pullChart(r: {
  repoURL: string;
  chart: string;
  version: string;
  helm: string;
  env: Record<string, string | undefined>;
  passCredentials?: boolean;
  hardRefresh?: boolean;
  signal?: AbortSignal;
}): Promise<PulledChart> {
  const label = `${r.chart}@${r.version || 'latest'} from ${redactURL(r.repoURL)}`;
  if (/[/\\]/.test(r.chart) || r.chart.startsWith('.') || r.chart.startsWith('-'))
    throw new InputError(`spec.source.chart ${JSON.stringify(r.chart)} is not a chart name`);
  const version = r.version.trim();
  if (version.startsWith('-')) throw new InputError(`the chart version ${JSON.stringify(r.version)} of ${r.chart} is not a version or a range`);
  const dir = chartCacheDir(r.env, r.repoURL);
  const exact = isExactVersion(version) ? version.replace(/^v/, '') : undefined;
  if (exact !== undefined && !r.hardRefresh) {
    const cached = join(dir, `${r.chart}-${exact}.tgz`);
    if (existsSync(cached)) return { version: exact, archive: cached };
  }
  mkdirSync(dir, { recursive: true });
  const scratch = mkdtempSync(join(dir, '.pull-'));
  try {
    const args = ['pull', ...pullTarget(r.repoURL, r.chart, r.passCredentials), '--destination', scratch, ...(version !== '' ? ['--version', version] : [])];
    let res;
    try {
      res = await runTool(r.helm, args, { env: r.env, ...(r.signal ? { signal: r.signal } : {}) });
    } catch (e) {
      throw new InputError(`running ${r.helm}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
    }
    if (res.code !== 0) throw new InputError(`helm pull failed for ${label}: ${res.stderr.trim() || `exit ${res.code}`}`);
    const file = readdirSync(scratch).find((f) => f.startsWith(`${r.chart}-`) && f.endsWith('.tgz'));
    if (!file) throw new InputError(`helm pull of ${label} left no ${r.chart}-<version>.tgz`);
    const pulled = file.slice(r.chart.length + 1, -'.tgz'.length);
    const archive = join(dir, file);
    renameSync(join(scratch, file), archive);
    return { version: pulled, archive };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The archive unpacked into a fresh temporary folder (its top folder is the chart's name), with its disposal. */
export async function unpackChart(archive: string, label: string, env: Record<string, string | undefined>): Promise<MaterialisedTree & { top: string }> {
  const root = mkdtempSync(join(tmpdir(), 'kubectl-gitops-chart-'));
  const dispose = async () => rmSync(root, { recursive: true, force: true });
  try {
    const res = await runTool('tar', ['-xzf', archive, '-C', root, '--no-same-owner'], { env });
    if (res.code !== 0) throw new InputError(`unpacking ${label}: ${res.stderr.trim() || `tar exit ${res.code}`}`);
    const tops = readdirSync(root);
    if (tops.length !== 1) throw new InputError(`unpacking ${label}: expected one chart folder, found ${tops.length}`);
    return { root, top: tops[0]!, dispose };
  } catch (e) {
    await dispose();
    if (e instanceof InputError) throw e;
    throw new InputError(`unpacking ${label}`, { cause: e });
  }
}
