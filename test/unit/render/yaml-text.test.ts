// Printed YAML keeps strings strings for a YAML 1.1 reader (kubectl's Go yaml.v2): `manifests -o yaml | kubectl apply -f -`.
import { parse } from 'yaml';
import { yamlText } from '../../../src/render/yaml-text.js';
import { objectsToYaml } from '../../../src/render/yaml-out.js';

describe('yamlText', () => {
  const data = { a: 'yes', b: 'on', c: 'no', d: 'y', e: 'OFF', f: '1_000', g: '2001-12-14', h: '0755', i: '1:20', j: 'true', k: 'plain', l: '0x1F' };
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { on: 'yes' } }, data };

  it('quotes every string a YAML 1.1 reader would take for a boolean, a number or a time, keys included; the rest plain', () => {
    const text = yamlText(cm);
    expect(parse(text, { version: '1.1' })).toEqual(cm);
    expect(text).toContain('"on": "yes"');
    expect(text).toContain('k: plain');
    expect(
      objectsToYaml([cm, cm])
        .split('---\n')
        .map((d) => parse(d, { version: '1.1' })),
    ).toEqual([cm, cm]);
  });

  it('keeps real booleans and numbers as they are', () => {
    expect(yamlText({ n: 1, b: true, s: '1' })).toBe('"n": 1\nb: true\ns: "1"\n');
  });
});
