// Argo CD's parameter override files (reposerver mergeSourceParameters): `.argocd-source.yaml`, then
// `.argocd-source-<app>.yaml`, at the source's path, each a JSON merge patch (RFC 7386) over the source, applied
// before the type is detected. Only the tool options (directory, kustomize, helm, plugin) are taken from the result:
// repoURL, path, targetRevision and chart stay the Application's, as in Argo CD. Pure.
import type { Application } from '../../app/types.js';
import { parseSourceOptions } from '../../app/source-options.js';
import { ManifestError } from '../../model/errors.js';
import { parseYamlValues } from '../../manifest/parse.js';
import { isPlainObject, type JsonObject, type JsonValue } from '../../model/object.js';

/** The override files Argo CD reads for this app, in the order it applies them. */
export function overrideFileNames(appName: string): string[] {
  return ['.argocd-source.yaml', `.argocd-source-${appName}.yaml`];
}

/** RFC 7386 JSON merge patch: maps merge key by key, null deletes, anything else replaces. */
function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isPlainObject(patch)) return patch;
  const out: JsonObject = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const TOOL_KEYS = ['directory', 'kustomize', 'helm', 'plugin'] as const;

/** The Application with its source's tool options patched by the override files' texts (given in Argo CD's order). */
export function applySourceOverrides(app: Application, files: readonly { label: string; text: string }[]): Application {
  let merged: JsonValue = { ...app.sourceOptions };
  for (const f of files) {
    const [patch] = parseYamlValues(f.text, f.label, ManifestError);
    if (patch === undefined || patch === null) continue;
    if (!isPlainObject(patch))
      throw new ManifestError(`${f.label}: Argo CD's parameter override file must be a map of source fields (kustomize:, helm:, directory:, plugin:)`);
    merged = mergePatch(merged, patch as JsonValue);
  }
  const m = merged as JsonObject;
  const sourceOptions: Record<string, JsonValue> = { ...app.sourceOptions };
  for (const k of TOOL_KEYS) {
    if (m[k] === undefined || m[k] === null) delete sourceOptions[k];
    else sourceOptions[k] = m[k]!;
  }
  const label = files.map((f) => f.label).join(' and ');
  const options = parseSourceOptions(sourceOptions as JsonObject, `spec.source (with ${label})`, app.origin);
  const source: Application['source'] = { ...app.source };
  if (Object.keys(options).length > 0) source.options = options;
  else delete source.options;
  return { ...app, source, sourceOptions };
}
