// Client-side apply migration: the JSON patch that moves client-side managers' fields to the server-side manager.
import { csaUpgradePatch, unionFields } from '../../../src/ownership/csa-upgrade.js';
import type { KubeObject, ManagedFieldsEntry } from '../../../src/model/object.js';

const LAST = { 'f:metadata': { 'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} } } };
const obj = (managedFields: ManagedFieldsEntry[]): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', resourceVersion: '42', managedFields },
});
const env = {
  'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:env': { 'k:{"name":"DEBUG"}': { '.': {}, 'f:value': {} } } } } } } },
};
const image = { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { 'f:image': {} } } } } } };

describe('csaUpgradePatch', () => {
  it("merges the last-applied owner's Update entry into the field manager's Apply entry and drops it, guarded by the resourceVersion", () => {
    const ssa: ManagedFieldsEntry = { manager: 'argocd-controller', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: image };
    const csa: ManagedFieldsEntry = {
      manager: 'argocd-controller',
      operation: 'Update',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { ...LAST, ...env },
    };
    const scaler: ManagedFieldsEntry = { manager: 'kubectl', operation: 'Update', subresource: 'scale', fieldsV1: { 'f:spec': { 'f:replicas': {} } } };
    const patch = csaUpgradePatch(obj([csa, ssa, scaler]), 'argocd-controller', []) as { op: string; path: string; value: unknown }[];
    expect(patch[0]).toEqual({ op: 'test', path: '/metadata/resourceVersion', value: '42' });
    expect(patch[1]?.path).toBe('/metadata/managedFields');
    const next = patch[1]?.value as ManagedFieldsEntry[];
    expect(next.map((e) => `${e.manager} ${e.operation}`)).toEqual(['argocd-controller Apply', 'kubectl Update']);
    expect(next[0]?.fieldsV1).toEqual(unionFields(image, { ...LAST, ...env }));
  });

  it("takes the migration manager's Update entries (kubectl-client-side-apply) even without the annotation, creating the Apply entry", () => {
    const csa: ManagedFieldsEntry = { manager: 'kubectl-client-side-apply', operation: 'Update', apiVersion: 'apps/v1', time: 't', fieldsV1: env };
    const next = (csaUpgradePatch(obj([csa]), 'argocd-controller', ['kubectl-client-side-apply'])?.[1] as { value: ManagedFieldsEntry[] }).value;
    expect(next).toEqual([{ manager: 'argocd-controller', operation: 'Apply', apiVersion: 'apps/v1', time: 't', fieldsType: 'FieldsV1', fieldsV1: env }]);
    // ClientSideApplyMigration=false: only the owners of last-applied-configuration migrate
    expect(csaUpgradePatch(obj([csa]), 'argocd-controller', [])).toBeUndefined();
  });

  it('an entry owning last-applied hands over what that configuration declared, not the defaults its create was credited with', () => {
    const created: ManagedFieldsEntry = {
      manager: 'argocd-controller',
      operation: 'Update',
      apiVersion: 'v1',
      fieldsV1: {
        ...LAST,
        'f:spec': {
          'f:internalTrafficPolicy': {},
          'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {}, 'f:targetPort': {} } },
          'f:selector': {},
          'f:type': {},
        },
      },
    };
    const svc: KubeObject = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'shop',
        resourceVersion: '7',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
            apiVersion: 'v1',
            kind: 'Service',
            spec: { selector: { app: 'shop' }, ports: [{ port: 80 }] },
          }),
        },
        managedFields: [created],
      },
    };
    const next = (csaUpgradePatch(svc, 'argocd-controller', [])?.[1] as { value: ManagedFieldsEntry[] }).value;
    expect(next[0]?.fieldsV1).toEqual({
      ...LAST,
      'f:spec': { 'f:ports': { '.': {}, 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {} } }, 'f:selector': {} },
    });
  });

  it('nothing to migrate: no patch (no request)', () => {
    const ssa: ManagedFieldsEntry = { manager: 'argocd-controller', operation: 'Apply', fieldsV1: image };
    const other: ManagedFieldsEntry = { manager: 'kube-controller-manager', operation: 'Update', subresource: 'status', fieldsV1: {} };
    expect(csaUpgradePatch(obj([ssa, other]), 'argocd-controller', ['kubectl-client-side-apply'])).toBeUndefined();
  });

  it('unionFields keeps every key of both tries', () => {
    expect(unionFields({ 'f:a': { 'f:b': {} } }, { 'f:a': { 'f:c': {} }, 'f:d': {} })).toEqual({ 'f:a': { 'f:b': {}, 'f:c': {} }, 'f:d': {} });
  });
});
