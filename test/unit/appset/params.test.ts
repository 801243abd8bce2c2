// Flattening (jeremywohl/flatten DotStyle + fmt %v, as generator_spec_processor.go flattenParameters), label
// selectors, and SanitizeName (utils/template_functions.go; cases from utils_test.go TestSanitizeName).
import { flatten, flattenToStrings, goString, sanitizeName, selectorMatches } from '../../../src/appset/params.js';

describe('flatten', () => {
  it('nests with dots, lists by index, drops empty maps and lists', () => {
    expect(flatten({ a: { b: 'c', d: [1, { e: true }] }, empty: {}, none: [], n: null })).toEqual({ 'a.b': 'c', 'a.d.0': 1, 'a.d.1.e': true, n: null });
  });
  it('as strings, the way fmt %v prints them', () => {
    expect(flattenToStrings({ i: 1, f: 1.5, big: 1e6, n: 123456, e: 1234567, small: 0.00001, b: false, z: null })).toEqual({
      i: '1',
      f: '1.5',
      big: '1e+06',
      n: '123456',
      e: '1.234567e+06',
      small: '1e-05',
      b: 'false',
      z: '<nil>',
    });
    expect(goString('s')).toBe('s');
  });
});

describe('selectorMatches', () => {
  const labels = { env: 'prod', 'path.basename': 'guestbook' };
  it.each([
    [{ matchLabels: { env: 'prod' } }, true],
    [{ matchLabels: { env: 'dev' } }, false],
    [{ matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'prod'] }] }, true],
    [{ matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] }, false],
    [{ matchExpressions: [{ key: 'missing', operator: 'NotIn', values: ['x'] }] }, true],
    [{ matchExpressions: [{ key: 'path.basename', operator: 'Exists' }] }, true],
    [{ matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, false],
    [{}, true],
  ])('%j -> %s', (sel, want) => expect(selectorMatches(sel, labels)).toBe(want));
  it('an unknown operator throws', () => expect(() => selectorMatches({ matchExpressions: [{ key: 'a', operator: 'Near' }] }, labels)).toThrow(/operator/));
  it('keys must be qualified names; In needs values, Exists takes none; values are not checked (applicationset/utils/selector.go)', () => {
    expect(() => selectorMatches({ matchLabels: { 'path[0]': 'a' } }, labels)).toThrow(/error parsing label selector.*not a qualified name/);
    expect(() => selectorMatches({ matchExpressions: [{ key: 'env', operator: 'In', values: [] }] }, labels)).toThrow(/can't be empty/);
    expect(() => selectorMatches({ matchExpressions: [{ key: 'env', operator: 'Exists', values: ['x'] }] }, labels)).toThrow(/must be empty/);
    expect(selectorMatches({ matchLabels: { 'example.com/env': '{{ not a label value }}' } }, labels)).toBe(false);
  });
});

describe('sanitizeName', () => {
  it.each([
    ['MyApp', 'myapp'],
    ['my_app', 'my-app'],
    ['-my.app-', 'my.app'],
    ['a/b c', 'a-b-c'],
    ['x'.repeat(300), 'x'.repeat(253)],
  ])('%s -> %s', (i, o) => expect(sanitizeName(i)).toBe(o));
});
