// Argo CD's argocd-cmd-params-cm, as far as it changes what this tool does: `application.namespaces`, the
// namespaces besides the control plane's whose Applications the controller reconciles ("Applications in any
// namespace"; the controller's --application-namespaces, a comma-separated list of globs or /regexps/), and
// `controller.diff.server.side` (the controller's --server-side-diff-enabled). Pure.
import { matchStringInList } from '../model/glob.js';

export interface CmdParams {
  /** Where they came from: `ConfigMap argocd/argocd-cmd-params-cm` or a file. */
  origin: string;
  applicationNamespaces: string[];
  /** `controller.diff.server.side: "true"`: the controller compares every Application by server-side diff (each may opt out). */
  serverSideDiff: boolean;
}

/** Reads the ConfigMap's `data`: the list is split at commas and trimmed, empty entries dropped. */
export function parseCmdParams(data: Readonly<Record<string, string>>, origin: string): CmdParams {
  const raw = data['application.namespaces'] ?? '';
  return {
    origin,
    serverSideDiff: (data['controller.diff.server.side'] ?? '').trim().toLowerCase() === 'true',
    applicationNamespaces: raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  };
}

/**
 * Whether Argo CD's controller reconciles an Application in this namespace: always in the control plane's own,
 * elsewhere only when `application.namespaces` lists it (glob, or a regexp between slashes).
 */
export function isAppNamespaceEnabled(p: CmdParams, appNamespace: string, controlPlaneNamespace: string): boolean {
  return appNamespace === '' || appNamespace === controlPlaneNamespace || matchStringInList(p.applicationNamespaces, appNamespace);
}

/** The refusal for an Application Argo CD would not reconcile, or undefined. */
export function appNamespaceRefusal(p: CmdParams, app: { name: string; namespace: string }, controlPlaneNamespace: string): string | undefined {
  if (isAppNamespaceEnabled(p, app.namespace, controlPlaneNamespace)) return undefined;
  const listed = p.applicationNamespaces.length > 0 ? p.applicationNamespaces.join(',') : 'none';
  return `Argo CD does not reconcile Application ${app.namespace}/${app.name}: namespace ${app.namespace} is neither the control plane's (${controlPlaneNamespace}) nor listed in application.namespaces (${listed}) of ${p.origin}`;
}
