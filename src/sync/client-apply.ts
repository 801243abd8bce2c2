// Client-side apply as `kubectl apply` does it (pure), for objects annotated `ServerSideApply=false`: the three-way
// patch between the last-applied configuration (what was applied before), the desired object and the live one. A
// field the last apply declared and the desired object no longer does is deleted; a field the desired object declares
// is set where it differs; anything else in the live object (set by others) is left alone. Built-in kinds get a
// strategic merge patch, whose lists merge by the key the API server's OpenAPI schema names (containers by name);
// custom resources a JSON merge patch, whose lists are replaced whole. The desired object is recorded in the
// `kubectl.kubernetes.io/last-applied-configuration` annotation for the next three-way patch.
import { isPlainObject, type JsonObject, type JsonValue, type KubeObject } from '../model/object.js';
import { LAST_APPLIED } from '../model/keys.js';
import { canonicalJson } from '../model/field-path.js';

/** The patch metadata of one place in an object's schema (from the API server's OpenAPI v3 document). */
export interface SchemaNode {
  field(name: string): SchemaNode | undefined;
  items(): SchemaNode | undefined;
  /** `x-kubernetes-patch-merge-key`: list elements are matched by this field. */
  mergeKey?: string;
  /** `x-kubernetes-patch-strategy` includes `merge`: a strategic patch merges this list instead of replacing it. */
  mergeList: boolean;
}

type Schemas = Record<string, JsonValue>;

/** A schema with `$ref` / `allOf: [{$ref}]` followed. */
function resolved(schemas: Schemas, s: JsonObject): JsonObject {
  let cur: JsonObject = s;
  for (let hops = 0; hops < 8; hops++) {
    const ref =
      typeof cur.$ref === 'string'
        ? cur.$ref
        : Array.isArray(cur.allOf) && isPlainObject(cur.allOf[0]) && typeof cur.allOf[0].$ref === 'string'
          ? cur.allOf[0].$ref
          : undefined;
    if (!ref) return cur;
    const target = schemas[ref.replace('#/components/schemas/', '')];
    if (!isPlainObject(target)) return cur;
    cur = target;
  }
  return cur;
}

function schemaNode(schemas: Schemas, s: JsonObject): SchemaNode {
  const r = resolved(schemas, s);
  const meta = (k: string): JsonValue | undefined => s[k] ?? r[k];
  const strategy = meta('x-kubernetes-patch-strategy');
  const mergeKey = meta('x-kubernetes-patch-merge-key');
  return {
    field(name) {
      const props = isPlainObject(r.properties) ? r.properties : {};
      const p = props[name] ?? r.additionalProperties;
      return isPlainObject(p) ? schemaNode(schemas, p) : undefined;
    },
    items() {
      return isPlainObject(r.items) ? schemaNode(schemas, r.items) : undefined;
    },
    ...(typeof mergeKey === 'string' ? { mergeKey } : {}),
    mergeList: typeof strategy === 'string' && strategy.split(',').includes('merge'),
  };
}

/** The schema of one kind in an OpenAPI v3 document of its group-version (`/openapi/v3/apis/apps/v1`), if it has one. */
export function openApiSchema(doc: unknown, group: string, version: string, kind: string): SchemaNode | undefined {
  const schemas = isPlainObject(doc) && isPlainObject(doc.components) && isPlainObject(doc.components.schemas) ? doc.components.schemas : undefined;
  if (!schemas) return undefined;
  for (const s of Object.values(schemas)) {
    if (!isPlainObject(s) || !Array.isArray(s['x-kubernetes-group-version-kind'])) continue;
    const gvks = s['x-kubernetes-group-version-kind'];
    if (gvks.some((g) => isPlainObject(g) && (g.group ?? '') === group && g.version === version && g.kind === kind)) return schemaNode(schemas, s);
  }
  return undefined;
}

/** Whether a group is Kubernetes' own (its kinds take strategic merge patches); custom resources take JSON merge patches. */
export function isBuiltInGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

const same = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => a !== undefined && b !== undefined && canonicalJson(a) === canonicalJson(b);

function mapPatch(
  original: JsonObject | undefined,
  modified: JsonObject,
  current: JsonObject,
  schema: SchemaNode | undefined,
  strategic: boolean,
): JsonObject | undefined {
  const patch: JsonObject = {};
  for (const k of Object.keys(original ?? {})) {
    if (!(k in modified) && k in current) patch[k] = null;
  }
  for (const [k, m] of Object.entries(modified)) {
    const c = current[k];
    const o = original?.[k];
    const sub = schema?.field(k);
    if (isPlainObject(m) && isPlainObject(c)) {
      const d = mapPatch(isPlainObject(o) ? o : undefined, m, c, sub, strategic);
      if (d) patch[k] = d;
    } else if (Array.isArray(m) && Array.isArray(c) && strategic && sub?.mergeList) {
      Object.assign(patch, mergeListPatch(k, Array.isArray(o) ? o : undefined, m, c, sub));
    } else if (!same(m, c)) {
      patch[k] = structuredClone(m);
    }
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

/** A strategic patch of a list that merges: elements by their merge key (or, for scalars, by value). */
function mergeListPatch(k: string, original: JsonValue[] | undefined, modified: JsonValue[], current: JsonValue[], schema: SchemaNode): JsonObject {
  const mk = schema.mergeKey;
  const order = `$setElementOrder/${k}`;
  if (mk && modified.every((m) => isPlainObject(m) && m[mk] !== undefined)) {
    const keyOf = (v: JsonValue): string | undefined => (isPlainObject(v) && v[mk] !== undefined ? canonicalJson(v[mk] as JsonValue) : undefined);
    const items: JsonValue[] = [];
    const wanted = new Set(modified.map(keyOf));
    for (const m of modified as JsonObject[]) {
      const c = current.find((x) => keyOf(x) === keyOf(m));
      const o = original?.find((x) => keyOf(x) === keyOf(m));
      if (!isPlainObject(c)) items.push(structuredClone(m));
      else {
        const d = mapPatch(isPlainObject(o) ? o : undefined, m, c, schema.items(), true);
        if (d) items.push({ ...d, [mk]: m[mk] as JsonValue });
      }
    }
    for (const o of original ?? []) {
      const key = keyOf(o);
      if (key !== undefined && !wanted.has(key) && current.some((x) => keyOf(x) === key))
        items.push({ [mk]: (o as JsonObject)[mk] as JsonValue, $patch: 'delete' });
    }
    return items.length > 0 ? { [order]: modified.map((m) => ({ [mk]: (m as JsonObject)[mk] as JsonValue })), [k]: items } : {};
  }
  if (modified.every((m) => !isPlainObject(m) && !Array.isArray(m))) {
    const has = (list: readonly JsonValue[], v: JsonValue) => list.some((x) => same(x, v));
    const added = modified.filter((m) => !has(current, m));
    const removed = (original ?? []).filter((o) => !has(modified, o) && has(current, o));
    if (added.length === 0 && removed.length === 0) return {};
    return {
      [order]: structuredClone(modified),
      ...(added.length ? { [k]: structuredClone(added) } : {}),
      ...(removed.length ? { [`$deleteFromPrimitiveList/${k}`]: structuredClone(removed) } : {}),
    };
  }
  return same(modified, current) ? {} : { [k]: structuredClone(modified) };
}

/** The desired object as `kubectl apply` sends it: with itself (minus that annotation) in the last-applied annotation. */
export function withLastApplied(desired: KubeObject): KubeObject {
  const annotations = { ...(desired.metadata.annotations ?? {}) };
  delete annotations[LAST_APPLIED];
  const bare: KubeObject = { ...desired, metadata: { ...desired.metadata, annotations } };
  if (Object.keys(annotations).length === 0) delete bare.metadata.annotations;
  return { ...desired, metadata: { ...desired.metadata, annotations: { ...annotations, [LAST_APPLIED]: `${JSON.stringify(bare)}\n` } } };
}

/** What the last client-side apply sent (the live object's annotation), if it is readable. */
export function lastApplied(live: KubeObject): JsonObject | undefined {
  const text = live.metadata.annotations?.[LAST_APPLIED];
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as JsonValue;
    return isPlainObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The three-way patch `kubectl apply` would send for `desired` over `live` (undefined when nothing would change):
 * strategic (with `schema` for the merge keys) for built-in kinds, a JSON merge patch otherwise.
 */
export function clientApplyPatch(desired: KubeObject, live: KubeObject, strategic: boolean, schema: SchemaNode | undefined): JsonObject | undefined {
  const modified = withLastApplied(desired) as unknown as JsonObject;
  return mapPatch(lastApplied(live), modified, live as unknown as JsonObject, schema, strategic);
}
