// Per-resource `argocd.argoproj.io/sync-options` annotations (`Prune=false,ServerSideApply=true`).
import { SYNC_OPTIONS } from '../model/keys.js';
import type { KubeObject } from '../model/object.js';

/** The object's sync options as a map (`Prune` -> `false`); keys as written. */
export function resourceSyncOptions(obj: KubeObject): Map<string, string> {
  const out = new Map<string, string>();
  const raw = obj.metadata.annotations?.[SYNC_OPTIONS];
  if (!raw) return out;
  for (const part of raw.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    out.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return out;
}
