// Whether a source can be rendered completely and exactly as Argo CD's repo-server would (pure). What cannot be is
// refused by every command: a partial render would make the objects of what was not rendered look like prune
// candidates, and apply something other than what Argo CD would.
import type { Application } from '../app/types.js';
import { isPlainObject } from '../model/object.js';

/** Kustomize's file names, as Argo CD's discovery looks for them at the source path. */
export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

/** Reasons found in the Application's spec alone: what its source asks for that this tool does not render. */
export function specBlockers(app: Pick<Application, 'sourcesCount' | 'sourceOptions'>): string[] {
  const out: string[] = [];
  const o = app.sourceOptions;
  if (app.sourcesCount > 1) {
    out.push(`spec.sources has ${app.sourcesCount} sources: multi-source Applications are not rendered yet (the objects of the other sources would look like prune candidates)`);
  }
  if (o.chart !== undefined) out.push('spec.source.chart: charts from a Helm repository are not rendered yet');
  if (o.plugin !== undefined) out.push("spec.source.plugin: Config Management Plugins run in Argo CD's repo-server sidecar, which this tool does not have");
  if (o.helm !== undefined) out.push('spec.source.helm: Helm sources are not rendered yet');
  if (o.kustomize !== undefined) out.push('spec.source.kustomize: Kustomize sources are not rendered yet');
  if (o.directory !== undefined) {
    const dir = o.directory;
    if (!isPlainObject(dir)) out.push('spec.source.directory must be a map');
    else {
      for (const [k, v] of Object.entries(dir)) {
        if (k === 'recurse') {
          if (typeof v !== 'boolean' && v !== null) out.push('spec.source.directory.recurse must be true or false');
        } else if (!isEmpty(v)) out.push(`spec.source.directory.${k} is not rendered yet`);
      }
    }
  }
  return out;
}

/** `directory.recurse` as written (Argo CD's default is false). */
export function recurses(app: Pick<Application, 'sourceOptions'>): boolean {
  const dir = app.sourceOptions.directory;
  return isPlainObject(dir) && dir.recurse === true;
}

/**
 * Reasons found in the files of the source, as paths relative to the source's root (`a/b.yaml`): Jsonnet files
 * among those read, a kustomization file or Chart.yaml at the root, which make the source another type.
 */
export function fileBlockers(paths: readonly string[], where: string): string[] {
  const out: string[] = [];
  const top = new Set(paths.filter((p) => !p.includes('/')));
  const kustomization = KUSTOMIZATION_FILES.find((f) => top.has(f));
  if (kustomization) out.push(`${where} holds ${kustomization}: a Kustomize source, not rendered yet`);
  if (top.has('Chart.yaml')) out.push(`${where} holds Chart.yaml: a Helm chart, not rendered yet`);
  const jsonnet = paths.filter((p) => p.endsWith('.jsonnet'));
  if (jsonnet.length > 0) {
    const shown = jsonnet.slice(0, 3).join(', ') + (jsonnet.length > 3 ? `, and ${jsonnet.length - 3} more` : '');
    out.push(`${where} holds Jsonnet files (${shown}): Jsonnet is not rendered yet, and the objects they make would look like prune candidates`);
  }
  return out;
}

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isPlainObject(v)) return Object.values(v).every(isEmpty);
  return false;
}
