// Discovery documents into resource types: aggregated v2, legacy lists, preferred versions, subresources dropped.
import { parseAggregatedDiscovery, parseLegacyGroupList, parseLegacyResourceList, preferredTypes } from '../../../src/kube/discovery.js';

test('legacy discovery: preferred version first, subresources dropped, scope kept', () => {
  const gvs = parseLegacyGroupList({
    groups: [{ name: 'autoscaling', versions: [{ version: 'v1' }, { version: 'v2' }], preferredVersion: { version: 'v2' } }],
  });
  expect(gvs).toEqual([
    { group: 'autoscaling', version: 'v2' },
    { group: 'autoscaling', version: 'v1' },
  ]);
  const v2 = parseLegacyResourceList('autoscaling', 'v2', {
    resources: [
      { name: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true, verbs: ['list'] },
      { name: 'horizontalpodautoscalers/status', kind: 'HorizontalPodAutoscaler', namespaced: true },
    ],
  });
  const v1 = parseLegacyResourceList('autoscaling', 'v1', {
    resources: [{ name: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true, verbs: ['list'] }],
  });
  expect(v2).toHaveLength(1);
  expect(preferredTypes([...v2, ...v1])).toEqual([
    { group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler', resource: 'horizontalpodautoscalers', namespaced: true, verbs: ['list'] },
  ]);
});

test('aggregated discovery: cluster scope and the core group', () => {
  const types = parseAggregatedDiscovery({
    items: [
      {
        metadata: {},
        versions: [
          {
            version: 'v1',
            resources: [{ resource: 'namespaces', responseKind: { group: '', version: '', kind: 'Namespace' }, scope: 'Cluster', verbs: ['get', 'list'] }],
          },
        ],
      },
    ],
  });
  expect(types).toEqual([{ group: '', version: 'v1', kind: 'Namespace', resource: 'namespaces', namespaced: false, verbs: ['get', 'list'] }]);
});
