// cobra's "Did you mean this?": edit distance ≤ 2 or a prefix, nearest first.
import { didYouMean, editDistance, suggestions } from '../../../src/model/suggest.js';

const COMMANDS = ['diff', 'sync', 'prune', 'status', 'list', 'dashboard', 'history', 'rollback', 'windows', 'normalize', 'version', 'completion'];

test('edit distance: insertions, deletions, substitutions, case-insensitive', () => {
  expect(editDistance('sycn', 'sync')).toBe(2);
  expect(editDistance('statu', 'status')).toBe(1);
  expect(editDistance('Diff', 'diff')).toBe(0);
  expect(editDistance('', 'abc')).toBe(3);
  expect(editDistance('kitten', 'sitting')).toBe(3);
});

test('suggestions: within two edits or a prefix, nearest first; none for a word far from every name', () => {
  expect(suggestions('sycn', COMMANDS)).toEqual(['sync']);
  expect(suggestions('stats', COMMANDS)).toEqual(['status']);
  expect(suggestions('dash', COMMANDS)).toEqual(['dashboard']);
  expect(suggestions('lst', COMMANDS)).toEqual(['list']);
  expect(suggestions('deploy', COMMANDS)).toEqual([]);
  expect(suggestions('shpo', ['shop', 'shop-canary', 'orders'])).toEqual(['shop']);
  expect(suggestions('shop', ['shop', 'shop-canary'])).toEqual(['shop-canary']);
});

test("cobra's words, or nothing", () => {
  expect(didYouMean(['sync'])).toBe('\n\nDid you mean this?\n\tsync');
  expect(didYouMean([])).toBe('');
  // A limit shows the nearest and says how many more are as close.
  const names = suggestions(
    'app-00',
    Array.from({ length: 100 }, (_x, i) => `app-${String(i).padStart(3, '0')}`),
  );
  expect(names).toHaveLength(100);
  expect(didYouMean(names, 5)).toBe('\n\nDid you mean this?\n\tapp-000\n\tapp-001\n\tapp-002\n\tapp-003\n\tapp-004\n\t(and 95 more as close)');
  expect(didYouMean(['sync'], 5)).toBe('\n\nDid you mean this?\n\tsync');
});
