// fasttemplate as Argo CD's Render.Replace calls it (applicationset/utils/utils.go; cases after utils_test.go
// TestRenderTemplateParams / TestReplace*), the renderer choice, and renderDeep's batching.
import { fasttemplate, makeRenderer, renderDeep, TemplateError, type RenderItem } from '../../../src/appset/template.js';

describe('fasttemplate', () => {
  const p = { one: 'two', 'path.basename': 'app', 'values.size': 'big', num: 1 as unknown };
  it.each([
    ['{{one}}', 'two'],
    ['{{ one }}', 'two'], // the tag is trimmed
    ['a-{{one}}-{{path.basename}}', 'a-two-app'],
    ['{{values.size}}', 'big'],
    ['{{unknown}}', '{{unknown}}'], // unknown params stay as written
    ['{{ unknown }}', '{{ unknown }}'], // with their spaces
    ['{{}}', '{{}}'], // an empty tag stays
    ['{{num}}', '{{num}}'], // only string values replace
    ['no tags', 'no tags'],
    ['{{one\n}}', '{{one\n}}'], // `.*{{.*}}.*` does not cross lines: not templated at all
    ['"{{one}}"', '"two"'], // values are not JSON-escaped (v3 renders each string field)
  ])('%j -> %j', (text, want) => expect(fasttemplate(text, p)).toBe(want));

  it('a value is inserted raw, quotes and all', () => expect(fasttemplate('x={{v}}', { v: 'a"b' })).toBe('x=a"b'));

  it('a {{ without a later }} is an error when another tag makes the string templated', () => {
    expect(() => fasttemplate('{{one}} {{ two', p)).toThrow(TemplateError);
    expect(() => fasttemplate('{{one}} {{ two', p)).toThrow(/Cannot find end tag/);
  });
});

describe('renderers', () => {
  it('without goTemplate: fasttemplate, no engine needed', async () => {
    await expect(makeRenderer(false, [], undefined)([{ text: '{{a}}', params: { a: 'b' } }])).resolves.toEqual(['b']);
  });
  it('goTemplate without an engine fails clearly', async () => {
    await expect(makeRenderer(true, [], undefined)([{ text: '{{.a}}', params: {} }])).rejects.toThrow(/Go template engine/);
  });
  it('goTemplate: one engine call per batch (strings without {{ kept as they are), options passed, the first error thrown', async () => {
    const calls: { items: readonly RenderItem[]; options: readonly string[] }[] = [];
    const engine = async (items: readonly RenderItem[], options: readonly string[]) => {
      calls.push({ items, options });
      return items.map((i) => (i.text === '{{bad}}' ? { error: 'boom' } : { output: i.text.toUpperCase() }));
    };
    const r = makeRenderer(true, ['missingkey=error'], engine);
    await expect(
      r([
        { text: '{{a}}', params: {} },
        { text: 'plain', params: {} },
        { text: '{{b}}', params: {} },
      ]),
    ).resolves.toEqual(['{{A}}', 'plain', '{{B}}']);
    expect(calls[0]?.items.map((i) => i.text)).toEqual(['{{a}}', '{{b}}']);
    await expect(r([{ text: '{{bad}}', params: {} }])).rejects.toThrow('boom');
    expect(calls.map((c) => c.options)).toEqual([['missingkey=error'], ['missingkey=error']]);
  });
});

describe('renderDeep', () => {
  it('renders every string and map key, once per parameter set, in one batch', async () => {
    let batches = 0;
    const render = async (items: readonly RenderItem[]) => {
      batches++;
      return items.map((i) => fasttemplate(i.text, i.params));
    };
    const tmpl = { metadata: { name: '{{n}}', labels: { '{{k}}': '{{n}}' } }, spec: { n: 3, on: true, list: ['{{n}}', 'x'], gone: null } };
    const out = await renderDeep(
      tmpl,
      [
        { n: 'a', k: 'team' },
        { n: 'b', k: 'owner' },
      ],
      render,
    );
    expect(batches).toBe(1);
    expect(out).toEqual([
      { metadata: { name: 'a', labels: { team: 'a' } }, spec: { n: 3, on: true, list: ['a', 'x'] } },
      { metadata: { name: 'b', labels: { owner: 'b' } }, spec: { n: 3, on: true, list: ['b', 'x'] } },
    ]);
  });
});
