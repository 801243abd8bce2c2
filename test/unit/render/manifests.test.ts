// renderManifests: a YAML stream of documents, or a JSON List as kubectl prints one.
import { parseAllDocuments } from 'yaml';
import { renderManifests } from '../../../src/render/manifests.js';
import type { KubeObject } from '../../../src/model/object.js';

const objects: KubeObject[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'shop' }, data: { k: 'v' } } as KubeObject,
  { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
];

test('YAML: one document per object, in order, separated by ---', () => {
  const text = renderManifests(objects, 'yaml');
  expect(text.split('\n').filter((l) => l === '---')).toHaveLength(1);
  expect(parseAllDocuments(text).map((d) => d.toJS())).toEqual(objects);
});

test('JSON: a v1 List of the objects', () => {
  expect(JSON.parse(renderManifests(objects, 'json'))).toEqual({ apiVersion: 'v1', kind: 'List', items: objects });
  expect(renderManifests([], 'yaml')).toBe('');
});
