// A live object as the dashboard shows it: normalized, with every Secret value masked. Pure.
import { isPlainObject, type JsonValue, type KubeObject } from '../model/object.js';
import { normalizeObject } from '../normalize/index.js';
import { SecretMasker } from '../diff/mask.js';

/**
 * A live object as the node's details show it: normalized (no managedFields, last-applied copy or server counters) but
 * with its status, and for any Secret every data and stringData value replaced by its mask (never the value), and so
 * are the values of the annotations argocd-cm's `resource.sensitive.mask.annotations` names (`sensitive`).
 */
export function displayObject(obj: KubeObject, sensitive?: ReadonlySet<string>): KubeObject {
  const out: KubeObject = { ...normalizeObject(obj), ...(obj.status !== undefined ? { status: obj.status } : {}) };
  if (obj.kind !== 'Secret') return out;
  const masker = new SecretMasker().hideAnnotations(sensitive, out);
  out.metadata = masker.maskAt([{ field: 'metadata' }], out.metadata as JsonValue) as KubeObject['metadata'];
  for (const field of ['data', 'stringData'] as const) {
    const v = out[field];
    if (isPlainObject(v)) out[field] = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, masker.mask(k, x)]));
    else if (v !== undefined && v !== null) out[field] = '++++++++';
  }
  return out;
}
