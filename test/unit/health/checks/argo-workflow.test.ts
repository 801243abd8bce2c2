// Argo Workflow health, as gitops-engine's getArgoWorkflowHealth (its fixtures are in test/fixtures/health/argo-workflow-*.yaml).
import { argoWorkflowHealth } from '../../../../src/health/checks/argo-workflow.js';
import type { KubeObject } from '../../../../src/model/object.js';

const workflow = (status?: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Workflow', metadata: { name: 'build', namespace: 'ci' }, ...(status ? { status } : {}) }) as KubeObject;

describe('argoWorkflowHealth', () => {
  it.each([
    [undefined, 'Progressing'],
    ['Pending', 'Progressing'],
    ['Running', 'Progressing'],
    ['Succeeded', 'Healthy'],
    ['Failed', 'Degraded'],
    ['Error', 'Degraded'],
    ['Skipped', 'Unknown'],
  ])('phase %s is %s, with status.message', (phase, health) => {
    expect(argoWorkflowHealth(workflow({ ...(phase ? { phase } : {}), message: 'm' }))).toEqual({ status: health, message: 'm' });
  });

  it('is Progressing with no status at all, and reads a message of another type as none', () => {
    expect(argoWorkflowHealth(workflow())).toEqual({ status: 'Progressing', message: '' });
    expect(argoWorkflowHealth(workflow({ phase: 'Failed', message: 3 }))).toEqual({ status: 'Degraded', message: '' });
  });
});
