// Whether a source can be rendered completely and exactly as Argo CD's repo-server would (pure). What cannot be is
// refused by every command: a partial render would make the objects of what was not rendered look like prune
// candidates, and apply something other than what Argo CD would. Directory (with its options and Jsonnet), Kustomize
// and Helm charts (in Git or from a Helm repository) are rendered (src/source/render), one source or several
// (spec.sources); plugins are not.
import type { Application, AppSource } from '../app/types.js';
import { KUSTOMIZATION_NAMES } from './render/detect.js';

/** Kustomize's file names, as Argo CD's discovery looks for them at the source path. */
const KUSTOMIZATION_FILES = KUSTOMIZATION_NAMES;

/** Reasons found in the Application's spec alone: what its source asks for that this tool does not render. */
export function specBlockers(app: Pick<Application, 'sourcesCount' | 'sourceOptions'>): string[] {
  const out: string[] = [];
  const o = app.sourceOptions;
  if (o.plugin !== undefined) out.push("spec.source.plugin: Config Management Plugins run in Argo CD's repo-server sidecar, which this tool does not have");
  return out;
}

/** Reasons found in each entry of `spec.sources` (the multi-source form of specBlockers). */
export function sourcesBlockers(sources: readonly AppSource[]): string[] {
  const out: string[] = [];
  sources.forEach((s, i) => {
    const o = s.options ?? {};
    const at = `spec.sources[${i}]`;
    if (o.plugin !== undefined) out.push(`${at}.plugin: Config Management Plugins run in Argo CD's repo-server sidecar, which this tool does not have`);
  });
  return out;
}

/**
 * Reasons found in the files of a `--desired` folder read as plain manifests (paths relative to it, `a/b.yaml`):
 * Jsonnet files, a kustomization file or Chart.yaml at its root make it another type of source, which `--render`
 * renders.
 */
export function fileBlockers(paths: readonly string[], where: string): string[] {
  const out: string[] = [];
  const top = new Set(paths.filter((p) => !p.includes('/')));
  const kustomization = KUSTOMIZATION_FILES.find((f) => top.has(f));
  if (kustomization) out.push(`${where} holds ${kustomization}: a Kustomize source, which --render renders`);
  if (top.has('Chart.yaml')) out.push(`${where} holds Chart.yaml: a Helm chart, which --render renders`);
  const jsonnet = paths.filter((p) => p.endsWith('.jsonnet'));
  if (jsonnet.length > 0) {
    const shown = jsonnet.slice(0, 3).join(', ') + (jsonnet.length > 3 ? `, and ${jsonnet.length - 3} more` : '');
    out.push(
      `${where} holds Jsonnet files (${shown}), which --render evaluates; read as plain manifests, the objects they make would look like prune candidates`,
    );
  }
  return out;
}
