import { hookResult } from '../../../src/health/report.js';
import type { KubeObject } from '../../../src/model/object.js';

const job = (conditions: object[], active = 0): KubeObject =>
  ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', namespace: 'shop' },
    spec: {},
    status: { conditions, ...(active ? { active } : {}) },
  }) as unknown as KubeObject;

describe("a live hook's result, from its health", () => {
  it.each([
    ['a complete Job', job([{ type: 'Complete', status: 'True' }]), 'Succeeded'],
    [
      'a failed Job',
      job([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }]),
      'Failed',
    ],
    ['a running Job', job([], 1), 'Running'],
    ['a kind without a health check (it exists: done)', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } as KubeObject, 'Succeeded'],
  ])('%s is %s', (_what, live, result) => {
    expect(hookResult(live).result).toBe(result);
  });

  it('keeps the reason of a failed one', () => {
    expect(
      hookResult(job([{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }])).message,
    ).toContain('backoff limit');
  });
});
