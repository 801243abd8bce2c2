// Secret masking as Argo CD's HideSecretData: values become `+` runs; per key, equal values share a mask, a changed value gets a longer one.
import type { JsonValue, KubeObject } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { LAST_APPLIED } from '../model/keys.js';
import { fieldName, type LocatedPath } from '../model/field-path.js';
import { normalizeSecret } from '../normalize/index.js';

const BASE = '++++++++';
const STEP = '++++';

export function isSecret(obj: Pick<KubeObject, 'apiVersion' | 'kind'> | undefined): boolean {
  return obj !== undefined && obj.kind === 'Secret' && obj.apiVersion === 'v1';
}

/** Masks for one Secret pair, built from desired data, live data and live's last-applied copy (in that order). */
export class SecretMasker {
  private readonly masks = new Map<string, Map<string, string>>();

  constructor(...sources: (Record<string, JsonValue> | undefined)[]) {
    for (const data of sources) {
      if (!data) continue;
      for (const k of Object.keys(data).sort()) this.mask(k, data[k]!);
    }
  }

  /** The mask of `value` under `key` (assigning the next length when the value is new). */
  mask(key: string, value: JsonValue): string {
    let perKey = this.masks.get(key);
    if (!perKey) this.masks.set(key, (perKey = new Map()));
    const v = typeof value === 'string' ? value : JSON.stringify(value);
    let m = perKey.get(v);
    if (m === undefined) {
      m = BASE + STEP.repeat(perKey.size);
      perKey.set(v, m);
    }
    return m;
  }

  /** A value found at `at` in the Secret, masked when it lies in data or stringData. */
  maskAt(at: LocatedPath, value: JsonValue | undefined): JsonValue | undefined {
    if (value === undefined) return undefined;
    const top = fieldName(at[0]);
    if (top !== 'data' && top !== 'stringData') return value;
    const step = at[1];
    const key = step === undefined ? '' : 'field' in step ? step.field : String(step.index);
    if (at.length === 1) {
      if (!isPlainObject(value)) return value === null ? null : BASE;
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.mask(k, v)]));
    }
    return this.mask(key, at.length === 2 ? value : JSON.stringify(value));
  }
}

/** The data map inside a live object's last-applied annotation, if it holds one (stringData base64-encoded as data). */
export function lastAppliedData(live: KubeObject | undefined): Record<string, JsonValue> | undefined {
  const text = live?.metadata?.annotations?.[LAST_APPLIED];
  if (typeof text !== 'string') return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!isPlainObject(parsed)) return undefined;
    const out: Record<string, JsonValue> = {};
    if (isPlainObject(parsed.data)) Object.assign(out, parsed.data);
    if (isPlainObject(parsed.stringData)) {
      for (const [k, v] of Object.entries(parsed.stringData))
        out[k] = Buffer.from(v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v), 'utf8').toString('base64');
    }
    return out;
  } catch {
    return undefined;
  }
}

/**
 * A Secret as Argo CD's `app manifests` shows one (the API server's GetManifests runs gitops-engine's HideSecretData on
 * every core Secret): stringData folded into data, every value a `+` run. Any other object is returned as it is.
 */
export function hideSecretData(obj: KubeObject): KubeObject {
  if (!isSecret(obj)) return obj;
  const normal = normalizeSecret(obj);
  if (!isPlainObject(normal.data)) return normal;
  const masker = new SecretMasker(normal.data as Record<string, JsonValue>);
  const data = Object.fromEntries(Object.entries(normal.data).map(([k, v]) => [k, masker.mask(k, v as JsonValue)]));
  return { ...normal, data } as KubeObject;
}
