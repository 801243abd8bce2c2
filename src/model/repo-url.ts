// Repository URLs as Argo CD compares them (its webhook matching a push to an Application's source). Pure.

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
