// `normalize`: read manifests and strip what the cluster fills in, keeping everything a person declared.
import type { Io } from '../model/context.js';
import { isSecret, SecretMasker } from '../diff/mask.js';
import { readArgoSettingsFile } from './session/rules.js';
import { loadManifests } from '../manifest/index.js';
import { normalizeObject } from '../normalize/index.js';
import { isPlainObject, type JsonValue, type KubeObject } from '../model/object.js';

/**
 * A Secret with every data/stringData value replaced by its Argo CD style mask (`++++++++`), and the values of the
 * annotations argocd-cm's resource.sensitive.mask.annotations names (`annotations`); other kinds unchanged.
 */
function maskSecret(obj: KubeObject, annotations: ReadonlySet<string> | undefined): KubeObject {
  if (!isSecret(obj)) return obj;
  const masker = new SecretMasker().hideAnnotations(annotations, obj);
  const out: KubeObject = { ...obj };
  if (annotations !== undefined && annotations.size > 0)
    out.metadata = masker.maskAt([{ field: 'metadata' }], obj.metadata as JsonValue) as KubeObject['metadata'];
  for (const field of ['data', 'stringData'] as const) {
    const m = obj[field];
    if (isPlainObject(m)) out[field] = Object.fromEntries(Object.entries(m).map(([k, v]) => [k, masker.mask(k, v as JsonValue)]));
    else if (m !== undefined) out[field] = '++++++++';
  }
  return out;
}

/** The normalized objects under `path` (file, directory or `-`), in reading order; `argocdCm`: the settings file whose sensitive annotations are masked too. */
export async function runNormalize(path: string, io?: Pick<Io, 'readStdin'>, argocdCm?: string): Promise<KubeObject[]> {
  const annotations = argocdCm !== undefined ? (await readArgoSettingsFile(argocdCm)).sensitiveAnnotations : undefined;
  const objects = await loadManifests(path, io);
  return objects.map((o) => maskSecret(normalizeObject(o.object), annotations));
}
