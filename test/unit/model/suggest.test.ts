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
});
