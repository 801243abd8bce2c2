// Plain YAML scalars read as kubectl and Argo CD read them (pure). Both parse manifests with sigs.k8s.io/yaml, whose
// YAML-to-JSON step decodes with its fork of go-yaml v2: YAML 1.1's resolution, not YAML 1.2's core schema. Where the
// two differ, what reaches the API server differs: `defaultMode: 0400` is 256 (octal) there and 400 under YAML 1.2, a
// file mode of 0620 on a mounted Secret. The rules (go-yaml v2 resolve.go, `resolve`):
// - booleans: y Y yes Yes YES on On ON true True TRUE, and n N no No NO off Off OFF false False FALSE;
// - null: ~ null Null NULL and the empty scalar;
// - a scalar starting with a digit, `+` or `-`: every `_` dropped, then Go's strconv.ParseInt(s, 0, 64) (a leading 0 is
//   octal, 0x/0o/0b prefixes, a sign), else ParseUint, else a float of the form [-+]?(.d+|d+(.d*)?)([eE][-+]?d+)?;
// - a scalar starting with `.`: .inf/.nan forms, else a float;
// - anything else, a string. (go-yaml v2 also reads unquoted timestamps, 2001-12-14, as times that the JSON step
//   writes as RFC 3339 texts; those are left strings here, as written.)
import type { ScalarTag } from 'yaml';

/** What a plain scalar is in go-yaml v2: its value, or undefined for a string. */
export function goPlainScalar(source: string): null | boolean | number | undefined {
  const word = WORDS.get(source);
  if (word !== undefined || WORDS.has(source)) return word;
  const first = source.charAt(0);
  if (first === '.') {
    if (INF.test(source)) return source.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
    if (NAN.test(source)) return Number.NaN;
    return FLOAT.test(source) ? Number(source) : undefined;
  }
  if (!(first === '+' || first === '-' || (first >= '0' && first <= '9'))) return undefined;
  if (INF.test(source)) return source.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  const plain = source.replaceAll('_', '');
  const int = goParseInt(plain);
  if (int !== undefined) return int;
  return FLOAT.test(plain) ? Number(plain) : undefined;
}

/** The words go-yaml v2 resolves whole (its resolveMap), but the float ones (read by goPlainScalar's rules). */
const WORDS = new Map<string, null | boolean>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((w) => [w, true] as const),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map((w) => [w, false] as const),
  ...['', '~', 'null', 'Null', 'NULL'].map((w) => [w, null] as const),
]);

const INF = /^[-+]?\.(?:inf|Inf|INF)$/;
const NAN = /^\.(?:nan|NaN|NAN)$/;
/** go-yaml v2's yamlStyleFloat. */
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/**
 * Go's strconv.ParseInt(s, 0, 64) (or ParseUint, for the unsigned range), on text with its underscores already dropped:
 * an optional sign, then 0x/0X hex, 0o/0O or a leading 0 octal, 0b/0B binary, or decimal. Undefined when it is none.
 */
function goParseInt(s: string): number | undefined {
  const m = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))$/.exec(s);
  if (!m) return undefined;
  const [, sign, hex, oct, bin, leadingZero, dec] = m;
  const magnitude =
    hex !== undefined
      ? BigInt(`0x${hex}`)
      : oct !== undefined
        ? BigInt(`0o${oct}`)
        : bin !== undefined
          ? BigInt(`0b${bin}`)
          : leadingZero !== undefined
            ? BigInt(leadingZero.length > 1 ? `0o${leadingZero.slice(1)}` : '0')
            : BigInt(dec!);
  const value = sign === '-' ? -magnitude : magnitude;
  // Out of int64 (and, for a positive value, of uint64): Go's parse fails, and the text is tried as a float.
  if (value < -(2n ** 63n) || value >= 2n ** 64n) return undefined;
  return Number(value);
}

const BOOL_TAG = 'tag:yaml.org,2002:bool';
const INT_TAG = 'tag:yaml.org,2002:int';
const FLOAT_TAG = 'tag:yaml.org,2002:float';

/**
 * The `yaml` package's `customTags` that read plain scalars by these rules: its core schema's bool, int and float tags
 * replaced by two whose `test` (an object in place of a RegExp) asks goPlainScalar. The manifest reader's reference
 * parser uses them, and so do the tests that hold the fast parser to it.
 */
export function goYamlTags(tags: unknown[]): unknown[] {
  return [
    ...tags.filter((t) => ![BOOL_TAG, INT_TAG, FLOAT_TAG].includes((t as { tag?: string }).tag ?? '')),
    goTag(BOOL_TAG, (v) => typeof v === 'boolean'),
    goTag(INT_TAG, (v) => typeof v === 'number'),
  ];
}

function goTag(tag: string, is: (v: unknown) => boolean): ScalarTag {
  return {
    tag,
    default: true,
    identify: is,
    test: { test: (s: string) => is(goPlainScalar(s)) } as unknown as RegExp,
    resolve: (s: string) => goPlainScalar(s),
  };
}
