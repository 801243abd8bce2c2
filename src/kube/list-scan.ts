// Reads a metadata-only list's JSON text without decoding the items that cannot carry a given annotation.
//
// Why: the tracking-id is an annotation, which the API server cannot select on, so a prune scan lists
// the metadata of every object in the namespace. In a crowded namespace nearly all of it belongs to
// others; decoding it all (JSON.parse, then the garbage) was most of a 10,000-object scan's CPU. The
// text of an item that has no annotation named `key` cannot hold that key's name, literally or through
// a JSON escape, so such items can be left in the text. Pure.
//
// Safety: this only ever leaves items out; what it returns is JSON.parse of an item's own text. It reads
// only the exact shape the API server writes (Go's encoding of a PartialObjectMetadataList: kind,
// apiVersion, metadata, items; each item opening with its kind, apiVersion and metadata); anything else,
// or an item cut that does not decode to an object with metadata, returns undefined and the caller
// decodes the whole text.

export interface ScannedList {
  /** The list's own metadata (continue, resourceVersion, remainingItemCount). */
  metadata: Record<string, unknown>;
  /** Every item whose text could hold the key, decoded; the others are left out. */
  items: Record<string, unknown>[];
}

const HEAD = /^\{"kind":"PartialObjectMetadataList","apiVersion":"meta\.k8s\.io\/v1","metadata":(\{[^{}]*\}),"items":\[/;
/** An empty list, as the server writes it (a nil slice in Go). */
const EMPTY = /^\{"kind":"PartialObjectMetadataList","apiVersion":"meta\.k8s\.io\/v1","metadata":(\{[^{}]*\}),"items":null\}\s*$/;
const ITEM = '{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{';
const NEXT_ITEM = ',' + ITEM;
/** JSON's whitespace: space, tab, line feed, carriage return. */
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** A key we can look for: printable ASCII without the two characters JSON must escape (`"` and `\`). */
const PLAIN_KEY = /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/;

/** The escapes that could spell one of `key`'s characters in JSON text: `\/` and `\u00XX` (hex in either case). */
function escapesOf(key: string): RegExp {
  const codes = [...new Set([...key].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')))];
  const hex = codes.map((h) => [...h].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join(''));
  return new RegExp(`\\\\(?:${key.includes('/') ? '\\/|' : ''}u00(?:${hex.join('|')}))`, 'g');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** JSON text of an object, decoded, or undefined. */
function parseRecord(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isRecord(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The list's metadata and the items that may carry the annotation `key`, or undefined when the text is
 * not in the shape described above (decode it whole then).
 */
export function scanMetadataList(body: string, key: string): ScannedList | undefined {
  if (!PLAIN_KEY.test(key)) return undefined;
  const empty = EMPTY.exec(body);
  if (empty) {
    const metadata = parseRecord(empty[1]!);
    return metadata ? { metadata, items: [] } : undefined;
  }
  const head = HEAD.exec(body);
  let tail = body.length; // the server ends its JSON with a newline
  while (tail > 0 && WHITESPACE.has(body.charCodeAt(tail - 1))) tail--;
  if (!head || body.charCodeAt(tail - 1) !== 0x7d || body.charCodeAt(tail - 2) !== 0x5d) return undefined; // ]}
  const metadata = parseRecord(head[1]!);
  if (!metadata) return undefined;
  const first = head[0].length;
  const end = tail - 2;
  if (first === end) return { metadata, items: [] };
  if (!body.startsWith(ITEM, first)) return undefined;

  // Where the key's name could be: its literal, quoted, and any escape of one of its characters.
  const points: number[] = [];
  const quoted = `"${key}"`;
  for (let i = body.indexOf(quoted, first); i >= 0; i = body.indexOf(quoted, i + 1)) points.push(i);
  const escapes = escapesOf(key);
  escapes.lastIndex = first;
  for (let m = escapes.exec(body); m; m = escapes.exec(body)) points.push(m.index);
  points.sort((a, b) => a - b);

  const items: Record<string, unknown>[] = [];
  let itemEnd = -1;
  for (const p of points) {
    if (p < itemEnd) continue; // in the item just taken
    if (p >= end) return undefined;
    const start = body.lastIndexOf(ITEM, p);
    if (start < first) return undefined;
    const next = body.indexOf(NEXT_ITEM, p);
    itemEnd = next < 0 || next >= end ? end : next;
    let item: unknown;
    try {
      item = JSON.parse(body.slice(start, itemEnd));
    } catch {
      return undefined;
    }
    if (!isRecord(item) || !isRecord(item.metadata)) return undefined;
    items.push(item);
  }
  return { metadata, items };
}
