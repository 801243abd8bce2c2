import { parseQuantity, quantitiesEqual, isQuantityPath } from '../../../src/diff/quantity.js';
import { stepsOf } from '../../../src/model/field-path.js';

describe('quantities', () => {
  it.each([
    ['1000m', '1'],
    ['1Gi', '1024Mi'],
    ['0.5', '500m'],
    [0.1, '100m'],
    [1, '1'],
    ['2G', '2000M'],
    ['1e3', '1k'],
    ['1Ki', '1024'],
    ['1.5Gi', '1536Mi'],
    ['100n', '0.1u'],
  ])('%j equals %j', (a, b) => {
    expect(quantitiesEqual(a, b)).toBe(true);
    expect(quantitiesEqual(b, a)).toBe(true);
  });

  it.each([
    ['1', '2'],
    ['1Gi', '1G'],
    ['100m', '0.01'],
    ['1', 'one'],
    ['', '0'],
  ])('%j differs from %j', (a, b) => {
    expect(quantitiesEqual(a, b)).toBe(false);
  });

  it('rejects what is not a quantity', () => {
    expect(parseQuantity('12 cores')).toBeUndefined();
    expect(parseQuantity('1Gib')).toBeUndefined();
    expect(parseQuantity(true)).toBeUndefined();
  });

  it('knows where quantities live', () => {
    expect(isQuantityPath(stepsOf(['spec', 'containers', 0, 'resources', 'limits', 'cpu']))).toBe(true);
    expect(isQuantityPath(stepsOf(['spec', 'hard', 'requests.memory']))).toBe(true);
    expect(isQuantityPath(stepsOf(['spec', 'volumes', 0, 'emptyDir', 'sizeLimit']))).toBe(true);
    expect(isQuantityPath(stepsOf(['spec', 'port']))).toBe(false);
  });
});
