// Containment: is the desired value contained in the live one? Returns every place where it is not.
import type { Step } from '../model/field-path.js';
import { sameLocation } from '../model/field-path.js';
import type { JsonValue } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import type { ListRule } from './list-rule.js';
import { isQuantityPath, quantitiesEqual } from './quantity.js';

/**
 * One place where desired is not contained in live; `live` is undefined when the field is absent live. `at`
 * locates it in the live object (a desired list element a merging list lacks gets an index past the live list's end);
 * `desiredAt` in the desired object, only where a merging list puts it at another index.
 */
export interface Difference {
  at: Step[];
  desiredAt?: Step[];
  desired: JsonValue | undefined;
  live: JsonValue | undefined;
}

/**
 * Desired values that count as satisfied by an absent live field (the API server omits empty values): null, `{}`, `[]`,
 * and for the built-in kinds (`zero`) also `""`, `false` and `0`, which their Go types omit (`omitempty`), as Argo CD's
 * normalization of known types (gitops-engine's remarshal through the typed object) drops them from the desired object.
 * (A struct field's null or `""` of a built-in kind is not compared at all: see walk.)
 */
function isEmptyish(v: JsonValue | undefined, zero: boolean): boolean {
  if (zero && (v === '' || v === false || v === 0)) return true;
  return v === null || v === undefined || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0);
}

/**
 * Every place where `desired` is not contained in `live`: maps recursively (live's extra keys do
 * not count), scalars by value (quantities by value under resource maps; a number never equals a
 * string otherwise), lists by length and then element by element — except a list `lists` says
 * merges (a strategic merge patch's `patchStrategy: merge`): there each desired element is matched
 * with the live one of the same merge key (or, for scalars, the same value) and compared with it,
 * live elements nobody declares do not count, and the declared elements must keep their order
 * (the patch's `$setElementOrder`), else the whole list differs. A desired null, `{}` or `[]` is
 * satisfied by an absent live field, and with `zeroValuesOmitted` (a built-in kind) a `""`, `false` or `0` too.
 */
export function differences(
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  base: Step[] = [],
  lists?: ListRule,
  opts: { zeroValuesOmitted?: boolean; knownTypes?: readonly KnownTypeField[] } = {},
): Difference[] {
  const out: Difference[] = [];
  const known = opts.knownTypes ?? [];
  const path = [...base];
  walk(desired, live, path, path, out, lists, { zero: opts.zeroValuesOmitted === true, as: undefined, known });
  return out;
}

/**
 * A field of a custom resource that holds a Kubernetes type (argocd-cm's `resource.customizations.knownTypeFields`,
 * and Argo CD's default for Argo Rollouts' pod template): its map path, through lists, and the type's name
 * (`core/v1/PodSpec`, `core/Quantity`, `meta/v1/Duration`, …).
 */
export interface KnownTypeField {
  path: readonly string[];
  type: string;
}

/**
 * The fields of Kubernetes' own kinds that are maps of strings or quantities (`map[string]string`, ResourceList …)
 * rather than structs: there a `""` is a value, kept by the Go type, and a null is its zero value `""`. `selector` is
 * one only where it is not a LabelSelector (a Service's, a ReplicationController's).
 */
const VALUE_MAPS: ReadonlySet<string> = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'nodeSelector',
  'matchLabels',
  'volumeAttributes',
  'parameters',
  'capacity',
  'allocatable',
  'limits',
  'requests',
  'hard',
  'used',
  'overhead',
  'max',
  'min',
  'default',
  'defaultRequest',
  'maxLimitRequestRatio',
  'deprecatedTopology',
]);

/** Whether the object at `at` (of a built-in kind) is a map of values rather than a struct (see VALUE_MAPS). */
function valueMap(at: readonly Step[], here: { [k: string]: JsonValue }): boolean {
  const last = at[at.length - 1];
  if (last === undefined || !('field' in last)) return false;
  if (last.field === 'selector') return !('matchLabels' in here) && !('matchExpressions' in here);
  return VALUE_MAPS.has(last.field);
}

/** How the values below a place compare: zero values omitted (a built-in type), or a leaf as a quantity or a duration. */
interface Mode {
  zero: boolean;
  as: 'quantity' | 'duration' | undefined;
  known: readonly KnownTypeField[];
}

/** The mode below a map field: a known-type field's path (list indices skipped) switches it on for its subtree. */
function modeAt(mode: Mode, at: readonly Step[]): Mode {
  if (mode.known.length === 0) return mode;
  const fields = at.flatMap((s) => ('field' in s ? [s.field] : []));
  const hit = mode.known.find((k) => k.path.length === fields.length && k.path.every((f, i) => f === fields[i]));
  if (!hit) return mode;
  if (hit.type === 'core/Quantity') return { ...mode, as: 'quantity' };
  if (hit.type === 'meta/v1/Duration') return { ...mode, as: 'duration' };
  return { ...mode, zero: true };
}

const GO_DURATION_UNIT: Record<string, number> = { ns: 1, us: 1e3, µs: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** A Go duration (`1h0m0s`, `90m`, `1.5h`, `300ms`) in nanoseconds; undefined when it is none. */
function goDuration(v: JsonValue | undefined): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  if (t === '0') return 0;
  const sign = t.startsWith('-') ? -1 : 1;
  const body = t.replace(/^[+-]/, '');
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(body)) !== null) {
    total += Number(m[1]) * GO_DURATION_UNIT[m[2]!]!;
    consumed = re.lastIndex;
  }
  return body !== '' && consumed === body.length ? sign * total : undefined;
}

/**
 * Records a difference at the current place. The walk's paths are its working stacks (pushed and popped as it goes
 * down and up), so a difference gets copies of them.
 */
function push(out: Difference[], at: Step[], dAt: Step[], desired: JsonValue | undefined, live: JsonValue | undefined): void {
  const here = at.slice();
  out.push(at === dAt || sameLocation(at, dAt) ? { at: here, desired, live } : { at: here, desiredAt: dAt.slice(), desired, live });
}

/**
 * `at` is the place in live, `dAt` the same place in desired (they differ only below a merging list, where dAt is a
 * stack of its own; elsewhere both are the same array). Each call leaves both stacks as it found them.
 */
function walk(
  desired: JsonValue | undefined,
  live: JsonValue | undefined,
  at: Step[],
  dAt: Step[],
  out: Difference[],
  lists: ListRule | undefined,
  mode: Mode,
): void {
  if (desired === undefined) return;
  if (live === undefined) {
    if (!isEmptyish(desired, mode.zero)) push(out, at, dAt, desired, live);
    return;
  }
  if (isPlainObject(desired)) {
    if (!isPlainObject(live)) {
      if (!(live === null && Object.keys(desired).length === 0)) push(out, at, dAt, desired, live);
      return;
    }
    const apart = at !== dAt;
    const values = mode.zero && valueMap(at, desired);
    for (const k of Object.keys(desired)) {
      let d = desired[k];
      if (mode.zero && (d === null || d === '')) {
        // gitops-engine's remarshal through the Go type drops a struct field's null or "" (omitempty, a nil pointer)
        // from the desired object, whatever the live value: the API server's default there is no drift.
        if (!values) continue;
        // In a map of strings the key stays, and null is Go's zero value "".
        if (d === null && (live[k] === undefined || typeof live[k] === 'string')) d = '';
      }
      const step = { field: k };
      at.push(step);
      if (apart) dAt.push(step);
      const m = modeAt(mode, at);
      // A map's "" is a value (only a struct field omits it).
      walk(d, live[k], at, dAt, out, lists, values ? { ...m, zero: false } : m);
      at.pop();
      if (apart) dAt.pop();
    }
    return;
  }
  if (Array.isArray(desired)) {
    if (!Array.isArray(live)) {
      if (!(live === null && desired.length === 0)) push(out, at, dAt, desired, live);
      return;
    }
    const merge = lists?.(at);
    if (merge && mergeWalk(desired, live, merge.key, at, dAt, out, lists, mode)) return;
    if (desired.length !== live.length) {
      push(out, at, dAt, desired, live);
      return;
    }
    const apart = at !== dAt;
    for (let i = 0; i < desired.length; i++) {
      const step = { index: i };
      at.push(step);
      if (apart) dAt.push(step);
      walk(desired[i], live[i], at, dAt, out, lists, mode);
      at.pop();
      if (apart) dAt.pop();
    }
    return;
  }
  if (desired === live) return;
  if (desired === null && live === null) return;
  if ((mode.as === 'quantity' || isQuantityPath(at)) && quantitiesEqual(desired, live)) return;
  if (mode.as === 'duration' && goDuration(desired) !== undefined && goDuration(desired) === goDuration(live)) return;
  push(out, at, dAt, desired, live);
}

/** A merge key's value as text (key values are scalars), or undefined when the element has none. */
function keyText(el: JsonValue | undefined, key: string): string | undefined {
  if (!isPlainObject(el)) return undefined;
  const v = el[key];
  return v === undefined || v === null || typeof v === 'object' ? undefined : JSON.stringify(v);
}

/**
 * A merging list (see differences). Returns false, having reported nothing, when the desired list cannot be merged
 * (an element without its merge key, two with the same one, objects in a list of scalars): it is then compared by index.
 */
function mergeWalk(
  desired: JsonValue[],
  live: JsonValue[],
  key: string | undefined,
  at: Step[],
  dAt: Step[],
  out: Difference[],
  lists: ListRule | undefined,
  mode: Mode,
): boolean {
  const ident = (el: JsonValue | undefined): string | undefined =>
    key === undefined ? (el === null || el === undefined || typeof el === 'object' ? undefined : JSON.stringify(el)) : keyText(el, key);
  const wanted = desired.map(ident);
  if (wanted.some((w) => w === undefined) || new Set(wanted).size !== wanted.length) return false;
  const liveIds = live.map(ident);
  const found = wanted.map((w) => liveIds.indexOf(w));
  // The declared elements live must be in the declared order: the patch's $setElementOrder would reorder them.
  const present = found.filter((j) => j >= 0);
  if (present.some((j, n) => n > 0 && j < present[n - 1]!)) {
    push(out, at, dAt, desired, live);
    return true;
  }
  if (key === undefined) {
    // A set of scalars: matched by value, so a missing value is the only difference.
    if (found.some((j) => j < 0)) push(out, at, dAt, desired, live);
    return true;
  }
  let appended = live.length;
  desired.forEach((d, i) => {
    const j = found[i]!;
    at.push({ index: j < 0 ? appended++ : j });
    // Where the desired element sits elsewhere, its place is a stack of its own below it (a copy, dropped after it).
    const dNext = at === dAt ? (i === j ? at : [...at.slice(0, -1), { index: i }]) : [...dAt, { index: i }];
    if (j < 0) push(out, at, dNext, d, undefined);
    else walk(d, live[j], at, dNext, out, lists, mode);
    at.pop();
  });
  return true;
}
