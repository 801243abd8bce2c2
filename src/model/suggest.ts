// "Did you mean this?": the names close to a mistyped one, as cobra (kubectl) suggests them: a Levenshtein distance of
// at most 2, or a name the typed word starts (a prefix of at least two characters).

/** The edit distance between two words (insertions, deletions, substitutions), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_x, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[t.length]!;
}

/** The candidates close to `typed`, nearest first (ties in the candidates' order); never `typed` itself. */
export function suggestions(typed: string, candidates: readonly string[], maxDistance = 2): string[] {
  const scored = candidates
    .filter((c) => c !== typed)
    .map((c, i) => ({ c, i, d: editDistance(typed, c) }))
    .filter(({ c, d }) => d <= maxDistance || (typed.length >= 2 && c.toLowerCase().startsWith(typed.toLowerCase())));
  return [...new Set(scored.sort((x, y) => x.d - y.d || x.i - y.i).map((x) => x.c))];
}

/**
 * cobra's words for suggestions: "\n\nDid you mean this?\n\tsync", or nothing when there are none. With `limit`, the
 * first that many (the nearest) and a line saying how many more are close (a namespace of app-000 … app-099 has a
 * hundred names within two edits of `app-00`).
 */
export function didYouMean(names: readonly string[], limit = Number.POSITIVE_INFINITY): string {
  if (names.length === 0) return '';
  const shown = names.slice(0, limit);
  const more = names.length - shown.length;
  return `\n\nDid you mean this?\n${shown.map((n) => `\t${n}`).join('\n')}${more > 0 ? `\n\t(and ${more} more as close)` : ''}`;
}
