// Client-side apply migration (pure), as a server-side sync of Argo CD v3 leaves managedFields: kubectl's
// migrateToSSAIfNecessary (client-go util/csaupgrade) after every server-side apply, and Argo CD's
// ClientSideApplyMigration (on by default, manager `kubectl-client-side-apply` or the Application's
// `argocd.argoproj.io/client-side-apply-migration-manager`). The `Update` entries of client-side applies — those that
// own the last-applied-configuration annotation, and those of the migration manager — are merged into the server-side
// manager's `Apply` entry and removed, so that a field Git later drops is removed by the next apply instead of being
// kept alive by the old `Update` entry. Unlike client-go's csaupgrade, an entry that owns the last-applied annotation
// hands over only what that annotation declared, not the defaults the API server filled in at its create.
import { isPlainObject, type JsonObject, type JsonValue, type KubeObject, type ManagedFieldsEntry } from '../model/object.js';

/** kubectl's annotation of a client-side apply. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Argo CD's default client-side apply migration manager (gitops-engine DefaultClientSideApplyMigrationManager). */
export const DEFAULT_CSA_MIGRATION_MANAGER = 'kubectl-client-side-apply';

function ownsLastApplied(e: ManagedFieldsEntry): boolean {
  const meta = e.fieldsV1?.['f:metadata'];
  const annotations = isPlainObject(meta) ? meta['f:annotations'] : undefined;
  return isPlainObject(annotations) && `f:${LAST_APPLIED}` in annotations;
}

/** The union of two FieldsV1 tries (every key of either, merged recursively). */
export function unionFields(a: JsonObject, b: JsonObject): JsonObject {
  const out: JsonObject = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const mine = out[k];
    out[k] = isPlainObject(mine) && isPlainObject(v) ? unionFields(mine, v) : isPlainObject(mine) ? mine : v;
  }
  return out;
}

/** Whether a list item of the annotation is the element a `k:{...}` key names (key fields the item leaves out were defaulted). */
function itemMatches(item: JsonValue, key: Record<string, JsonValue>): boolean {
  if (!isPlainObject(item)) return false;
  const given = Object.entries(key).filter(([k]) => item[k] !== undefined);
  return given.length > 0 && given.every(([k, v]) => JSON.stringify(item[k]) === JSON.stringify(v));
}

/**
 * The part of a client-side entry's fields that its last-applied configuration declared. A client-side create is
 * credited with the fields the API server defaulted too (a Service's type, a port's protocol); taken over whole, they
 * would read as removed from Git and be dropped (and defaulted again) by the next apply. What Git declared is what a
 * later change to Git can remove.
 */
function declaredFields(fieldsV1: JsonObject, declared: JsonValue | undefined): JsonObject {
  const out: JsonObject = {};
  for (const [k, sub] of Object.entries(fieldsV1)) {
    if (k === '.') {
      out[k] = sub;
      continue;
    }
    const rest = k.slice(2);
    let value: JsonValue | undefined;
    if (k.startsWith('f:')) value = isPlainObject(declared) ? declared[rest] : undefined;
    else if (k.startsWith('k:') && Array.isArray(declared)) {
      let key: unknown;
      try {
        key = JSON.parse(rest);
      } catch {
        key = undefined;
      }
      value = isPlainObject(key) ? declared.find((x) => itemMatches(x, key as Record<string, JsonValue>)) : undefined;
    } else if (k.startsWith('v:') && Array.isArray(declared)) value = declared.find((x) => JSON.stringify(x) === rest);
    else if (k.startsWith('i:') && Array.isArray(declared)) value = declared[Number(rest)];
    if (value === undefined) continue;
    if (!isPlainObject(sub) || Object.keys(sub).length === 0) {
      out[k] = sub;
      continue;
    }
    const kept = declaredFields(sub, value);
    if (Object.keys(kept).length > 0) out[k] = kept;
  }
  return out;
}

/** What a client-side entry hands over: its declared fields (and the annotation itself) when the object carries one. */
function handedOver(e: ManagedFieldsEntry, obj: KubeObject): JsonObject {
  const fields = e.fieldsV1 ?? {};
  const text = obj.metadata.annotations?.[LAST_APPLIED];
  if (!ownsLastApplied(e) || text === undefined) return fields;
  let declared: JsonValue;
  try {
    declared = JSON.parse(text) as JsonValue;
  } catch {
    return fields;
  }
  const annotation = { 'f:metadata': { 'f:annotations': { [`f:${LAST_APPLIED}`]: {} } } };
  return unionFields(declaredFields(fields, declared), annotation);
}

/**
 * The JSON patch that moves the client-side managers' fields to `ssaManager`'s Apply entry (a `test` of the
 * resourceVersion first, as kubectl sends it), or undefined when there is nothing to migrate. `managers`: the
 * migration managers besides the owners of the last-applied annotation (none when ClientSideApplyMigration=false).
 */
export function csaUpgradePatch(obj: KubeObject, ssaManager: string, managers: readonly string[]): unknown[] | undefined {
  const entries = obj.metadata.managedFields ?? [];
  const isClientSide = (e: ManagedFieldsEntry) =>
    e.operation === 'Update' && (e.subresource ?? '') === '' && e.manager !== undefined && (ownsLastApplied(e) || managers.includes(e.manager));
  const migrated = entries.filter(isClientSide);
  if (migrated.length === 0) return undefined;
  const target = entries.find((e) => e.manager === ssaManager && e.operation === 'Apply' && (e.subresource ?? '') === '');
  let fields: JsonObject = target?.fieldsV1 ?? {};
  for (const e of migrated) fields = unionFields(fields, handedOver(e, obj));
  const upgraded: ManagedFieldsEntry = {
    ...(target ?? { manager: ssaManager, operation: 'Apply', apiVersion: migrated[0]?.apiVersion ?? obj.apiVersion, time: migrated[0]?.time }),
    fieldsType: 'FieldsV1',
    fieldsV1: fields,
  };
  const next: ManagedFieldsEntry[] = [];
  let placed = false;
  for (const e of entries) {
    if (isClientSide(e)) continue;
    if (e === target) {
      next.push(upgraded);
      placed = true;
    } else next.push(e);
  }
  if (!placed) next.push(upgraded);
  return [
    { op: 'test', path: '/metadata/resourceVersion', value: obj.metadata.resourceVersion ?? '' },
    { op: 'replace', path: '/metadata/managedFields', value: next },
  ];
}
