// Prints objects as multi-document YAML or as JSON (a single object, or a v1 List for several), deterministically.
import { yamlText } from './yaml-text.js';
import type { KubeObject } from '../model/object.js';

/** Multi-document YAML (`---` between documents), key order as given, no line folding. */
export function objectsToYaml(objects: readonly KubeObject[]): string {
  return objects.map((o) => yamlText(o)).join('---\n');
}

/** One object as JSON, or `{"apiVersion":"v1","kind":"List","items":[...]}` for any other count (as kubectl prints). */
export function objectsToJson(objects: readonly KubeObject[]): string {
  const value = objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects };
  return JSON.stringify(value, null, 2) + '\n';
}
