// An AppProject file for unit tests: `restricted`, every repo, destinations in `shop` only, one namespaced kind of the
// core group blacklisted (what --project-file reads in place of the cluster's AppProject).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `<dir>/project.yaml` and returns its path. */
export function restrictedProjectFile(dir: string, blacklistedKind: string): string {
  const file = join(dir, 'project.yaml');
  writeFileSync(
    file,
    `apiVersion: argoproj.io/v1alpha1\nkind: AppProject\nmetadata: {name: restricted, namespace: argocd}\nspec:\n  sourceRepos: ['*']\n  destinations: [{server: '*', namespace: shop}]\n  namespaceResourceBlacklist: [{group: '', kind: ${blacklistedKind}}]\n`,
  );
  return file;
}
