// A commit's whole tree written into a fresh temporary folder, for tools that read files (kustomize, Jsonnet): never
// the user's repository or work tree. Symbolic links are written as links; submodules are left out.
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { listTree, readBlobs, type GitDir } from '../git.js';
import { ManifestError } from '../../model/errors.js';
import { outOfBoundsMessage, resolveLinkTarget } from './symlinks.js';

export interface MaterialisedTree {
  /** The folder holding the commit's root. */
  root: string;
  /** Removes the folder. */
  dispose(): Promise<void>;
}

/** Writes every file of `commit` under a new temporary folder. */
export async function materialiseTree(dir: GitDir, commit: string): Promise<MaterialisedTree> {
  const root = await mkdtemp(join(tmpdir(), 'kubectl-gitops-render-'));
  const dispose = () => rm(root, { recursive: true, force: true });
  try {
    const entries = (await listTree(dir, commit, '')).filter((e) => e.type === 'blob');
    const blobs = await readBlobs(
      dir,
      entries.map((e) => e.sha),
    );
    const made = new Set<string>();
    for (const e of entries) {
      const target = join(root, e.path);
      const parent = dirname(target);
      if (!made.has(parent)) {
        await mkdir(parent, { recursive: true });
        made.add(parent);
      }
      const data = blobs.get(e.sha) ?? Buffer.alloc(0);
      // A link out of the repository would let a tool read the machine's files: the render fails, as in Argo CD.
      if (e.mode === '120000' && resolveLinkTarget(e.path, data.toString('utf8')) === undefined) throw new ManifestError(outOfBoundsMessage(e.path));
      if (e.mode === '120000') await symlink(data.toString('utf8'), target);
      else await writeFile(target, data, { mode: e.mode === '100755' ? 0o755 : 0o644 });
    }
    return { root, dispose };
  } catch (e) {
    await dispose();
    throw e;
  }
}
