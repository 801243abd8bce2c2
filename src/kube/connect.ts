// Builds the real gateway from the global flags; client-node is loaded only here, lazily.
import type { GlobalOptions } from '../cli/options.js';
import { parseDuration } from '../cli/duration.js';
import type { KubeGateway } from './gateway.js';

/** Reads the kubeconfig (as kubectl does) and returns a gateway to the selected context's cluster. */
export async function connectGateway(opts: GlobalOptions, env: Record<string, string | undefined>): Promise<KubeGateway> {
  const requestTimeoutMs = parseDuration(opts.requestTimeout, '--request-timeout');
  const { loadKubeConfig } = await import('./kubeconfig.js');
  const kubeConfig = await loadKubeConfig({ kubeconfig: opts.kubeconfig, context: opts.context, env });
  const { createClientGateway } = await import('./client-gateway.js');
  return createClientGateway({ kubeConfig, requestTimeoutMs });
}
