import { compareText } from '../../../src/model/object.js';

// compareText stands in for localeCompare in the report's and the tree's order: it must give the same sign for every pair.
describe('compareText orders as localeCompare does', () => {
  const words = [
    '',
    'a',
    'A',
    'b',
    'B',
    'ab',
    'a-b',
    'a_b',
    'a.b',
    'a/b',
    'a1',
    'a10',
    'a2',
    'cm-10',
    'cm-9',
    'apps/Deployment/ns/web',
    '/ConfigMap/ns/web',
    '/Secret/ns/web',
    'rbac.authorization.k8s.io/Role/ns/x',
    'é',
    'e',
    'z',
    'Ω',
    '日本',
    ' ',
    '~',
  ];
  it('gives the same sign for every pair of these words', () => {
    const differ = words.flatMap((a) => words.filter((b) => Math.sign(compareText(a, b)) !== Math.sign(a.localeCompare(b))).map((b) => [a, b]));
    expect(differ).toEqual([]);
    expect(words.length ** 2).toBe(676);
  });

  it('sorts 1,000 keys into the same order', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `${i % 3 ? 'apps' : ''}/${i % 2 ? 'Deployment' : 'ConfigMap'}/ns-${i % 7}/obj-${(i * 7919) % 1000}`);
    expect([...keys].sort(compareText)).toEqual([...keys].sort((a, b) => a.localeCompare(b)));
  });
});
