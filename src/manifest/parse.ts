// Parses manifest text (multi-document YAML or JSON) into objects that remember their file, document and line.
import { LineCounter, parseAllDocuments, YAMLParseError, type Document } from 'yaml';
import { CORE_SCHEMA, constructFromEvents, defineScalarTag, EVENT_ID, NOT_RESOLVED, parseEvents, YAMLException, type Event } from 'js-yaml';
import { isUtf8 } from 'node:buffer';
import { goPlainScalar, goYamlTags } from './go-scalars.js';
import type { KubeObject } from '../model/object.js';
import { isPlainObject } from '../model/object.js';
import { InputError, ManifestError } from '../model/errors.js';

// Plain scalars are read as kubectl and Argo CD read them, YAML 1.1's way (go-scalars.ts: `0400` is octal, `yes` is
// true), in both parsers: the fast path's schema here, the reference parser's tags from go-scalars.ts.
const BOOL = 'tag:yaml.org,2002:bool';
const INT = 'tag:yaml.org,2002:int';
const FLOAT = 'tag:yaml.org,2002:float';
const goBool = (s: string) => {
  const v = goPlainScalar(s);
  return typeof v === 'boolean' ? v : NOT_RESOLVED;
};
const goNumber = (s: string) => {
  const v = goPlainScalar(s);
  return typeof v === 'number' ? v : NOT_RESOLVED;
};
const FAST_SCHEMA = CORE_SCHEMA.withTags(
  defineScalarTag(BOOL, {
    implicit: true,
    implicitFirstChars: [...'yYnNtTfFoO'],
    resolve: goBool,
    identify: (v) => typeof v === 'boolean',
  }),
  defineScalarTag(INT, { implicit: true, implicitFirstChars: [...'+-0123456789'], resolve: goNumber, identify: (v) => Number.isInteger(v) }),
  defineScalarTag(FLOAT, { implicit: true, implicitFirstChars: ['.'], resolve: goNumber, identify: (v) => typeof v === 'number' }),
);
export interface ManifestSource {
  file: string;
  /** 0-based document index within the file. */
  doc: number;
  /** 1-based line where the object starts. */
  line: number;
  /** The 1-based position in spec.sources of the source that rendered it (a multi-source Application). */
  sourcePosition?: number;
}

export interface ManifestObject {
  object: KubeObject;
  source: ManifestSource;
}

/** Bounded alias expansion: a document expanding more aliases than this is refused (YAML alias bombs). */
const MAX_ALIAS_COUNT = 100;

/** Where a source points, as `file:line`. */
export function formatSource(s: ManifestSource): string {
  return `${s.file}:${s.line}`;
}

/**
 * What a parse error is thrown as: a ManifestError for an app's manifests (its source's files, a tool's output), an
 * InputError for a file of the command's own input (an Application, a kubeconfig, a settings file).
 */
type ParseError = typeof InputError;

/** `parse()`, its InputErrors thrown as `as` (the same message and cause). */
function thrownAs<T>(as: ParseError, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof InputError && err.constructor !== as) throw new as(err.message, err.cause === undefined ? undefined : { cause: err.cause });
    throw err;
  }
}

/**
 * Parses a whole file's text; throws a ManifestError (or `as`: an InputError for a file of the command's input) naming
 * file, line (and column) on any problem. Pure.
 */
export function parseManifests(text: string, file: string, as: ParseError = ManifestError): ManifestObject[] {
  return thrownAs(as, () => {
    if (/\.json$/i.test(file) || /^\s*[{[]/.test(text)) {
      const fromJson = tryJson(text, file);
      if (fromJson) return fromJson;
    }
    const out = parseYamlFast(text, file) ?? parseYaml(text, file);
    if (MAYBE_NON_FINITE.test(text)) for (const o of out) refuseNonFinite(o);
    return out;
  });
}

/** YAML's not-a-number and infinities (`.nan`, `-.Inf`…): text that may hold one; the walk below decides. */
const MAYBE_NON_FINITE = /\.(?:nan|NaN|NAN|inf|Inf|INF)\b/;

/**
 * A number JSON cannot hold (YAML's `.nan`, `.inf`) is refused with where it is: the API server takes JSON, and
 * kubectl and Argo CD's repo-server (sigs.k8s.io/yaml converting to JSON) refuse it too (`json: unsupported value: NaN`),
 * where carrying it on would send null instead.
 */
function refuseNonFinite(o: ManifestObject): void {
  const walk = (v: unknown, path: string): { path: string; value: number } | undefined => {
    if (typeof v === 'number') return Number.isFinite(v) ? undefined : { path, value: v };
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const bad = walk(v[i], `${path}[${i}]`);
        if (bad !== undefined) return bad;
      }
    } else if (isPlainObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        const bad = walk(x, path === '' ? k : `${path}.${k}`);
        if (bad !== undefined) return bad;
      }
    }
    return undefined;
  };
  const bad = walk(o.object, '');
  if (bad === undefined) return;
  throw new InputError(
    `${formatSource(o.source)}: ${o.object.kind}/${o.object.metadata?.name ?? ''}: ${bad.path} is ${String(bad.value)} (YAML's ${Number.isNaN(bad.value) ? '.nan' : '.inf'}), a number JSON cannot hold: the API server would never see it (kubectl and Argo CD refuse it too: json: unsupported value)`,
  );
}

/** 1-based line of a 0-based offset, using a sorted table of line starts. */
function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

const INDENTED_MARKER = /^[ \t]+(?:---|\.\.\.)(?:[ \t\r\n]|$)/m;
const LEADING_TAB = /^ *\t/m;
const EMPTY_KEY = /^[ \t-]*:(?:[ \t\r\n]|$)/m;
/** A byte order mark at the start of a line: YAML (and Go's YAML) skips it there, js-yaml reads it as text. */
const LINE_BOM = /^\uFEFF/m;
/** The four above in one pass over the text. */
const NEEDS_REFERENCE_PARSER = new RegExp([INDENTED_MARKER, LEADING_TAB, EMPTY_KEY, LINE_BOM].map((r) => r.source).join('|'), 'm');

/**
 * The fast path (js-yaml's event parser, about ten times faster than the yaml package's AST):
 * used unless a document has aliases, which go to the yaml package for its bounded alias
 * expansion. Returns undefined to ask for that slow path.
 */
function parseYamlFast(text: string, file: string): ManifestObject[] | undefined {
  const parsed = fastDocuments(text, file);
  if (!parsed) return undefined;
  const { events, docs } = parsed;
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  // Per document: the offset of its root node, and of each element of a top-level `items` sequence.
  const roots: number[] = [];
  const items: number[][] = [];
  let depth = 0;
  let lastKey: string | undefined;
  let inItems = false;
  let isKey = true;
  for (const e of events) {
    if (e.type === EVENT_ID.DOCUMENT) {
      roots.push(-1);
      items.push([]);
      depth = 1;
      continue;
    }
    if (e.type === EVENT_ID.POP) {
      depth--;
      if (depth === 2) inItems = false;
      continue;
    }
    const start = e.type === EVENT_ID.SCALAR ? e.valueStart : e.type === EVENT_ID.ALIAS ? e.anchorStart : e.start;
    const d = roots.length - 1;
    if (depth === 1 && roots[d] === -1) roots[d] = e.type === EVENT_ID.MAPPING || e.type === EVENT_ID.SEQUENCE ? e.start : start;
    if (depth === 2) {
      // Children of the root mapping alternate key, value.
      if (isKey) lastKey = e.type === EVENT_ID.SCALAR ? text.slice(e.valueStart, e.valueEnd) : undefined;
      else if (lastKey === 'items' && e.type === EVENT_ID.SEQUENCE) inItems = true;
      isKey = !isKey;
    } else if (depth === 3 && inItems) items[d]!.push(start);
    if (e.type === EVENT_ID.MAPPING || e.type === EVENT_ID.SEQUENCE) depth++;
  }
  const out: ManifestObject[] = [];
  docs.forEach((value, i) => {
    if (value === null || value === undefined) return;
    const root = roots[i] ?? 0;
    const line = lineAt(starts, Math.max(0, root));
    addDocument(value, { file, doc: i, line }, out, (j) => {
      const at = items[i]?.[j];
      return at === undefined ? line : lineAt(starts, at);
    });
  });
  return out;
}

/**
 * The fast path's parse: the events and every document's value, or undefined for text that must go to the reference
 * parser. Throws InputError naming file, line and column on a syntax error.
 */
function fastDocuments(text: string, file: string): { events: Event[]; docs: unknown[] } | undefined {
  // js-yaml takes an indented `---` or `...` for a document marker; in YAML only column 0 starts or ends a
  // document (an indented one is text, e.g. inside a block scalar). Such files go to the reference parser.
  // Likewise a tab in a line's indentation (js-yaml lets some pass that YAML forbids), and an empty
  // implicit key (`: value` at the start of a line: js-yaml names it "null" where YAML's key is empty).
  if (NEEDS_REFERENCE_PARSER.test(text)) return undefined;
  try {
    const events = parseEvents(text, { filename: file });
    if (events.some((e) => e.type === EVENT_ID.ALIAS)) return undefined;
    return { events, docs: constructFromEvents(events, { source: text, filename: file, maxAliases: 0, schema: FAST_SCHEMA }) };
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    // js-yaml refuses some text YAML allows (an unknown tag, which Go's YAML reads as its plain value): the
    // reference parser has the last word on what is an error, and names the line and column.
    return undefined;
  }
}

/**
 * The values of a YAML (or JSON) text's documents, empty documents left out, for files that are not manifests (an
 * Application, a kubeconfig): the manifests' fast path, and the reference parser where that path does not go.
 * Throws InputError (or `as`: a ManifestError for a file of the app's source) naming file, line and column on a syntax
 * error, and refuses alias bombs.
 */
export function parseYamlValues(text: string, file: string, as: ParseError = InputError): unknown[] {
  return thrownAs(as, () => {
    const fast = fastDocuments(text, file);
    if (fast) return fast.docs.filter((v) => v !== null && v !== undefined);
    const out: unknown[] = [];
    for (const doc of referenceDocuments(text, file)) {
      const value = doc.value();
      if (value !== null && value !== undefined) out.push(value);
    }
    return out;
  });
}

/** JSON fast path (JSON.parse is much faster than a YAML parser); undefined means "let YAML try". */
function tryJson(text: string, file: string): ManifestObject[] | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: the YAML parser (JSON is YAML) reads it or reports the line and column.
    return undefined;
  }
  const out: ManifestObject[] = [];
  addDocument(value, { file, doc: 0, line: 1 }, out, () => 1);
  return out;
}

/** One document as the reference parser reads it: its line, its value (computed on demand), the parsed document. */
interface ReferenceDocument {
  index: number;
  line: number;
  value(): unknown;
  doc: Document.Parsed;
}

/** The reference parser's non-empty documents; InputError naming file, line and column on the first error. */
function referenceDocuments(text: string, file: string, lc = new LineCounter()): ReferenceDocument[] {
  const docs = parseAllDocuments(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true, strict: true, customTags: goYamlTags as never });
  const list = Array.isArray(docs) ? docs : [docs];
  const out: ReferenceDocument[] = [];
  list.forEach((doc, index) => {
    const err = doc.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      const where = pos ? `${file}:${pos.line}:${pos.col}` : `${file} (document ${index + 1})`;
      // The place is said once, first: the parser's own " at line L, column C:" is left out.
      const why =
        (err as { code?: string }).code === 'DUPLICATE_KEY'
          ? 'duplicated mapping key'
          : withoutSourceText(firstLine(err.message).replace(/ at line \d+, column \d+:?$/, ''));
      // No cause: the parser's own error quotes the lines around the place (-v prints causes), and those lines may be a
      // Secret's values or a kubeconfig's credentials. The place and the reason are all the message needs.
      throw new InputError(`${where}: invalid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${why}`);
    }
    if (doc.contents === null) return; // an empty document
    const line = lc.linePos(doc.contents.range?.[0] ?? 0).line;
    const value = () => {
      try {
        return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
      } catch (err) {
        const msg = err instanceof YAMLParseError || err instanceof Error ? err.message : String(err);
        const why = /excessive alias count/i.test(msg)
          ? `too many YAML aliases (more than ${MAX_ALIAS_COUNT} expansions): refusing a possible alias bomb`
          : withoutSourceText(firstLine(msg));
        throw new InputError(`${file}:${line}: ${why}`); // no cause, as above
      }
    };
    out.push({ index, line, value, doc });
  });
  return out;
}

function parseYaml(text: string, file: string): ManifestObject[] {
  const lc = new LineCounter();
  const out: ManifestObject[] = [];
  for (const { index: i, line, value: valueOf, doc } of referenceDocuments(text, file, lc)) {
    const value = valueOf();
    if (value === null || value === undefined) continue;
    addDocument(value, { file, doc: i, line }, out, (item) => {
      const node = (doc.contents as { items?: { key?: { value?: unknown }; value?: { items?: { range?: number[] }[] } }[] }).items?.find(
        (p) => p.key?.value === 'items',
      )?.value?.items?.[item];
      return node?.range?.[0] !== undefined ? lc.linePos(node.range[0]).line : line;
    });
  }
  return out;
}

function firstLine(msg: string): string {
  return msg.split('\n')[0]!.trim();
}

/**
 * A YAML parser's reason without the source text some of its messages quote: an unquoted Secret value that starts with
 * `*`, `!`, `|` or `>` is read as an alias, a tag or a block scalar header, and the parser names it ("Unresolved alias
 * …: <value>", "Unresolved tag: !<value>", "Block scalar header includes extra characters: >…"). What follows a colon,
 * quoted text, tags and escape sequences are left out; the file, line and column say where.
 */
export function withoutSourceText(reason: string): string {
  return reason
    .replace(/(?<=[\w)]):\s.*$/, '')
    .replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '…')
    .replace(/(^|\s)!\S*/g, '$1!…')
    .replace(/^(Invalid escape sequence)\s.*$/, '$1')
    .replace(/^(Unexpected) (\S+) (in|at)\b/, (all, u: string, token: string, rest: string) =>
      token.length > 1 && !/^[a-z-]+$/.test(token) ? `${u} token ${rest}` : all,
    );
}

/** Validates one document and adds it (or, for `kind: List`, its items) to `out`. */
function addDocument(value: unknown, source: ManifestSource, out: ManifestObject[], itemLine: (i: number) => number): void {
  const at = `${source.file}:${source.line}`;
  if (!isPlainObject(value)) {
    throw new InputError(`${at}: document ${source.doc + 1} is not an object (got ${Array.isArray(value) ? 'a list' : typeof value})`);
  }
  if (value.kind === 'List' || (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items))) {
    if (value.items !== undefined && value.items !== null && !Array.isArray(value.items)) {
      throw new InputError(
        `${at}: document ${source.doc + 1} is a ${value.kind} whose items is not a list (got ${isPlainObject(value.items) ? 'a map' : typeof value.items})`,
      );
    }
    // A List without an items list (`item:`, a typo; `items:` left empty) declares nothing, maybe by mistake: refused, as
    // a silent empty list would make its objects prune candidates. Argo CD differs: `items:` left empty (null, no spec or
    // status) is dropped as an empty list (repository.go isNullList), and a List without the key is not read as a list
    // (Unstructured.IsList), so the sync tries to apply an object of kind List and fails. Refusing both is this tool's
    // "never delete on a broken render" (differences.md). `items: []` is an empty list.
    if (value.items === undefined || value.items === null)
      throw new InputError(
        `${at}: document ${source.doc + 1} is a ${value.kind} without an items list (${value.items === null ? 'items is empty' : 'no items key: a misspelt key?'}): write items: [] for an empty list`,
      );
    const items = Array.isArray(value.items) ? value.items : [];
    items.forEach((item, j) => {
      const s = { ...source, line: itemLine(j) };
      checkObject(item, s, `items[${j}] of the List in document ${source.doc + 1}`);
      out.push({ object: item as unknown as KubeObject, source: s });
    });
    return;
  }
  // Argo CD's repo-server unpacks any object whose top-level `items` is a list, whatever its kind (Unstructured.IsList
  // reads `items` alone): it applies the items in the object's place and never the object. Neither reading is safe to
  // sync from here (the object, which Argo CD never applies, or its items, which its author did not mean as objects).
  if (Array.isArray(value.items)) {
    const name = isPlainObject(value.metadata) && typeof value.metadata.name === 'string' ? `/${value.metadata.name}` : '';
    throw new InputError(
      `${at}: document ${source.doc + 1} (${String(value.kind)}${name}) has a top-level items list, which Argo CD's repo-server unpacks as objects in its place (as it unpacks a List): make it a List, or move the field under spec`,
    );
  }
  checkObject(value, source, `document ${source.doc + 1}`);
  out.push({ object: value as unknown as KubeObject, source });
}

function checkObject(v: unknown, s: ManifestSource, what: string): void {
  const at = `${s.file}:${s.line}`;
  if (!isPlainObject(v)) throw new InputError(`${at}: ${what} is not an object`);
  if (typeof v.apiVersion !== 'string' || v.apiVersion === '') throw new InputError(`${at}: ${what} has no apiVersion`);
  if (typeof v.kind !== 'string' || v.kind === '') throw new InputError(`${at}: ${what} has no kind`);
  if (!isPlainObject(v.metadata)) throw new InputError(`${at}: ${what} (${v.kind}) has no metadata`);
  const generated = typeof v.metadata.generateName === 'string' && v.metadata.generateName !== '' && isHookAnnotated(v.metadata);
  const named = v.metadata.name;
  if (named !== undefined && named !== null && typeof named !== 'string')
    throw new InputError(
      `${at}: ${what} (${v.kind}): metadata.name must be a string, got ${typeof named} (kubectl and Argo CD read an unquoted y, n, yes, no, on or off as a boolean and 0-led digits as an octal number: quote it)`,
    );
  if ((typeof v.metadata.name !== 'string' || v.metadata.name === '') && !generated) {
    throw new InputError(
      `${at}: ${what} (${v.kind}) has no metadata.name${typeof v.metadata.generateName === 'string' ? ' (metadata.generateName is only for hooks: argocd.argoproj.io/hook or helm.sh/hook)' : ''}`,
    );
  }
  if (v.metadata.namespace !== undefined && typeof v.metadata.namespace !== 'string') {
    throw new InputError(`${at}: ${what} (${v.kind}/${v.metadata.name}): metadata.namespace must be a string`);
  }
  // Wrongly typed labels/annotations are input errors (exit 2), not a 500 from the server's typed patch.
  for (const field of ['labels', 'annotations'] as const) {
    const m = v.metadata[field];
    if (m === undefined || m === null) continue;
    if (!isPlainObject(m))
      throw new InputError(
        `${at}: ${what} (${v.kind}/${v.metadata.name}): metadata.${field} must be a map of strings, got ${Array.isArray(m) ? 'a list' : typeof m}`,
      );
    const bad = Object.entries(m).find(([, x]) => typeof x !== 'string');
    if (bad)
      throw new InputError(
        `${at}: ${what} (${v.kind}/${v.metadata.name}): metadata.${field}.${bad[0]} must be a string, got ${bad[1] === null ? 'null' : typeof bad[1]}`,
      );
  }
  // A Secret's data and stringData are maps of strings. Anything else is refused here, naming the key and never the
  // value: the API server would refuse it too, with a typed-patch error that quotes the value (a secret).
  if (v.kind === 'Secret' && v.apiVersion === 'v1') {
    for (const field of ['data', 'stringData'] as const) {
      const m = v[field];
      if (m === undefined || m === null) continue;
      if (!isPlainObject(m))
        throw new InputError(`${at}: ${what} (Secret/${v.metadata.name}): ${field} must be a map of strings, got ${Array.isArray(m) ? 'a list' : typeof m}`);
      const bad = Object.entries(m).find(([, x]) => typeof x !== 'string' && x !== null);
      if (bad)
        throw new InputError(
          `${at}: ${what} (Secret/${v.metadata.name}): ${field}.${bad[0]} must be a string, got ${Array.isArray(bad[1]) ? 'a list' : typeof bad[1]} (quote it in YAML; its value is not shown)`,
        );
    }
  }
}

/** Whether metadata carries a hook annotation (a hook may be declared with generateName only, as Argo CD allows). */
function isHookAnnotated(metadata: Record<string, unknown>): boolean {
  const a = metadata.annotations;
  return isPlainObject(a) && (typeof a['argocd.argoproj.io/hook'] === 'string' || typeof a['helm.sh/hook'] === 'string');
}

/**
 * A manifest file's bytes as text. A UTF-16 file that starts with its byte-order mark is decoded, as Argo CD's
 * repo-server reads manifests (utfutil with unicode.BOMOverride); any other text must be UTF-8: a ManifestError names the
 * file and the line of the first byte that is not. Argo CD's reader would put U+FFFD in that byte's place and apply
 * that, and kubectl (go-yaml) refuses it ("invalid leading UTF-8 octet"): refused here, as kubectl does
 * (docs/concepts/differences.md).
 */
export function manifestText(bytes: Uint8Array, file: string): string {
  const utf16 = bomUtf16(bytes);
  if (utf16 !== undefined) return utf16;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (isUtf8(bytes)) return text;
  const at = text.indexOf('\uFFFD');
  const line = at < 0 ? 1 : text.slice(0, at).split('\n').length;
  throw new ManifestError(
    `${file}:${line}: not UTF-8 text (a byte that is no UTF-8 sequence): kubectl refuses it, and Argo CD would apply U+FFFD in its place`,
  );
}

/** The text of UTF-16 bytes that start with a byte-order mark (FF FE little-endian, FE FF big-endian), without it; else undefined. */
function bomUtf16(bytes: Uint8Array): string | undefined {
  if (bytes.length < 2) return undefined;
  const le = bytes[0] === 0xff && bytes[1] === 0xfe;
  const be = bytes[0] === 0xfe && bytes[1] === 0xff;
  if (!le && !be) return undefined;
  const body = Buffer.from(bytes.subarray(2));
  // Big-endian: each pair swapped, then read as little-endian (an odd last byte is left as it is and decodes to U+FFFD).
  if (be) for (let i = 0; i + 1 < body.length; i += 2) [body[i], body[i + 1]] = [body[i + 1]!, body[i]!];
  return new TextDecoder('utf-16le').decode(body);
}
