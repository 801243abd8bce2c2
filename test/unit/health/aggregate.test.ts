// App health: worst of the counted resources in Argo CD's order, skipping what setApplicationHealth skips.
import { aggregateHealth, type HealthInput } from '../../../src/health/aggregate.js';
import { HEALTH_ORDER, isWorse, type HealthStatusCode } from '../../../src/health/types.js';
import { jobHealth } from '../../../src/health/checks/job.js';
import type { KubeObject } from '../../../src/model/object.js';

const live = (status: HealthStatusCode, extra: Partial<HealthInput> = {}): HealthInput => ({ live: true, health: { status, message: '' }, ...extra });

describe('aggregateHealth', () => {
  it('orders codes Healthy < Suspended < Progressing < Missing < Degraded < Unknown', () => {
    expect(HEALTH_ORDER).toEqual(['Healthy', 'Suspended', 'Progressing', 'Missing', 'Degraded', 'Unknown']);
    for (let i = 0; i < HEALTH_ORDER.length; i++) {
      for (let j = 0; j < HEALTH_ORDER.length; j++) {
        expect(isWorse(HEALTH_ORDER[i]!, HEALTH_ORDER[j]!)).toBe(j > i);
      }
    }
  });

  it('takes the worst counted resource and names every resource at that level', () => {
    const got = aggregateHealth([live('Healthy'), live('Progressing'), live('Suspended'), live('Progressing')]);
    expect(got).toEqual({ status: 'Progressing', worst: [1, 3] });
  });

  it('is Degraded over Progressing and Unknown over Degraded', () => {
    expect(aggregateHealth([live('Progressing'), live('Degraded')]).status).toBe('Degraded');
    expect(aggregateHealth([live('Unknown'), live('Degraded')]).status).toBe('Unknown');
  });

  it('counts a missing resource only when its kind has a built-in check or an argocd-cm override', () => {
    expect(aggregateHealth([live('Healthy'), { live: false }])).toEqual({ status: 'Healthy', worst: [] });
    expect(aggregateHealth([live('Progressing'), { live: false, missingCounts: true }])).toEqual({ status: 'Missing', worst: [1] });
    // A live resource's health is not read as Missing: the input's health of a missing one is ignored.
    expect(aggregateHealth([{ live: false, missingCounts: true, health: { status: 'Degraded', message: '' } }]).status).toBe('Missing');
    // A check that returns Missing for a live object of a kind without a built-in check is skipped too.
    expect(aggregateHealth([live('Missing')]).status).toBe('Healthy');
  });

  it('has no rule for nothing live: only what counts decides', () => {
    expect(aggregateHealth([{ live: false }, { live: false }]).status).toBe('Healthy');
    expect(aggregateHealth([{ live: false }, { live: false, missingCounts: true }])).toEqual({ status: 'Missing', worst: [1] });
  });

  it('skips a child Application that is Missing or Unknown, but not one that is Degraded', () => {
    expect(aggregateHealth([{ live: false, missingCounts: true, application: true }]).status).toBe('Healthy');
    expect(aggregateHealth([live('Unknown', { application: true }), live('Progressing')]).status).toBe('Progressing');
    expect(aggregateHealth([live('Missing', { application: true, missingCounts: true })]).status).toBe('Healthy');
    expect(aggregateHealth([live('Degraded', { application: true })]).status).toBe('Degraded');
  });

  it("skips the app's own Application object", () => {
    expect(aggregateHealth([live('Degraded', { application: true, selfReference: true }), live('Healthy')]).status).toBe('Healthy');
  });

  it('is Healthy for an app with no resources at all', () => {
    expect(aggregateHealth([]).status).toBe('Healthy');
  });

  it('skips kinds without health (ConfigMap) and ignore-healthcheck resources', () => {
    const got = aggregateHealth([{ live: true }, live('Degraded', { ignored: true }), live('Healthy')]);
    expect(got.status).toBe('Healthy');
  });

  it('a suspended Job makes the app Suspended, as any Suspended resource (setApplicationHealth has no exception for it)', () => {
    const suspendedJob: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: 'shop' },
      spec: { suspend: true },
      status: { conditions: [{ type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' }] },
    };
    const job: HealthInput = { live: true, health: jobHealth(suspendedJob) };
    expect(job.health).toEqual({ status: 'Suspended', message: '' });
    expect(aggregateHealth([job, live('Healthy')])).toEqual({ status: 'Suspended', worst: [0] });
    expect(aggregateHealth([job, live('Progressing')]).status).toBe('Progressing');
  });
});
