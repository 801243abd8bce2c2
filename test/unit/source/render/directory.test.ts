import { DEFAULT_DIRECTORY } from '../../../../src/app/source-options.js';
import { InputError } from '../../../../src/model/errors.js';
import { ignoredAsNotKubernetes, parseDirectoryFile, selectDirectoryFiles } from '../../../../src/source/render/directory.js';

const files = ['b.yaml', 'a.yml', 'c.json', 'd.jsonnet', 'README.md', 'E.YAML', 'sub/x.yaml', 'sub/deep/y.json', '.hidden.yaml', 'a/z.yaml'];
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

describe('directory source: which files', () => {
  it('reads only the folder itself by default, case-sensitive extensions, hidden files included, in walk order', () => {
    expect(selectDirectoryFiles(files, DEFAULT_DIRECTORY)).toEqual(['.hidden.yaml', 'a.yml', 'b.yaml', 'c.json', 'd.jsonnet']);
  });

  it('walks sub-folders with recurse, a folder before a file that sorts after it', () => {
    expect(selectDirectoryFiles(files, { ...DEFAULT_DIRECTORY, recurse: true })).toEqual([
      '.hidden.yaml',
      'a/z.yaml',
      'a.yml',
      'b.yaml',
      'c.json',
      'd.jsonnet',
      'sub/deep/y.json',
      'sub/x.yaml',
    ]);
  });

  it('applies exclude, then include, to the path relative to source.path', () => {
    const opts = { ...DEFAULT_DIRECTORY, recurse: true };
    expect(selectDirectoryFiles(files, { ...opts, include: '{sub/*,b.yaml}' })).toEqual(['b.yaml', 'sub/deep/y.json', 'sub/x.yaml']);
    expect(selectDirectoryFiles(files, { ...opts, include: '*.yaml', exclude: 'sub/*' })).toEqual(['.hidden.yaml', 'a/z.yaml', 'b.yaml']);
    expect(selectDirectoryFiles(files, { ...opts, exclude: '{*.json,*.jsonnet}' })).toEqual(['.hidden.yaml', 'a/z.yaml', 'a.yml', 'b.yaml', 'sub/x.yaml']);
  });

  it('refuses a glob that does not compile, naming the field', () => {
    expect(() => selectDirectoryFiles(files, { ...DEFAULT_DIRECTORY, include: '{a' })).toThrow(InputError);
    expect(() => selectDirectoryFiles(files, { ...DEFAULT_DIRECTORY, exclude: '[a' })).toThrow(/spec\.source\.directory\.exclude/);
  });
});

describe('directory source: files that are not Kubernetes objects', () => {
  it('passes over YAML that has no object and lacks apiVersion:, kind: or metadata:', () => {
    expect(parseDirectoryFile('replicas: 3\nimage: nginx\n', 'values.yaml')).toEqual([]);
    expect(parseDirectoryFile('- a\n- b\n', 'list.yaml')).toEqual([]);
    expect(parseDirectoryFile('key: [unclosed\n', 'broken.yaml')).toEqual([]);
    expect(ignoredAsNotKubernetes('apiVersion: v1\nkind: ""\nmetadata: {}\n', 'x.yaml')).toBe(false);
  });

  it('still refuses what looks like a manifest, an object followed by a non-object, and bad JSON', () => {
    expect(() => parseDirectoryFile('apiVersion: v1\nmetadata:\n  name: x\nkind: [\n', 'bad.yaml')).toThrow(InputError);
    expect(() => parseDirectoryFile(`${cm('a')}---\nfoo: bar\n`, 'mixed.yaml')).toThrow(InputError);
    expect(() => parseDirectoryFile('{"replicas": 3}', 'values.json')).toThrow(InputError);
  });

  it('reads objects as usual and skips a file carrying the skip-file-rendering marker', () => {
    expect(parseDirectoryFile(cm('a'), 'a.yaml').map((o) => o.object.metadata.name)).toEqual(['a']);
    expect(parseDirectoryFile(`# +argocd:skip-file-rendering\n${cm('a')}`, 'a.yaml')).toEqual([]);
  });
});
