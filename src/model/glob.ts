// The pattern languages Argo CD's settings and project rules use: gobwas/glob (Argo CD's glob.Match, optionally
// with separators: argocd-cm keys, Lua health folders), Go's path/filepath.Match (resource white/blacklists), and
// glob.MatchStringInList's `/regexp/` entries (sourceNamespaces). Pure helpers shared by settings/, health/, diff/ and
// source/ (a directory source's include and exclude).

const cache = new Map<string, RegExp | null>();

/** Characters that are never special in a gobwas pattern. */
const LITERAL = /^[A-Za-z0-9._:/-]*$/;

/** Escapes a literal outside a character class (a `u` RegExp allows only syntax characters to be escaped). */
function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Escapes a literal inside a character class. */
function escapeClass(s: string): string {
  return s.replace(/[\\\]\[^-]/g, '\\$&');
}

/** A glob that does not compile (gobwas refuses it), with the reason. */
export class GlobSyntaxError extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`${JSON.stringify(pattern)} is not a valid glob: ${reason}`);
    this.name = 'GlobSyntaxError';
  }
}

/**
 * Compiles a gobwas/glob pattern to a RegExp; throws GlobSyntaxError where gobwas refuses the pattern. `*` is any run
 * of characters that are not separators, `**` any run at all, `?` one non-separator, `[abc]`, `[!abc]`, `[a-z]` (one
 * range or a list of characters), `{a,b*}` alternatives, `\` escapes.
 */
export function parseGlob(pattern: string, separators = ''): RegExp {
  const fail = (reason: string): never => {
    throw new GlobSyntaxError(pattern, reason);
  };
  const notSep = separators === '' ? '[^]' : `[^${[...separators].map(escapeClass).join('')}]`;
  const chars = [...pattern];
  let i = 0;
  const parse = (inTerms: number): string => {
    let out = '';
    while (i < chars.length) {
      const c = chars[i]!;
      if (c === '{') {
        i++;
        const alts: string[] = [parse(inTerms + 1)];
        while (chars[i] === ',') {
          i++;
          alts.push(parse(inTerms + 1));
        }
        if (chars[i] !== '}') fail('a `{` is not closed');
        i++;
        out += `(?:${alts.join('|')})`;
      } else if (inTerms > 0 && (c === ',' || c === '}')) {
        return out;
      } else if (c === '[') {
        i++;
        let not = false;
        if (chars[i] === '!') {
          not = true;
          i++;
        }
        let body = '';
        if (chars[i + 1] === '-' && chars[i] !== undefined && chars[i] !== ']') {
          const lo = chars[i]!;
          const hi = chars[i + 2];
          if (hi === undefined) fail('a `[` is not closed');
          if (hi! < lo) fail(`the range ${lo}-${hi} is reversed`);
          body = `${escapeClass(lo)}-${escapeClass(hi!)}`;
          i += 3;
          if (i < chars.length && chars[i] !== ']') fail(`a range (${lo}-${hi}) must be alone in its \`[...]\``);
        } else {
          let text = '';
          while (i < chars.length && chars[i] !== ']') {
            if (chars[i] === '\\' && i + 1 < chars.length) i++;
            text += chars[i];
            i++;
          }
          body = [...text].map(escapeClass).join('');
        }
        if (chars[i] !== ']') fail('a `[` is not closed');
        i++;
        // gobwas refuses an empty class (`[]`, `[!]`, and so `[]a]`): Argo CD's Match then matches nothing.
        if (body === '') fail('a `[...]` is empty');
        out += `[${not ? '^' : ''}${body}]`;
      } else if (c === '?') {
        i++;
        out += notSep;
      } else if (c === '*') {
        i++;
        if (chars[i] === '*') {
          i++;
          out += '[^]*';
        } else out += `${notSep}*`;
      } else {
        if (c === '\\') {
          i++;
          if (i >= chars.length) break;
        }
        out += escapeRe(chars[i]!);
        i++;
      }
    }
    if (inTerms > 0) fail('a `{` is not closed');
    return out;
  };
  const source = parse(0);
  try {
    return new RegExp(`^(?:${source})$`, 'u');
  } catch (e) {
    return fail((e as Error).message);
  }
}

/** parseGlob, cached, with null for a pattern gobwas refuses (Argo CD then logs it and matches nothing). */
export function compileGlob(pattern: string, separators = ''): RegExp | null {
  const key = `${separators}\u0000${pattern}`;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let re: RegExp | null;
  try {
    re = parseGlob(pattern, separators);
  } catch (e) {
    if (!(e instanceof GlobSyntaxError)) throw e;
    re = null;
  }
  cache.set(key, re);
  return re;
}

/** Argo CD's glob.Match: false for a pattern that does not compile. */
export function globMatch(pattern: string, text: string, separators = ''): boolean {
  // A pattern of plain characters (most API groups and names) matches itself only: no regular expression to look up.
  if (LITERAL.test(pattern)) return pattern === text;
  return compileGlob(pattern, separators)?.test(text) ?? false;
}

/**
 * The project rules' globMatch (app_project_types.go): with `allowNegation`, `!pattern` matches what
 * `pattern` does not; a lone `*` matches everything (also the empty string).
 */
export function projectGlobMatch(pattern: string, value: string, allowNegation: boolean, separators = ''): boolean {
  if (allowNegation && pattern.startsWith('!')) return !globMatch(pattern.slice(1), value, separators);
  if (pattern === '*') return true;
  return globMatch(pattern, value, separators);
}

const fpCache = new Map<string, RegExp | null>();

/**
 * Go's path/filepath.Match on Linux: `*` any run without `/`, `?` one character but `/`, `[...]` with `^`
 * negation and ranges, `\` escapes. Null (Go's ErrBadPattern) for a malformed pattern.
 */
export function compileFilepathMatch(pattern: string): RegExp | null {
  const hit = fpCache.get(pattern);
  if (hit !== undefined) return hit;
  let re: RegExp | null = null;
  try {
    const chars = [...pattern];
    let out = '';
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i]!;
      if (c === '*') out += '[^/]*';
      else if (c === '?') out += '[^/]';
      else if (c === '\\') {
        i++;
        if (i >= chars.length) throw new Error('bad pattern');
        out += escapeRe(chars[i]!);
      } else if (c === '[') {
        i++;
        let neg = false;
        if (chars[i] === '^') {
          neg = true;
          i++;
        }
        let body = '';
        let n = 0;
        for (;;) {
          if (i >= chars.length) throw new Error('bad pattern');
          if (chars[i] === ']' && n > 0) break;
          let lo = chars[i]!;
          if (lo === '\\') {
            i++;
            if (i >= chars.length) throw new Error('bad pattern');
            lo = chars[i]!;
          } else if (lo === '-' || lo === ']') throw new Error('bad pattern');
          i++;
          let hi = lo;
          if (chars[i] === '-') {
            i++;
            if (i >= chars.length) throw new Error('bad pattern');
            hi = chars[i]!;
            if (hi === '\\') {
              i++;
              if (i >= chars.length) throw new Error('bad pattern');
              hi = chars[i]!;
            } else if (hi === ']' || hi === '-') throw new Error('bad pattern');
            i++;
            if (hi < lo) throw new Error('bad pattern');
          }
          body += lo === hi ? escapeClass(lo) : `${escapeClass(lo)}-${escapeClass(hi)}`;
          n++;
        }
        out += `[${neg ? '^' : ''}${body}]`;
      } else out += escapeRe(c);
    }
    re = new RegExp(`^${out}$`, 'u');
  } catch {
    re = null;
  }
  fpCache.set(pattern, re);
  return re;
}

/** Go's filepath hasMeta on Linux: whether `path` has any of filepath.Match's special characters `*?[\`. */
export function hasMeta(path: string): boolean {
  return /[*?[\\]/.test(path);
}

/** filepath.Match(pattern, name) with a bad pattern counted as no match (as Argo CD's callers do). */
export function filepathMatch(pattern: string, name: string): boolean {
  return compileFilepathMatch(pattern)?.test(name) ?? false;
}

/** glob.MatchStringInList(list, item, REGEXP): an entry wrapped in `/` is a regular expression (unanchored), any other a glob. */
export function matchStringInList(list: readonly string[], item: string): boolean {
  for (const entry of list) {
    if (entry.length >= 2 && entry.startsWith('/') && entry.endsWith('/')) {
      try {
        if (new RegExp(entry.slice(1, -1), 'u').test(item)) return true;
      } catch {
        // Argo CD logs a pattern that does not compile and goes on
      }
    }
    if (globMatch(entry, item)) return true;
  }
  return false;
}
