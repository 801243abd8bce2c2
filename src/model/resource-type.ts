// A served resource type as discovery describes it: shared vocabulary of the gateway, the plans and the reports.

/** One served resource type, as discovery describes it (the preferred version unless asked otherwise). */
export interface ResourceType {
  group: string;
  version: string;
  kind: string;
  /** The plural used in URLs, e.g. `deployments`. */
  resource: string;
  namespaced: boolean;
  verbs: string[];
}

/** `group/version`, or just `version` for the core group. */
export function apiVersionOf(t: Pick<ResourceType, 'group' | 'version'>): string {
  return t.group === '' ? t.version : `${t.group}/${t.version}`;
}

/** `resource.group` as kubectl and RBAC name it (`deployments.apps`, `configmaps`). */
export function resourceName(t: Pick<ResourceType, 'group' | 'resource'>): string {
  return t.group === '' ? t.resource : `${t.resource}.${t.group}`;
}
