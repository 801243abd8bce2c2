// Builds the real gateway from the global flags. client-node is loaded only for kubeconfig users
// that need its authenticators (exec plugins, auth providers); see auth.ts.
import type { GlobalOptions } from '../cli/options.js';
import { parseDuration } from '../cli/duration.js';
import { ClusterError } from '../cli/exit-codes.js';
import type { KubeGateway } from './gateway.js';
import type { ClusterConnection } from './auth.js';
import type { LoadKubeConfigOptions, SelectedContext } from './kubeconfig.js';

/** Reads the kubeconfig as kubectl does and the selected context's credentials. */
export async function resolveConnection(opts: LoadKubeConfigOptions): Promise<ClusterConnection> {
  const { resolveKubeconfig } = await import('./kubeconfig.js');
  return contextConnection((await resolveKubeconfig(opts)).selected);
}

/** The credentials of one context, already selected. */
export async function contextConnection(selected: SelectedContext): Promise<ClusterConnection> {
  const { kubeConfigFor } = await import('./kubeconfig.js');
  const { needsClientNode, directConnection, clientNodeConnection } = await import('./auth.js');
  if (!needsClientNode(selected)) return directConnection(selected);
  const kc = await kubeConfigFor(selected);
  try {
    return await clientNodeConnection(kc);
  } catch (err) {
    throw new ClusterError(`authenticating to ${selected.cluster.value.server as string}: ${(err as Error).message}`, { cause: err });
  }
}

/** Reads the kubeconfig (as kubectl does) and returns a gateway to the selected context's cluster. */
export async function connectGateway(opts: GlobalOptions, env: Record<string, string | undefined>): Promise<KubeGateway> {
  const requestTimeoutMs = parseDuration(opts.requestTimeout, '--request-timeout');
  const connection = await resolveConnection({ kubeconfig: opts.kubeconfig, context: opts.context, env });
  return gatewayFor(connection, requestTimeoutMs, env);
}

/** A gateway to one context, already selected (the destination's). */
export async function connectContext(selected: SelectedContext, opts: GlobalOptions, env: Record<string, string | undefined>): Promise<KubeGateway> {
  const requestTimeoutMs = parseDuration(opts.requestTimeout, '--request-timeout');
  return gatewayFor(await contextConnection(selected), requestTimeoutMs, env);
}

async function gatewayFor(connection: ClusterConnection, requestTimeoutMs: number, env: Record<string, string | undefined>): Promise<KubeGateway> {
  const { createClientGateway } = await import('./client-gateway.js');
  // KUBECTL_GITOPS_HTTP1=1: never offer HTTP/2 (for a proxy in the way that mishandles it).
  return createClientGateway({ connection, requestTimeoutMs, http2: env.KUBECTL_GITOPS_HTTP1 !== '1' });
}
