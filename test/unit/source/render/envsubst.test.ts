import { envsubst, renderEnv } from '../../../../src/source/render/envsubst.js';

const env = renderEnv({
  appName: 'shop',
  appNamespace: 'argocd',
  projectName: 'default',
  revision: '0123456789abcdef',
  repoURL: 'https://g/x.git',
  path: 'apps/shop',
  targetRevision: 'main',
});

describe("Argo CD's Envsubst (os.Expand over the ARGOCD_APP_* variables)", () => {
  it('sets the repo-server variables, the short revisions included', () => {
    expect(env.ARGOCD_APP_REVISION_SHORT).toBe('0123456');
    expect(env.ARGOCD_APP_REVISION_SHORT_8).toBe('01234567');
    expect(env.ARGOCD_APP_SOURCE_PATH).toBe('apps/shop');
  });

  it('expands $NAME and ${NAME}, empties unknown names, and keeps a $ with no name', () => {
    expect(envsubst('app-$ARGOCD_APP_NAME', env)).toBe('app-shop');
    expect(envsubst('${ARGOCD_APP_NAMESPACE}/x', env)).toBe('argocd/x');
    expect(envsubst('a-$UNKNOWN-b', env)).toBe('a--b');
    expect(envsubst('cost $', env)).toBe('cost $');
    expect(envsubst('5$ off', env)).toBe('5$ off');
    expect(envsubst('no vars', env)).toBe('no vars');
  });

  it('turns $$ into $ and eats bad ${ syntax as Go does', () => {
    expect(envsubst('$$ARGOCD_APP_NAME', env)).toBe('$ARGOCD_APP_NAME');
    expect(envsubst('a${}b', env)).toBe('ab');
    expect(envsubst('a${b', env)).toBe('ab');
  });
});
