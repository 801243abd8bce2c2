// Renders `manifests`: one YAML stream (documents separated by ---), or a JSON List as kubectl prints one.
import { yamlText } from './yaml-text.js';
import type { KubeObject } from '../model/object.js';
import type { OutputFormat } from './colour.js';

export function renderManifests(objects: readonly KubeObject[], format: OutputFormat): string {
  if (format === 'json') return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2) + '\n';
  return objects.map((o) => yamlText(o)).join('---\n');
}
