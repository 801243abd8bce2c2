// Plain scalars as go-yaml v2 resolves them (sigs.k8s.io/yaml, hence kubectl and Argo CD): YAML 1.1's booleans, octal
// with a leading 0, underscores, and what is left a string. Every value below was checked against sigs.k8s.io/yaml
// v1.4.0's YAMLToJSON of `v: <text>` (2026-12-07), which gives the same numbers, booleans, nulls and strings.
import { goPlainScalar } from '../../../src/manifest/go-scalars.js';
import { parseManifests, parseYamlValues } from '../../../src/manifest/parse.js';

describe('goPlainScalar', () => {
  it.each([
    ['0400', 256],
    ['0644', 420],
    ['0755', 493],
    ['00', 0],
    ['0', 0],
    ['08', 8], // not octal: Go's ParseInt fails, the float form reads it
    ['1_000', 1000],
    ['0x1F', 31],
    ['-0x1f', -31],
    ['0o17', 15],
    ['0b101', 5],
    ['-0b101', -5],
    ['+12', 12],
    ['1e3', 1000],
    ['1.5', 1.5],
    ['.5', 0.5],
    ['-.5', -0.5],
    ['1.', 1],
  ])('%s is the number %d', (s, n) => expect(goPlainScalar(s)).toBe(n));

  it.each(['y', 'Y', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'true', 'True', 'TRUE'])('%s is true', (s) => expect(goPlainScalar(s)).toBe(true));
  it.each(['n', 'N', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'false', 'False', 'FALSE'])('%s is false', (s) => expect(goPlainScalar(s)).toBe(false));
  it.each(['', '~', 'null', 'Null', 'NULL'])('%j is null', (s) => expect(goPlainScalar(s)).toBeNull());
  it.each(['nO', 'yES', 'tRUE', '2001-12-14', '1.2.3', '0x', '_1', '1a', 'abc', '12:30', '+', '-', '.', '0b2', '0o8', 'inf', 'NaN'])('%j is a string', (s) =>
    expect(goPlainScalar(s)).toBeUndefined(),
  );
  it('.inf and .nan forms are the float specials (which the manifest reader then refuses)', () => {
    expect(goPlainScalar('.inf')).toBe(Number.POSITIVE_INFINITY);
    expect(goPlainScalar('-.Inf')).toBe(Number.NEGATIVE_INFINITY);
    expect(goPlainScalar('.NaN')).toBeNaN();
  });
});

describe('manifests read as kubectl reads them', () => {
  const doc = (spec: string) => `apiVersion: v1\nkind: Thing\nmetadata: {name: a}\nspec: ${spec}\n`;
  it('in the fast path and in the reference parser alike: octal modes, YAML 1.1 booleans, quoted text kept as written', () => {
    const want = { mode: 256, b: true, c: 1000, quoted: '0400', hex: 31, date: '2001-12-14', disabled: false, list: [15, 8, true] };
    const spec = '{mode: 0400, b: yes, c: 1_000, quoted: "0400", hex: 0x1F, date: 2001-12-14, disabled: off, list: [0o17, 08, on]}';
    expect(parseManifests(doc(spec), 'a.yaml')[0]!.object.spec).toEqual(want);
    // An anchor and an alias send the text to the reference parser.
    const viaReference = parseYamlValues(`${doc(spec)}extra: &x 1\nagain: *x\n`, 'a.yaml')[0] as { spec: unknown };
    expect(viaReference.spec).toEqual(want);
    // A Secret's volume mode, the case that matters: 0400 is r-------- (256), not 400 (rw--w----).
    const volume = 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  volumes:\n  - name: s\n    secret: {secretName: s, defaultMode: 0400}\n';
    expect((parseManifests(volume, 'p.yaml')[0]!.object.spec as { volumes: { secret: { defaultMode: number } }[] }).volumes[0]!.secret.defaultMode).toBe(256);
  });
  it('a YAML 1.1 boolean word as a key is that boolean as text, as kubectl sends it', () => {
    expect(parseManifests(doc('{y: 1, n: 3}'), 'a.yaml')[0]!.object.spec).toEqual({ true: 1, false: 3 });
  });
  it('a name YAML 1.1 reads as a boolean or a number is refused, naming the file and saying to quote it', () => {
    expect(() => parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: n}\n', 'n.yaml')).toThrow(
      /^n\.yaml:1: document 1 \(ConfigMap\): metadata\.name must be a string, got boolean \(.*quote it\)$/,
    );
    expect(parseManifests('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "n"}\n', 'n.yaml')[0]!.object.metadata.name).toBe('n');
  });
});
