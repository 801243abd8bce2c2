// The Lua engine of health checks: Argo CD's environment (obj, the returned hs table, the libraries it opens), read
// as health/lua-check.ts reads it, and the bounds (a check that loops forever is stopped; one that eats memory fails).
import { LuaRunner } from '../../../src/lua/engine.js';
import { wasmoonAssets } from '../../../src/lua/assets.js';
import { healthOfLuaResult } from '../../../src/health/lua-check.js';
import type { KubeObject } from '../../../src/model/object.js';

const WIDGET_HEALTH = `
hs = {}
if obj.status ~= nil and obj.status.phase ~= nil then
  if obj.status.phase == "Running" then
    hs.status = "Healthy"
    hs.message = "widget " .. obj.metadata.name .. " is running"
    return hs
  end
  if obj.status.phase == "Failed" then
    hs.status = "Degraded"
    hs.message = obj.status.reason
    return hs
  end
end
hs.status = "Progressing"
hs.message = "Waiting for the widget"
return hs
`;

const widget = (status?: Record<string, unknown>): KubeObject =>
  ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'shop' }, ...(status ? { status } : {}) }) as KubeObject;

let runner: LuaRunner;
beforeAll(async () => {
  runner = new LuaRunner(await wasmoonAssets(), { timeoutMs: 1000, memoryBytes: 16 * 1024 * 1024 });
});
afterAll(() => runner.close());
/** A check's health as the health code reads the engine's result. */
const healthOf = async (script: string, obj: KubeObject, openLibs: boolean) => healthOfLuaResult(await runner.run(script, obj, openLibs));

describe('a health check of our own, as Argo CD runs it', () => {
  it.each([
    [{ phase: 'Running' }, { status: 'Healthy', message: 'widget w1 is running' }],
    [
      { phase: 'Failed', reason: 'out of sprockets' },
      { status: 'Degraded', message: 'out of sprockets' },
    ],
    [{ phase: 'Pending' }, { status: 'Progressing', message: 'Waiting for the widget' }],
    [undefined, { status: 'Progressing', message: 'Waiting for the widget' }],
  ])('status %j', async (status, health) => {
    expect(await healthOf(WIDGET_HEALTH, widget(status), false)).toEqual(health);
  });

  it('has only base, package, table and a safe os (time, date) unless the open libraries are asked for', async () => {
    const probe =
      'return { status = "Healthy", message = type(string) .. " " .. type(math) .. " " .. type(os.time) .. " " .. type(os.execute) .. " " .. type(table.insert) .. " " .. type(require("os").date) }';
    expect(await healthOf(probe, widget(), false)).toEqual({ status: 'Healthy', message: 'nil nil function nil function function' });
    expect(await healthOf(probe, widget(), true)).toEqual({ status: 'Healthy', message: 'table table function function function function' });
  });

  it("hands back what the script returned (its Lua type, a table's status and message) or why it did not finish", async () => {
    expect(await runner.run('return { status = "Healthy", message = 7 }', widget(), false)).toEqual({ type: 'table', status: 'Healthy', message: 7 });
    expect(await runner.run('return 42', widget(), false)).toEqual({ type: 'number' });
    expect(await runner.run('return nil', widget(), false)).toEqual({ type: 'nil' });
    expect(await runner.run('error("no sprockets")', widget(), false)).toEqual({ error: expect.stringContaining('no sprockets') });
  });

  it('reads the result as Argo CD does', async () => {
    expect(await healthOf('return { status = "Fine" }', widget(), false)).toEqual({ status: 'Unknown', message: 'Lua returned an invalid health status' });
    expect(await healthOf('return "Healthy"', widget(), false)).toEqual({ status: 'Unknown', message: 'expect table output from Lua script, not string' });
    expect(await healthOf('return nil', widget(), false)).toBeUndefined();
    expect(await healthOf('error("no sprockets")', widget(), false)).toMatchObject({ status: 'Unknown', message: expect.stringContaining('no sprockets') });
    expect(await healthOf('this is not lua', widget(), false)).toMatchObject({ status: 'Unknown' });
  });

  it('a script that loops forever is stopped by the time bound, and the next check runs', async () => {
    const started = Date.now();
    const r = await healthOf('while true do end', widget(), false);
    expect(r).toEqual({ status: 'Unknown', message: 'the Lua health check ran past its time bound (1000 ms) and was stopped' });
    expect(Date.now() - started).toBeLessThan(5000);
    // pcall cannot hold the bound off either.
    expect(await healthOf('while true do pcall(function() while true do end end) end', widget(), false)).toMatchObject({ status: 'Unknown' });
    expect(await healthOf(WIDGET_HEALTH, widget({ phase: 'Running' }), false)).toMatchObject({ status: 'Healthy' });
  });

  it('a script that eats memory fails with Unknown', async () => {
    const r = await healthOf('local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 1000) .. i end return { status = "Healthy" }', widget(), true);
    expect(r?.status).toBe('Unknown');
  });
});
