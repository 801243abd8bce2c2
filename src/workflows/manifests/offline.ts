// `manifests --offline`: the same objects with no cluster at all. The Application comes from its file, Argo CD's
// settings from --argocd-cm (else its defaults), Kubernetes' own kinds from a built-in table (kube/offline.ts), and
// Helm's .Capabilities from --kube-version / --api-versions or the chart's defaults; each guess is said in a warning.
import type { AppStateArgs, AppStateDeps } from '../session/app-state.js';
import { OfflineGateway } from '../../kube/offline.js';
import { groupOf, isPlainObject, type KubeObject } from '../../model/object.js';
import { runManifests, type ManifestsResult } from './manifests.js';

/** The scope each CustomResourceDefinition among the objects gives its kind, by `Kind.group`. */
function crdScopes(objects: readonly KubeObject[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const o of objects) {
    if (o.kind !== 'CustomResourceDefinition' || !isPlainObject(o.spec)) continue;
    const spec = o.spec as { group?: unknown; scope?: unknown; names?: { kind?: unknown } };
    if (typeof spec.group === 'string' && typeof spec.names?.kind === 'string') out.set(`${spec.names.kind}.${spec.group}`, spec.scope !== 'Cluster');
  }
  return out;
}

export async function runOfflineManifests(
  args: AppStateArgs,
  deps: Pick<AppStateDeps, 'io' | 'opts'>,
  opts: { sourcePosition?: number } = {},
): Promise<ManifestsResult> {
  const gw = new OfflineGateway();
  const warnings: string[] = [];
  if (args.kubeVersion === undefined || args.apiVersions === undefined)
    warnings.push(
      `offline: Helm charts are rendered with ${args.kubeVersion === undefined ? "Helm's default Kubernetes version" : `--kube-version ${args.kubeVersion}`} and ${args.apiVersions === undefined ? "Helm's default API versions" : 'the --api-versions given'}, not a cluster's (give --kube-version and --api-versions to match one)`,
    );
  const r = await runManifests(
    { ...args, kubeVersion: args.kubeVersion ?? '', apiVersions: args.apiVersions ?? [] },
    { ...deps, gateway: gw, controlPlane: gw },
  );
  // A kind the table does not have was taken as namespaced; its CustomResourceDefinition here may say otherwise.
  const scopes = crdScopes(r.objects);
  const objects = r.objects.map((o) => {
    const namespaced = scopes.get(`${o.kind}.${groupOf(o.apiVersion)}`);
    if (namespaced !== false || o.metadata.namespace === undefined) return o;
    const { namespace: _ns, ...meta } = o.metadata;
    return { ...o, metadata: meta };
  });
  const unknown = [...gw.assumed].filter((k) => {
    const [kind, apiVersion = ''] = [k.slice(0, k.indexOf('.')), k.slice(k.indexOf('.') + 1)];
    return !scopes.has(`${kind}.${groupOf(apiVersion)}`);
  });
  if (unknown.length > 0)
    warnings.push(
      `offline: ${unknown.sort().join(', ')} ${unknown.length === 1 ? 'is not a kind' : 'are not kinds'} Kubernetes serves on its own and no CustomResourceDefinition here defines ${unknown.length === 1 ? 'it' : 'them'}: taken as namespaced (a cluster would say)`,
    );
  return { ...r, objects, warnings: [...warnings, ...r.warnings] };
}
