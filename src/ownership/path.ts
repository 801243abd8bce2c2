// Field paths as plain values (structured-merge-diff's PathElement): building, comparing, rendering and parsing them.
import type { JsonValue } from '../model/object.js';
import { isPlainObject } from '../model/object.js';

/** One step of a field path: a map field, a list element by key fields, a set value, or a list index. */
export type PathElement =
  | { field: string }
  | { key: Record<string, JsonValue> }
  | { value: JsonValue }
  | { index: number };

export type FieldPath = readonly PathElement[];

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
