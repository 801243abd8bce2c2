// Argo CD's glob syntax (github.com/gobwas/glob compiled without separators, as util/glob.Match does): `*` and `**`
// match any run of characters, `/` included; `?` one character; `[abc]`, `[a-z]`, `[!a-z]`; `{a,b}` alternatives
// (each itself a pattern); `\` escapes the next character.

/** A pattern that does not compile, with the reason. */
export class GlobSyntaxError extends Error {
  constructor(
    readonly pattern: string,
    reason: string,
  ) {
    super(`${JSON.stringify(pattern)} is not a valid glob: ${reason}`);
    this.name = 'GlobSyntaxError';
  }
}

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|]/g;
const CLASS_SPECIAL = /[\\\]^-]/g;

function escapeRegex(ch: string): string {
  return ch.replace(REGEX_SPECIAL, '\\$&');
}

function escapeClass(ch: string): string {
  return ch.replace(CLASS_SPECIAL, '\\$&');
}

/** Compiles a glob into an anchored regular expression; throws GlobSyntaxError on an unclosed `[` or `{`. */
export function compileGlob(pattern: string): RegExp {
  const chars = [...pattern];
  let i = 0;
  // Parses until `stop` characters at this nesting level (`,` and `}` inside braces); returns the regex source.
  const parse = (inBraces: boolean): string => {
    let out = '';
    while (i < chars.length) {
      const c = chars[i]!;
      if (inBraces && (c === ',' || c === '}')) return out;
      i++;
      if (c === '\\') {
        const next = chars[i];
        if (next === undefined) throw new GlobSyntaxError(pattern, 'it ends with an escape');
        out += escapeRegex(next);
        i++;
      } else if (c === '*') {
        while (chars[i] === '*') i++;
        out += '[\\s\\S]*';
      } else if (c === '?') {
        out += '[\\s\\S]';
      } else if (c === '[') {
        let negate = false;
        if (chars[i] === '!') {
          negate = true;
          i++;
        }
        let body = '';
        let closed = false;
        let count = 0;
        while (i < chars.length) {
          const d = chars[i]!;
          if (d === ']') {
            closed = true;
            i++;
            break;
          }
          if (chars[i + 1] === '-' && chars[i + 2] !== undefined && chars[i + 2] !== ']') {
            const lo = d;
            const hi = chars[i + 2]!;
            if (lo > hi) throw new GlobSyntaxError(pattern, `the range ${lo}-${hi} is reversed`);
            body += `${escapeClass(lo)}-${escapeClass(hi)}`;
            i += 3;
          } else {
            body += escapeClass(d);
            i++;
          }
          count++;
        }
        if (!closed) throw new GlobSyntaxError(pattern, 'a `[` is not closed');
        if (count === 0) throw new GlobSyntaxError(pattern, 'a `[]` is empty');
        out += negate ? `[^${body}]` : `[${body}]`;
      } else if (c === '{') {
        const alternatives: string[] = [];
        for (;;) {
          alternatives.push(parse(true));
          const d = chars[i];
          if (d === undefined) throw new GlobSyntaxError(pattern, 'a `{` is not closed');
          i++;
          if (d === '}') break;
        }
        out += `(?:${alternatives.join('|')})`;
      } else {
        out += escapeRegex(c);
      }
    }
    return out;
  };
  const source = parse(false);
  if (i < chars.length) throw new GlobSyntaxError(pattern, `unexpected ${JSON.stringify(chars[i])}`);
  return new RegExp(`^${source}$`, 'u');
}

/** Whether `text` matches `pattern` (Argo CD's util/glob.Match without separators). */
export function globMatch(pattern: string, text: string): boolean {
  return compileGlob(pattern).test(text);
}
