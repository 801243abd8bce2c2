// `appset generate`: the Applications an ApplicationSet makes, as Argo CD's ApplicationSet controller makes them. Reads
// the ApplicationSet (a file, or by name from the cluster), answers the generators' reads (Git through the same cache as
// sources, cluster Secrets through the gateway, only when a clusters generator asks) and runs the core
// (appset/applications.ts) with the embedded Go template engine.
import { readFileSync } from 'node:fs';
import { GeneratorError, generateApplications, parseApplicationSet, RefusedGeneratorError, TemplateError } from '../../appset/applications.js';
import type { ClusterSecret, GeneratorInputs } from '../../appset/generators.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { RunContext } from '../../model/context.js';
import { InputError, RefusedError } from '../../model/errors.js';
import { controlPlaneNamespace, SECRET_TYPE } from '../../model/keys.js';
import type { KubeObject } from '../../model/object.js';
import { parseYamlValues } from '../../manifest/parse.js';
import { readBlobs, listTree } from '../../source/git.js';
import { openRevision } from '../../source/index.js';
import { SourceReads } from '../../source/shared-reads.js';
import { goTemplateEngine } from './engine.js';
import { LAST_APPLIED } from '../../model/keys.js';

export interface AppSetGenerateRequest {
  /** A file holding the ApplicationSet (`-` = stdin)… */
  file?: string;
  /** …or its name, read from the cluster in the Applications' namespace (--app-namespace). */
  name?: string;
  /** Argo CD's control-plane namespace, where its cluster Secrets live (--argocd-namespace, default argocd). */
  argocdNamespace?: string;
  /** A local clone to read every git generator's repository from (--repo-dir). */
  repoDir?: string;
  /**
   * The revision a git generator reads instead of its own (`plan` expands an ApplicationSet at the pull request's base
   * and at its head); absent: each generator's own revision.
   */
  revisionOf?: (repoURL: string, revision: string) => string;
}

export interface AppSetGenerateReport {
  /** `<namespace>/<name>` of the ApplicationSet, and where it was read. */
  applicationSet: string;
  origin: string;
  applications: KubeObject[];
  /** Applications Argo CD's controller would not write (a duplicate name), `namespace/name` and its message. */
  invalid: { name: string; error: string }[];
}

async function readFromFile(file: string, ctx: RunContext): Promise<unknown> {
  let text: string;
  try {
    text = file === '-' ? await ctx.io.readStdin() : readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`reading ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`, { cause: e });
  }
  const docs = parseYamlValues(text, file).filter((d) => d !== null && d !== undefined);
  if (docs.length !== 1) throw new InputError(`${file}: expected one ApplicationSet, found ${docs.length} documents`);
  return docs[0];
}

async function readFromCluster(gw: KubeGateway, namespace: string, name: string): Promise<unknown> {
  const { preferred } = await gw.discover();
  const type = preferred.find((t) => t.group === 'argoproj.io' && t.kind === 'ApplicationSet');
  if (!type) throw new InputError('the cluster does not serve argoproj.io ApplicationSets (no Argo CD ApplicationSet CRD)');
  const obj = await gw.get(type, namespace, name);
  if (!obj) throw new InputError(`ApplicationSet ${namespace}/${name} not found`);
  return obj;
}

async function clusterSecrets(gw: KubeGateway, namespace: string): Promise<ClusterSecret[]> {
  const type = await gw.resolve('v1', 'Secret');
  if (!type) return [];
  const res = await gw.list(type, { namespace, labelSelector: `${SECRET_TYPE}=cluster` });
  // Only the fields the generator gives out are decoded; credentials are never read.
  return res.items.map((o) => {
    const data = (o as { data?: Record<string, unknown> }).data ?? {};
    const text = (k: string) => (typeof data[k] === 'string' ? Buffer.from(data[k] as string, 'base64').toString('utf8') : undefined);
    const project = text('project');
    const configError = clusterConfigError(text('config'));
    return {
      name: text('name') ?? '',
      server: text('server') ?? '',
      secretName: o.metadata.name ?? '',
      ...(configError !== undefined ? { configError } : {}),
      ...(project !== undefined ? { project } : {}),
      labels: { ...(o.metadata.labels ?? {}) },
      annotations: withoutLastApplied(o.metadata.annotations ?? {}),
    };
  });
}

/**
 * Why a cluster Secret's `config` would not decode into Argo CD's ClusterConfig (db.SecretToCluster), or undefined: not
 * JSON, or JSON that is not an object (null decodes to nothing, as in Go). The text is never quoted: it holds
 * credentials. Fields of the wrong type inside the object are not checked.
 */
function clusterConfigError(config: string | undefined): string | undefined {
  if (config === undefined || config === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(config);
  } catch {
    return 'the config is not valid JSON';
  }
  if (parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))) return undefined;
  const jsonType = Array.isArray(parsed) ? 'array' : typeof parsed === 'string' ? 'string' : typeof parsed === 'number' ? 'number' : 'bool';
  return `json: cannot unmarshal ${jsonType} into Go value of type v1alpha1.ClusterConfig`;
}

/**
 * A cluster Secret's annotations without `kubectl.kubernetes.io/last-applied-configuration`: a Secret made by
 * `kubectl apply` keeps its whole body there, bearer token and TLS keys included. Argo CD's generator hands it to the
 * template like any annotation (`{{ toJson .metadata }}` prints the token); this tool never gives a Secret value out.
 */
function withoutLastApplied(annotations: Record<string, string>): Record<string, string> {
  const { [LAST_APPLIED]: _dropped, ...rest } = annotations;
  return rest;
}

/** The generators' reads: Git through the Git cache (each repository and revision listed once), Secrets through `gateway`. */
function inputs(ctx: RunContext, req: AppSetGenerateRequest, reads: SourceReads, gateway: () => Promise<KubeGateway>): GeneratorInputs {
  const opts = { reads, ...(req.repoDir !== undefined ? { repoDir: req.repoDir } : {}) };
  const open = (repoURL: string, given: string) => {
    const revision = req.revisionOf ? req.revisionOf(repoURL, given) : given;
    return reads.once(`appset|${repoURL}|${revision}`, async () => {
      const at = await openRevision(repoURL, revision, 'git generator revision', opts, ctx.io);
      const tree = await listTree(at.dir, at.sha, '');
      return { ...at, tree };
    });
  };
  return {
    async gitFiles(repoURL, revision) {
      const { tree } = await open(repoURL, revision);
      return tree.filter((e) => e.type === 'blob').map((e) => e.path);
    },
    async gitRead(repoURL, revision, paths) {
      const { tree, dir } = await open(repoURL, revision);
      const sha = new Map(tree.map((e) => [e.path, e.sha]));
      const blobs = await readBlobs(
        dir,
        paths.map((p) => sha.get(p) as string),
      );
      return new Map(paths.map((p) => [p, blobs.get(sha.get(p) as string)?.toString('utf8') ?? '']));
    },
    async clusterSecrets() {
      return clusterSecrets(await gateway(), controlPlaneNamespace(req.argocdNamespace));
    },
  };
}

/**
 * Reads and expands the ApplicationSet with the cluster `gateway` gives (asked for only when needed); also returns the
 * object as read, for `appset sync`. A refused generator is a RefusedError (exit 4); a wrong ApplicationSet an
 * InputError naming it.
 */
export async function expandAppSet(
  ctx: RunContext,
  req: AppSetGenerateRequest,
  gateway: () => Promise<KubeGateway>,
): Promise<{ report: AppSetGenerateReport; raw: unknown; fromCluster: boolean }> {
  const reads = new SourceReads();
  try {
    let raw: unknown;
    let origin: string;
    if (req.file !== undefined) {
      raw = await readFromFile(req.file, ctx);
      origin = req.file === '-' ? '<stdin>' : req.file;
    } else if (req.name !== undefined) {
      raw = await readFromCluster(await gateway(), ctx.opts.appNamespace, req.name);
      origin = `ApplicationSet ${ctx.opts.appNamespace}/${req.name}`;
    } else throw new InputError('appset: give a FILE (-f) or the NAME of an ApplicationSet');
    const appset = parseApplicationSet(raw, ctx.opts.appNamespace);
    if (typeof appset === 'string') throw new InputError(`${origin}: ${appset}`);
    try {
      const r = await generateApplications(appset, inputs(ctx, req, reads, gateway), goTemplateEngine(ctx.io.env));
      return {
        report: { applicationSet: `${appset.namespace}/${appset.name}`, origin, applications: r.applications as KubeObject[], invalid: r.invalid },
        raw,
        fromCluster: req.file === undefined,
      };
    } catch (e) {
      if (e instanceof RefusedGeneratorError) throw new RefusedError(`${origin}: ${e.message}`, { cause: e });
      if (e instanceof GeneratorError || e instanceof TemplateError) throw new InputError(`${origin}: ${e.message}`, { cause: e });
      throw e;
    }
  } finally {
    reads.close();
  }
}

/** Expands the ApplicationSet (see expandAppSet), connecting to the cluster only when something asks for it. */
export async function runAppSetGenerate(ctx: RunContext, req: AppSetGenerateRequest): Promise<AppSetGenerateReport> {
  const { withControlPlane } = await import('../session/session.js');
  let release: (() => void) | undefined;
  let connecting: Promise<KubeGateway> | undefined;
  // One connection, made the first time something asks for the cluster, kept until the end.
  const gateway = (): Promise<KubeGateway> => {
    connecting ??= new Promise<KubeGateway>((resolve, reject) => {
      const done = new Promise<void>((r) => (release = r));
      withControlPlane(ctx, 'appset generate', async (g) => {
        resolve(g);
        await done;
      }).catch(reject);
    });
    return connecting;
  };
  try {
    return (await expandAppSet(ctx, req, gateway)).report;
  } finally {
    release?.();
  }
}
