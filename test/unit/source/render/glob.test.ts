import { compileGlob, globMatch, GlobSyntaxError } from '../../../../src/source/render/glob.js';

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
    expect(() => compileGlob('{a,b')).toThrow(GlobSyntaxError);
    expect(() => compileGlob('[ab')).toThrow(/not closed/);
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
