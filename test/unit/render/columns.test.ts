// The columns every CLI table uses: padded to the widest cell (header included), two spaces apart, the last cell as it is.
import { columnFormatter } from '../../../src/render/columns.js';

test('each cell but the last is padded to its column, the header counting', () => {
  const head = ['NAME', 'RESULT', 'NOTE'];
  const rows = [
    ['a', 'synced', ''],
    ['longer-name', 'ok', 'a note'],
  ];
  const fmt = columnFormatter(head, rows);
  expect([head, ...rows].map(fmt)).toEqual(['NAME         RESULT  NOTE', 'a            synced  ', 'longer-name  ok      a note']);
});

test('a table of 200,000 rows is laid out (no argument spread over the rows)', () => {
  const rows = Array.from({ length: 200_000 }, (_, i) => [`row-${i}`, 'x']);
  const fmt = columnFormatter(['ID', 'V'], rows);
  expect(fmt(rows[0]!)).toBe('row-0       x');
  expect(fmt(rows[199_999]!)).toBe('row-199999  x');
});
