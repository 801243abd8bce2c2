// Argo CD's targetRevision semantics (util/versions on Masterminds semver v3.4.0): versions, constraints, and the greatest
// tag a constraint picks. Every expected value below was produced by a Go oracle that runs Argo CD's MaxVersion and
// IsConstraint on the real library (the same oracle the module was checked against on a generated corpus).
import { isSemverConstraint, isSemverVersion, maxVersion } from '../../../src/source/semver.js';

/** Releases, prereleases, a `v` tag and tags that are not versions (skipped by a constraint). */
const T = [
  '0.0.1',
  '0.0.2',
  '0.1.0',
  '0.1.5',
  '0.2.0',
  '1.0.0',
  '1.2.0',
  '1.2.3',
  '1.2.9',
  '1.3.0',
  '1.10.0',
  'v1.4.0',
  '2.0.0-rc.1',
  '2.0.0',
  '2.1.0-beta',
  'latest',
  'main',
  '1.2.3.4',
];
/** Prereleases of one version, for precedence. */
const P = ['1.2.3', '1.2.3-alpha', '1.2.3-alpha.1', '1.2.3-alpha.beta', '1.2.3-beta.2', '1.2.3-beta.11', '1.2.3-rc.1', '1.2.4'];

describe('semver as Argo CD resolves a targetRevision', () => {
  // revision, tags, MaxVersion, IsVersion, IsConstraint
  const table: [string, readonly string[], { version: string } | { error: string }, boolean, boolean][] = [
    // versions: returned as written
    ['1.2.3', T, { version: '1.2.3' }, true, false],
    ['v1.2.3-beta.1+build', T, { version: 'v1.2.3-beta.1+build' }, true, false],
    ['v1', T, { version: 'v1' }, true, false],
    ['1.2', [], { version: '1.2' }, true, false],
    ['01.02.03', [], { version: '01.02.03' }, true, false],
    // each operator
    ['=1.2.3', T, { version: '1.2.3' }, false, true],
    ['1.2.3 ', T, { version: '1.2.3' }, false, true],
    ['!=1.2.9', T, { version: '2.0.0' }, false, true],
    ['>1.2.3', T, { version: '2.0.0' }, false, true],
    ['<1.2.3', T, { version: '1.2.0' }, false, true],
    ['>=1.2.9', T, { version: '2.0.0' }, false, true],
    ['=>1.2.9', T, { version: '2.0.0' }, false, true],
    ['<=1.2.3', T, { version: '1.2.3' }, false, true],
    ['=<1.2.3', T, { version: '1.2.3' }, false, true],
    ['~1.2.0', T, { version: '1.2.9' }, false, true],
    ['~>1.2.0', T, { version: '1.2.9' }, false, true],
    ['~1', T, { version: '1.10.0' }, false, true],
    ['^1.2.0', T, { version: '1.10.0' }, false, true],
    ['^0.1.0', T, { version: '0.1.5' }, false, true],
    ['^0.0.1', T, { version: '0.0.1' }, false, true],
    ['^0.x', T, { version: '0.2.0' }, false, true],
    ['^1.2.x', T, { version: '1.10.0' }, false, true],
    ['^0', T, { version: '0.2.0' }, false, true],
    // missing parts and wildcards
    ['>1.2', T, { version: '2.0.0' }, false, true],
    ['>1.2', ['1.2.9', '1.3.0'], { version: '1.3.0' }, false, true],
    ['>1.2', ['1.2.9'], { error: 'version matching constraint not found in 1 tags' }, false, true],
    ['>1', ['1.9.0'], { error: 'version matching constraint not found in 1 tags' }, false, true],
    ['>1', T, { version: '2.0.0' }, false, true],
    ['!=2.0.0', T, { version: '1.10.0' }, false, true],
    ['!=1.x', ['0.3.0', '1.0.0', '1.5.0'], { version: '0.3.0' }, false, true],
    ['!=1.2.x', ['1.1.0', '1.2.0', '1.2.9'], { version: '1.1.0' }, false, true],
    ['!=1.2.x-rc', ['1.2.0-rc', '1.2.0-beta'], { version: '1.2.0-beta' }, false, true],
    ['<=1.2', T, { version: '1.2.9' }, false, true],
    ['<=1.x', T, { version: '1.10.0' }, false, true],
    ['<1.2.x', T, { version: '1.0.0' }, false, true],
    ['!=1.x', T, { version: '2.0.0' }, false, true],
    ['!=1.2.x', T, { version: '2.0.0' }, false, true],
    ['1.2.x', T, { version: '1.2.9' }, false, true],
    ['1.*', T, { version: '1.10.0' }, false, true],
    ['*', T, { version: '2.0.0' }, false, true],
    ['x', T, { version: '2.0.0' }, false, true],
    ['1.X', T, { version: '1.10.0' }, false, true],
    ['x.9.9', T, { version: '2.0.0' }, false, true],
    ['<=*', T, { version: '0.0.2' }, false, true],
    // hyphen ranges, AND, OR
    ['1.2 - 1.4.5', T, { version: 'v1.4.0' }, false, true],
    ['0.1.0 - 1.2.3', T, { version: '1.2.3' }, false, true],
    ['>=1.2.0 <1.3.0', T, { version: '1.2.9' }, false, true],
    ['>=1.2.0, <1.3.0', T, { version: '1.2.9' }, false, true],
    ['<0.1.0 || >=1.3.0 <2', T, { version: '1.10.0' }, false, true],
    ['^0.1 || ^1.10', T, { version: '1.10.0' }, false, true],
    // prereleases
    ['>=2.0.0-0', T, { version: '2.1.0-beta' }, false, true],
    ['>=1.0.0', T, { version: '2.0.0' }, false, true],
    ['~2.0.0-rc', T, { version: '2.0.0' }, false, true],
    ['>=1.2.3-alpha', P, { version: '1.2.4' }, false, true],
    ['<1.2.3', P, { error: 'version matching constraint not found in 8 tags' }, false, true],
    ['>1.2.3-beta.2', P, { version: '1.2.4' }, false, true],
    ['>1.2.3-alpha <1.2.3-beta.11', P, { version: '1.2.3-beta.2' }, false, true],
    ['>=1.2.3-alpha || >=9', P, { version: '1.2.4' }, false, true],
    ['>=9-0 || >=1.2.0', P, { version: '1.2.4' }, false, true],
    // ties: the first written wins
    ['^1', ['1.0.0+b', 'v1.0.0', '1.0.0'], { version: '1.0.0+b' }, false, true],
    // non-constraint revisions
    ['main', T, { version: 'main' }, false, false],
    ['release-1.0', T, { error: 'failed to determine semver constraint: improper constraint: release-1.0' }, false, false],
    ['', ['', '1.0.0'], { version: '' }, false, false],
    ['', T, { error: 'failed to determine semver constraint: improper constraint: ' }, false, false],
    ['>>1', T, { error: 'failed to determine semver constraint: improper constraint: >>1' }, false, false],
    ['1.2.3 -', T, { error: 'failed to determine semver constraint: improper constraint: 1.2.3 -' }, false, false],
    ['1 ||', T, { error: 'failed to determine semver constraint: improper constraint: ' }, false, false],
    ['1.2.3.4', T, { version: '1.2.3.4' }, false, false],
    // tags Go cannot hold stop the search
    ['^1', ['1.0.0', '1.2.3-01'], { error: 'invalid semver version in tags: version segment starts with 0' }, false, true],
    [
      '^1',
      ['1.0.0', '99999999999999999999.0.0'],
      { error: 'invalid semver version in tags: error parsing version segment: strconv.ParseUint: parsing "99999999999999999999": value out of range' },
      false,
      true,
    ],
    ['^3', T, { error: 'version matching constraint not found in 18 tags' }, false, true],
  ];

  it.each(table)('%j in the tags', (revision, tags, result, version, constraint) => {
    expect(maxVersion(revision, tags)).toEqual(result);
    expect(isSemverVersion(revision)).toBe(version);
    expect(isSemverConstraint(revision)).toBe(constraint);
  });
});
