// Where the tool keeps its caches (remote Git mirrors, renders): a kubectl-gitops folder in kubectl's cache directory
// when one is named (--cache-dir, which the CLI passes on as KUBECACHEDIR, else $KUBECACHEDIR, as kubectl reads it),
// else in $XDG_CACHE_HOME, else in ~/.cache.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function cacheHome(env: Record<string, string | undefined>): string {
  const kube = env.KUBECACHEDIR;
  if (kube !== undefined && kube !== '') return join(resolve(kube), 'kubectl-gitops');
  const base = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== '' ? env.XDG_CACHE_HOME : join(env.HOME ?? homedir(), '.cache');
  return join(base, 'kubectl-gitops');
}
