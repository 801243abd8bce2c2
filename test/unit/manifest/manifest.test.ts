import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/temp-dir.js';
import { loadManifests } from '../../../src/manifest/index.js';
import { parseManifests, withoutSourceText } from '../../../src/manifest/parse.js';
import { parseYamlValues } from '../../../src/manifest/parse.js';
import { InputError } from '../../../src/model/errors.js';

const cm = (name: string, ns = 'shop') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\n`;

describe('parseManifests', () => {
  it('reads multi-document YAML, skips empty documents and remembers file, document and line', () => {
    const text = `---\n# only a comment\n---\n${cm('a')}---\n\n${cm('b')}`;
    const out = parseManifests(text, 'm.yaml');
    expect(out.map((o) => [o.object.metadata.name, o.source])).toEqual([
      ['a', { file: 'm.yaml', doc: 1, line: 4 }],
      ['b', { file: 'm.yaml', doc: 2, line: 11 }],
    ]);
  });

  it('expands kind: List with each item on its own line', () => {
    const text = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: b}\n`;
    const out = parseManifests(text, 'list.yaml');
    expect(out.map((o) => `${o.object.kind}/${o.object.metadata.name}@${o.source.line}`)).toEqual(['ConfigMap/a@4', 'Secret/b@7']);
  });

  it('names the lines of List items and of documents after nested values', () => {
    const text = `apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a\n    data: {x: [1, {y: 2}]}\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n---\n${cm('c')}`;
    expect(parseManifests(text, 'l.yaml').map((o) => `${o.object.metadata.name}@${o.source.line}/${o.source.doc}`)).toEqual(['a@5/0', 'b@10/0', 'c@12/1']);
  });

  it('parses aliases with the bounded expander, and the same values as without', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: &l {app: x}}\ndata: {copy: "1"}\nextra: *l\n`;
    const [o] = parseManifests(text, 'alias.yaml');
    expect(o!.object).toEqual({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', labels: { app: 'x' } }, data: { copy: '1' }, extra: { app: 'x' } });
  });

  it('reads plain scalars as kubectl does (go-yaml v2, YAML 1.1): dates stay strings, yes is true, 012 is octal', () => {
    // kubectl create --dry-run=client -o json of the same text gives these values (checked against kubectl 1.35).
    const [o] = parseManifests('apiVersion: v1\nkind: Thing\nmetadata: {name: a}\nspec: {d: 2026-11-30, b: yes, o: 012, f: 1.50}\n', 'c.yaml');
    expect(o!.object.spec).toEqual({ d: '2026-11-30', b: true, o: 10, f: 1.5 });
  });

  it('an indented --- or ... is text, not a document marker (found by the fuzzer; js-yaml alone got it wrong)', () => {
    expect(() => parseManifests(' ---\n', 'i.yaml')).toThrow(/^i\.yaml:1: document 1 is not an object \(got string\)/);
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  multi.yaml: |\n    a: 1\n    ---\n    b: 2\n`;
    expect(parseManifests(text, 'i.yaml').map((o) => o.object.data)).toEqual([{ 'multi.yaml': 'a: 1\n---\nb: 2\n' }]);
  });

  it('a tab in indentation is refused as YAML forbids it, a tab inside a block scalar is kept (found by the fuzzer)', () => {
    expect(() => parseManifests('---\n\t', 't.yaml')).toThrow(/^t\.yaml:2:1: invalid YAML: Tabs are not allowed as indentation/);
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  mk: |\n    all:\n    \techo hi\n';
    expect(parseManifests(text, 't.yaml')[0]!.object.data).toEqual({ mk: 'all:\n\techo hi\n' });
  });

  it('an empty key (a line starting with ": ") is read as YAML reads it, or refused where YAML refuses it (found by the fuzzer)', () => {
    expect(parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n: x\n', 'k.yaml')[0]!.object).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a' },
      '': 'x',
    });
    expect(() => parseManifests('kind: List\nitems:\n: apiVersion: v1\n', 'k.yaml')).toThrow(
      /^k\.yaml:3:3: invalid YAML: Nested mappings are not allowed in compact mappings/,
    );
  });

  it('refuses a List without an items list (a misspelt key, items left empty), naming the file; items: [] is no objects', () => {
    expect(() => parseManifests('apiVersion: v1\nkind: List\nitem:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: g}}\n', 'e.yaml')).toThrow(
      new InputError('e.yaml:1: document 1 is a List without an items list (no items key: a misspelt key?): write items: [] for an empty list'),
    );
    expect(() => parseManifests('apiVersion: v1\nkind: List\nitems: null\n', 'e.yaml')).toThrow(
      new InputError('e.yaml:1: document 1 is a List without an items list (items is empty): write items: [] for an empty list'),
    );
    expect(parseManifests('apiVersion: v1\nkind: List\nitems: []\n', 'e.yaml')).toEqual([]);
  });

  it("refuses an object of any other kind with a top-level items list, which Argo CD's repo-server would unpack in its place", () => {
    expect(() =>
      parseManifests(
        'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: g}}\n',
        'w.yaml',
      ),
    ).toThrow(
      new InputError(
        "w.yaml:1: document 1 (Widget/w) has a top-level items list, which Argo CD's repo-server unpacks as objects in its place (as it unpacks a List): make it a List, or move the field under spec",
      ),
    );
    // An empty one too (Argo CD renders nothing for it); a map or a scalar under items is no list, and the object is read.
    expect(() => parseManifests('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nitems: []\n', 'w.yaml')).toThrow(/top-level items list/);
    expect(parseManifests('apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nitems: {a: 1}\n', 'w.yaml')).toHaveLength(1);
  });

  it('reads JSON (a single object or a List)', () => {
    const list = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } }] });
    expect(parseManifests(list, 'x.json').map((o) => o.object.metadata.name)).toEqual(['a']);
  });

  it("reads a value with an unknown tag as its plain value, as Go's YAML does (found by the two-sided fuzz)", () => {
    const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  x: !<!custom> hello\n  z: !local 3\n';
    expect(parseManifests(text, 'tags.yaml').map((o) => o.object.data)).toEqual([{ x: 'hello', z: '3' }]);
  });

  it('reads a byte order mark after a comment as nothing, as the reference parser does (found by the two-sided fuzz)', () => {
    expect(parseManifests('#c\n\uFEFF', 'bom.yaml')).toEqual([]);
  });

  it.each([
    ['a YAML syntax error with line and column', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a\n', /^bad\.yaml:4:1: invalid YAML/],
    ['a document that is not an object', '- a\n- b\n', /^bad\.yaml:1: document 1 is not an object \(got a list\)/],
    ['a missing apiVersion', 'kind: ConfigMap\nmetadata: {name: a}\n', /^bad\.yaml:1: document 1 has no apiVersion/],
    ['a missing kind', '---\napiVersion: v1\nmetadata: {name: a}\n', /^bad\.yaml:2: document 1 has no kind/],
    ['a missing metadata.name', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: x}\n', /has no metadata\.name/],
    ['a duplicate map key', 'apiVersion: v1\nkind: ConfigMap\nkind: Secret\nmetadata: {name: a}\n', /^bad\.yaml:3:1: invalid YAML: duplicated mapping key$/],
    [
      'a List whose items is a scalar (found by the fuzzer)',
      'kind: List\nitems:\n  .',
      /^bad\.yaml:1: document 1 is a List whose items is not a list \(got string\)/,
    ],
    [
      'a List whose items is a map',
      'apiVersion: v1\nkind: List\nitems: {a: 1}\n',
      /^bad\.yaml:1: document 1 is a List whose items is not a list \(got a map\)/,
    ],
    ['invalid JSON with line and column', '{\n  "apiVersion": "v1",\n  "kind": "ConfigMap"\n  "metadata": {}\n}', /^bad\.json:4:3: invalid JSON/],
  ])('rejects %s naming the place', (_what, text, re) => {
    const file = re.source.includes('json') ? 'bad.json' : 'bad.yaml';
    expect(() => parseManifests(text, file)).toThrow(InputError);
    expect(() => parseManifests(text, file)).toThrow(re);
  });

  it("refuses a Secret's data or stringData that is not a map of strings, naming the file, the Secret and the key, never the value", () => {
    const secret = (body: string) => `apiVersion: v1\nkind: Secret\nmetadata: {name: db}\n${body}\n`;
    const refusal = (body: string) => {
      try {
        parseManifests(secret(body), 'app/db.yaml');
      } catch (e) {
        return e as Error;
      }
      return undefined;
    };
    const number = refusal('stringData: {pin: 987654321}');
    expect(number).toBeInstanceOf(InputError);
    expect(number?.message).toBe(
      'app/db.yaml:1: document 1 (Secret/db): stringData.pin must be a string, got number (quote it in YAML; its value is not shown)',
    );
    expect(refusal('data: {k: [abc]}')?.message).toMatch(/^app\/db\.yaml:1: document 1 \(Secret\/db\): data\.k must be a string, got a list /);
    expect(refusal('data: c2VjcmV0')?.message).toBe('app/db.yaml:1: document 1 (Secret/db): data must be a map of strings, got string');
    for (const e of [number, refusal('data: {k: [abc]}'), refusal('data: c2VjcmV0')]) expect(e?.message).not.toMatch(/987654321|abc|c2VjcmV0/);
    // Strings (quoted numbers too) and null values are what the API server takes; another kind's data is not checked here.
    expect(parseManifests(secret('stringData: {pin: "987654321", none: null}'), 'app/db.yaml')[0]!.object.stringData).toEqual({ pin: '987654321', none: null });
    expect(parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {n: 1}\n', 'c.yaml')).toHaveLength(1);
  });

  it('a YAML error says the file, line, column and reason, and carries no cause (the parser quotes the source lines, which may be a secret)', () => {
    let err: Error | undefined;
    try {
      parseManifests('apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: HUNTER2-VALUE: x\n', 'app/db.yaml');
    } catch (e) {
      err = e as Error;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(err?.message).toMatch(/^app\/db\.yaml:5:\d+: invalid YAML: /);
    expect(err?.message).not.toContain('HUNTER2');
    expect(err?.cause).toBeUndefined();
  });

  it("refuses YAML's .nan and .inf, numbers JSON cannot hold, naming the file, line and field (kubectl and Argo CD refuse them too); the same words quoted stay strings", () => {
    const doc = (v: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {x: "1"}\n---\napiVersion: example.com/v1\nkind: Probe\nmetadata: {name: p}\nspec:\n  limits: [1, ${v}]\n`;
    const refused = (v: string) => {
      try {
        parseManifests(doc(v), 'app/probe.yaml');
      } catch (e) {
        return [(e as Error).constructor.name, (e as Error).message];
      }
      return undefined;
    };
    expect(refused('.nan')).toEqual([
      'ManifestError',
      "app/probe.yaml:6: Probe/p: spec.limits[1] is NaN (YAML's .nan), a number JSON cannot hold: the API server would never see it (kubectl and Argo CD refuse it too: json: unsupported value)",
    ]);
    for (const v of ['.NaN', '.inf', '-.Inf', '+.INF'])
      expect(refused(v)?.[1]).toMatch(/^app\/probe\.yaml:6: Probe\/p: spec\.limits\[1\] is (NaN|-?Infinity) /);
    // Quoted, or part of a longer word, they are strings: no refusal, kept as written.
    expect(parseManifests(doc('".nan"'), 'app/probe.yaml')[1]!.object.spec).toEqual({ limits: [1, '.nan'] });
    expect(parseManifests(doc('.nano'), 'app/probe.yaml')[1]!.object.spec).toEqual({ limits: [1, '.nano'] });
  });

  it('refuses a YAML alias bomb (bounded alias expansion)', () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
      'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata: {name: bomb}',
    ].join('\n');
    const started = Date.now();
    expect(() => parseManifests(bomb, 'bomb.yaml')).toThrow(/bomb\.yaml:1: too many YAML aliases/);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe('parseYamlValues (the Application file, kubeconfig)', () => {
  it('the documents’ values, empty ones left out, through the fast path and the reference parser alike', () => {
    const text = '---\n# nothing\n---\na: 1\nb: [x, "y"]\n---\n- 2\n';
    expect(parseYamlValues(text, 'v.yaml')).toEqual([{ a: 1, b: ['x', 'y'] }, [2]]);
    // Aliases go to the reference parser (bounded expansion); the value is the same as written out.
    expect(parseYamlValues('base: &b {k: v}\ncopy: *b\n', 'alias.yaml')).toEqual([{ base: { k: 'v' }, copy: { k: 'v' } }]);
    // So does an indented document marker (text in a block scalar, not a marker).
    expect(parseYamlValues('s: |\n  ---\n  x\n', 'marker.yaml')).toEqual([{ s: '---\nx\n' }]);
    expect(parseYamlValues('', 'empty.yaml')).toEqual([]);
    expect(parseYamlValues('{"json": true}', 'j.json')).toEqual([{ json: true }]);
  });

  it('syntax errors name the file, line and column; an alias bomb is refused', () => {
    expect(() => parseYamlValues('a: 1\nb: [\n', 'bad.yaml')).toThrow(/^bad\.yaml:3:1: invalid YAML/);
    expect(() =>
      parseYamlValues(
        'a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n',
        'bomb.yaml',
      ),
    ).toThrow(/^bomb\.yaml:1: too many YAML aliases/);
    expect(() => parseYamlValues('a: 1\na: 2\n', 'dup.yaml')).toThrow(/^dup\.yaml:2:1: invalid YAML: duplicated mapping key$/);
  });
});

describe('loadManifests', () => {
  const dir = tempDir('manifests');
  mkdirSync(join(dir, 'b-sub'));
  mkdirSync(join(dir, '.hidden'));
  writeFileSync(join(dir, 'z.yaml'), cm('z'));
  writeFileSync(join(dir, 'a.yml'), cm('a'));
  writeFileSync(join(dir, 'b-sub', 'm.json'), JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'm', namespace: 'shop' } }));
  writeFileSync(join(dir, 'notes.txt'), 'not a manifest');
  writeFileSync(join(dir, '.hidden', 'h.yaml'), cm('hidden'));

  it('walks a directory recursively in a stable order (.yaml, .yml, .json only)', async () => {
    const out = await loadManifests(dir);
    expect(out.map((o) => o.object.metadata.name)).toEqual(['a', 'm', 'z']);
    expect(out[1]!.source.file).toBe(join(dir, 'b-sub', 'm.json'));
  });

  it('reads - from standard input', async () => {
    const out = await loadManifests('-', { readStdin: async () => cm('from-stdin') });
    expect(out.map((o) => [o.object.metadata.name, o.source.file])).toEqual([['from-stdin', '<stdin>']]);
  });

  it('refuses a file that is not UTF-8, naming it and the line, instead of applying U+FFFD in place of the byte', async () => {
    const d = tempDir('utf8');
    writeFileSync(join(d, 'ok.yaml'), cm('fine'));
    writeFileSync(
      join(d, 'bad.yaml'),
      Buffer.concat([Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {k: "v'), Buffer.from([0xff]), Buffer.from('"}\n')]),
    );
    await expect(loadManifests(d)).rejects.toThrow(
      new InputError(
        `${join(d, 'bad.yaml')}:4: not UTF-8 text (a byte that is no UTF-8 sequence): kubectl refuses it, and Argo CD would apply U+FFFD in its place`,
      ),
    );
    // A byte order mark and any valid UTF-8 (a U+FFFD written as such too) are text.
    writeFileSync(join(d, 'bad.yaml'), `\uFEFF${cm('b')}# \uFFFD é\n`);
    expect((await loadManifests(d)).map((o) => o.object.metadata.name)).toEqual(['b', 'fine']);
  });

  it('reads UTF-16 that starts with its byte-order mark, little- and big-endian, as Argo CD reads it (unicode.BOMOverride)', async () => {
    const d = tempDir('utf16');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(cm('little'), 'utf16le')]);
    const beBody = Buffer.from(cm('big'), 'utf16le');
    for (let i = 0; i + 1 < beBody.length; i += 2) [beBody[i], beBody[i + 1]] = [beBody[i + 1]!, beBody[i]!];
    writeFileSync(join(d, 'le.yaml'), le);
    writeFileSync(join(d, 'be.yaml'), Buffer.concat([Buffer.from([0xfe, 0xff]), beBody]));
    expect((await loadManifests(d)).map((o) => o.object.metadata.name).sort()).toEqual(['big', 'little']);
  });

  it('names both places when the same object is declared twice', async () => {
    const d = tempDir('dup');
    writeFileSync(join(d, '1.yaml'), cm('x'));
    writeFileSync(join(d, '2.yaml'), `${cm('w')}---\n${cm('x')}`);
    await expect(loadManifests(d)).rejects.toThrow(`ConfigMap shop/x is declared twice: at ${join(d, '1.yaml')}:1 and at ${join(d, '2.yaml')}:7`);
  });

  it('allows the same name in another namespace or kind', async () => {
    const d = tempDir('nodup');
    writeFileSync(join(d, 'm.yaml'), `${cm('x', 'a')}---\n${cm('x', 'b')}`);
    expect(await loadManifests(d)).toHaveLength(2);
  });

  it('reports a missing path as an input error', async () => {
    await expect(loadManifests(join(dir, 'nope'))).rejects.toThrow(/no such file or directory/);
  });
});

describe('a YAML error never quotes the source (an unquoted Secret value read as an alias or a block scalar header)', () => {
  const secret = (value: string) => `apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData:\n  password: ${value}\n`;
  it.each([
    ['an alias', '*PLANTEDpw1'],
    ['a block scalar header', '>PLANTEDpw2'],
    ['a literal block header', '|-PLANTEDpw3'],
    ['an escape in a double-quoted value', '"ab\\qPLANTEDpw6"'],
  ])('%s: the file, line and reason, not the value', (_what, value) => {
    let err: Error | undefined;
    try {
      parseManifests(secret(value), 'app/db.yaml');
    } catch (e) {
      err = e as Error;
    }
    expect(err).toBeInstanceOf(InputError);
    expect(err?.message).toMatch(/^app\/db\.yaml:\d+(:\d+)?: /);
    expect(err?.message).not.toContain('PLANTED');
  });

  it('keeps the reasons that quote nothing', () => {
    expect(withoutSourceText('Missing space after : in flow map')).toBe('Missing space after : in flow map');
    expect(withoutSourceText('Unresolved alias (the anchor must be set before the alias): secret')).toBe(
      'Unresolved alias (the anchor must be set before the alias)',
    );
    expect(withoutSourceText('Unresolved plain scalar "hunter2"')).toBe('Unresolved plain scalar …');
    expect(withoutSourceText('Unexpected flow-seq-end in block map')).toBe('Unexpected flow-seq-end in block map');
    expect(withoutSourceText('Unexpected hunter2# in flow map')).toBe('Unexpected token in flow map');
  });
});
