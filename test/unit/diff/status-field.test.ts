// argocd-cm's resource.compareoptions ignoreResourceStatusField: `all` never compares status, `crd` compares it
// for every kind but CustomResourceDefinitions, `none` for every kind — only where the manifest declares one. And the
// empty values a built-in kind's stored object leaves out, which are no drift (a custom resource's are).
import { diffObject, statusCompared } from '../../../src/diff/index.js';
import type { KubeObject } from '../../../src/model/object.js';
import { renderPath } from '../../../src/model/field-path.js';

const widget = (status?: object): KubeObject =>
  ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'shop' },
    spec: { size: 1 },
    ...(status ? { status } : {}),
  }) as unknown as KubeObject;
const crd = (status?: object): KubeObject =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com' },
    ...(status ? { status } : {}),
  }) as unknown as KubeObject;

describe('ignoreResourceStatusField', () => {
  it.each([
    [undefined, 'Widget', false],
    ['all', 'Widget', false],
    ['crd', 'Widget', true],
    ['crd', 'CustomResourceDefinition', false],
    ['none', 'Widget', true],
    ['none', 'CustomResourceDefinition', true],
  ])('%s: a %s status declared in Git compared: %s', (option, kind, compared) => {
    const obj = kind === 'Widget' ? widget({ phase: 'Ready' }) : crd({ conditions: [] });
    expect(statusCompared(obj, option)).toBe(compared);
    // A manifest without a status never compares one.
    expect(statusCompared(kind === 'Widget' ? widget() : crd(), option)).toBe(false);
  });

  it('none: a declared status that differs from the live one is drift; the same status is in sync; an undeclared one is never compared', async () => {
    const opts = { rules: [], fieldManager: 'argocd-controller', ignoreResourceStatusField: 'none' };
    const drifted = await diffObject({ ...opts, desired: widget({ phase: 'Ready' }), live: widget({ phase: 'Pending', observed: 3 }) });
    expect(drifted.status).toBe('drifted');
    expect(drifted.fields.map((f) => [renderPath(f.path), f.desired, f.live, f.verdict])).toEqual([['status.phase', 'Ready', 'Pending', 'drift']]);
    expect((await diffObject({ ...opts, desired: widget({ phase: 'Ready' }), live: widget({ phase: 'Ready', observed: 3 }) })).status).toBe('in-sync');
    expect((await diffObject({ ...opts, desired: widget(), live: widget({ phase: 'Pending' }) })).status).toBe('in-sync');
    // A declared status with no live status at all is drift too.
    expect((await diffObject({ ...opts, desired: widget({ phase: 'Ready' }), live: widget() })).fields.map((f) => renderPath(f.path))).toEqual(['status']);
  });

  it('all (the default): the same differing status is in sync', async () => {
    for (const ignoreResourceStatusField of [undefined, 'all']) {
      const diff = await diffObject({
        rules: [],
        fieldManager: 'argocd-controller',
        ...(ignoreResourceStatusField ? { ignoreResourceStatusField } : {}),
        desired: widget({ phase: 'Ready' }),
        live: widget({ phase: 'Pending' }),
      });
      expect(diff.status).toBe('in-sync');
    }
  });

  it("crd: a CRD's declared status is ignored, a custom resource's is compared", async () => {
    const opts = { rules: [], fieldManager: 'argocd-controller', ignoreResourceStatusField: 'crd' };
    expect((await diffObject({ ...opts, desired: crd({ acceptedNames: { kind: 'W' } }), live: crd({ acceptedNames: { kind: 'Widget' } }) })).status).toBe(
      'in-sync',
    );
    expect((await diffObject({ ...opts, desired: widget({ phase: 'Ready' }), live: widget({ phase: 'Pending' }) })).status).toBe('drifted');
  });
});

describe('empty values the API server stores without', () => {
  const opts = { rules: [], fieldManager: 'argocd-controller' };
  const deployment = (container: object): KubeObject =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { template: { spec: { hostNetwork: false, containers: [{ name: 'web', image: 'web:1', ...container }] } } },
    }) as unknown as KubeObject;
  it('a Deployment declaring env value "", workingDir "" and hostNetwork false is in sync with the stored object that omits them', async () => {
    const live = deployment({ env: [{ name: 'EMPTY' }] });
    const { spec } = live as unknown as { spec: { template: { spec: Record<string, unknown> } } };
    delete spec.template.spec.hostNetwork;
    const diff = await diffObject({ ...opts, desired: deployment({ env: [{ name: 'EMPTY', value: '' }], workingDir: '' }), live });
    expect([diff.status, diff.fields]).toEqual(['in-sync', []]);
  });
  it("a custom resource's empty string absent live is drift (its server keeps what it is sent)", async () => {
    const diff = await diffObject({ ...opts, desired: widget(), live: widget() });
    expect(diff.status).toBe('in-sync');
    const desired = { ...widget(), spec: { size: 1, label: '' } } as unknown as KubeObject;
    expect((await diffObject({ ...opts, desired, live: widget() })).fields.map((f) => renderPath(f.path))).toEqual(['spec.label']);
  });
});
