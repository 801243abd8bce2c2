// Keeping kv lines whole, and `-o env`: the kv keys as shell assignments that `eval` or `.` can take whatever a value holds.
//
// kv stays one `KEY=value` per line: names are quoted where they must be (model/object.ts nameToken)
// and free text (messages, reasons) is put on one line here. env turns those lines into `KEY='value'`
// with POSIX single quotes (a `'` inside becomes `'\''`), so nothing in a value is expanded or run; a
// key that kv repeats (DRIFT=, PRUNE=, …) becomes one variable holding its values one per line.

/** Free text on one line: each run of whitespace (newlines included) becomes one space; other control characters are dropped. */
export function oneLineText(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .trim();
}

/** A value in POSIX single quotes. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** kv lines as shell assignments, keys in the order they first appear; repeated keys joined by newlines. */
export function kvToEnv(kv: string): string {
  const values = new Map<string, string[]>();
  for (const line of kv.split('\n')) {
    if (line === '') continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, eq);
    if (eq <= 0 || !/^[A-Z_][A-Z0-9_]*$/.test(key)) throw new Error(`internal: kv line is not KEY=value: ${JSON.stringify(line)}`);
    const list = values.get(key) ?? [];
    list.push(line.slice(eq + 1));
    values.set(key, list);
  }
  return [...values].map(([k, v]) => `${k}=${shellQuote(v.join('\n'))}\n`).join('');
}
