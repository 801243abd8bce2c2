// The `$ref/...` value files and file parameters of one source of a multi-source Application, checked as Argo CD's
// repo-server checks them before it renders that source (reposerver/repository runManifestGenAsync, Argo CD v3.2): every
// `$name` must be a `ref` source, which may not be a chart; one repository may be referenced at one revision only, and
// not at another commit than the source's own when it is the source's repository. A miss is an error whatever
// ignoreMissingValueFiles says (it never falls back to a path in the chart). Pure.
import type { HelmOptions } from '../app/source-options.js';
import { normalizeGitURL } from '../settings/project.js';

/** A source with `ref: name`, as the controller hands it to the repo-server (argo.GetRefSources' RefTarget). */
export interface RefTarget {
  repoURL: string;
  /** targetRevision as written, or the pinned revision (--revisions) that replaces it; '' when unset. */
  targetRevision: string;
  /** The source names a Helm chart (`chart:`): refused as a ref. */
  chart: boolean;
  /** The commit the revision resolves to; undefined when it is no Git commit (an OCI artifact). */
  sha: string | undefined;
}

/** The source being rendered: its repository, its revision as written (or pinned) and the commit it resolved to. */
export interface RefUser {
  repoURL: string;
  revision: string;
  sha: string;
}

/**
 * `$name` → its ref source, as Argo CD's controller builds the map (GetRefSources): only for an Application with more
 * than one entry in spec.sources (with one, no `$name` is known).
 */
export function refTargets(sources: readonly { ref?: string | undefined; target: RefTarget }[]): Map<string, RefTarget> {
  const out = new Map<string, RefTarget>();
  if (sources.length <= 1) return out;
  for (const s of sources) if (s.ref !== undefined && s.ref !== '') out.set(`$${s.ref}`, s.target);
  return out;
}

/** Argo CD's refusal of the source's `$name/...` references (its words), or undefined when they are all fine. */
export function refSourceProblem(helm: HelmOptions | undefined, refs: ReadonlyMap<string, RefTarget>, user: RefUser): string | undefined {
  if (helm === undefined) return undefined;
  const candidates = [...helm.valueFiles, ...helm.fileParameters.map((p) => p.path)];
  const seen = new Map<string, { revision: string; key: string }>();
  for (const file of candidates) {
    if (!file.startsWith('$')) continue;
    const refVar = file.split('/')[0]!;
    const ref = refs.get(refVar);
    if (ref === undefined) {
      if (refs.size === 0) return `source referenced ${JSON.stringify(refVar)}, but no source has a 'ref' field defined`;
      // Argo CD lists them in Go's map order (random); sorted here.
      return `source referenced ${JSON.stringify(refVar)}, which is not one of the available sources (${[...refs.keys()].sort().join(', ')})`;
    }
    if (ref.chart) return "source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources";
    const repo = normalizeGitURL(ref.repoURL);
    const earlier = seen.get(repo);
    if (earlier !== undefined) {
      if (earlier.revision !== ref.targetRevision)
        return `cannot reference multiple revisions for the same repository (${refVar} references ${JSON.stringify(ref.targetRevision)} while ${earlier.key} references ${JSON.stringify(earlier.revision)})`;
      continue;
    }
    if (ref.sha === undefined) return `failed to get git client for repo ${ref.repoURL}`;
    if (normalizeGitURL(user.repoURL) === repo && user.sha !== ref.sha)
      return `cannot reference a different revision of the same repository (${refVar} references ${JSON.stringify(ref.targetRevision)} which resolves to ${JSON.stringify(ref.sha)} while the application references ${JSON.stringify(user.revision)} which resolves to ${JSON.stringify(user.sha)})`;
    seen.set(repo, { revision: ref.targetRevision, key: refVar });
  }
  return undefined;
}
