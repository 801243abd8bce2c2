// App health: worst of the counted resources in Argo CD's order; Missing only when nothing is live.
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

  it('does not count a missing resource (it is OutOfSync instead) while something else is live', () => {
    const got = aggregateHealth([live('Healthy'), { live: false }]);
    expect(got).toEqual({ status: 'Healthy', worst: [] });
  });

  it('is Missing when the app has resources and none is live', () => {
    expect(aggregateHealth([{ live: false }, { live: false }]).status).toBe('Missing');
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
