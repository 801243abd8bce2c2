import { createRequire } from 'node:module';
import { JqRunner } from '../../../src/jq/runner.js';

// The runner gets the jq-wasm module factory's source, as the lazy loader hands it over.
const require = createRequire(import.meta.url);
const factory = require('jq-wasm/dist/build/jq.js') as { toString(): string };

describe('JqRunner (real jq via jq-wasm)', () => {
  const jq = new JqRunner(factory.toString(), 1000);
  afterAll(() => jq.close());

  it('returns the paths an expression selects, exactly what del() would remove', async () => {
    const obj = {
      spec: {
        containers: [
          { name: 'a', image: 'x' },
          { name: 'istio-proxy', image: 'y' },
        ],
      },
    };
    expect(await jq.paths(obj, '.spec.containers[] | select(.name == "istio-proxy") | .image')).toEqual([['spec', 'containers', 1, 'image']]);
    expect(await jq.paths(obj, '.spec.containers[].image')).toEqual([
      ['spec', 'containers', 0, 'image'],
      ['spec', 'containers', 1, 'image'],
    ]);
    expect(await jq.paths(obj, '.metadata.labels["x"]')).toEqual([['metadata', 'labels', 'x']]);
  });

  it('has real jq semantics (builtins, alternatives)', async () => {
    expect(await jq.run({ a: [3, 1, 2] }, '.a | sort | map(. * 2)')).toEqual([[2, 4, 6]]);
    expect(await jq.run({ a: null }, '.a // "default"')).toEqual(['default']);
  });

  it('reports compile errors', async () => {
    expect(await jq.compiles('.spec | select(')).toMatch(/syntax error/);
    expect(await jq.compiles('.spec.replicas')).toBeUndefined();
    // Compiled, never run: an expression that would loop forever still compiles quickly.
    expect(await jq.compiles('def f: f; .spec | f')).toBeUndefined();
    expect(await jq.compiles('.a | nosuchfunction')).toMatch(/nosuchfunction\/0 is not defined/);
  });

  it('stops a runaway expression at the time limit, then keeps working', async () => {
    const short = new JqRunner(factory.toString(), 300);
    try {
      const started = Date.now();
      await expect(short.run({}, 'def f: f; f')).rejects.toThrow(/timed out \(300ms\)/);
      expect(Date.now() - started).toBeLessThan(10000);
      expect(await short.run({ a: 1 }, '.a')).toEqual([1]);
    } finally {
      await short.close();
    }
  }, 20000);

  it('runs calls one after another: calls made while a runaway runs are not failed with it, and each gets its own time limit', async () => {
    const short = new JqRunner(factory.toString(), 300);
    try {
      const runaway = short.run({}, 'def f: f; f');
      const others = Array.from({ length: 20 }, (_, i) => short.run({ a: i }, '.a * 2'));
      await expect(runaway).rejects.toThrow(/timed out \(300ms\)/);
      expect(await Promise.all(others)).toEqual(Array.from({ length: 20 }, (_, i) => [i * 2]));
    } finally {
      await short.close();
    }
  }, 20000);
});
