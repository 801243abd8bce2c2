// The Lua engine of health checks: Argo CD's environment (obj, the returned hs table, the libraries it opens), read
// as health/lua-check.ts reads it, and the bounds (a check that loops forever is stopped; one that eats memory fails).
import { LuaRunner } from '../../../src/lua/engine.js';
import { wasmoonAssets } from '../../../src/lua/assets.js';
import { healthOfLuaResult } from '../../../src/health/lua-check.js';
import type { KubeObject } from '../../../src/model/object.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Argo CD v3.2.11's bundled checks, as they are (resource_customizations/<group>/<kind>/health.lua). */
const bundled = (path: string) => readFileSync(join(process.cwd(), 'test/fixtures/lua/argocd-v3.2.11', path, 'health.lua'), 'utf8');

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
    expect(await runner.run('return { status = "Healthy", message = 7 }', widget(), false)).toEqual({
      type: 'table',
      status: 'Healthy',
      message: 7,
      hasKeys: true,
    });
    expect(await runner.run('return 42', widget(), false)).toEqual({ type: 'number' });
    expect(await runner.run('return nil', widget(), false)).toEqual({ type: 'nil' });
    expect(await runner.run('error("no sprockets")', widget(), false)).toEqual({ error: expect.stringContaining('no sprockets') });
  });

  it("hands the object over as Argo CD's decodeValue does: a null is nil, left out of maps and lists (a live object holds them)", async () => {
    const obj = {
      ...widget({ phase: 'Running', conditions: [null, { type: 'Ready' }, null], reason: null }),
      spec: { template: { metadata: { creationTimestamp: null } } },
    } as unknown as KubeObject;
    const probe =
      'return { status = "Healthy", message = tostring(#obj.status.conditions) .. " " .. obj.status.conditions[1].type .. " " .. tostring(obj.status.reason) .. " " .. tostring(obj.spec.template.metadata.creationTimestamp) }';
    expect(await healthOf(probe, obj, false)).toEqual({ status: 'Healthy', message: '1 Ready nil nil' });
    expect(await healthOf(WIDGET_HEALTH, obj, false)).toEqual({ status: 'Healthy', message: 'widget w1 is running' });
  });

  it('reads the result as Argo CD does', async () => {
    expect(await healthOf('return { status = "Fine" }', widget(), false)).toEqual({ status: 'Unknown', message: 'Lua returned an invalid health status' });
    expect(await healthOf('return "Healthy"', widget(), false)).toEqual({ status: 'Unknown', message: 'expect table output from Lua script, not string' });
    expect(await healthOf('return nil', widget(), false)).toBeUndefined();
    expect(await healthOf('return {}', widget(), false)).toBeUndefined();
    expect(await healthOf('return { "Healthy" }', widget(), false)).toBeUndefined();
    expect(await healthOf('return { status = "Healthy", message = 7 }', widget(), false)).toBeUndefined();
    expect(await healthOf('return { state = "Healthy" }', widget(), false)).toEqual({ status: 'Unknown', message: 'Lua returned an invalid health status' });
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

describe("Lua 5.1's functions (gopher-lua's), which the bundled checks call", () => {
  it("batch/CronJob's check: a running job (table.getn of status.active) is Healthy", async () => {
    const cronJob = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'report', namespace: 'shop' },
      spec: { schedule: '0 * * * *' },
      status: {
        lastScheduleTime: '2026-11-30T05:00:00Z',
        lastSuccessfulTime: '2026-11-30T04:00:12Z',
        active: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'report-29408700', namespace: 'shop' }],
      },
    } as KubeObject;
    expect(await healthOf(bundled('batch/CronJob'), cronJob, true)).toEqual({
      status: 'Healthy',
      message: 'The job is running. Its last execution may not have been successful',
    });
  });

  it("argoproj.io/Rollout's check: a rollout with pause conditions (table.getn) is Suspended", async () => {
    const rollout = {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web', namespace: 'shop', generation: 2 },
      spec: { strategy: { canary: {} } },
      status: { observedGeneration: '2', conditions: [], pauseConditions: [{ reason: 'CanaryPauseStep', startTime: '2026-11-30T05:00:00Z' }] },
    } as KubeObject;
    expect(await healthOf(bundled('argoproj.io/Rollout'), rollout, true)).toEqual({ status: 'Suspended', message: 'Rollout is paused' });
  });

  it('has table.getn, table.maxn and unpack in the safe libraries, math.pow and string.gfind in the open ones', async () => {
    const safe =
      'return { status = "Healthy", message = table.getn({1, 2, 3}) .. " " .. table.maxn({[1] = 1, [7] = 2}) .. " " .. select("#", unpack({1, 2})) .. " " .. type(loadstring) }';
    expect(await healthOf(safe, widget(), false)).toEqual({ status: 'Healthy', message: '3 7 2 function' });
    const open =
      'local n = 0 for w in string.gfind("a b c", "%a") do n = n + 1 end return { status = "Healthy", message = math.pow(2, 3) .. " " .. n .. " " .. math.mod(7, 3) }';
    expect(await healthOf(open, widget(), true)).toMatchObject({ status: 'Healthy', message: expect.stringMatching(/^8(\.0)? 3 1(\.0)?$/) });
  });
});
