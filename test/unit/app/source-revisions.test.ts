// --revisions with --source-positions / --source-names: one revision per named source of spec.sources, the others
// at their targetRevision; every mismatch an input error naming it.
import { pinnedRevisions, sourceRevisionPins } from '../../../src/app/source-revisions.js';

const sources = [{ repoURL: 'a', name: 'app' }, { repoURL: 'b', name: 'values' }, { repoURL: 'c' }];

test('positions (1-based) and names pick the sources; the others stay undefined (their targetRevision)', () => {
  const byPosition = sourceRevisionPins({ revisions: ['feature'], sourcePositions: ['2'] })!;
  expect(pinnedRevisions(byPosition, sources, 'shop')).toEqual([undefined, 'feature', undefined]);
  const byName = sourceRevisionPins({ revisions: ['v2', 'pr-7'], sourceNames: ['values', 'app'] })!;
  expect(pinnedRevisions(byName, sources, 'shop')).toEqual(['pr-7', 'v2', undefined]);
  expect(sourceRevisionPins({})).toBeUndefined();
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
