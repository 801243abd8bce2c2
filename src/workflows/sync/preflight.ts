// Permission preflight: before a sync or prune changes anything, ask the API server (SelfSubjectAccessReview) whether
// every write it needs is allowed, and name each one that is not. Deletes are not dry-run: gitops-engine's dry-run of a
// prune task sends nothing (sync_context.go pruneObject: "pruned (dry run)"), so a delete a webhook refuses fails on
// its own object when it is sent, as it does in Argo CD.
import type { AccessCheck, KubeGateway } from '../../kube/gateway.js';
import { resourceName, type ResourceType } from '../../model/resource-type.js';
import type { KubeObject, ResourceKey } from '../../model/object.js';

/** What the sync or prune intends to do to one object. */
export interface IntendedWrite {
  /** `apply` (server-side apply: patch, plus create when the object is not live) or `delete`. */
  op: 'apply' | 'delete';
  type: ResourceType;
  key: ResourceKey;
  /** For applies: whether the object exists live (an apply that creates also needs `create`). */
  exists?: boolean;
}

/** One verb on one resource in one namespace (or cluster scope) the operation needs, and the writes that need it. */
export interface NeededPermission extends AccessCheck {
  /** What needs it, e.g. `apply Deployment shop/web`; sorted, unique. */
  neededFor: string[];
}

export interface MissingPermission extends NeededPermission {
  /** The authorizer's reason when it gave one. */
  reason?: string;
}

export interface PreflightReport {
  /** Every permission checked (deduplicated). */
  checked: NeededPermission[];
  /** Permissions refused; empty when everything is allowed. */
  missing: MissingPermission[];
  /** Missing permissions that block the applies (patch/create). */
  applyBlocked: boolean;
  /** Missing permissions that block the deletes. */
  deleteBlocked: boolean;
  /** Access reviews sent. */
  requests: number;
}

function describeWrite(w: IntendedWrite): string {
  const ns = w.key.namespace ? `${w.key.namespace}/` : '';
  return `${w.op} ${w.key.group ? `${w.key.kind}.${w.key.group}` : w.key.kind} ${ns}${w.key.name}`;
}

function permissionKey(c: AccessCheck): string {
  return `${c.verb}\u0000${c.group}\u0000${c.resource}\u0000${c.namespace ?? ''}`;
}

/** The verb on the write's resource, in its namespace (none for a cluster-scoped type). */
function accessCheck(verb: string, w: IntendedWrite): AccessCheck {
  return { verb, group: w.type.group, resource: w.type.resource, ...(w.type.namespaced && w.key.namespace ? { namespace: w.key.namespace } : {}) };
}

/**
 * The permissions a set of writes needs, one per verb/group/resource/namespace: `patch` for every
 * apply, `create` too when the object is not live, `delete` for every delete. Pure.
 */
export function permissionsNeeded(writes: readonly IntendedWrite[]): NeededPermission[] {
  // What needs each permission, as a set: a sync of thousands of objects names hundreds per permission.
  const byKey = new Map<string, { check: AccessCheck; neededFor: Set<string> }>();
  const add = (verb: string, w: IntendedWrite, what: string) => {
    const check = accessCheck(verb, w);
    const k = permissionKey(check);
    const entry = byKey.get(k);
    if (entry) entry.neededFor.add(what);
    else byKey.set(k, { check, neededFor: new Set([what]) });
  };
  for (const w of writes) {
    const what = describeWrite(w);
    if (w.op === 'apply') {
      add('patch', w, what);
      if (!w.exists) add('create', w, what);
    } else add('delete', w, what);
  }
  return [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => ({ ...e.check, neededFor: [...e.neededFor].sort() }));
}

/** `cannot delete configmaps in namespace "shop" (needed to delete ConfigMap shop/old)`: one line naming a missing permission. */
export function describeMissing(m: MissingPermission): string {
  const resource = resourceName({ group: m.group, resource: m.resource });
  const where = m.namespace ? ` in namespace "${m.namespace}"` : ' at cluster scope';
  const shown = m.neededFor.slice(0, 3).join(', ') + (m.neededFor.length > 3 ? `, and ${m.neededFor.length - 3} more` : '');
  return `cannot ${m.verb} ${resource}${where} (needed to ${shown})`;
}

/**
 * Checks every permission the writes need with a SelfSubjectAccessReview; changes nothing. Errors other than a
 * refusal (the server unreachable) propagate as the gateway's ClusterErrors.
 */
export async function preflight(gw: KubeGateway, writes: readonly IntendedWrite[]): Promise<PreflightReport> {
  const checked = permissionsNeeded(writes);
  const reviews = await Promise.all(
    checked.map(async (p) => {
      const { neededFor: _unused, ...check } = p;
      return { p, result: await gw.canI(check) };
    }),
  );
  const missing: MissingPermission[] = reviews
    .filter((r) => !r.result.allowed)
    .map((r) => ({ ...r.p, ...(r.result.reason ? { reason: r.result.reason } : {}) }));
  return {
    checked,
    missing,
    applyBlocked: missing.some((m) => m.verb === 'patch' || m.verb === 'create'),
    deleteBlocked: missing.some((m) => m.verb === 'delete'),
    requests: checked.length,
  };
}

/**
 * The writes a sync plan stands for: one apply per step that is not skipped (create when it has no
 * live twin), one delete per prune candidate that is not skipped.
 */
export function writesOf(
  steps: readonly { key: ResourceKey; type: ResourceType; action: 'create' | 'update' | 'skip'; live?: KubeObject }[],
  pruneCandidates: readonly { key: ResourceKey; type: ResourceType; object: KubeObject; skip?: string }[] = [],
): IntendedWrite[] {
  return [
    ...steps
      .filter((s) => s.action !== 'skip')
      .map((s): IntendedWrite => ({ op: 'apply', type: s.type, key: s.key, exists: s.action === 'update' || s.live !== undefined })),
    ...pruneCandidates.filter((c) => !c.skip).map((c): IntendedWrite => ({ op: 'delete', type: c.type, key: c.key })),
  ];
}
