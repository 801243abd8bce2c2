// Decodes and encodes the FieldsV1 trie (`f:`, `k:`, `v:`, `i:` and `.`) that managedFields entries carry.
import type { JsonObject, JsonValue } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { FieldSet } from './fieldset.js';
import { elementString, type FieldPath, type PathElement } from '../model/field-path.js';

/** Parses one FieldsV1 key (`f:spec`, `k:{"name":"x"}`, `v:"a"`, `i:0`) into a path element. */
export function decodeElement(s: string): PathElement {
  const colon = s.indexOf(':');
  if (colon !== 1) throw new Error(`decoding FieldsV1 key ${JSON.stringify(s)}: no known prefix`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return { field: rest };
    case 'k': {
      let key: unknown;
      try {
        key = JSON.parse(rest);
      } catch (err) {
        throw new Error(`decoding FieldsV1 key ${JSON.stringify(s)}: bad JSON`, { cause: err });
      }
      if (!isPlainObject(key)) throw new Error(`decoding FieldsV1 key ${JSON.stringify(s)}: k: needs a JSON object`);
      return { key };
    }
    case 'v':
      try {
        return { value: JSON.parse(rest) as JsonValue };
      } catch (err) {
        throw new Error(`decoding FieldsV1 key ${JSON.stringify(s)}: bad JSON`, { cause: err });
      }
    case 'i': {
      if (!/^\d+$/.test(rest)) throw new Error(`decoding FieldsV1 key ${JSON.stringify(s)}: i: needs an index`);
      return { index: Number(rest) };
    }
    default:
      throw new Error(`decoding FieldsV1 key ${JSON.stringify(s)}: unknown prefix ${s[0]}`);
  }
}

const ELEMENTS = new Map<string, PathElement>();

/**
 * decodeElement, each distinct key parsed once per process: the same `k:{"name":"app"}` recurs in every object of an
 * app and of a fleet, and a JSON parse of it is most of what reading a trie costs. The element is shared: never mutated
 * (no path element is). The memo is emptied when it reaches 50,000 keys, so a process reading ever-new keys stays bounded.
 */
export function cachedElement(s: string): PathElement {
  let el = ELEMENTS.get(s);
  if (el === undefined) {
    el = decodeElement(s);
    if (ELEMENTS.size >= 50_000) ELEMENTS.clear();
    ELEMENTS.set(s, el);
  }
  return el;
}

/**
 * The paths a FieldsV1 trie names: every leaf (`{}`), and every node marked with `.` (the
 * node itself is owned, e.g. a list element or a map the manager created).
 */
export function decodeFieldsV1(fields: JsonObject): FieldSet {
  const out: FieldPath[] = [];
  const walk = (node: JsonObject, prefix: PathElement[]) => {
    for (const [k, child] of Object.entries(node)) {
      if (k === '.') {
        if (prefix.length > 0) out.push(prefix.slice());
        continue;
      }
      const el = cachedElement(k);
      const p = [...prefix, el];
      if (!isPlainObject(child)) throw new Error(`decoding FieldsV1 at ${k}: expected an object`);
      if (Object.keys(child).length === 0) out.push(p);
      else walk(child, p);
    }
  };
  walk(fields, []);
  return new FieldSet(out);
}

/**
 * Checks a FieldsV1 trie as decodeFieldsV1 reads it, throwing the same error at the same key, without building paths:
 * a trie that passes decodes without error.
 */
export function checkFieldsV1(fields: JsonObject): void {
  // Every object read from the API server comes through here (each of its managers' tries), so this loop is kept to
  // the fewest steps: the common `f:` key allocates nothing, any other is decoded once per process.
  for (const k in fields) {
    if (k === '.') continue;
    if (k.charCodeAt(0) !== F || k.charCodeAt(1) !== COLON) cachedElement(k);
    const child = fields[k];
    if (typeof child !== 'object' || child === null || Array.isArray(child)) throw new Error(`decoding FieldsV1 at ${k}: expected an object`);
    checkFieldsV1(child);
  }
}

const F = 'f'.charCodeAt(0);
const COLON = ':'.charCodeAt(0);

/** The FieldsV1 trie for a set (the inverse of decodeFieldsV1 for sets it produced). */
export function encodeFieldsV1(set: FieldSet): JsonObject {
  const root: JsonObject = {};
  const all = set.paths();
  const inner = new Set<string>();
  for (const p of all) for (let i = 1; i < p.length; i++) inner.add(p.slice(0, i).map(elementString).join('\u0000'));
  for (const p of all) {
    let node = root;
    p.forEach((e, i) => {
      const k = elementString(e);
      if (!isPlainObject(node[k])) node[k] = {};
      node = node[k] as JsonObject;
      if (i === p.length - 1 && inner.has(p.map(elementString).join('\u0000'))) node['.'] = {};
    });
  }
  return root;
}
