// At most n at once, the rest in the order they came.
import { bounded } from '../../../../src/workflows/sync/bounded.js';

test('bounded runs at most n at once, the rest in the order they came', async () => {
  const turn = bounded(2);
  let running = 0;
  let most = 0;
  const order: number[] = [];
  const job = (i: number, ms: number) =>
    turn(async () => {
      running++;
      most = Math.max(most, running);
      order.push(i);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return i;
    });
  expect(await Promise.all([job(0, 20), job(1, 5), job(2, 5), job(3, 1), job(4, 1)])).toEqual([0, 1, 2, 3, 4]);
  expect(most).toBe(2);
  expect(order).toEqual([0, 1, 2, 3, 4]);
});
