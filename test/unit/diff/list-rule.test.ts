// Which lists merge (the built-in table of strategic merge keys), and how `differences` compares a merging list:
// by merge key, live-only elements not counted, the declared order kept, a list it cannot merge compared by index.
import { differences } from '../../../src/diff/compare.js';
import { omitsZeroValues, strategicListRule } from '../../../src/diff/list-rule.js';
import { knownTypesOf } from '../../../src/diff/index.js';
import { stepsOf, type Step } from '../../../src/model/field-path.js';
import type { JsonValue } from '../../../src/model/object.js';

describe('strategicListRule', () => {
  const deployment = strategicListRule('apps/v1', 'Deployment')!;

  it("knows a pod template's keyed lists and its containers' lists", () => {
    expect(deployment(stepsOf(['spec', 'template', 'spec', 'containers']))).toEqual({ key: 'name' });
    expect(deployment(stepsOf(['spec', 'template', 'spec', 'initContainers', 0, 'env']))).toEqual({ key: 'name' });
    expect(deployment(stepsOf(['spec', 'template', 'spec', 'containers', 1, 'ports']))).toEqual({ key: 'containerPort' });
    expect(deployment(stepsOf(['spec', 'template', 'spec', 'containers', 0, 'volumeMounts']))).toEqual({ key: 'mountPath' });
    expect(deployment(stepsOf(['spec', 'template', 'spec', 'volumes']))).toEqual({ key: 'name' });
    expect(deployment(stepsOf(['spec', 'template', 'spec', 'topologySpreadConstraints']))).toEqual({ key: 'topologyKey' });
  });

  it('leaves atomic lists atomic: args, command, tolerations, envFrom', () => {
    for (const f of ['args', 'command', 'envFrom']) expect(deployment(stepsOf(['spec', 'template', 'spec', 'containers', 0, f]))).toBeUndefined();
    expect(deployment(stepsOf(['spec', 'template', 'spec', 'tolerations']))).toBeUndefined();
    // An index where a field name belongs, or a field name where an index belongs, matches nothing.
    expect(deployment(stepsOf(['spec', 'template', 'spec', 'containers', 'x', 'env']))).toBeUndefined();
  });

  it('finds the pod spec where each workload kind keeps it', () => {
    expect(strategicListRule('v1', 'Pod')!(stepsOf(['spec', 'containers']))).toEqual({ key: 'name' });
    expect(strategicListRule('batch/v1', 'CronJob')!(stepsOf(['spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers']))).toEqual({ key: 'name' });
    expect(strategicListRule('batch/v1', 'CronJob')!(stepsOf(['spec', 'template', 'spec', 'containers']))).toBeUndefined();
    expect(strategicListRule('v1', 'ConfigMap')!(stepsOf(['spec', 'template', 'spec', 'containers']))).toBeUndefined();
  });

  it("merges a Service's ports by port, and no other kind's ports (a NetworkPolicy's are atomic)", () => {
    expect(strategicListRule('v1', 'Service')!(stepsOf(['spec', 'ports']))).toEqual({ key: 'port' });
    expect(strategicListRule('networking.k8s.io/v1', 'NetworkPolicy')!(stepsOf(['spec', 'ingress', 0, 'ports']))).toBeUndefined();
  });

  it("merges metadata's finalizers (by value) and ownerReferences (by uid) for built-in kinds", () => {
    expect(strategicListRule('v1', 'ConfigMap')!(stepsOf(['metadata', 'finalizers']))).toEqual({});
    expect(strategicListRule('networking.k8s.io/v1', 'Ingress')!(stepsOf(['metadata', 'ownerReferences']))).toEqual({ key: 'uid' });
  });

  it('has no rule for a custom resource: a JSON merge patch replaces its lists whole', () => {
    expect(strategicListRule('example.com/v1', 'Widget')).toBeUndefined();
    expect(strategicListRule('argoproj.io/v1alpha1', 'Rollout')).toBeUndefined();
  });

  it("takes the kinds of client-go's scheme as Kubernetes' own, not every group ending in .k8s.io: a CRD, an APIService, a Gateway API route are compared as JSON (as gitops-engine, whose scheme has none of them)", () => {
    for (const apiVersion of ['apiextensions.k8s.io/v1', 'apiregistration.k8s.io/v1', 'gateway.networking.k8s.io/v1', 'metrics.k8s.io/v1beta1']) {
      expect([apiVersion, strategicListRule(apiVersion, 'Any'), omitsZeroValues(apiVersion)]).toEqual([apiVersion, undefined, false]);
    }
    for (const apiVersion of [
      'v1',
      'apps/v1',
      'networking.k8s.io/v1',
      'rbac.authorization.k8s.io/v1',
      'storage.k8s.io/v1',
      'policy/v1',
      'resource.k8s.io/v1',
    ]) {
      expect([apiVersion, omitsZeroValues(apiVersion)]).toEqual([apiVersion, true]);
    }
    // A CRD whose manifest spells preserveUnknownFields: false, which the API server leaves out, is OutOfSync in Argo CD
    // (its 3.0 upgrade notes say so); an HTTPRoute's finalizers are replaced whole by a JSON merge patch.
    const crd = differences(
      { spec: { preserveUnknownFields: false } },
      { spec: {} },
      [],
      strategicListRule('apiextensions.k8s.io/v1', 'CustomResourceDefinition'),
      {
        zeroValuesOmitted: omitsZeroValues('apiextensions.k8s.io/v1'),
      },
    );
    expect(crd.map((d) => d.at.map((s) => ('field' in s ? s.field : s.index)).join('.'))).toEqual(['spec.preserveUnknownFields']);
    const route = differences(
      { metadata: { finalizers: ['a'] } },
      { metadata: { finalizers: ['a', 'b'] } },
      [],
      strategicListRule('gateway.networking.k8s.io/v1', 'HTTPRoute'),
      {
        zeroValuesOmitted: false,
      },
    );
    expect(route).toHaveLength(1);
  });
});

describe('differences on a merging list', () => {
  const rule = strategicListRule('apps/v1', 'Deployment');
  const pod = (containers: JsonValue[]): JsonValue => ({ spec: { template: { spec: { containers } } } });
  const C = ['spec', 'template', 'spec', 'containers'];

  it('does not count a live element nobody declares, wherever it is', () => {
    const desired = pod([{ name: 'api', image: 'a' }]);
    expect(
      differences(
        desired,
        pod([
          { name: 'proxy', image: 'p' },
          { name: 'api', image: 'a' },
        ]),
        [],
        rule,
      ),
    ).toEqual([]);
    expect(
      differences(
        desired,
        pod([
          { name: 'api', image: 'a' },
          { name: 'proxy', image: 'p' },
        ]),
        [],
        rule,
      ),
    ).toEqual([]);
    // Without the rule (a custom resource, or no rule given): by length, as before.
    expect(
      differences(
        desired,
        pod([
          { name: 'api', image: 'a' },
          { name: 'proxy', image: 'p' },
        ]),
      ),
    ).toEqual([
      {
        at: stepsOf(C),
        desired: [{ name: 'api', image: 'a' }],
        live: [
          { name: 'api', image: 'a' },
          { name: 'proxy', image: 'p' },
        ],
      },
    ]);
  });

  it('compares a declared element with the live one of its key: `at` in live, `desiredAt` in desired', () => {
    const d = differences(
      pod([{ name: 'api', image: 'a:2' }]),
      pod([
        { name: 'proxy', image: 'p' },
        { name: 'api', image: 'a:1' },
      ]),
      [],
      rule,
    );
    expect(d).toEqual([{ at: stepsOf([...C, 1, 'image']), desiredAt: stepsOf([...C, 0, 'image']), desired: 'a:2', live: 'a:1' }]);
  });

  it('reports a declared element absent live by itself, at an index past the live list', () => {
    const d = differences(
      pod([
        { name: 'api', image: 'a' },
        { name: 'metrics', image: 'm' },
      ]),
      pod([{ name: 'api', image: 'a' }]),
      [],
      rule,
    );
    expect(d).toEqual([{ at: stepsOf([...C, 1]), desired: { name: 'metrics', image: 'm' }, live: undefined }]);
    const two = differences(
      pod([
        { name: 'x', image: 'x' },
        { name: 'y', image: 'y' },
      ]),
      pod([{ name: 'p', image: 'p' }]),
      [],
      rule,
    );
    expect(two.map((x) => [x.at.at(-1), x.desiredAt?.at(-1)])).toEqual([
      [{ index: 1 }, { index: 0 }],
      [{ index: 2 }, { index: 1 }],
    ]);
  });

  it('reports the whole list once when the declared elements are live in another order', () => {
    const desired = pod([
      { name: 'a', image: '1' },
      { name: 'b', image: '1' },
    ]);
    const live = pod([{ name: 'b', image: '2' }, { name: 'x' }, { name: 'a', image: '1' }]);
    const d = differences(desired, live, [], rule);
    expect(d.map((x) => x.at)).toEqual([stepsOf(C)]);
    // Live-only elements between the declared ones do not make an order difference.
    expect(differences(desired, pod([{ name: 'a', image: '1' }, { name: 'x' }, { name: 'b', image: '1' }]), [], rule)).toEqual([]);
  });

  it('compares by index a list it cannot merge: an element without its key, or two with one key', () => {
    const live = pod([{ name: 'api', image: 'a' }, { name: 'proxy' }]);
    expect(differences(pod([{ image: 'a' }]), live, [], rule).map((x) => x.at)).toEqual([stepsOf(C)]);
    expect(
      differences(
        pod([
          { name: 'api', image: 'a' },
          { name: 'api', image: 'b' },
        ]),
        live,
        [],
        rule,
      ).map((x) => x.at),
    ).toEqual([stepsOf([...C, 1, 'name']), stepsOf([...C, 1, 'image'])]);
  });

  it('matches a merging list of scalars by value: extra live values do not count, a missing one does', () => {
    const cm = strategicListRule('v1', 'ConfigMap');
    const meta = (finalizers: string[]): JsonValue => ({ metadata: { finalizers } });
    expect(differences(meta(['a/x']), meta(['kubernetes.io/pvc-protection', 'a/x']), [], cm)).toEqual([]);
    expect(differences(meta(['a/x', 'b/y']), meta(['a/x']), [], cm)).toEqual([
      { at: stepsOf(['metadata', 'finalizers']), desired: ['a/x', 'b/y'], live: ['a/x'] },
    ]);
  });

  it('follows moved elements inside moved elements: each difference has its own place on both sides, and the base path is left as it was', () => {
    const desired: JsonValue = {
      spec: {
        containers: [
          { name: 'api', env: [{ name: 'B', value: '2' }], image: 'a:2' },
          { name: 'side', image: 's:2' },
        ],
        hostname: 'h2',
      },
    };
    const live: JsonValue = {
      spec: {
        containers: [
          { name: 'proxy' },
          {
            name: 'api',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '1' },
            ],
            image: 'a:1',
          },
          { name: 'side', image: 's:1' },
        ],
        hostname: 'h1',
      },
    };
    const base: Step[] = [];
    const d = differences(desired, live, base, strategicListRule('v1', 'Pod'));
    expect(base).toEqual([]);
    const P = ['spec', 'containers'];
    expect(d).toEqual([
      { at: stepsOf([...P, 1, 'env', 1, 'value']), desiredAt: stepsOf([...P, 0, 'env', 0, 'value']), desired: '2', live: '1' },
      { at: stepsOf([...P, 1, 'image']), desiredAt: stepsOf([...P, 0, 'image']), desired: 'a:2', live: 'a:1' },
      { at: stepsOf([...P, 2, 'image']), desiredAt: stepsOf([...P, 1, 'image']), desired: 's:2', live: 's:1' },
      { at: stepsOf(['spec', 'hostname']), desired: 'h2', live: 'h1' },
    ]);
  });

  it('keeps the atomic lists inside a merged element atomic', () => {
    const d = differences(pod([{ name: 'api', args: ['--a'] }]), pod([{ name: 'p' }, { name: 'api', args: ['--a', '--b'] }]), [], rule);
    expect(d).toEqual([{ at: stepsOf([...C, 1, 'args']), desiredAt: stepsOf([...C, 0, 'args']), desired: ['--a'], live: ['--a', '--b'] }]);
  });
});

describe('zero values a built-in kind omits', () => {
  it('a desired "", false or 0 is satisfied by an absent live field only with zeroValuesOmitted (a built-in kind); false and 0 by no other value', () => {
    const desired = { a: '', b: false, c: 0, d: 'x' };
    expect(differences(desired, { d: 'x' }, [], undefined, { zeroValuesOmitted: true })).toEqual([]);
    expect(differences(desired, { d: 'x' }).map((x) => x.at)).toEqual([stepsOf(['a']), stepsOf(['b']), stepsOf(['c'])]);
    expect(differences({ b: false, c: 0 }, { b: true, c: 3 }, [], undefined, { zeroValuesOmitted: true }).map((x) => x.at)).toEqual([
      stepsOf(['b']),
      stepsOf(['c']),
    ]);
  });

  it("a struct field's null or \"\" is not compared (gitops-engine's remarshal drops it): the API server's default is no drift", () => {
    const zero = { zeroValuesOmitted: true };
    // spec.replicas: null, imagePullPolicy: "", a Service's type: "" and sessionAffinity: null, as charts render them.
    const desired = { spec: { replicas: null, type: '', sessionAffinity: null, template: { spec: { containers: [{ name: 'c', imagePullPolicy: '' }] } } } };
    const live = {
      spec: { replicas: 1, type: 'ClusterIP', sessionAffinity: 'None', template: { spec: { containers: [{ name: 'c', imagePullPolicy: 'Always' }] } } },
    };
    expect(differences(desired, live, [], undefined, zero)).toEqual([]);
    // A custom resource's (no Go type) are compared as written.
    expect(differences(desired, live).length).toBe(4);
  });

  it('in a map of strings a "" is a value and a null is "" (the Go type keeps the key)', () => {
    const zero = { zeroValuesOmitted: true };
    expect(differences({ data: { k: null } }, { data: { k: '' } }, [], undefined, zero)).toEqual([]);
    expect(differences({ data: { k: null } }, { data: {} }, [], undefined, zero)).toEqual([{ at: stepsOf(['data', 'k']), desired: '', live: undefined }]);
    expect(differences({ data: { k: '' } }, { data: { k: 'x' } }, [], undefined, zero)).toEqual([{ at: stepsOf(['data', 'k']), desired: '', live: 'x' }]);
    expect(differences({ metadata: { labels: { a: '' } } }, { metadata: { labels: {} } }, [], undefined, zero).length).toBe(1);
    // A Service's selector is such a map; a LabelSelector is a struct.
    expect(differences({ spec: { selector: { app: '' } } }, { spec: { selector: { app: 'x' } } }, [], undefined, zero).length).toBe(1);
    expect(differences({ spec: { selector: { matchLabels: null } } }, { spec: { selector: { matchLabels: { a: 'b' } } } }, [], undefined, zero)).toEqual([]);
  });

  it("Kubernetes' own groups omit them; a custom resource's group keeps them", () => {
    expect(['v1', 'apps/v1', 'batch/v1', 'networking.k8s.io/v1'].map(omitsZeroValues)).toEqual([true, true, true, true]);
    expect(['example.com/v1', 'argoproj.io/v1alpha1'].map(omitsZeroValues)).toEqual([false, false]);
  });
});

describe("known-type fields of custom resources (argocd-cm's knownTypeFields, Argo CD's knownTypesNormalizer)", () => {
  const known = [
    { path: ['spec', 'template', 'spec'], type: 'core/v1/PodSpec' },
    { path: ['spec', 'jobs', 'size'], type: 'core/Quantity' },
    { path: ['spec', 'timeout'], type: 'meta/v1/Duration' },
  ];
  it("below a core/v1 type's field the empty values it omits are no drift; elsewhere in the custom resource they are", () => {
    const desired = { spec: { template: { spec: { hostNetwork: false, containers: [{ name: 'c', env: [{ name: 'E', value: '' }] }] } }, label: '' } };
    const live = { spec: { template: { spec: { containers: [{ name: 'c', env: [{ name: 'E' }] }] } } } };
    expect(differences(desired, live, [], undefined, { knownTypes: known }).map((d) => d.at)).toEqual([stepsOf(['spec', 'label'])]);
    expect(differences(desired, live).length).toBe(3);
  });
  it('a core/Quantity field compares by value, through lists; a meta/v1/Duration field as a Go duration', () => {
    const desired = { spec: { jobs: [{ size: '1Gi' }, { size: '500m' }], timeout: '90m' } };
    const live = { spec: { jobs: [{ size: '1024Mi' }, { size: '0.5' }], timeout: '1h30m0s' } };
    expect(differences(desired, live, [], undefined, { knownTypes: known })).toEqual([]);
    expect(differences(desired, live).length).toBe(3);
    expect(differences({ spec: { timeout: '90m' } }, { spec: { timeout: '1h' } }, [], undefined, { knownTypes: known }).length).toBe(1);
  });
  it("Argo CD's default: an Argo Rollout's pod template spec is a PodSpec, unless argocd-cm types the kind itself", () => {
    expect(knownTypesOf({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout' })).toEqual([{ path: ['spec', 'template', 'spec'], type: 'core/v1/PodSpec' }]);
    expect(knownTypesOf({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout' }, new Map([['argoproj.io/Rollout', []]]))).toEqual([]);
    expect(knownTypesOf({ apiVersion: 'example.com/v1', kind: 'Cache' }, new Map([['example.com/Cache', known]]))).toBe(known);
    expect(knownTypesOf({ apiVersion: 'example.com/v1', kind: 'Other' })).toEqual([]);
  });
});
