// Repository URLs as Argo CD compares them (its webhook matching a push to an Application's source) and reads
// them (an oci:// one is an OCI source). Pure.

/** Argo CD's ApplicationSource.IsOCI: an `oci://` repoURL is an OCI source, whatever else the source says (a chart too). */
export function isOciRepoURL(url: string | undefined): boolean {
  return /^oci:\/\//i.test((url ?? '').trim());
}

/** A repository URL compared as Argo CD's webhook compares them: no scheme, user, `.git` or trailing slash, `host:path` as `host/path`, lower case. */
export function repoKey(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^[^@/]*@/, '')
    .replace(/^([^/:]+):(?!\d+\/)/, '$1/')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}
