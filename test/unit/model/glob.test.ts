import { compileGlob, globMatch, GlobSyntaxError, parseGlob } from '../../../src/model/glob.js';

describe("Argo CD's glob (gobwas/glob without separators)", () => {
  it('matches * across folders, ? one character, and literal dots', () => {
    expect(globMatch('*.yaml', 'a.yaml')).toBe(true);
    expect(globMatch('*.yaml', 'sub/a.yaml')).toBe(true); // no separators: * crosses /
    expect(globMatch('*.yaml', 'a.yml')).toBe(false);
    expect(globMatch('a?.json', 'ab.json')).toBe(true);
    expect(globMatch('a?.json', 'a.json')).toBe(false);
    expect(globMatch('a.yaml', 'axyaml')).toBe(false);
    expect(globMatch('**/*.yaml', 'x/y/z.yaml')).toBe(true);
  });

  it('a pattern of plain characters (matched without a regular expression) matches exactly what its compiled form does', () => {
    const patterns = ['', 'apps', 'rbac.authorization.k8s.io', 'https://kubernetes.default.svc', 'a-b_c/d:e', 'Deployment'];
    const texts = [
      '',
      'apps',
      'apps2',
      'xapps',
      'rbac.authorization.k8s.io',
      'rbacXauthorization.k8s.io',
      'https://kubernetes.default.svc',
      'a-b_c/d:e',
      'deployment',
    ];
    for (const p of patterns) for (const t of texts) expect([p, t, globMatch(p, t)]).toEqual([p, t, parseGlob(p, '').test(t)]);
  });

  it('takes {a,b} alternatives, nested patterns inside them, and character classes', () => {
    expect(globMatch('{config.json,deployment.yaml}', 'deployment.yaml')).toBe(true);
    expect(globMatch('{config.json,deployment.yaml}', 'service.yaml')).toBe(false);
    expect(globMatch('{prod/*,common/{a,b}.yaml}', 'common/b.yaml')).toBe(true);
    expect(globMatch('{prod/*,common/{a,b}.yaml}', 'common/c.yaml')).toBe(false);
    expect(globMatch('[a-c]*.yaml', 'b1.yaml')).toBe(true);
    expect(globMatch('[!a-c]*.yaml', 'b1.yaml')).toBe(false);
    expect(globMatch('[!a-c]*.yaml', 'd1.yaml')).toBe(true);
  });

  it('escapes with a backslash and treats regular-expression characters literally', () => {
    expect(globMatch('\\*.yaml', '*.yaml')).toBe(true);
    expect(globMatch('\\*.yaml', 'a.yaml')).toBe(false);
    expect(globMatch('a+(b).yaml', 'a+(b).yaml')).toBe(true);
    expect(globMatch('^$|.yaml', '^$|.yaml')).toBe(true);
  });

  it('refuses an unclosed [ or {', () => {
    expect(() => parseGlob('{a,b')).toThrow(GlobSyntaxError);
    expect(() => parseGlob('[ab')).toThrow(/not closed/);
  });

  it('refuses an empty class, as gobwas v0.2.3 does ([], [!], and so []a]): Argo CD then matches nothing', () => {
    for (const p of ['[]', '[!]', '[]a]', 'b[!]']) expect(() => parseGlob(p)).toThrow(/is empty/);
    expect(globMatch('[]a]', ']a]')).toBe(false);
  });
});

describe('glob characters that regular expressions treat specially', () => {
  it('matches - and / literally, and inside classes', () => {
    expect(globMatch('guestbook-ui.jsonnet', 'guestbook-ui.jsonnet')).toBe(true);
    expect(globMatch('a/b-c/*.yaml', 'a/b-c/d.yaml')).toBe(true);
    expect(globMatch('[-_]x', '-x')).toBe(true);
    expect(globMatch('?.yaml', 'é.yaml')).toBe(true);
  });
});

describe('one compiler for every glob: settings, health folders and directory sources', () => {
  it('keeps * within separators when given them, ** across them', () => {
    expect(globMatch('apps/*', 'apps/Deployment', '/')).toBe(true);
    expect(globMatch('*', 'apps/Deployment', '/')).toBe(false);
    expect(globMatch('**', 'apps/Deployment', '/')).toBe(true);
    expect(globMatch('?', '/', '/')).toBe(false);
  });

  it('takes a range alone in its class, as gobwas does, and refuses a reversed one with the reason', () => {
    expect(() => parseGlob('[a-cx]')).toThrow(/must be alone/);
    expect(() => parseGlob('[z-a]')).toThrow(/reversed/);
    expect(globMatch('[ax-]', '-')).toBe(true);
  });

  it('compileGlob is null where parseGlob throws (Argo CD logs the pattern and matches nothing)', () => {
    expect(compileGlob('{a,b')).toBeNull();
    expect(globMatch('{a,b', 'a')).toBe(false);
    expect(compileGlob('{a,b}')?.test('b')).toBe(true);
  });
});
