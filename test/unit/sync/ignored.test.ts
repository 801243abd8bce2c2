// RespectIgnoreDifferences (sync/ignored.ts keepLiveValues): the desired object with its ignored fields at their live values.
import { keepLiveValues } from '../../../src/sync/ignored.js';
import type { IgnoredField, IgnoredFields } from '../../../src/diff/ignored-fields.js';
import { stepsOf } from '../../../src/model/field-path.js';
import type { KubeObject } from '../../../src/model/object.js';

const rule = { index: 0, type: 'jsonPointers' as const, value: '/x' };
const liveField = (parts: (string | number)[], live: unknown): IgnoredField => ({
  path: stepsOf(parts),
  pointer: '',
  at: stepsOf(parts),
  live: live as never,
  owners: [],
  rule,
});

test('an ignored field the desired object declares takes its live value; one that is not live is dropped; status is left alone', () => {
  const desired = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 2, paused: true },
    status: { replicas: 1 },
  } as unknown as KubeObject;
  const ignored: IgnoredFields = {
    live: [liveField(['spec', 'replicas'], 5)],
    desiredAt: [stepsOf(['spec', 'replicas']), stepsOf(['spec', 'paused']), stepsOf(['status', 'replicas'])],
    warnings: [],
  };
  expect(keepLiveValues(desired, ignored)).toEqual({ ...desired, spec: { replicas: 5 } });
  // The input is not changed.
  expect(desired.spec).toEqual({ replicas: 2, paused: true });
});

test('list elements not live are dropped from the end, so the indices of the others hold (index 10 before 9)', () => {
  const args = Array.from({ length: 12 }, (_, i) => `--a${i}`);
  const desired = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { args } } as unknown as KubeObject;
  const ignored: IgnoredFields = { live: [], desiredAt: [stepsOf(['spec', 'args', 9]), stepsOf(['spec', 'args', 10])], warnings: [] };
  expect((keepLiveValues(desired, ignored) as unknown as { spec: { args: string[] } }).spec.args).toEqual(args.filter((a) => a !== '--a9' && a !== '--a10'));
});
