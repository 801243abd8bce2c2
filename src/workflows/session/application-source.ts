// Reads the Application the loop is driven by: from a file (no CRD needed) or from the cluster.
import type { Application } from '../../app/types.js';
import type { WorkflowIo } from '../../model/context.js';
import { InputError } from '../../model/errors.js';
import type { KubeGateway } from '../../kube/gateway.js';
import type { ResourceType } from '../../model/resource-type.js';
import { didYouMean, suggestions } from '../../model/suggest.js';

/** The Application in `path` (`-`: standard input, read through the process's Io). */
export async function loadApplicationFromFile(path: string, io?: Pick<WorkflowIo, 'readStdin'>): Promise<Application> {
  const { loadApplicationFile } = await import('../../app/application.js');
  return loadApplicationFile(path, io ? { io } : {});
}

/** GETs argoproj.io Application `name` in `namespace`; an absent CRD or object is an input error. */
export async function loadApplicationFromCluster(gw: KubeGateway, name: string, namespace: string): Promise<Application> {
  const { parseApplication } = await import('../../app/application.js');
  const { preferred } = await gw.discover();
  const type = preferred.find((t) => t.group === 'argoproj.io' && t.kind === 'Application');
  if (!type) {
    throw new InputError(`the cluster does not serve argoproj.io Applications (no Argo CD CRD): read the Application from a file with -f/--app-file`);
  }
  const obj = await gw.get(type, namespace, name);
  if (!obj) throw await applicationNotFound(gw, type, namespace, name, '(use --app-namespace, or -f/--app-file)');
  return parseApplication(obj, `Application ${namespace}/${name}`);
}

/** How many close names the error for a missing Application lists (the nearest first). */
const SUGGESTED_APPS = 5;

/**
 * The error for an Application that is not there, with the names of the namespace's Applications that are close to it
 * (one LIST, only on this path; a LIST that fails suggests nothing).
 */
export async function applicationNotFound(gw: KubeGateway, type: ResourceType, namespace: string, name: string, hint: string): Promise<InputError> {
  const names = await gw.list(type, { namespace, metadataOnly: true }).then(
    (l) => l.items.map((i) => i.metadata.name ?? ''),
    () => [],
  );
  return new InputError(`Application "${name}" not found in namespace "${namespace}" ${hint}${didYouMean(suggestions(name, names), SUGGESTED_APPS)}`);
}
