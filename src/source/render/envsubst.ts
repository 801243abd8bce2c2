// The build environment Argo CD's repo-server gives a render (ARGOCD_APP_*), and its Envsubst: Go's os.Expand over
// those names only (`$NAME`, `${NAME}`, `$$` for a dollar; an unknown name becomes empty).

/** The variables Argo CD's repo-server sets for a render (reposerver/repository newEnv). */
export interface RenderEnvInput {
  /** Argo CD's instance name: `<namespace>_<name>` for an Application outside the control plane's namespace. */
  appName: string;
  /** The destination namespace (spec.destination.namespace), as Argo CD sets it; not the Application's own namespace. */
  appNamespace: string;
  projectName: string;
  /** The resolved commit SHA. */
  revision: string;
  repoURL: string;
  path: string;
  targetRevision: string;
}

export type RenderEnv = Record<string, string>;

export function renderEnv(i: RenderEnvInput): RenderEnv {
  return {
    ARGOCD_APP_NAME: i.appName,
    ARGOCD_APP_NAMESPACE: i.appNamespace,
    ARGOCD_APP_PROJECT_NAME: i.projectName,
    ARGOCD_APP_REVISION: i.revision,
    ARGOCD_APP_REVISION_SHORT: i.revision.slice(0, 7),
    ARGOCD_APP_REVISION_SHORT_8: i.revision.slice(0, 8),
    ARGOCD_APP_SOURCE_REPO_URL: i.repoURL,
    ARGOCD_APP_SOURCE_PATH: i.path,
    ARGOCD_APP_SOURCE_TARGET_REVISION: i.targetRevision,
  };
}

const SPECIAL = new Set(['*', '#', '$', '@', '!', '?', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
const ALNUM = /[A-Za-z0-9_]/;

/** The name after a `$` and how many characters it takes (os.Expand's getShellName); name '' with width > 0 is bad syntax, eaten. */
function shellName(s: string): [string, number] {
  if (s[0] === '{') {
    if (s.length > 2 && SPECIAL.has(s[1]!) && s[2] === '}') return [s[1]!, 3];
    for (let i = 1; i < s.length; i++) {
      if (s[i] === '}') return i === 1 ? ['', 2] : [s.slice(1, i), i + 1];
    }
    return ['', 1];
  }
  if (SPECIAL.has(s[0]!)) return [s[0]!, 1];
  let i = 0;
  while (i < s.length && ALNUM.test(s[i]!)) i++;
  return [s.slice(0, i), i];
}

/** Argo CD's Env.Envsubst: every `$NAME`/`${NAME}` replaced by its value in `env` ('' when unknown), `$$` by `$`. */
export function envsubst(s: string, env: RenderEnv): string {
  let out = '';
  let from = 0;
  for (let j = 0; j < s.length; j++) {
    if (s[j] !== '$' || j + 1 >= s.length) continue;
    out += s.slice(from, j);
    const [name, w] = shellName(s.slice(j + 1));
    if (name === '' && w > 0) {
      // bad syntax: eaten
    } else if (name === '') {
      out += '$';
    } else {
      out += name === '$' ? '$' : (env[name] ?? '');
    }
    j += w;
    from = j + 1;
  }
  return from === 0 && out === '' ? s : out + s.slice(from);
}
