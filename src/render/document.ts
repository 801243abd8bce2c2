// The one switch over output formats: JSON and YAML documents are the report itself; kv and table are the caller's, env is made from kv.
import { yamlText } from './yaml-text.js';
import type { OutputFormat } from './colour.js';
import { kvToEnv } from './kv.js';

export interface FormatRenderers {
  kv: () => string;
  table: () => string;
}

/** Renders `doc` as JSON or YAML, or calls the kv/table renderer; always ends with a newline. */
export function renderDocument(doc: unknown, format: OutputFormat, r: FormatRenderers): string {
  switch (format) {
    case 'json':
      return JSON.stringify(doc, null, 2) + '\n';
    case 'yaml':
      return yamlText(doc);
    case 'kv':
      return r.kv();
    case 'env':
      return kvToEnv(r.kv());
    default:
      return r.table();
  }
}
