// Symbolic links in a source, as Argo CD's repo-server treats them (util/app/path CheckOutOfBoundsSymlinks,
// reposerver findManifests): a link that is absolute, or whose target path steps outside the repository at any
// point (even when it comes back in), fails the render; a link to a file inside is read as that file under the
// link's own name; a link to a directory is not descended into (filepath.Walk does not follow it). Pure.

/** The path of `target` resolved against the folder of the link at `linkPath` (both repository-relative, `/`-separated), or undefined when it is absolute or steps outside the root. */
export function resolveLinkTarget(linkPath: string, target: string): string | undefined {
  if (target.startsWith('/') || /^[A-Za-z]:[\\/]/.test(target)) return undefined;
  const parts = linkPath.split('/').slice(0, -1);
  for (const seg of target.split(/[\\/]/)) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

/** Argo CD's error for a link that leaves the repository. */
export function outOfBoundsMessage(linkPath: string): string {
  return `repository contains out-of-bounds symlinks. file: ${linkPath}`;
}

/**
 * The first link of a repository that leaves it, as Argo CD's CheckOutOfBoundsSymlinks finds it walking the whole
 * checkout before any render (filepath.Walk: each folder's names in byte order, a folder's contents right after its
 * name); undefined when every link stays inside. `links` are the repository's links, by path, with their targets.
 */
export function firstOutOfBounds(links: readonly { path: string; target: string }[]): string | undefined {
  const walkOrder = (a: string, b: string): number => {
    const x = a.split('/');
    const y = b.split('/');
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const c = Buffer.compare(Buffer.from(x[i]!), Buffer.from(y[i]!));
      if (c !== 0) return c;
    }
    return x.length - y.length;
  };
  const out = links.filter((l) => resolveLinkTarget(l.path, l.target) === undefined).map((l) => l.path);
  return out.sort(walkOrder)[0];
}
