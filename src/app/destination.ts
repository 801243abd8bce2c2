// Which kubeconfig context an Application's destination names (pure): Argo CD's `server`/`name` matched against
// the kubeconfig's contexts and clusters and, where the Application came from a cluster, Argo CD's cluster Secrets.
// A destination that names no context, several, or not the one an explicit --context names is a refusal, as data.

/** `server` of the cluster Argo CD runs in (Argo CD's KubernetesInternalAPIServerAddr). */
export const IN_CLUSTER_SERVER = 'https://kubernetes.default.svc';
/** The name Argo CD gives that cluster. */
export const IN_CLUSTER_NAME = 'in-cluster';

/** One kubeconfig context with the server of its cluster. */
export interface ContextInfo {
  name: string;
  cluster: string;
  server: string;
}

/** What one Argo CD cluster Secret (`argocd.argoproj.io/secret-type: cluster`) says: its `name` and `server`. */
export interface ClusterSecretInfo {
  /** `namespace/name` of the Secret, for messages. */
  secret: string;
  name?: string;
  server?: string;
}

export interface DestinationInput {
  destination: { server?: string; name?: string };
  contexts: readonly ContextInfo[];
  /**
   * The context the Application was read from (read from the cluster), or the one the user is in (`--context`,
   * else current-context) for an Application read from a file. Absent when neither is set.
   */
  appContext?: string;
  /** The Application was read from the cluster (appContext is where Argo CD would run). */
  appFromCluster: boolean;
  /** `--context` was given. */
  explicitContext: boolean;
  clusterSecrets: readonly ClusterSecretInfo[];
  /**
   * The context kubectl builds from `--server` (or `--cluster`): the selected context with that server, or one made of
   * the flags alone when the kubeconfig has none. It reaches the destination when no kubeconfig context does and the
   * destination is in-cluster or names that server (by URL, or by a cluster Secret's name paired with it).
   */
  flagContext?: ContextInfo & { via: string };
}

export type DestinationResolution = { ok: true; context: string; server: string; why: string } | { ok: false; refused: string; candidates: string[] };

/**
 * A server URL as it is compared: scheme and host lower-cased, the scheme's default port dropped, no trailing
 * slash. A string that is no URL is compared as written, less trailing slashes.
 */
export function normalizeServer(server: string): string {
  const s = server.trim();
  try {
    const u = new URL(s);
    const path = u.pathname.replace(/\/+$/, '');
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ''}${path}${u.search}`;
  } catch {
    return s.replace(/\/+$/, '');
  }
}

/** How the destination is written, for messages: `server https://…` or `name prod`. */
export function describeDestination(d: { server?: string; name?: string }): string {
  const parts = [d.server ? `server ${d.server}` : '', d.name ? `name ${d.name}` : ''].filter((p) => p !== '');
  return parts.length ? parts.join(', ') : 'no server or name';
}

function describeContexts(list: readonly ContextInfo[]): string {
  return list.map((c) => `${c.name} (${c.server})`).join(', ');
}

/** Resolves the destination to one context, or refuses naming the destination and the candidates. */
export function resolveDestination(input: DestinationInput): DestinationResolution {
  const d = input.destination;
  const what = `spec.destination (${describeDestination(d)})`;
  const refuse = (why: string, candidates: readonly ContextInfo[] = []): DestinationResolution => ({
    ok: false,
    refused: `${what}: ${why}`,
    candidates: candidates.map((c) => c.name),
  });
  if (d.server && d.name) return refuse('sets both server and name; Argo CD refuses such an Application, and so does this tool');
  if (!d.server && !d.name) return refuse(`names no cluster: set server (${IN_CLUSTER_SERVER} for the cluster the Application runs in) or name`);

  const byName = (name: string) => input.contexts.find((c) => c.name === name);
  const secretsNamed = d.name ? input.clusterSecrets.filter((s) => s.name === d.name) : [];
  const inCluster =
    (d.server !== undefined && normalizeServer(d.server) === IN_CLUSTER_SERVER) ||
    d.name === IN_CLUSTER_NAME ||
    secretsNamed.some((s) => s.server !== undefined && normalizeServer(s.server) === IN_CLUSTER_SERVER);
  if (inCluster) {
    // With --server the cluster the Application runs in is the one the flags reach, whichever context carries them.
    const flag = input.flagContext;
    if (flag) return { ok: true, context: flag.name, server: flag.server, why: `in-cluster: the cluster ${flag.via} names` };
    const ctx = input.appContext === undefined ? undefined : byName(input.appContext);
    if (!ctx) return refuse('is the cluster the Application runs in, but no context is selected (give --context, or set current-context)');
    const why = input.appFromCluster
      ? 'in-cluster: the cluster the Application was read from'
      : `in-cluster: the ${input.explicitContext ? '--context' : 'current context'}`;
    return { ok: true, context: ctx.name, server: ctx.server, why };
  }

  // The URLs and names that stand for the destination: its own, and what Argo CD's cluster Secrets pair with them.
  const urls = new Set<string>();
  const names = new Set<string>();
  if (d.server) {
    urls.add(normalizeServer(d.server));
    for (const s of input.clusterSecrets) if (s.server && s.name && normalizeServer(s.server) === normalizeServer(d.server)) names.add(s.name);
  }
  if (d.name) {
    names.add(d.name);
    for (const s of secretsNamed) if (s.server) urls.add(normalizeServer(s.server));
  }
  const matched = input.contexts.filter((c) => urls.has(normalizeServer(c.server)) || names.has(c.name) || names.has(c.cluster));
  // A context matched by name only, whose server is not a URL the destination is known by (its own, or what a cluster
  // Secret pairs with its name), may be another cluster of that name: it is taken only when --context names it (a
  // tunnel or proxy to the same cluster), and never beside a context that reaches the destination's URL.
  const unverified = (c: ContextInfo) => urls.size > 0 && !urls.has(normalizeServer(c.server));
  const verified = matched.filter((c) => !unverified(c));
  const candidates = verified.length > 0 ? verified : matched;
  const named = (c: ContextInfo) => input.explicitContext && input.appContext === c.name;
  const unconfirmed = (c: ContextInfo): DestinationResolution =>
    refuse(
      `the context ${c.name} is named as its cluster but reaches ${c.server}, not ${[...urls].join(' or ')}: it may be another cluster; name it with --context ${c.name} to act there (a tunnel or proxy to the same cluster)`,
      [c],
    );
  const known = input.contexts.length ? `the kubeconfig's contexts: ${describeContexts(input.contexts)}` : 'the kubeconfig has no contexts';
  const flag = input.flagContext;
  if (candidates.length === 0 && flag && urls.has(normalizeServer(flag.server))) {
    return { ok: true, context: flag.name, server: flag.server, why: `${flag.via} names the destination's server` };
  }
  if (candidates.length === 0) {
    const secrets = d.name && input.appFromCluster && secretsNamed.length === 0 ? `; no Argo CD cluster Secret is named ${d.name}` : '';
    return refuse(`no kubeconfig context reaches it (${known}${secrets})${flag ? `, and ${flag.via} names another cluster` : ''}`);
  }
  const preferred = input.appContext === undefined ? undefined : candidates.find((c) => c.name === input.appContext);
  if (preferred && unverified(preferred) && !named(preferred)) return unconfirmed(preferred);
  if (preferred) return { ok: true, context: preferred.name, server: preferred.server, why: whyMatched(preferred, urls, names) };
  if (input.explicitContext && !input.appFromCluster) {
    const at = input.appContext !== undefined ? byName(input.appContext) : undefined;
    return refuse(
      `--context ${input.appContext ?? ''}${at ? ` (${at.server})` : ''} is another cluster; the destination is reached by ${describeContexts(candidates)}`,
      candidates,
    );
  }
  if (candidates.length > 1) return refuse(`several kubeconfig contexts reach it: ${describeContexts(candidates)}; name one with --context`, candidates);
  const only = candidates[0] as ContextInfo;
  if (unverified(only)) return unconfirmed(only);
  return { ok: true, context: only.name, server: only.server, why: whyMatched(only, urls, names) };
}

function whyMatched(c: ContextInfo, urls: ReadonlySet<string>, names: ReadonlySet<string>): string {
  if (urls.has(normalizeServer(c.server))) return `the context's cluster server is ${c.server}`;
  if (urls.size > 0) return `--context ${c.name}, named as the destination's cluster (its server ${c.server} is not the destination's URL)`;
  if (names.has(c.name)) return `the context is named ${c.name}`;
  return `the context's cluster is named ${c.cluster}`;
}
