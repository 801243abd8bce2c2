import { appNamespaceRefusal, isAppNamespaceEnabled, parseCmdParams } from '../../../src/settings/cmd-params.js';

describe('argocd-cmd-params-cm', () => {
  it('splits application.namespaces at commas, trimmed, empty entries dropped', () => {
    expect(parseCmdParams({ 'application.namespaces': ' team-*, ,/^ops-[0-9]+$/,apps ' }, 'cm').applicationNamespaces).toEqual([
      'team-*',
      '/^ops-[0-9]+$/',
      'apps',
    ]);
    expect(parseCmdParams({}, 'cm').applicationNamespaces).toEqual([]);
  });

  it('reads controller.diff.server.side (the controller\'s --server-side-diff-enabled): only "true" turns it on', () => {
    expect(parseCmdParams({ 'controller.diff.server.side': 'true' }, 'cm').serverSideDiff).toBe(true);
    expect(parseCmdParams({ 'controller.diff.server.side': ' TRUE ' }, 'cm').serverSideDiff).toBe(true);
    expect(parseCmdParams({ 'controller.diff.server.side': 'false' }, 'cm').serverSideDiff).toBe(false);
    expect(parseCmdParams({}, 'cm').serverSideDiff).toBe(false);
  });

  it.each([
    ['argocd', true, 'the control plane namespace always'],
    ['', true, 'no namespace (a file without one)'],
    ['team-a', true, 'a glob'],
    ['ops-12', true, 'a regexp between slashes'],
    ['ops-x', false, 'the regexp does not match'],
    ['apps', true, 'an exact name'],
    ['apps2', false, 'an exact name is not a prefix'],
    ['default', false, 'unlisted'],
  ])('%s → %s (%s)', (ns, enabled) => {
    const p = parseCmdParams({ 'application.namespaces': 'team-*,/^ops-[0-9]+$/,apps' }, 'cm');
    expect(isAppNamespaceEnabled(p, ns, 'argocd')).toBe(enabled);
  });

  it('an empty list allows only the control plane namespace, and the refusal names the list and where it came from', () => {
    const p = parseCmdParams({}, 'ConfigMap argocd/argocd-cmd-params-cm');
    expect(appNamespaceRefusal(p, { name: 'web', namespace: 'argocd' }, 'argocd')).toBeUndefined();
    expect(appNamespaceRefusal(p, { name: 'web', namespace: 'team-a' }, 'argocd')).toBe(
      "Argo CD does not reconcile Application team-a/web: namespace team-a is neither the control plane's (argocd) nor listed in application.namespaces (none) of ConfigMap argocd/argocd-cmd-params-cm",
    );
  });
});
