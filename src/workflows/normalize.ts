// `normalize`: read manifests and strip what the cluster fills in, keeping everything a person declared.
import type { Io } from '../cli/io.js';
import { loadManifests } from '../manifest/index.js';
import { normalizeObject } from '../normalize/index.js';
import type { KubeObject } from '../model/object.js';

/** The normalized objects under `path` (file, directory or `-`), in reading order. */
export async function runNormalize(path: string, io?: Pick<Io, 'readStdin'>): Promise<KubeObject[]> {
  const objects = await loadManifests(path, io);
  return objects.map((o) => normalizeObject(o.object));
}
