// Plain-text columns, as every table of the CLI lays them out: each cell padded to its column's widest (the header's
// included), two spaces apart, the last cell as it is.

/**
 * The line of one row, for rows laid out under `head`. Widths come from one pass over the rows (no spread of every
 * row's width into Math.max, which a table of tens of thousands of rows would overflow).
 */
export function columnFormatter(head: readonly string[], rows: readonly (readonly string[])[]): (cells: readonly string[]) => string {
  const widths = head.map((h) => h.length);
  for (const row of rows)
    for (let i = 0; i < widths.length; i++) {
      const n = row[i]!.length;
      if (n > widths[i]!) widths[i] = n;
    }
  return (cells) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ');
}
