// --revisions with --source-positions / --source-names: one revision per named source of spec.sources, the others
// at their targetRevision; every mismatch an input error naming it.
import { movedRevisions, movingSources, pinnedRevisions, sourceRevisionPins } from '../../../src/app/source-revisions.js';

const sources = [{ repoURL: 'a', name: 'app' }, { repoURL: 'b', name: 'values' }, { repoURL: 'c' }];

test('positions (1-based) and names pick the sources; the others stay undefined (their targetRevision)', () => {
  const byPosition = sourceRevisionPins({ revisions: ['feature'], sourcePositions: ['2'] })!;
  expect(pinnedRevisions(byPosition, sources, 'shop')).toEqual([undefined, 'feature', undefined]);
  const byName = sourceRevisionPins({ revisions: ['v2', 'pr-7'], sourceNames: ['values', 'app'] })!;
  expect(pinnedRevisions(byName, sources, 'shop')).toEqual(['pr-7', 'v2', undefined]);
  expect(sourceRevisionPins({})).toBeUndefined();
});

test('comma-separated positions are several, as argocd reads its integer-slice flag', () => {
  const pins = sourceRevisionPins({ revisions: ['v2', 'pr-7'], sourcePositions: ['3,1'] })!;
  expect(pinnedRevisions(pins, sources, 'shop')).toEqual(['pr-7', undefined, 'v2']);
  expect(() => sourceRevisionPins({ revisions: ['a'], sourcePositions: ['1,2'] })).toThrow(
    '--revisions gives 1 revision(s) and --source-positions 2: one for each',
  );
  expect(() => sourceRevisionPins({ revisions: ['a', 'b'], sourcePositions: ['1,'] })).toThrow("--source-positions : a source's position counts from 1");
});

test('every mismatch is an input error naming it', () => {
  expect(() => sourceRevisionPins({ revisions: ['a', 'b'], sourcePositions: ['1'] })).toThrow(
    '--revisions gives 2 revision(s) and --source-positions 1: one for each',
  );
  expect(() => sourceRevisionPins({ revisions: ['a'] })).toThrow(
    '--revisions gives 1 revision(s) and no source is named (--source-positions or --source-names)',
  );
  expect(() => sourceRevisionPins({ sourcePositions: ['1'] })).toThrow('--source-positions needs --revisions, one revision for each');
  expect(() => sourceRevisionPins({ revisions: ['a'], sourcePositions: ['0'] })).toThrow("--source-positions 0: a source's position counts from 1");
  expect(() => sourceRevisionPins({ revisions: ['a'], sourcePositions: ['1'], sourceNames: ['x'] })).toThrow('name the sources one way');
  expect(() => pinnedRevisions([{ revision: 'a', position: 4 }], sources, 'shop')).toThrow('--source-positions 4: shop has 3 sources');
  expect(() => pinnedRevisions([{ revision: 'a', name: 'nope' }], sources, 'shop')).toThrow(
    '--source-names nope: no source of shop has that name (app, values, -)',
  );
  expect(() =>
    pinnedRevisions(
      [
        { revision: 'a', position: 1 },
        { revision: 'b', name: 'app' },
      ],
      sources,
      'shop',
    ),
  ).toThrow('source 1 of shop is given two revisions');
  expect(() => pinnedRevisions([{ revision: 'a', position: 1 }], undefined, 'shop')).toThrow(/has one source: use --revision/);
});

describe("plan's move: which sources a change from --base moves", () => {
  const shop = 'https://git.example.com/org/shop.git';
  const multi = {
    name: 'shop',
    sources: [
      { repoURL: 'https://charts.example.com', targetRevision: 'main', options: { chart: 'redis' } },
      { repoURL: 'git@git.example.com:org/shop', targetRevision: 'main', ref: 'values' },
      { repoURL: shop, path: 'deploy', targetRevision: 'v1.2.0' },
      { repoURL: 'https://git.example.com/org/infra', path: 'base' },
      { repoURL: 'oci://registry.example.com/org/shop', targetRevision: 'main' },
    ],
  };

  it('moves the Git sources that follow base (of the repository, when given); a chart or an OCI artifact never moves', () => {
    expect(movedRevisions(multi, { from: 'main', to: 'pr-42' })).toEqual({ revisions: [undefined, 'pr-42', undefined, undefined, undefined] });
    expect(movedRevisions(multi, { from: 'main', to: 'pr-42', repo: 'HTTPS://git.example.com/org/shop/' })).toEqual({
      revisions: [undefined, 'pr-42', undefined, undefined, undefined],
    });
    // An empty targetRevision follows HEAD.
    expect(movedRevisions(multi, { from: 'HEAD', to: 'pr-1' })).toEqual({ revisions: [undefined, undefined, undefined, 'pr-1', undefined] });
    // The base read: the moved sources at base; no head: each at its targetRevision.
    expect(movedRevisions(multi, { from: 'main' })).toEqual({ revisions: [undefined, undefined, undefined, undefined, undefined] });
    expect(movingSources([{ repoURL: shop, targetRevision: 'main' }, { repoURL: shop }], { base: 'main', repo: 'git@git.example.com:org/other' })).toEqual([]);
  });

  it('of one source, that source at the head given, whatever it follows; none moved of several is said, not refused', () => {
    expect(movedRevisions({ name: 'one' }, { from: 'main', to: 'pr-42' })).toEqual({ revision: 'pr-42' });
    expect(movedRevisions({ name: 'one' }, { from: 'main' })).toEqual({});
    expect(movedRevisions({ name: 'one', source: { repoURL: `${shop}/` } }, { from: 'main', to: 'pr-42', repo: 'git@git.example.com:org/shop' })).toEqual({
      revision: 'pr-42',
    });
    expect(movedRevisions({ name: 'one', source: { repoURL: 'https://git.example.com/org/infra' } }, { from: 'main', to: 'pr-42', repo: shop })).toEqual({
      unmoved: 'the source of one is another repository (https://git.example.com/org/infra): it is read at its targetRevision at base and at head',
    });
    expect(movedRevisions(multi, { from: 'release', to: 'pr-42', repo: shop })).toEqual({
      unmoved:
        'none of the 5 sources of shop follows release of https://git.example.com/org/shop.git (1: chart redis main, 2: main, 3: v1.2.0, 4: HEAD, 5: main): every source is read at its targetRevision at base and at head',
    });
  });
});

test('followOnly (an app a parent renders): one source moves only when it follows base, as one of several; nothing moved is no warning', () => {
  const shop = 'https://git.example.com/org/shop.git';
  const child = (targetRevision: string) => ({ name: 'child', source: { repoURL: shop, path: 'a', targetRevision } });
  expect(movedRevisions(child('main'), { from: 'main', to: 'pr-1', followOnly: true })).toEqual({ revision: 'pr-1' });
  expect(movedRevisions(child('v1.2.0'), { from: 'main', to: 'pr-1', followOnly: true })).toEqual({});
  expect(movedRevisions(child('main'), { from: 'main', to: 'pr-1', repo: 'https://git.example.com/org/infra', followOnly: true })).toEqual({});
  expect(movedRevisions({ name: 'many', sources: [{ repoURL: shop, targetRevision: 'v1' }] }, { from: 'main', to: 'pr-1', followOnly: true })).toEqual({});
});
