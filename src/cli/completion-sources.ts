// Where completion finds names: contexts, clusters and users in the kubeconfig; namespaces and Applications
// in the cluster, read with the flags typed so far (--kubeconfig, --context, --app-namespace, …) and a
// short request timeout, so a <TAB> never waits long on a slow or dead server.
import type { CompletionSources } from './completion.js';
import { toGlobalOptions } from './options.js';
import type { ResourceType } from '../model/resource-type.js';

const NAMESPACES: ResourceType = { group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false, verbs: ['list'] };
const APPLICATIONS: ResourceType = {
  group: 'argoproj.io',
  version: 'v1alpha1',
  kind: 'Application',
  resource: 'applications',
  namespaced: true,
  verbs: ['list'],
};
const COMPLETION_TIMEOUT = '5s';

const camel = (k: string) => k.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

export function completionSources(env: Record<string, string | undefined>): CompletionSources {
  const names = async (flags: Record<string, string>, type: ResourceType, namespace?: string): Promise<string[]> => {
    const args: Record<string, unknown> = Object.fromEntries(Object.entries(flags).map(([k, v]) => [camel(k), v]));
    args.requestTimeout ??= COMPLETION_TIMEOUT;
    const opts = toGlobalOptions(args);
    const { connectGateway } = await import('../kube/connect.js');
    const gateway = await connectGateway(opts, env);
    try {
      const list = await gateway.list(type, { metadataOnly: true, ...(namespace ? { namespace } : {}) });
      return list.items
        .map((i) => i.metadata.name ?? '')
        .filter((n) => n !== '')
        .sort();
    } finally {
      gateway.close();
    }
  };
  return {
    applications: (flags) => names(flags, APPLICATIONS, flags['app-namespace'] ?? toGlobalOptions({}).appNamespace),
    namespaces: (flags) => names(flags, NAMESPACES),
    async kubeconfigNames(flags, what) {
      const { kubeconfigPaths, mergeKubeconfigs, readKubeconfigFiles } = await import('../kube/kubeconfig.js');
      const { paths, mustExist } = kubeconfigPaths({ kubeconfig: flags.kubeconfig, env });
      const merged = mergeKubeconfigs(await readKubeconfigFiles(paths, mustExist));
      return merged[what].map((e) => e.name);
    },
  };
}
