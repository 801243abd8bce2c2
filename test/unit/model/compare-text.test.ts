import { collationKey, compareText } from '../../../src/model/object.js';

// compareText orders resource keys as the Unicode root collation does (Intl.Collator('en'), what localeCompare gives in
// an English locale), whatever the user's locale; printable ASCII through collationKey, with no collator set up.
const root = new Intl.Collator('en');
const sign = (n: number) => Math.sign(n);

describe('compareText orders as the root collation does', () => {
  const words = [
    '',
    'a',
    'A',
    'b',
    'B',
    'ab',
    'aB',
    'Ab',
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
  it('gives the same sign for every pair of these words, ASCII or not', () => {
    const differ = words.flatMap((a) => words.filter((b) => sign(compareText(a, b)) !== sign(root.compare(a, b))).map((b) => [a, b]));
    expect(differ).toEqual([]);
    expect(words.length ** 2).toBe(784);
  });

  // Every string of up to two printable ASCII characters (9,121).
  const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
  const short = ['', ...printable, ...printable.flatMap((a) => printable.map((b) => a + b))];
  it('collationKey sorts every string of up to two printable ASCII characters as the collator does', () => {
    expect(short).toHaveLength(1 + 95 + 95 * 95);
    const keyed = short.map((s) => ({ s, k: collationKey(s)! }));
    expect(keyed.every((x) => x.k !== undefined)).toBe(true);
    // Sorted by the key, every neighbour pair is in the collator's order, and equal keys only for equal strings.
    keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
    const wrong = keyed.slice(1).flatMap((x, i) => (root.compare(keyed[i]!.s, x.s) < 0 ? [] : [[keyed[i]!.s, x.s]]));
    expect(wrong).toEqual([]);
    // And the collator's own sort of the same strings is the same list.
    expect(keyed.map((x) => x.s)).toEqual([...short].sort(root.compare));
  });

  it('gives the same sign as the collator for 20,000 random pairs of printable ASCII keys up to 24 long', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    // Mostly the characters of resource keys, so that long common prefixes come up.
    const alphabet = 'aAbBzZ09-._/ ~@';
    const word = () => {
      const pool = rand(4) === 0 ? printable.join('') : alphabet;
      return Array.from({ length: rand(25) }, () => pool[rand(pool.length)]).join('');
    };
    const differ: string[][] = [];
    for (let i = 0; i < 20_000; i++) {
      const a = word();
      const b = rand(3) === 0 ? a.slice(0, rand(a.length + 1)) + word() : word();
      if (sign(compareText(a, b)) !== sign(root.compare(a, b))) differ.push([a, b]);
    }
    expect(differ).toEqual([]);
  });

  it('leaves any other string to the collator (undefined key): tabs, non-ASCII', () => {
    expect([collationKey('a\tb'), collationKey('é'), collationKey('a\u007f')]).toEqual([undefined, undefined, undefined]);
  });

  it('sorts 1,000 keys into the collator’s order', () => {
    const keys = Array.from({ length: 1000 }, (_, i) => `${i % 3 ? 'apps' : ''}/${i % 2 ? 'Deployment' : 'ConfigMap'}/ns-${i % 7}/obj-${(i * 7919) % 1000}`);
    expect([...keys].sort(compareText)).toEqual([...keys].sort(root.compare));
  });
});
