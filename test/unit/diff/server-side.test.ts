// Server-side diff's prediction without webhook mutations (gitops-engine's removeWebhookMutation), and when an app is
// compared so (Argo CD's controller/state.go).
import { serverSideDiffOf, withoutMutations } from '../../../src/diff/server-side.js';
import type { KubeObject } from '../../../src/model/object.js';

const MANAGER = 'argocd-controller';

/** What the API server answered to our dry-run apply: our fields, a webhook's annotation and sidecar, a default. */
function predicted(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'shop',
      resourceVersion: '42',
      labels: { app: 'web' },
      annotations: { 'sidecar.example/injected': 'true' },
      managedFields: [
        {
          manager: MANAGER,
          operation: 'Apply',
          apiVersion: 'apps/v1',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { 'f:app': {} } },
            'f:spec': {
              'f:replicas': {},
              'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:name': {}, 'f:image': {}, 'f:args': {} } } } },
            },
          },
        },
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'apps/v1',
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: { 'f:status': { 'f:replicas': {} } },
        },
      ],
    },
    spec: {
      replicas: 3,
      template: {
        spec: {
          containers: [
            { name: 'web', image: 'web:2', args: ['--a', '--b'], imagePullPolicy: 'IfNotPresent' },
            { name: 'proxy', image: 'proxy:1' },
          ],
        },
      },
    },
    status: { replicas: 1 },
  } as unknown as KubeObject;
}

function live(): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', resourceVersion: '41', labels: { app: 'web' } },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'web', image: 'web:1', args: ['--a'], imagePullPolicy: 'Always' }] } } },
    status: { replicas: 1 },
  } as unknown as KubeObject;
}

describe('withoutMutations', () => {
  it("keeps what our manager sent, puts the rest back to live's, and leaves out what live does not have (a webhook's sidecar as a whole)", () => {
    const out = withoutMutations(predicted(), live(), MANAGER) as unknown as Record<string, unknown>;
    const { managedFields: _m, ...meta } = out.metadata as Record<string, unknown>;
    expect(meta).toEqual({ name: 'web', namespace: 'shop', resourceVersion: '41', labels: { app: 'web' } });
    // replicas and the image and the (atomic) args list are ours: the prediction stands, so the diff shows them.
    // imagePullPolicy is nobody's: live's value. The sidecar is nobody's and not live: gone.
    expect(out.spec).toEqual({
      replicas: 3,
      template: { spec: { containers: [{ name: 'web', image: 'web:2', args: ['--a', '--b'], imagePullPolicy: 'Always' }] } },
    });
    expect(out.status).toEqual({ replicas: 1 });
  });

  it('leaves the prediction as it is when our manager owns nothing in it', () => {
    const p = predicted();
    const other = { ...p, metadata: { ...p.metadata, managedFields: [] } } as KubeObject;
    expect(withoutMutations(other, live(), MANAGER)).toBe(other);
  });
});

describe('serverSideDiffOf', () => {
  it("follows the app's ServerSideDiff=true|false over the controller's setting, and IncludeMutationWebhook=true", () => {
    expect(serverSideDiffOf({}, false)).toBeUndefined();
    expect(serverSideDiffOf({}, true)).toEqual({ includeMutationWebhook: false });
    expect(serverSideDiffOf({ compareOptions: { serverSideDiff: true } }, false)).toEqual({ includeMutationWebhook: false });
    expect(serverSideDiffOf({ compareOptions: { serverSideDiff: false } }, true)).toBeUndefined();
    expect(serverSideDiffOf({ compareOptions: { serverSideDiff: true, includeMutationWebhook: true } }, false)).toEqual({ includeMutationWebhook: true });
  });
});
