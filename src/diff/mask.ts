// Secret masking as Argo CD's HideSecretData: values become `+` runs; per key, equal values share a mask, a changed value gets a longer one.
import type { JsonValue, KubeObject } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { LAST_APPLIED } from '../model/keys.js';
import { fieldName, type LocatedPath } from '../model/field-path.js';
import { normalizeSecret } from '../normalize/index.js';

const BASE = '++++++++';
const STEP = '++++';

/**
 * Whether an object's values are masked: a Secret of any apiVersion and any case of its kind (`kind: secret`,
 * `apiVersion: core/v1` are no Secret to the API server, but `manifests --offline` and `normalize` print what they
 * are given, and masking more is the safe side).
 */
export function isSecret(obj: Pick<KubeObject, 'apiVersion' | 'kind'> | undefined): boolean {
  return obj !== undefined && typeof obj.kind === 'string' && obj.kind.toLowerCase() === 'secret';
}

/** The masks of annotation values live beside data's, under keys no data key can be (a data key has no NUL). */
const ANNOTATION = '\0annotation:';
const NONE: ReadonlySet<string> = new Set();

/**
 * Masks for one Secret pair, built from desired data, live data and live's last-applied copy (in that order); with
 * hideAnnotations, the values of argocd-cm's `resource.sensitive.mask.annotations` too. The last-applied annotation
 * holds the whole Secret, data included: its value is always masked whole.
 */
export class SecretMasker {
  private readonly masks = new Map<string, Map<string, string>>();
  private hidden: ReadonlySet<string> = NONE;

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

  /**
   * Masks these annotations' values as well (argocd-cm's `resource.sensitive.mask.annotations`), each value's mask
   * assigned in the order of the objects given (desired, live, ...), as data's are.
   */
  hideAnnotations(keys: ReadonlySet<string> | undefined, ...objects: unknown[]): this {
    this.hidden = keys ?? NONE;
    for (const o of objects) {
      const metadata = isPlainObject(o) ? o.metadata : undefined;
      const annotations = isPlainObject(metadata) ? metadata.annotations : undefined;
      if (!isPlainObject(annotations)) continue;
      for (const k of Object.keys(annotations).sort()) if (this.hides(k)) this.mask(ANNOTATION + k, annotations[k] as JsonValue);
    }
    return this;
  }

  private hides(annotation: string): boolean {
    return annotation === LAST_APPLIED || this.hidden.has(annotation);
  }

  /** An annotations map with each hidden value masked (the same map when none is hidden). */
  private maskAnnotations(annotations: JsonValue): JsonValue {
    if (!isPlainObject(annotations) || !Object.keys(annotations).some((k) => this.hides(k))) return annotations;
    return Object.fromEntries(Object.entries(annotations).map(([k, v]) => [k, this.hides(k) ? this.mask(ANNOTATION + k, v as JsonValue) : v]));
  }

  /** A value found under `metadata` at `at`: the hidden annotations' values masked (the same value when none is hidden). */
  private maskMetadata(at: LocatedPath, value: JsonValue): JsonValue {
    if (at.length === 1) {
      if (!isPlainObject(value)) return value;
      const annotations = this.maskAnnotations(value.annotations as JsonValue);
      return annotations === value.annotations ? value : { ...value, annotations };
    }
    if (fieldName(at[1]) !== 'annotations') return value;
    if (at.length === 2) return this.maskAnnotations(value);
    const key = fieldName(at[2]);
    return key !== undefined && this.hides(key) ? this.mask(ANNOTATION + key, at.length === 3 ? value : JSON.stringify(value)) : value;
  }

  /** A value found at `at` in the Secret, masked when it lies in data or stringData, or is a hidden annotation's. */
  maskAt(at: LocatedPath, value: JsonValue | undefined): JsonValue | undefined {
    if (value === undefined) return undefined;
    const top = fieldName(at[0]);
    if (top === 'metadata') return this.maskMetadata(at, value);
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
 * every core Secret): stringData folded into data, every value a `+` run, and so are the values of the annotations
 * given (argocd-cm's `resource.sensitive.mask.annotations`) and of the last-applied copy. Any other object is returned
 * as it is.
 */
export function hideSecretData(obj: KubeObject, annotations: ReadonlySet<string> = NONE): KubeObject {
  if (!isSecret(obj)) return obj;
  const normal = normalizeSecret(obj);
  const masker = new SecretMasker(isPlainObject(normal.data) ? (normal.data as Record<string, JsonValue>) : undefined).hideAnnotations(annotations, normal);
  const metadata = masker.maskAt([{ field: 'metadata' }], normal.metadata as JsonValue) as KubeObject['metadata'];
  const bare = (normal.data === undefined || normal.data === null) && (normal.stringData === undefined || normal.stringData === null);
  if (bare && metadata === normal.metadata) return normal;
  const out: Record<string, unknown> = { ...normal, metadata };
  if (isPlainObject(normal.data)) out.data = Object.fromEntries(Object.entries(normal.data).map(([k, v]) => [k, masker.mask(k, v as JsonValue)]));
  else if (normal.data !== undefined && normal.data !== null) out.data = BASE;
  // A stringData normalizeSecret left (not a map, so not folded into data) is masked whole, as any data that is not a map.
  if (normal.stringData !== undefined && normal.stringData !== null) out.stringData = BASE;
  return out as KubeObject;
}
