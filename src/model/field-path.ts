// Field paths: the one type every layer uses to name a place in an object (structured-merge-diff's PathElement), and
// every conversion between it and the texts the edges speak. Inside the program a path is always a FieldPath; the
// texts are made or read only here, where a value enters or leaves:
// - renderPath / parsePath: the path as people read it (`spec.template.spec.containers[name=api].image`): reports, --field;
// - formatPointer / parsePointer + resolvePointer: RFC 6901 JSON pointers (ignoreDifferences' jsonPointers, `pointer` in -o json);
// - stepsOf: the arrays of keys and indices jq's path() gives (jqPathExpressions);
// - FieldsV1 (`f:spec`, `k:{...}`): elementString here, the decoder in ownership/fieldsv1.ts (managedFields);
// - parseServerField / serverFieldText: the field of a server-side apply conflict, as the API server spells it.
// A LocatedPath is a FieldPath that names one place in one object: map fields and list indices only (what the
// comparison walks, what a pointer or a jq path names). keyedPath (ownership/) names its list elements by key, for
// owners and for people; locate() finds a keyed path's place in an object.
import type { JsonValue } from './object.js';
import { isPlainObject } from './object.js';

/** One step of a field path: a map field, a list element by key fields, a set value, or a list index. */
export type PathElement = { field: string } | { key: Record<string, JsonValue> } | { value: JsonValue } | { index: number };

export type FieldPath = readonly PathElement[];

/** A step that locates a value in one object: a map field or a list index. */
export type Step = { field: string } | { index: number };

/** A FieldPath of map fields and list indices only: one place in one object. */
export type LocatedPath = readonly Step[];

/** Whether two located paths are the same place (the comparison's fast equality; pathsEqual for any FieldPath). */
export function sameLocation(a: LocatedPath, b: LocatedPath): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if ('field' in x ? !('field' in y) || x.field !== y.field : !('index' in y) || x.index !== y.index) return false;
  }
  return true;
}

/** Whether one located path is the other or an ancestor of it, in either direction. */
export function onOneLine(a: LocatedPath, b: LocatedPath): boolean {
  const n = Math.min(a.length, b.length);
  return sameLocation(a.slice(0, n), b.slice(0, n));
}

/** The name of a map field step, or undefined for any other element. */
export function fieldName(e: PathElement | undefined): string | undefined {
  return e !== undefined && 'field' in e ? e.field : undefined;
}

/** Whether a path starts with the given map fields (`startsWithFields(p, 'metadata', 'annotations')`). */
export function startsWithFields(p: FieldPath, ...names: string[]): boolean {
  return names.length <= p.length && names.every((n, i) => fieldName(p[i]) === n);
}

/** A path of map fields only (`fields('metadata', 'annotations', key)`). */
export function fields(...names: string[]): Step[] {
  return names.map((field) => ({ field }));
}

/** The value at a path (a list element named by key or value is looked up), or undefined. */
export function valueAt(root: JsonValue | undefined, path: FieldPath): JsonValue | undefined {
  let cur: JsonValue | undefined = root;
  for (const e of path) {
    if ('field' in e) cur = isPlainObject(cur) && Object.prototype.hasOwnProperty.call(cur, e.field) ? cur[e.field] : undefined;
    else if (!Array.isArray(cur)) return undefined;
    else if ('index' in e) cur = cur[e.index];
    else {
      const i = indexOfElement(cur, e);
      cur = i < 0 ? undefined : cur[i];
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * The index of the list element a key or value names: for a key, an element that has at least one of the key fields and
 * no key field of another value (managedFields name elements by every key field, an object may leave out a defaulted
 * one, e.g. `protocol`).
 */
function indexOfElement(list: readonly JsonValue[], e: { key: Record<string, JsonValue> } | { value: JsonValue }): number {
  if ('value' in e) {
    const want = canonicalJson(e.value);
    return list.findIndex((v) => canonicalJson(v) === want);
  }
  const names = Object.keys(e.key);
  return list.findIndex(
    (v) => isPlainObject(v) && names.some((n) => v[n] !== undefined) && names.every((n) => v[n] === undefined || sameJson(v[n]!, e.key[n]!)),
  );
}

/** canonicalJson(a) === canonicalJson(b), without spelling out the common cases: the same value, or two strings. */
function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string') return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** One element of a path into a value: the value there and its located step, or undefined when it is not there. */
export function stepInto(node: JsonValue | undefined, e: PathElement): { value: JsonValue; step: Step } | undefined {
  if ('field' in e) {
    if (!isPlainObject(node) || !Object.prototype.hasOwnProperty.call(node, e.field)) return undefined;
    return { value: node[e.field] as JsonValue, step: e };
  }
  if (!Array.isArray(node)) return undefined;
  const i = 'index' in e ? (e.index < node.length ? e.index : -1) : indexOfElement(node, e);
  return i < 0 ? undefined : { value: node[i] as JsonValue, step: { index: i } };
}

/** Where a path is in `obj`, as map fields and list indices (list elements named by key or value are looked up), or undefined. */
export function locate(obj: JsonValue | undefined, path: FieldPath): Step[] | undefined {
  const out: Step[] = [];
  let cur: JsonValue | undefined = obj;
  for (const e of path) {
    const next = stepInto(cur, e);
    if (!next) return undefined;
    out.push(next.step);
    cur = next.value;
  }
  return out;
}

// ---- RFC 6901 JSON pointers (an edge: ignoreDifferences' jsonPointers in, the report's `pointer` out) ----

/** A located path as a JSON pointer: `/spec/template/spec/containers/0/image`. */
export function formatPointer(path: LocatedPath): string {
  let out = '';
  for (const e of path) out += '/' + ('field' in e ? e.field.replace(/~/g, '~0').replace(/\//g, '~1') : String(e.index));
  return out;
}

/** Parses a pointer into raw tokens (whether a token is an index depends on the value it walks: see resolvePointer). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new Error(`parsing JSON pointer ${JSON.stringify(pointer)}: it must start with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Whether a located path is the place a pointer's tokens name, or below it. */
export function atOrBelowPointer(at: LocatedPath, tokens: readonly string[]): boolean {
  return tokens.length <= at.length && tokens.every((t, i) => stepText(at[i]!) === t);
}

/** A step as a pointer token (unescaped): the field's name or the index's digits. */
export function stepText(s: Step): string {
  return 'field' in s ? s.field : String(s.index);
}

/** Resolves pointer tokens against a value into its located path, or undefined when the path does not exist. */
export function resolvePointer(root: JsonValue | undefined, tokens: readonly string[]): Step[] | undefined {
  const out: Step[] = [];
  let cur = root;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(t)) return undefined;
      const i = Number(t);
      if (i >= cur.length) return undefined;
      out.push({ index: i });
      cur = cur[i];
    } else if (isPlainObject(cur)) {
      if (!(t in cur)) return undefined;
      out.push({ field: t });
      cur = cur[t];
    } else return undefined;
  }
  return out;
}

// ---- jq (an edge: the paths a jqPathExpressions entry selects) ----

/** An array of map keys and list indices (jq's path(): `["spec", "containers", 0]`) as a located path. */
export function stepsOf(p: readonly (string | number)[]): Step[] {
  return p.map((s) => (typeof s === 'number' ? { index: s } : { field: s }));
}

// ---- server-side apply conflicts (an edge: the API server's Status message) ----

/** Maps whose keys are free text (may hold dots): without the object, the rest of a conflict's field is one key there. */
const TEXT_KEY_MAPS = new Set(['annotations', 'labels', 'data', 'stringData', 'binaryData', 'nodeSelector', 'matchLabels']);

/**
 * The field of a server-side apply conflict, as the API server spells it (structured-merge-diff's text:
 * `.spec.template.spec.containers[name="api"].image`, `[=value]`, `[3]`), as a FieldPath. The text does not say where
 * a field name with dots ends (`.metadata.labels.app.kubernetes.io/name`): the object the conflict is about settles it
 * (the longest run of dotted parts that is a key there); without it, the rest of the text is one key under a map of
 * free-text keys (labels, annotations, data...). Undefined when the text is not such a path.
 */
export function parseServerField(text: string, obj?: JsonValue): FieldPath | undefined {
  const out: PathElement[] = [];
  let cur: JsonValue | undefined = obj;
  let i = 0;
  const readJson = (stops: string): JsonValue | undefined => {
    const start = i;
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
    } else while (i < text.length && !stops.includes(text[i]!)) i++;
    try {
      return JSON.parse(text.slice(start, i)) as JsonValue;
    } catch {
      return undefined;
    }
  };
  while (i < text.length) {
    if (text[i] === '.') {
      i++;
      // The parts up to the next `[`, split at dots: the name is the longest run of them that is a key of the object.
      let end = text.indexOf('[', i);
      if (end < 0) end = text.length;
      const parts = text.slice(i, end).split('.');
      let take = 1;
      if (isPlainObject(cur)) {
        for (let n = parts.length; n >= 1; n--) {
          if (Object.prototype.hasOwnProperty.call(cur, parts.slice(0, n).join('.'))) {
            take = n;
            break;
          }
        }
      } else if (cur === undefined && end === text.length && TEXT_KEY_MAPS.has(fieldName(out[out.length - 1]) ?? '')) take = parts.length;
      const name = parts.slice(0, take).join('.');
      if (name === '') return undefined;
      out.push({ field: name });
      i += name.length;
      cur = isPlainObject(cur) ? cur[name] : undefined;
    } else if (text[i] === '[') {
      i++;
      let el: PathElement;
      if (text[i] === '=') {
        i++;
        const v = readJson(']');
        if (v === undefined) return undefined;
        el = { value: v };
      } else if (/^\d+\]/.test(text.slice(i))) {
        const digits = /^\d+/.exec(text.slice(i))![0];
        i += digits.length;
        el = { index: Number(digits) };
      } else {
        const key: Record<string, JsonValue> = {};
        for (;;) {
          const eq = text.indexOf('=', i);
          if (eq < 0) return undefined;
          const k = text.slice(i, eq);
          i = eq + 1;
          const v = readJson(',]');
          if (k === '' || v === undefined) return undefined;
          key[k] = v;
          if (text[i] !== ',') break;
          i++;
        }
        el = { key };
      }
      if (text[i] !== ']') return undefined;
      i++;
      out.push(el);
      if (Array.isArray(cur)) {
        const idx = 'index' in el ? el.index : 'field' in el ? -1 : indexOfElement(cur, el);
        cur = idx >= 0 ? cur[idx] : undefined;
      } else cur = undefined;
    } else return undefined;
  }
  return out.length > 0 ? out : undefined;
}

/** A conflict's field as people read it (renderPath of parseServerField; the server's own text when it cannot be read). */
export function serverFieldText(text: string, obj?: JsonValue): string {
  const p = parseServerField(text, obj);
  return p ? renderPath(p) : text;
}

/** JSON with object keys sorted, so equal values have one spelling. */
export function canonicalJson(v: JsonValue): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isPlainObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The FieldsV1 spelling of one element: `f:name`, `k:{...}`, `v:value`, `i:3`. */
export function elementString(e: PathElement): string {
  if ('field' in e) return `f:${e.field}`;
  if ('key' in e) return `k:${canonicalJson(e.key)}`;
  if ('value' in e) return `v:${canonicalJson(e.value)}`;
  return `i:${e.index}`;
}

/** A stable string for a path, usable as a map key (elements joined by a NUL). */
export function pathKey(p: FieldPath): string {
  return p.map(elementString).join('\u0000');
}

export function pathsEqual(a: FieldPath, b: FieldPath): boolean {
  return a.length === b.length && pathKey(a) === pathKey(b);
}

/** Whether `prefix` is `p` itself or one of its ancestors. */
export function isPrefix(prefix: FieldPath, p: FieldPath): boolean {
  if (prefix.length > p.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    if (elementString(prefix[i]!) !== elementString(p[i]!)) return false;
  }
  return true;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const BARE_VALUE = /^[^\s"[\],={][^\s"[\],=]*$/;

/** A key or set value as people read it: plain text for strings that cannot be mistaken for JSON, JSON otherwise. */
function renderScalar(v: JsonValue): string {
  if (typeof v === 'string') {
    if (BARE_VALUE.test(v) && !looksLikeJson(v)) return v;
    return JSON.stringify(v);
  }
  return canonicalJson(v);
}

function looksLikeJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

function renderField(name: string, first: boolean): string {
  if (IDENT.test(name)) return first ? name : `.${name}`;
  if (BARE_VALUE.test(name) && !/^\d+$/.test(name)) return `[${name}]`;
  return `[${JSON.stringify(name)}]`;
}

/**
 * A path as people read it: `spec.template.spec.containers[name=orders].image`,
 * `metadata.annotations[argocd.argoproj.io/tracking-id]`, `spec.ports[port=80,protocol=TCP]`,
 * `spec.finalizers[=kubernetes]` (set value), `spec.args[2]` (index). parsePath reverses it.
 */
export function renderPath(p: FieldPath): string {
  if (p.length === 0) return '.';
  let out = '';
  p.forEach((e, i) => {
    if ('field' in e) out += renderField(e.field, i === 0);
    else if ('key' in e) {
      const keys = Object.keys(e.key).sort();
      out += `[${keys.map((k) => `${IDENT.test(k) ? k : JSON.stringify(k)}=${renderScalar(e.key[k] as JsonValue)}`).join(',')}]`;
    } else if ('value' in e) out += `[=${renderScalar(e.value)}]`;
    else out += `[${e.index}]`;
  });
  return out;
}

/** Parses what renderPath prints; throws on text it could not have printed. */
export function parsePath(text: string): FieldPath {
  if (text === '.') return [];
  const out: PathElement[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`parsing field path ${JSON.stringify(text)} at ${i}: ${why}`);
  };
  const readJsonString = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const readScalar = (stops: string): JsonValue => {
    if (text[i] === '"') return readJsonString();
    const start = i;
    // JSON objects/arrays as set values: take the balanced text.
    if (text[i] === '{' || text[i] === '[') {
      let depth = 0;
      let inStr = false;
      for (; i < text.length; i++) {
        const c = text[i];
        if (inStr) {
          if (c === '\\') i++;
          else if (c === '"') inStr = false;
        } else if (c === '"') inStr = true;
        else if (c === '{' || c === '[') depth++;
        else if (c === '}' || c === ']') {
          depth--;
          if (depth === 0) {
            i++;
            break;
          }
        }
      }
      return JSON.parse(text.slice(start, i)) as JsonValue;
    }
    while (i < text.length && !stops.includes(text[i]!)) i++;
    const raw = text.slice(start, i);
    if (raw === '') fail('empty value');
    return looksLikeJson(raw) ? (JSON.parse(raw) as JsonValue) : raw;
  };
  const readName = (stops: string): string => {
    if (text[i] === '"') return readJsonString();
    const start = i;
    while (i < text.length && !stops.includes(text[i]!)) i++;
    if (i === start) fail('empty name');
    return text.slice(start, i);
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      if (out.length === 0) fail('leading dot');
      i++;
      out.push({ field: readName('.[') });
    } else if (c === '[') {
      i++;
      if (text[i] === '=') {
        i++;
        out.push({ value: readScalar(']') });
      } else if (/\d/.test(text[i] ?? '') && /^\d+\]/.test(text.slice(i))) {
        const m = /^(\d+)\]/.exec(text.slice(i))!;
        out.push({ index: Number(m[1]) });
        i += m[1]!.length;
      } else {
        const name = readName('=]');
        if (text[i] === ']') out.push({ field: name });
        else {
          const key: Record<string, JsonValue> = {};
          let k = name;
          for (;;) {
            if (text[i] !== '=') fail('expected =');
            i++;
            key[k] = readScalar(',]');
            if (text[i] === ',') {
              i++;
              k = readName('=');
              continue;
            }
            break;
          }
          out.push({ key });
        }
      }
      if (text[i] !== ']') fail('expected ]');
      i++;
    } else if (out.length === 0) {
      out.push({ field: readName('.[') });
    } else fail(`unexpected ${c}`);
  }
  return out;
}
