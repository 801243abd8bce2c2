// Builds the real gateway from the global flags. client-node is loaded only for kubeconfig users
// that need its authenticators (exec plugins, auth providers); see auth.ts.
import type { ConnectOptions, KubeOverrides } from '../model/context.js';
import { parseDuration } from '../model/duration.js';
import { ClusterError } from '../model/errors.js';
import type { KubeGateway } from './gateway.js';
import type { ClusterConnection } from './auth.js';
import type { LoadKubeConfigOptions, SelectedContext } from './kubeconfig.js';

/** Reads the kubeconfig as kubectl does and the selected context's credentials, with kubectl's connection flags applied. */
export async function resolveConnection(opts: LoadKubeConfigOptions, overrides?: KubeOverrides): Promise<ClusterConnection> {
  const { resolveKubeconfig } = await import('./kubeconfig.js');
  const { hasOverrides, resolveWithOverrides } = await import('./overrides.js');
  // kubectl's connection flags (--server, --token, --as, …) over the kubeconfig: overrides.ts.
  return contextConnection(hasOverrides(overrides) ? await resolveWithOverrides(opts, overrides) : (await resolveKubeconfig(opts)).selected);
}

/** The credentials of one context, already selected. */
async function contextConnection(selected: SelectedContext): Promise<ClusterConnection> {
  const { kubeConfigFor } = await import('./kubeconfig.js');
  const { needsClientNode, directConnection, clientNodeConnection, withImpersonation } = await import('./auth.js');
  if (!needsClientNode(selected)) return directConnection(selected);
  const kc = await kubeConfigFor(selected);
  try {
    return withImpersonation(await clientNodeConnection(kc), selected);
  } catch (err) {
    throw new ClusterError(`authenticating to ${selected.cluster.value.server as string}: ${(err as Error).message}`, { cause: err });
  }
}

/** Reads the kubeconfig (as kubectl does) and returns a gateway to the selected context's cluster; `log` takes the -v lines. */
export async function connectGateway(opts: ConnectOptions, env: Record<string, string | undefined>, log?: (line: string) => void): Promise<KubeGateway> {
  const connection = await resolveConnection({ kubeconfig: opts.kubeconfig, context: opts.context, env }, opts.overrides);
  return gatewayFor(connection, opts, env, log);
}

/** A gateway to one context, already selected (the destination's), with kubectl's connection flags applied to it. */
export async function connectContext(
  selected: SelectedContext,
  opts: ConnectOptions,
  env: Record<string, string | undefined>,
  log?: (line: string) => void,
): Promise<KubeGateway> {
  const { hasOverrides, overrideSelected } = await import('./overrides.js');
  const sel = hasOverrides(opts.overrides) ? await overrideSelected(selected, opts.overrides, { kubeconfig: opts.kubeconfig, env }) : selected;
  return gatewayFor(await contextConnection(sel), opts, env, log);
}

/** A gateway to a context that already carries kubectl's connection flags (e.g. the one `--server` builds without a kubeconfig). */
export async function connectSelected(
  selected: SelectedContext,
  opts: ConnectOptions,
  env: Record<string, string | undefined>,
  log?: (line: string) => void,
): Promise<KubeGateway> {
  return gatewayFor(await contextConnection(selected), opts, env, log);
}

async function gatewayFor(
  connection: ClusterConnection,
  opts: ConnectOptions,
  env: Record<string, string | undefined>,
  log?: (line: string) => void,
): Promise<KubeGateway> {
  const requestTimeoutMs = parseDuration(opts.requestTimeout, '--request-timeout');
  const { createClientGateway } = await import('./client-gateway.js');
  const verbosity = opts.verbosity ?? 0;
  if (verbosity >= 4)
    log?.(
      `I connecting to ${connection.server} (credentials read ${connection.via === 'client-node' ? 'by client-node' : 'from the kubeconfig'}${connection.headers['Impersonate-User'] ? `, impersonating ${String(connection.headers['Impersonate-User'])}` : ''}; request timeout ${requestTimeoutMs > 0 ? opts.requestTimeout : 'none'})\n`,
    );
  // KUBECTL_GITOPS_HTTP1=1: never offer HTTP/2 (for a proxy in the way that mishandles it).
  return createClientGateway({ connection, requestTimeoutMs, http2: env.KUBECTL_GITOPS_HTTP1 !== '1', verbosity, ...(log ? { log } : {}) });
}
