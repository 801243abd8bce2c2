// Which tool renders a source, by Argo CD's rules (ApplicationSource.ExplicitType, then util/app/discovery.AppType).
import type { SourceOptions } from '../../app/source-options.js';

export type SourceType = 'Directory' | 'Kustomize' | 'Helm' | 'Plugin';

/** The names Kustomize reads a kustomization from (util/kustomize KustomizationNames), in the order it looks. */
export const KUSTOMIZATION_NAMES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'] as const;

export type Detection = { type: SourceType; explicit: boolean } | { error: string };

/**
 * The source type: the one explicit key among kustomize, helm, directory and plugin (two or more is an error, as in
 * Argo CD); a `chart` means Helm; otherwise discovery over the file names directly under source.path, walked in byte
 * order with the last match winning (a name ending in `Chart.yaml` means Helm, a kustomization name Kustomize); else
 * a directory.
 */
export function detectSourceType(options: SourceOptions | undefined, topLevelNames: readonly string[]): Detection {
  const o = options ?? {};
  if (o.chart !== undefined) return { type: 'Helm', explicit: true };
  const explicit: SourceType[] = [];
  if (o.kustomize) explicit.push('Kustomize');
  if (o.helm) explicit.push('Helm');
  if (o.directory) explicit.push('Directory');
  if (o.plugin) explicit.push('Plugin');
  if (explicit.length > 1) return { error: `multiple application sources defined: ${explicit.join(',')}` };
  if (explicit[0]) return { type: explicit[0], explicit: true };
  let found: SourceType = 'Directory';
  for (const name of [...topLevelNames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (name.endsWith('Chart.yaml')) found = 'Helm';
    if ((KUSTOMIZATION_NAMES as readonly string[]).includes(name)) found = 'Kustomize';
  }
  return { type: found, explicit: false };
}
