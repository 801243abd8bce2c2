// `normalize`: read manifests and strip what the cluster fills in, keeping everything a person declared.
import type { Io } from '../model/context.js';
import { isSecret, SecretMasker } from '../diff/mask.js';
import { loadManifests } from '../manifest/index.js';
import { normalizeObject } from '../normalize/index.js';
import { isPlainObject, type JsonValue, type KubeObject } from '../model/object.js';

/** A Secret with every data/stringData value replaced by its Argo CD style mask (`++++++++`); other kinds unchanged. */
function maskSecret(obj: KubeObject): KubeObject {
  if (!isSecret(obj)) return obj;
  const masker = new SecretMasker();
  const out: KubeObject = { ...obj };
  for (const field of ['data', 'stringData'] as const) {
    const m = obj[field];
    if (isPlainObject(m)) out[field] = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, masker.mask(k, v as JsonValue)]));
    else if (m !== undefined) out[field] = '++++++++';
  }
  return out;
}

/** The normalized objects under `path` (file, directory or `-`), in reading order. */
export async function runNormalize(path: string, io?: Pick<Io, 'readStdin'>): Promise<KubeObject[]> {
  const objects = await loadManifests(path, io);
  return objects.map((o) => maskSecret(normalizeObject(o.object)));
}
