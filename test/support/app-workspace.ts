// An app workspace: a temporary folder holding an Application file (app.yaml) and its desired manifests (desired/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applicationYaml, type ApplicationFields } from './application.js';
import { tempDir } from './temp-dir.js';

export interface AppWorkspace {
  root: string;
  /** The Application file. */
  appFile: string;
  /** The desired manifests' folder (`desired/` in root). */
  dir: string;
}

export interface WorkspaceFields extends Partial<Omit<ApplicationFields, 'spec'>> {
  /** The temporary folder's name prefix. */
  prefix: string;
  /** The files of desired/, by name; one text is desired/all.yaml. */
  manifests: string | Record<string, string>;
  /**
   * The Application's spec, given `root` (a source may name it). Default: the source is desired/ of the workspace as
   * a repository path, the destination namespace `shop`, nothing else.
   */
  spec?: (root: string) => Record<string, unknown>;
}

/** A new workspace (removed after the test file's tests): desired/ with the manifests, and app.yaml declaring them. */
export function appWorkspace(w: WorkspaceFields): AppWorkspace {
  const root = tempDir(w.prefix);
  const dir = join(root, 'desired');
  mkdirSync(dir);
  const files = typeof w.manifests === 'string' ? { 'all.yaml': w.manifests } : w.manifests;
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const appFile = join(root, 'app.yaml');
  const spec = w.spec ? w.spec(root) : { source: { repoURL: root, path: 'desired' }, destination: { namespace: 'shop' } };
  const { prefix: _p, manifests: _m, spec: _s, ...meta } = w;
  writeFileSync(appFile, applicationYaml({ ...meta, spec }));
  return { root, appFile, dir };
}

/** The default source of a workspace: its desired/ folder, read from the workspace as a repository path. */
export function localSource(root: string): { repoURL: string; path: string } {
  return { repoURL: root, path: 'desired' };
}
