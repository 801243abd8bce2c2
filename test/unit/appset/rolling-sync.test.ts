// RollingSync: steps chosen by labels as the ApplicationSet controller chooses them, maxUpdate batches, malformed strategies.
import { maxUpdateOf, planRollingSync, rollingSyncStrategy, stepSelects } from '../../../src/appset/rolling-sync.js';

const strategy = (steps: unknown[], extra: Record<string, unknown> = {}) => ({ spec: { strategy: { type: 'RollingSync', rollingSync: { steps, ...extra } } } });

describe('rollingSyncStrategy', () => {
  it('reads the steps, maxUpdate (integer, numeric string, percentage) and defaultPrune; none for AllAtOnce', () => {
    expect(
      rollingSyncStrategy(
        strategy(
          [
            { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
            { matchExpressions: [], maxUpdate: '25%' },
            { maxUpdate: 2 },
            { maxUpdate: '3' },
          ],
          { defaultPrune: true },
        ),
      ),
    ).toEqual({
      steps: [
        { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
        { matchExpressions: [], maxUpdate: '25%' },
        { matchExpressions: [], maxUpdate: 2 },
        { matchExpressions: [], maxUpdate: 3 },
      ],
      defaultPrune: true,
    });
    expect(rollingSyncStrategy({ spec: { strategy: { type: 'AllAtOnce' } } })).toBeUndefined();
    expect(rollingSyncStrategy({ spec: {} })).toBeUndefined();
    expect(rollingSyncStrategy(strategy([{ maxUpdate: 'half' }]))).toEqual({
      error: 'spec.strategy.rollingSync.steps[0].maxUpdate must be an integer or a percentage (got "half")',
    });
    expect(rollingSyncStrategy(strategy('x' as unknown as unknown[]))).toEqual({ error: 'spec.strategy.rollingSync.steps must be a list' });
  });
});

describe('stepSelects (labelMatchedExpression)', () => {
  const step = (operator: string, values: string[]) => ({ matchExpressions: [{ key: 'env', operator, values }] });
  it('In needs the key and one of the values; NotIn passes a missing key and fails a listed value; other operators never match', () => {
    expect(stepSelects({ env: 'dev' }, step('In', ['dev', 'qa']))).toBe(true);
    expect(stepSelects({ env: 'prod' }, step('In', ['dev']))).toBe(false);
    expect(stepSelects({}, step('In', ['dev']))).toBe(false);
    expect(stepSelects({}, step('NotIn', ['dev']))).toBe(true);
    expect(stepSelects({ env: 'dev' }, step('NotIn', ['dev']))).toBe(false);
    expect(stepSelects({ env: 'prod' }, step('NotIn', ['dev']))).toBe(true);
    expect(stepSelects({ env: 'dev' }, step('Exists', []))).toBe(false);
    // Every expression must hold; no expression selects everything.
    expect(
      stepSelects(
        { env: 'dev', tier: 'web' },
        { matchExpressions: [...step('In', ['dev']).matchExpressions, { key: 'tier', operator: 'NotIn', values: ['web'] }] },
      ),
    ).toBe(false);
    expect(stepSelects({ any: 'x' }, { matchExpressions: [] })).toBe(true);
  });
});

describe('maxUpdateOf', () => {
  it('an integer as given, a percentage rounded down but at least 1 above 0%, all when absent', () => {
    expect([
      maxUpdateOf(undefined, 7),
      maxUpdateOf(2, 7),
      maxUpdateOf(0, 7),
      maxUpdateOf('50%', 7),
      maxUpdateOf('10%', 7),
      maxUpdateOf('0%', 7),
      maxUpdateOf('100%', 7),
    ]).toEqual([7, 2, 0, 3, 1, 0, 7]);
  });
});

describe('planRollingSync', () => {
  it('puts each app in the first step that selects it (said when two do), batches each step by maxUpdate, leaves out what no step selects', () => {
    const apps: { name: string; labels: Record<string, string> }[] = [
      { name: 'dev-a', labels: { env: 'dev' } },
      { name: 'prod-a', labels: { env: 'prod' } },
      { name: 'prod-b', labels: { env: 'prod' } },
      { name: 'qa', labels: { env: 'qa' } },
      { name: 'prod-c', labels: { env: 'prod' } },
      { name: 'other', labels: {} },
    ];
    const plan = planRollingSync(apps, {
      defaultPrune: false,
      steps: [
        { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] },
        { matchExpressions: [{ key: 'env', operator: 'In', values: ['qa'] }], maxUpdate: 0 },
        { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }], maxUpdate: '50%' },
      ],
    });
    expect(plan).toEqual({
      steps: [
        { step: 1, maxUpdate: 1, apps: ['dev-a'], batches: [['dev-a']] },
        { step: 2, maxUpdate: 0, apps: ['qa'], batches: [] },
        { step: 3, maxUpdate: 1, apps: ['prod-a', 'prod-b', 'prod-c'], batches: [['prod-a'], ['prod-b'], ['prod-c']] },
      ],
      excluded: ['other'],
      warnings: ['Application dev-a is selected by steps 1 and 3: it is synced in step 1'],
    });
  });
});
