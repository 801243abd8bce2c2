// The installation id (Argo CD v3.2.11 util/argo/resource_tracking.go getAppInstanceValue): an object's
// `argocd.argoproj.io/installation-id` must equal argocd-cm's installationID (none counts as empty) for its tracking-id to
// name any app, so with no installationID an object annotated with another installation's id is never this app's;
// label tracking reads the label alone (GetAppName).
import { sameInstallation, type Tracking } from '../../../src/tracking/method.js';
import { describeNotOwned, ownershipVerdict, selectOwned } from '../../../src/tracking/select.js';
import { planPrune } from '../../../src/prune/plan.js';
import type { KubeObject } from '../../../src/model/object.js';
import type { ResourceType } from '../../../src/model/resource-type.js';

const TID = 'argocd.argoproj.io/tracking-id';
const IID = 'argocd.argoproj.io/installation-id';
const LABEL = 'app.kubernetes.io/instance';
const tracking = (method: Tracking['method'], installationID = ''): Tracking => ({ method, labelKey: LABEL, installationID });
const cm = (name: string, annotations?: Record<string, string>, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'shop', ...(annotations ? { annotations } : {}), ...(labels ? { labels } : {}) },
});
const ours = (name: string, iid?: string): KubeObject => cm(name, { [TID]: `shop:/ConfigMap:shop/${name}`, ...(iid !== undefined ? { [IID]: iid } : {}) });
const configMaps: ResourceType = { group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, verbs: ['list', 'delete'] };

test('no installationID: an object annotated with another installation\'s id is no app\'s (Go: annotations[installation-id] != "")', () => {
  for (const method of ['annotation', 'annotation+label'] as const) {
    const t = tracking(method);
    expect(sameInstallation(ours('c', 'other-install'), t)).toBe(false);
    expect(ownershipVerdict(ours('c', 'other-install'), 'shop', t)).toEqual({ code: 'other-installation', id: 'other-install' });
    // No annotation, or an empty one, is the empty installation: this one's.
    expect(sameInstallation(ours('c'), t)).toBe(true);
    expect(sameInstallation(ours('c', ''), t)).toBe(true);
    expect(ownershipVerdict(ours('c'), 'shop', t)).toBeUndefined();
  }
  expect(describeNotOwned({ code: 'other-installation', id: 'other-install' })).toBe("installation-id other-install is another Argo CD installation's");
});

test("an installationID set: only objects annotated with exactly it are any app's", () => {
  const t = tracking('annotation', 'inst-1');
  expect(sameInstallation(ours('c', 'inst-1'), t)).toBe(true);
  expect(sameInstallation(ours('c', 'inst-2'), t)).toBe(false);
  expect(sameInstallation(ours('c'), t)).toBe(false);
  expect(sameInstallation(ours('c', ''), t)).toBe(false);
  expect(sameInstallation(cm('bare'), t)).toBe(false);
});

test('label tracking reads the label alone: an installation id, ours or another, does not count', () => {
  for (const installationID of ['', 'inst-1']) {
    const t = tracking('label', installationID);
    const labelled = cm('c', { [IID]: 'other-install' }, { [LABEL]: 'shop' });
    expect(sameInstallation(labelled, t)).toBe(true);
    expect(ownershipVerdict(labelled, 'shop', t)).toBeUndefined();
  }
});

test('prune never lists an object marked by another installation when argocd-cm sets no installationID', () => {
  const t = tracking('annotation');
  const live = [ours('gone'), ours('theirs', 'other-install'), ours('kept')];
  expect(selectOwned(live, 'shop', t).owned.map((o) => o.metadata.name)).toEqual(['gone', 'kept']);
  const plan = planPrune({
    live: live.map((object) => ({ object, type: configMaps })),
    appInstance: 'shop',
    desired: [{ group: '', kind: 'ConfigMap', namespace: 'shop', name: 'kept' }],
    appPruneDefault: true,
    tracking: t,
  });
  expect(plan.candidates.map((c) => c.key.name)).toEqual(['gone']);
  expect(plan.notOwned).toEqual([
    { key: { group: '', kind: 'ConfigMap', namespace: 'shop', name: 'theirs' }, reason: { code: 'other-installation', id: 'other-install' } },
  ]);
});
