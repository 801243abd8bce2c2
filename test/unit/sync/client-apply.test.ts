// Client-side apply's three-way patch (ServerSideApply=false), as `kubectl apply` builds it: strategic for built-in
// kinds with the OpenAPI merge keys, a JSON merge patch for custom resources.
import { clientApplyPatch, isBuiltInGroup, lastApplied, openApiSchema, withLastApplied } from '../../../src/sync/client-apply.js';
import type { KubeObject } from '../../../src/model/object.js';

const LA = 'kubectl.kubernetes.io/last-applied-configuration';

/** A slice of the API server's OpenAPI v3 document for apps/v1 (refs and allOf as the server writes them). */
const DOC = {
  components: {
    schemas: {
      'io.k8s.api.apps.v1.Deployment': {
        'x-kubernetes-group-version-kind': [{ group: 'apps', version: 'v1', kind: 'Deployment' }],
        properties: {
          metadata: { allOf: [{ $ref: '#/components/schemas/meta' }] },
          spec: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }] },
        },
      },
      meta: { properties: { finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' } } },
      'io.k8s.api.apps.v1.DeploymentSpec': { properties: { template: { allOf: [{ $ref: '#/components/schemas/tpl' }] } } },
      tpl: { properties: { spec: { allOf: [{ $ref: '#/components/schemas/pod' }] } } },
      pod: {
        properties: {
          containers: {
            type: 'array',
            items: { allOf: [{ $ref: '#/components/schemas/container' }] },
            'x-kubernetes-patch-merge-key': 'name',
            'x-kubernetes-patch-strategy': 'merge',
          },
        },
      },
      container: {
        properties: {
          env: {
            type: 'array',
            items: { allOf: [{ $ref: '#/components/schemas/env' }] },
            'x-kubernetes-patch-merge-key': 'name',
            'x-kubernetes-patch-strategy': 'merge',
          },
          args: { type: 'array', items: { type: 'string' } },
        },
      },
      env: { properties: { name: { type: 'string' }, value: { type: 'string' } } },
    },
  },
};
const schema = openApiSchema(DOC, 'apps', 'v1', 'Deployment');

function deployment(containers: unknown[], extra: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', ...extra },
    spec: { template: { spec: { containers } } },
  } as KubeObject;
}

test('the schema is found by group, version and kind, following $ref and allOf to the merge keys', () => {
  expect(schema?.field('spec')?.field('template')?.field('spec')?.field('containers')).toMatchObject({ mergeKey: 'name', mergeList: true });
  expect(schema?.field('spec')?.field('template')?.field('spec')?.field('containers')?.items()?.field('args')).toMatchObject({ mergeList: false });
  expect(openApiSchema(DOC, 'apps', 'v1', 'StatefulSet')).toBeUndefined();
  expect([isBuiltInGroup(''), isBuiltInGroup('apps'), isBuiltInGroup('networking.k8s.io'), isBuiltInGroup('example.com')]).toEqual([true, true, true, false]);
});

test('the desired object is recorded in the last-applied annotation, without a copy of that annotation', () => {
  const d = withLastApplied(deployment([{ name: 'web', image: 'web:1' }], { annotations: { [LA]: 'old', a: '1' } }));
  expect(JSON.parse(d.metadata.annotations![LA]!)).toEqual({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', annotations: { a: '1' } },
    spec: { template: { spec: { containers: [{ name: 'web', image: 'web:1' }] } } },
  });
  expect(lastApplied(d)).toEqual(JSON.parse(d.metadata.annotations![LA]!));
  expect(lastApplied(deployment([], { annotations: { [LA]: '{not json' } }))).toBeUndefined();
});

test('strategic: a changed image and a removed env var are patched by container name; a sidecar someone else added is left alone', () => {
  const before = deployment([
    {
      name: 'web',
      image: 'web:1',
      env: [
        { name: 'A', value: '1' },
        { name: 'B', value: '2' },
      ],
    },
  ]);
  const live = withLastApplied(before);
  (live.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers.push({ name: 'proxy', image: 'envoy:1' });
  const desired = deployment([{ name: 'web', image: 'web:2', env: [{ name: 'A', value: '1' }] }]);
  const patch = clientApplyPatch(desired, live, true, schema)!;
  const { metadata, ...rest } = patch as { metadata: { annotations: Record<string, string> } };
  expect(Object.keys(metadata.annotations)).toEqual([LA]);
  expect(rest).toEqual({
    spec: {
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'web' }],
          containers: [{ name: 'web', image: 'web:2', '$setElementOrder/env': [{ name: 'A' }], env: [{ name: 'B', $patch: 'delete' }] }],
        },
      },
    },
  });
});

test('strategic: a field the last apply declared and Git no longer does is deleted (null); one it never declared is kept', () => {
  const live = withLastApplied(deployment([{ name: 'web', image: 'web:1', args: ['a'] }]));
  (live.spec as Record<string, unknown>).paused = true; // set by hand: not in the last-applied configuration
  const patch = clientApplyPatch(deployment([{ name: 'web', image: 'web:1' }]), live, true, schema)!;
  expect((patch as { spec: unknown }).spec).toEqual({
    template: { spec: { '$setElementOrder/containers': [{ name: 'web' }], containers: [{ name: 'web', args: null }] } },
  });
});

test('strategic: a list without a merge strategy (args) is replaced whole; a merged scalar list (finalizers) adds and deletes by value', () => {
  const live = withLastApplied(deployment([{ name: 'web', args: ['a', 'b'] }], { finalizers: ['x', 'mine'] }));
  live.metadata.finalizers = ['x', 'mine', 'theirs'];
  const patch = clientApplyPatch(deployment([{ name: 'web', args: ['a', 'c'] }], { finalizers: ['x', 'new'] }), live, true, schema) as {
    metadata: Record<string, unknown>;
    spec: unknown;
  };
  expect(patch.metadata['finalizers']).toEqual(['new']);
  expect(patch.metadata['$deleteFromPrimitiveList/finalizers']).toEqual(['mine']);
  expect(patch.metadata['$setElementOrder/finalizers']).toEqual(['x', 'new']);
  expect(patch.spec).toEqual({ template: { spec: { '$setElementOrder/containers': [{ name: 'web' }], containers: [{ name: 'web', args: ['a', 'c'] }] } } });
});

test('a custom resource gets a JSON merge patch: lists whole, removed fields null', () => {
  const cr = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec }) as KubeObject;
  const live = withLastApplied(cr({ items: [{ name: 'a' }, { name: 'b' }], size: 1 }));
  const patch = clientApplyPatch(cr({ items: [{ name: 'a' }] }), live, false, undefined) as { spec: unknown };
  expect(patch.spec).toEqual({ items: [{ name: 'a' }], size: null });
});

test('nothing to send when the live object already holds the desired state and its last-applied copy', () => {
  const desired = deployment([{ name: 'web', image: 'web:1' }]);
  expect(clientApplyPatch(desired, withLastApplied(desired), true, schema)).toBeUndefined();
});
