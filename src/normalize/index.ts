// Strips what the cluster fills in and keeps changing; always returns a copy and never touches its input.
import type { JsonObject, KubeObject, ObjectMeta } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { LAST_APPLIED } from '../model/keys.js';

/** metadata fields the API server sets and keeps changing. */
export const SERVER_METADATA = ['resourceVersion', 'uid', 'generation', 'creationTimestamp', 'managedFields', 'selfLink'] as const;

/**
 * A copy of `obj` without metadata.resourceVersion, uid, generation, creationTimestamp,
 * managedFields, selfLink, the last-applied annotation and the top-level status. An annotations
 * map is removed only when stripping emptied it. Everything else, key order included, is kept.
 */
export function normalizeObject(obj: KubeObject): KubeObject {
  const out: KubeObject = { ...obj };
  delete out.status;
  if (isPlainObject(obj.metadata as unknown)) {
    const meta: ObjectMeta = { ...obj.metadata };
    for (const k of SERVER_METADATA) delete meta[k];
    const ann = obj.metadata.annotations;
    if (isPlainObject(ann as unknown) && ann && LAST_APPLIED in ann) {
      const { [LAST_APPLIED]: _dropped, ...rest } = ann;
      if (Object.keys(rest).length > 0) meta.annotations = rest;
      else delete meta.annotations;
    }
    out.metadata = meta;
  }
  return out;
}

/**
 * A base64 data value as Go decodes and encodes it (gitops-engine's NormalizeSecret turns the object into a
 * corev1.Secret and back): line breaks, which Go's decoder skips (GNU `base64` wraps at 76 columns), are gone. A value
 * that is not base64 is left as it is (Go's conversion fails, and the object is compared as it is).
 */
function canonicalBase64(v: string): string {
  if (!/[\r\n]/.test(v)) return v;
  const bare = v.replace(/[\r\n]/g, '');
  return bare.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(bare) ? Buffer.from(bare, 'base64').toString('base64') : v;
}

/**
 * A Secret as Argo CD compares it: `stringData` merged into base64 `data` (stringData wins),
 * null data values as empty strings, line breaks in a base64 value gone. Other kinds are returned unchanged.
 */
export function normalizeSecret(obj: KubeObject): KubeObject {
  if (obj.kind !== 'Secret' || obj.apiVersion !== 'v1') return obj;
  const data = isPlainObject(obj.data) ? obj.data : undefined;
  const stringData = isPlainObject(obj.stringData) ? obj.stringData : undefined;
  if (!stringData && !(data && Object.values(data).some((v) => v === null || (typeof v === 'string' && canonicalBase64(v) !== v)))) return obj;
  const merged: JsonObject = {};
  for (const [k, v] of Object.entries(data ?? {})) merged[k] = v === null ? '' : typeof v === 'string' ? canonicalBase64(v) : v;
  // stringData values should be strings; anything else (an invalid Secret) is encoded as its JSON text.
  for (const [k, v] of Object.entries(stringData ?? {}))
    merged[k] = Buffer.from(v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v), 'utf8').toString('base64');
  const { stringData: _s, ...rest } = obj;
  return { ...rest, data: merged } as KubeObject;
}
