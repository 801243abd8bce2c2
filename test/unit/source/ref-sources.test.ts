// The repo-server's checks of a source's `$name/...` value files and file parameters (runManifestGenAsync, Argo CD v3.2).
import { parseSourceOptions } from '../../../src/app/source-options.js';
import type { JsonObject } from '../../../src/model/object.js';
import { refSourceProblem, refTargets, type RefTarget } from '../../../src/source/ref-sources.js';

const helm = (h: JsonObject) => parseSourceOptions({ helm: h }, 'spec.sources[0]', 'test').helm;
const target = (repoURL: string, targetRevision: string, sha: string | undefined, chart = false): RefTarget => ({ repoURL, targetRevision, chart, sha });
const user = { repoURL: 'https://git.example/chart.git', revision: 'v1', sha: 'c1' };

describe('refSourceProblem', () => {
  const refs = new Map([['$values', target('https://git.example/vals', 'main', 'v9')]]);

  it('a $name that is no ref source is an error, whatever ignoreMissingValueFiles says, in valueFiles and fileParameters', () => {
    expect(refSourceProblem(helm({ valueFiles: ['$other/envs/prod/values.yaml'], ignoreMissingValueFiles: true }), refs, user)).toBe(
      'source referenced "$other", which is not one of the available sources ($values)',
    );
    expect(refSourceProblem(helm({ fileParameters: [{ name: 'f', path: '$other/f.txt' }] }), refs, user)).toMatch(/source referenced "\$other"/);
    expect(refSourceProblem(helm({ valueFiles: ['$values/x.yaml'] }), new Map(), user)).toBe(
      `source referenced "$values", but no source has a 'ref' field defined`,
    );
    const two = new Map([...refs, ['$a', target('https://git.example/a', 'main', 'a1')]]);
    expect(refSourceProblem(helm({ valueFiles: ['$b'] }), two, user)).toMatch(/not one of the available sources \(\$a, \$values\)$/);
  });

  it('known refs, plain paths and no helm options are fine', () => {
    expect(refSourceProblem(helm({ valueFiles: ['values.yaml', '/abs.yaml', '$values/a.yaml', 'https://x/y.yaml'] }), refs, user)).toBeUndefined();
    expect(refSourceProblem(undefined, refs, user)).toBeUndefined();
  });

  it('a chart as a ref source is refused', () => {
    const chartRef = new Map([['$hv', target('https://charts.example', '1.0.0', undefined, true)]]);
    expect(refSourceProblem(helm({ valueFiles: ['$hv/values.yaml'] }), chartRef, user)).toBe(
      "source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources",
    );
  });

  it("the source's own repository at another commit is refused; at the same commit under another name it is fine", () => {
    const same = new Map([['$values', target('https://GIT.example/chart', 'v2', 'c2')]]);
    expect(refSourceProblem(helm({ valueFiles: ['$values/a.yaml'] }), same, user)).toBe(
      'cannot reference a different revision of the same repository ($values references "v2" which resolves to "c2" while the application references "v1" which resolves to "c1")',
    );
    const sameCommit = new Map([['$values', target('https://git.example/chart.git', 'main', 'c1')]]);
    expect(refSourceProblem(helm({ valueFiles: ['$values/a.yaml'] }), sameCommit, user)).toBeUndefined();
  });

  it('one repository referenced at two revisions (as written) is refused, at one revision under two names it is fine', () => {
    const two = new Map([
      ['$v1', target('https://git.example/vals', 'v1', 'a1')],
      ['$v2', target('https://git.example/vals.git', 'v2', 'a2')],
      ['$again', target('https://git.example/vals', 'v1', 'a1')],
    ]);
    expect(refSourceProblem(helm({ valueFiles: ['$v1/a.yaml', '$again/b.yaml'] }), two, user)).toBeUndefined();
    expect(refSourceProblem(helm({ valueFiles: ['$v1/a.yaml', '$v2/b.yaml'] }), two, user)).toBe(
      'cannot reference multiple revisions for the same repository ($v2 references "v2" while $v1 references "v1")',
    );
  });
});

it('refTargets: the `ref` sources of an Application with more than one source (with one, none)', () => {
  const t = target('r', 'main', 's');
  expect([...refTargets([{ ref: 'a', target: t }, { target: t }, { ref: '', target: t }]).keys()]).toEqual(['$a']);
  expect(refTargets([{ ref: 'a', target: t }]).size).toBe(0);
});
