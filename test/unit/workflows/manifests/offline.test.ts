// runOfflineManifests: no gateway at all. Kubernetes' own kinds namespaced as the table says, a kind defined by a
// CustomResourceDefinition of the same render scoped as that says, any other kind namespaced with a warning; Helm's
// capabilities said in a warning unless given.
import { memoryIo } from '../../../../src/cli/io.js';
import { runOfflineManifests } from '../../../../src/workflows/manifests/offline.js';
import type { GlobalOptions } from '../../../../src/model/context.js';
import { appWorkspace } from '../../../support/app-workspace.js';

const opts: GlobalOptions = { requestTimeout: '0', output: 'yaml', color: 'never', verbose: false, fieldManager: 'argocd-controller', appNamespace: 'argocd' };

const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: globals.example.com}
spec: {group: example.com, scope: Cluster, names: {kind: Global, plural: globals}, versions: [{name: v1, served: true, storage: true}]}
`;

test('namespaces by the built-in table, a CRD of the render, or else as namespaced with a warning', async () => {
  const ws = appWorkspace({
    prefix: 'offline',
    manifests: {
      'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n',
      'role.yaml': 'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader, namespace: ignored}\nrules: []\n',
      'crd.yaml': crd,
      'global.yaml': 'apiVersion: example.com/v1\nkind: Global\nmetadata: {name: g}\n',
      'sm.yaml': 'apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: sm}\n',
    },
  });
  const r = await runOfflineManifests({ appFile: ws.appFile, desired: ws.dir }, { io: memoryIo().io, opts });
  expect(Object.fromEntries(r.objects.map((o) => [o.kind, o.metadata.namespace ?? '-']))).toEqual({
    ConfigMap: 'shop',
    ClusterRole: '-',
    CustomResourceDefinition: '-',
    Global: '-',
    ServiceMonitor: 'shop',
  });
  expect(r.warnings).toEqual([
    "offline: Helm charts are rendered with Helm's default Kubernetes version and Helm's default API versions, not a cluster's (give --kube-version and --api-versions to match one)",
    'offline: ServiceMonitor.monitoring.coreos.com/v1 is not a kind Kubernetes serves on its own and no CustomResourceDefinition here defines it: taken as namespaced (a cluster would say)',
  ]);
});

test('with --kube-version and --api-versions given, no word on Helm', async () => {
  const ws = appWorkspace({ prefix: 'offline', manifests: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n' });
  const r = await runOfflineManifests({ appFile: ws.appFile, desired: ws.dir, kubeVersion: '1.35.0', apiVersions: ['v1'] }, { io: memoryIo().io, opts });
  expect([r.objects.length, r.warnings]).toEqual([1, []]);
});
