// Semantic versions and version constraints as Argo CD reads a targetRevision (util/versions, on
// github.com/Masterminds/semver/v3 v3.4.0): which revisions are versions and which constraints, and the greatest tag
// that satisfies a constraint. The library's rules are kept, quirks included (`<=1.x` means <2.0.0, `!=1.x` excludes
// every 1.y.z, `<=*` only 0.y.z, a prerelease only for a group that names one), since Argo CD resolves with them; checked
// against the Go library on a generated corpus.

/** A parsed version: numbers as bigint (Go's uint64), the prerelease without its `-`, the text as it was written. */
interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string;
  original: string;
}

/** One comparator of a constraint: its operator, its version, and which parts were missing or wildcards. */
interface Comparator {
  op: string;
  con: Version;
  /** The major, minor or patch was left out or written as x, X or *. */
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

/** An AND group of comparators; prereleases are let in when one of them names a prerelease. */
interface Group {
  comparators: Comparator[];
  includePre: boolean;
}

/** Why a version did not parse: not a version at all (a tag Argo skips), or a version Go rejects outright. */
type ParseFailure = { invalid: true } | { invalid: false; message: string };

const UINT64_MAX = (1n << 64n) - 1n;

/** Go's whitespace in regular expressions (`\s`): ASCII only, unlike JavaScript's. */
const W = '[\\t\\n\\f\\r ]';

/** The lenient version: optional `v`, minor and patch optional, leading zeros allowed, prerelease and build metadata. */
const LOOSE_VERSION = /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;

/** The version of a comparator: like a version, but any of major, minor and patch may be x, X or * (and `|`, which fails later). */
const CV = 'v?([0-9|xX*]+)(\\.[0-9|xX*]+)?(\\.[0-9|xX*]+)?(-([0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*))?(\\+([0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*))?';
const CV_ONLY = new RegExp(`^${CV}$`);

/** The operators, the empty one first as in the library's alternation (an empty operator means `=` or `~` when dirty). */
const OPS = ['=', '', '!=', '>', '<', '>=', '=>', '<=', '=<', '~', '~>', '^'];
const OPS_RE = '=||!=|>|<|>=|=>|<=|=<|~|~>|\\^';

/** One comparator, whole: operator, spaces, version. */
const COMPARATOR = new RegExp(`^${W}*(${OPS_RE})${W}*(${CV})${W}*$`);
/** The comparators of a valid AND group, found left to right. */
const FIND_COMPARATOR = new RegExp(`(${OPS_RE})${W}*(${CV})`, 'g');
/** A hyphen range `A - B` (spaces required round the hyphen), rewritten to `>= A, <= B`. */
const HYPHEN_RANGE = new RegExp(`${W}*(${CV})${W}+-${W}+(${CV})${W}*`, 'g');

const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\n' || ch === '\f' || ch === '\r';
const isX = (s: string): boolean => s === 'x' || s === 'X' || s === '*';

/** Go's strconv.ParseUint(s, 10, 64): ASCII digits only, at most 2^64-1. */
function parseUint(s: string): bigint | string {
  if (!/^[0-9]+$/.test(s)) return `strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`;
  const n = BigInt(s);
  return n > UINT64_MAX ? `strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range` : n;
}

/** Masterminds' NewVersion (coercing): the loose form, then numbers that fit uint64 and no numeric prerelease part with a leading zero. */
function parseVersion(text: string): Version | ParseFailure {
  const m = LOOSE_VERSION.exec(text);
  if (!m) return { invalid: true };
  const nums: bigint[] = [];
  for (const part of [m[1], m[2], m[3]]) {
    const n = part === undefined ? 0n : parseUint(part.replace(/^\./, ''));
    if (typeof n === 'string') return { invalid: false, message: `error parsing version segment: ${n}` };
    nums.push(n);
  }
  const [major = 0n, minor = 0n, patch = 0n] = nums;
  const pre = m[5] ?? '';
  // Prerelease identifiers: the pattern already keeps them non-empty and alphanumeric; numeric ones may not start with 0.
  for (const id of pre === '' ? [] : pre.split('.')) {
    if (/^[0-9]+$/.test(id) && id.length > 1 && id.startsWith('0')) return { invalid: false, message: 'version segment starts with 0' };
  }
  return { major, minor, patch, pre, original: text };
}

const isVersion = (p: Version | ParseFailure): p is Version => !('invalid' in p);

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** One prerelease identifier against another: missing sorts first, numbers (that fit uint64) before words, words bytewise. */
function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const si = parseUint(s);
  const oi = parseUint(o);
  const sNum = typeof si === 'bigint';
  const oNum = typeof oi === 'bigint';
  if (!sNum && !oNum) return s > o ? 1 : -1;
  if (!oNum) return -1;
  if (!sNum) return 1;
  return si > oi ? 1 : -1;
}

/** Prereleases identifier by identifier; a shorter one that is a prefix of the other sorts first. */
function comparePrerelease(a: string, b: string): number {
  const as = a.split('.');
  const bs = b.split('.');
  for (let i = 0; i < Math.max(as.length, bs.length); i++) {
    const d = comparePrePart(as[i] ?? '', bs[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

/** Semver precedence: major, minor, patch, then a release above any of its prereleases; build metadata is ignored. */
function compare(v: Version, o: Version): number {
  const d = cmp(v.major, o.major) || cmp(v.minor, o.minor) || cmp(v.patch, o.patch);
  if (d !== 0) return d;
  if (v.pre === '' && o.pre === '') return 0;
  if (v.pre === '') return 1;
  if (o.pre === '') return -1;
  return comparePrerelease(v.pre, o.pre);
}

/** Whether an AND group is well formed: comparators (operator, spaces, version) separated by spaces or a comma. */
function validGroup(s: string): boolean {
  let i = 0;
  const skipSpaces = (): number => {
    const start = i;
    while (i < s.length && isSpace(s.charAt(i))) i++;
    return i - start;
  };
  skipSpaces();
  for (;;) {
    // The operator is the whole run of operator characters (a version never holds one).
    let j = i;
    while (j < s.length && '=!<>~^'.includes(s.charAt(j))) j++;
    if (!OPS.includes(s.slice(i, j))) return false;
    i = j;
    skipSpaces();
    // The version runs to the next space or comma.
    j = i;
    while (j < s.length && !isSpace(s.charAt(j)) && s.charAt(j) !== ',') j++;
    if (!CV_ONLY.test(s.slice(i, j))) return false;
    i = j;
    const spaces = skipSpaces();
    if (i === s.length) return true;
    if (s.charAt(i) === ',') {
      i++;
      skipSpaces();
    } else if (spaces === 0) return false;
  }
}

/** `A - B` becomes `>= A, <= B `, each range in turn replacing its first occurrence in the text rewritten so far. */
function rewriteRanges(text: string): string {
  let out = text;
  for (const m of text.matchAll(HYPHEN_RANGE)) {
    const at = out.indexOf(m[0]);
    if (at >= 0) out = `${out.slice(0, at)}>= ${m[1]}, <= ${m[11]} ${out.slice(at + m[0].length)}`;
  }
  return out;
}

/** One comparator: a missing or wildcard part zeroes it and the parts after it (keeping the prerelease, dropping metadata). */
function parseComparator(text: string): Comparator | string {
  const m = COMPARATOR.exec(text);
  if (!m) return `improper constraint: ${text}`;
  const [, op = '', written = '', major = '', minor = '', patch = '', pre = ''] = m;
  let ver = written;
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major)) {
    ver = `0.0.0${pre}`;
    dirty = true;
  } else if (minor === '' || isX(minor.slice(1))) {
    ver = `${major}.0.0${pre}`;
    dirty = minorDirty = true;
  } else if (patch === '' || isX(patch.slice(1))) {
    ver = `${major}${minor}.0${pre}`;
    dirty = patchDirty = true;
  }
  const con = parseVersion(ver);
  if (!isVersion(con)) return 'constraint parser error';
  return { op, con, dirty, minorDirty, patchDirty };
}

/** Masterminds' NewConstraint: OR groups split on `||`, each an AND of comparators; a group's comparator with a prerelease lets prereleases in. */
function parseConstraint(text: string): Group[] | string {
  const groups: Group[] = [];
  for (const group of rewriteRanges(text).split('||')) {
    if (!validGroup(group)) return `improper constraint: ${group}`;
    const comparators: Comparator[] = [];
    for (const found of group.matchAll(FIND_COMPARATOR)) {
      const c = parseComparator(found[0]);
      if (typeof c === 'string') return c;
      comparators.push(c);
    }
    groups.push({ comparators, includePre: comparators.some((c) => c.con.pre !== '') });
  }
  return groups;
}

/** `!=`: a dirty comparator excludes its whole range (`!=1.x` is every 1.y.z; `!=1.2.x` every 1.2.z, prereleases aside). */
function notEqual(v: Version, c: Comparator): boolean {
  if (c.dirty) {
    if (c.con.major !== v.major) return true;
    if (c.con.minor !== v.minor && !c.minorDirty) return true;
    if (c.minorDirty) return false;
    if (c.con.patch !== v.patch && !c.patchDirty) return true;
    if (c.patchDirty) return (v.pre !== '' || c.con.pre !== '') && comparePrerelease(v.pre, c.con.pre) !== 0;
  }
  return compare(v, c.con) !== 0;
}

/** `>`: with a missing part, greater than the whole range (`>1.2` is >=1.3.0, `>1` is >=2.0.0). */
function greaterThan(v: Version, c: Comparator): boolean {
  if (!c.dirty) return compare(v, c.con) > 0;
  if (v.major !== c.con.major) return v.major > c.con.major;
  if (c.minorDirty) return false;
  if (c.patchDirty) return v.minor > c.con.minor;
  return compare(v, c.con) > 0;
}

/** `<=`: with a missing part, anything up to the end of the range (`<=1.2` is <1.3.0, `<=1` and `<=1.x` are <2.0.0). */
function lessThanEqual(v: Version, c: Comparator): boolean {
  if (!c.dirty) return compare(v, c.con) <= 0;
  if (v.major > c.con.major) return false;
  return !(v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty);
}

/** `~`: at least the version, same major, and same minor unless the minor was missing (`~1` is 1.x); `~*` and `~0.0.0` anything. */
function tilde(v: Version, c: Comparator): boolean {
  if (compare(v, c.con) < 0) return false;
  if (c.con.major === 0n && c.con.minor === 0n && c.con.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== c.con.major) return false;
  return v.minor === c.con.minor || c.minorDirty;
}

/** `^`: at least the version, same major; for 0.y same minor (unless the minor was missing); for 0.0.z the same patch. */
function caret(v: Version, c: Comparator): boolean {
  if (compare(v, c.con) < 0) return false;
  if (c.con.major > 0n || c.minorDirty) return v.major === c.con.major;
  if (v.major > 0n) return false;
  if (c.con.minor > 0n || c.patchDirty) return v.minor === c.con.minor;
  if (v.minor > 0n) return false;
  return v.patch === c.con.patch;
}

/** One comparator; a version with a prerelease fails every comparator unless its group names a prerelease. */
function check(v: Version, c: Comparator, includePre: boolean): boolean {
  if (v.pre !== '' && !includePre) return false;
  switch (c.op) {
    case '':
    case '=':
      // No operator or `=`: a dirty version is a tilde range (`1.2` is 1.2.x, `1` is 1.x), else equality.
      return c.dirty ? tilde(v, c) : compare(v, c.con) === 0;
    case '!=':
      return notEqual(v, c);
    case '>':
      return greaterThan(v, c);
    case '<':
      // `<` ignores the wildcards: `<1.2.x` is <1.2.0.
      return compare(v, c.con) < 0;
    case '>=':
    case '=>':
      return compare(v, c.con) >= 0;
    case '<=':
    case '=<':
      return lessThanEqual(v, c);
    case '~':
    case '~>':
      return tilde(v, c);
    default:
      return caret(v, c);
  }
}

/** Masterminds semver.NewVersion succeeds (lenient: leading v, missing minor/patch, prerelease, build metadata). */
export function isSemverVersion(text: string): boolean {
  return isVersion(parseVersion(text));
}

/** Argo CD's versions.IsConstraint: not a version, and parses as a Masterminds constraint. */
export function isSemverConstraint(text: string): boolean {
  return !isSemverVersion(text) && typeof parseConstraint(text) !== 'string';
}

/**
 * Argo CD's versions.MaxVersion(revision, tags): a version is returned as written (even if not among the tags); a
 * revision that is neither version nor constraint is returned when a tag equals it, else an error; a constraint gives
 * the original text of the greatest tag that satisfies it (tags that are not versions skipped), else an error.
 */
export function maxVersion(revision: string, tags: readonly string[]): { version: string } | { error: string } {
  if (isSemverVersion(revision)) return { version: revision };
  const constraint = parseConstraint(revision);
  if (typeof constraint === 'string') {
    return tags.includes(revision) ? { version: revision } : { error: `failed to determine semver constraint: ${constraint}` };
  }
  let best: Version | undefined;
  for (const tag of tags) {
    const v = parseVersion(tag);
    if (!isVersion(v)) {
      // Not a version: skipped. A version Go cannot hold (a number past uint64, a prerelease `01`) stops the search.
      if (v.invalid) continue;
      return { error: `invalid semver version in tags: ${v.message}` };
    }
    const ok = constraint.some((group) => group.comparators.every((c) => check(v, c, group.includePre)));
    // The first of equal versions wins (`v1.0.0` and `1.0.0+build` tie).
    if (ok && (best === undefined || compare(v, best) > 0)) best = v;
  }
  return best === undefined ? { error: `version matching constraint not found in ${tags.length} tags` } : { version: best.original };
}
