// The orphaned resources of an app's destination namespace, as Argo CD's controller finds them for an AppProject with
// `orphanedResources` (controller/appcontroller.go getResourceTree, isKnownOrphanedResourceExclusion): every
// top-level object of the namespace (no ownerReferences) that this app does not manage, of a kind the project permits,
// not a known default (the `default` ServiceAccount, `kube-root-ca.crt`, the `kubernetes` Service of `default`) nor
// matched by the project's `ignore` list, and not tracked by another Application that exists — with the objects
// under it (its ReplicaSets, Pods …), which Argo CD counts too. Pure.
import { keyOf, type KubeObject, type ResourceKey } from '../model/object.js';
import { projectGlobMatch } from '../model/glob.js';
import { appOfMark, DEFAULT_TRACKING, markOf, sameInstallation, type Tracking } from '../tracking/method.js';
import { groupKindVerdict, type AppProject } from './project.js';

export interface OrphanInput {
  /** The metadata of every object of the destination namespace. */
  objects: readonly KubeObject[];
  namespace: string;
  /** This app's instance name (`name`, or `namespace_name` outside the control plane's namespace). */
  appInstance: string;
  /** The instance names of the Applications that exist: an object whose mark names one of them belongs to it. */
  apps: ReadonlySet<string>;
  project: AppProject;
  tracking?: Tracking;
}

/** Argo CD's built-in exclusions, then the project's `ignore` list (globs on group, kind and name; empty kind or name: any). */
function excluded(key: ResourceKey, ignore: NonNullable<AppProject['orphanedResources']>['ignore']): boolean {
  if (key.namespace === 'default' && key.group === '' && key.kind === 'Service' && key.name === 'kubernetes') return true;
  if (key.group === '' && key.kind === 'ServiceAccount' && key.name === 'default') return true;
  if (key.group === '' && key.kind === 'ConfigMap' && key.name === 'kube-root-ca.crt') return true;
  return ignore.some(
    (i) =>
      (i.kind === '' || projectGlobMatch(i.kind, key.kind, false)) &&
      projectGlobMatch(i.group, key.group, false) &&
      (!i.name || projectGlobMatch(i.name, key.name, false)),
  );
}

/** The orphaned objects, each top-level one followed by the objects under it, sorted by their keys. */
export function orphanedResources(input: OrphanInput): ResourceKey[] {
  const settings = input.project.orphanedResources;
  if (!settings) return [];
  const inNamespace = input.objects.filter((o) => (o.metadata.namespace ?? '') === input.namespace && input.namespace !== '');
  const byOwner = new Map<string, KubeObject[]>();
  for (const o of inNamespace)
    for (const ref of o.metadata.ownerReferences ?? []) {
      const list = byOwner.get(ref.uid) ?? [];
      list.push(o);
      byOwner.set(ref.uid, list);
    }
  const tracking = input.tracking ?? DEFAULT_TRACKING;
  const appOf = (o: KubeObject) => {
    // An object another installation marked is no app's (getAppInstanceValue): orphaned unless owned.
    const mark = sameInstallation(o, tracking) ? markOf(o, tracking) : undefined;
    return mark === undefined ? undefined : appOfMark(mark, tracking);
  };
  const out: ResourceKey[] = [];
  const seen = new Set<string>();
  const visit = (o: KubeObject) => {
    const uid = o.metadata.uid ?? '';
    if (uid && seen.has(uid)) return;
    if (uid) seen.add(uid);
    const owner = appOf(o);
    // Tracked by an Application that exists (this one or another): not orphaned, and neither is anything under it.
    if (owner !== undefined && (owner === input.appInstance || input.apps.has(owner))) return;
    const key = keyOf(o);
    if (!groupKindVerdict(input.project, key.group, key.kind, key.name, true).permitted) return;
    out.push(key);
    for (const child of byOwner.get(uid) ?? []) visit(child);
  };
  for (const o of inNamespace) {
    if ((o.metadata.ownerReferences ?? []).length > 0) continue;
    const key = keyOf(o);
    if (!groupKindVerdict(input.project, key.group, key.kind, key.name, true).permitted || excluded(key, settings.ignore)) continue;
    visit(o);
  }
  const id = (k: ResourceKey) => `${k.group}/${k.kind}/${k.namespace}/${k.name}`;
  return out.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
}
