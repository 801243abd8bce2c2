// Lua health checks: Argo CD's environment (obj, the returned hs table, the libraries it opens), the script lookup
// order, and the bounds (a check that loops forever is stopped; one that eats memory fails).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../support/temp-dir.js';
import { LuaRunner } from '../../../src/health/lua.js';
import { wasmoonAssets } from '../../../src/health/lua-assets.js';
import { computeCustomHealth, HealthScripts } from '../../../src/health/custom.js';
import { resourceHealth } from '../../../src/health/resource.js';
import { parseArgoSettings } from '../../../src/settings/argocd-cm.js';
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

const widget = (status?: Record<string, unknown>): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'shop' }, ...(status ? { status } : {}) }) as KubeObject;

let runner: LuaRunner;
beforeAll(async () => {
  runner = new LuaRunner(await wasmoonAssets(), { timeoutMs: 1000, memoryBytes: 16 * 1024 * 1024 });
});
afterAll(() => runner.close());

describe('a health check of our own, as Argo CD runs it', () => {
  it.each([
    [{ phase: 'Running' }, { status: 'Healthy', message: 'widget w1 is running' }],
    [{ phase: 'Failed', reason: 'out of sprockets' }, { status: 'Degraded', message: 'out of sprockets' }],
    [{ phase: 'Pending' }, { status: 'Progressing', message: 'Waiting for the widget' }],
    [undefined, { status: 'Progressing', message: 'Waiting for the widget' }],
  ])('status %j', async (status, health) => {
    expect(await runner.health(WIDGET_HEALTH, widget(status), false)).toEqual(health);
  });

  it('has only base, package, table and a safe os (time, date) unless the open libraries are asked for', async () => {
    const probe = 'return { status = "Healthy", message = type(string) .. " " .. type(math) .. " " .. type(os.time) .. " " .. type(os.execute) .. " " .. type(table.insert) .. " " .. type(require("os").date) }';
    expect(await runner.health(probe, widget(), false)).toEqual({ status: 'Healthy', message: 'nil nil function nil function function' });
    expect(await runner.health(probe, widget(), true)).toEqual({ status: 'Healthy', message: 'table table function function function function' });
  });

  it('reads the result as Argo CD does', async () => {
    expect(await runner.health('return { status = "Fine" }', widget(), false)).toEqual({ status: 'Unknown', message: 'Lua returned an invalid health status' });
    expect(await runner.health('return "Healthy"', widget(), false)).toEqual({ status: 'Unknown', message: 'expect table output from Lua script, not string' });
    expect(await runner.health('return nil', widget(), false)).toBeUndefined();
    expect(await runner.health('error("no sprockets")', widget(), false)).toMatchObject({ status: 'Unknown', message: expect.stringContaining('no sprockets') });
    expect(await runner.health('this is not lua', widget(), false)).toMatchObject({ status: 'Unknown' });
  });

  it('a script that loops forever is stopped by the time bound, and the next check runs', async () => {
    const started = Date.now();
    const r = await runner.health('while true do end', widget(), false);
    expect(r).toEqual({ status: 'Unknown', message: 'the Lua health check ran past its time bound (1000 ms) and was stopped' });
    expect(Date.now() - started).toBeLessThan(5000);
    // pcall cannot hold the bound off either.
    expect(await runner.health('while true do pcall(function() while true do end end) end', widget(), false)).toMatchObject({ status: 'Unknown' });
    expect(await runner.health(WIDGET_HEALTH, widget({ phase: 'Running' }), false)).toMatchObject({ status: 'Healthy' });
  });

  it('a script that eats memory fails with Unknown', async () => {
    const r = await runner.health('local t = {} for i = 1, 1e9 do t[i] = string.rep("x", 1000) .. i end return { status = "Healthy" }', widget(), true);
    expect(r?.status).toBe('Unknown');
  });
});

describe('which script applies (GetHealthScript order)', () => {
  const settings = parseArgoSettings(
    {
      'resource.customizations.health.example.com_Widget': 'return { status = "Healthy", message = "from argocd-cm" }',
      'resource.customizations.health.example.com_Gadget': '',
      'resource.customizations': '"*.wild.io/*":\n  health.lua: return { status = "Suspended", message = "wildcard" }\n',
    },
    'argocd-cm',
  );
  const lib = tempDir('lua-lib');
  const root = join(lib, 'resource_customizations');
  for (const [dir, status] of [
    ['example.com/Widget', 'Degraded'],
    ['example.com/Gadget', 'Progressing'],
    ['_.crossplane.io/_', 'Healthy'],
  ]) {
    mkdirSync(join(root, dir!), { recursive: true });
    writeFileSync(join(root, dir!, 'health.lua'), `return { status = "${status}", message = "${dir}" }`);
  }
  const scripts = new HealthScripts(settings, lib);

  it('argocd-cm first, then its wildcard keys, then the library, then the library\'s wildcard folders', () => {
    expect(scripts.lookup('example.com', 'Widget')?.source).toBe('argocd-cm resource.customizations.health.example.com_Widget');
    expect(scripts.lookup('a.wild.io', 'Thing')?.script).toContain('wildcard');
    expect(scripts.lookup('example.com', 'Gadget')?.source).toBe(join(root, 'example.com/Gadget/health.lua'));
    expect(scripts.lookup('example.com', 'Gadget')?.useOpenLibs).toBe(true);
    expect(scripts.lookup('pkg.crossplane.io', 'Provider')?.source).toBe(join(root, '_.crossplane.io/_/health.lua'));
    expect(scripts.lookup('apps', 'Deployment')).toBeUndefined();
  });

  it('resourceHealth takes the Lua result before any built-in check', async () => {
    const objs = [widget({ phase: 'Running' }), { ...widget(), apiVersion: 'pkg.crossplane.io/v1', kind: 'Provider' } as KubeObject];
    expect(await computeCustomHealth(objs, scripts)).toBe(2);
    expect(resourceHealth(objs[0]!)).toEqual({ status: 'Healthy', message: 'from argocd-cm' });
    expect(resourceHealth(objs[1]!)).toEqual({ status: 'Healthy', message: '_.crossplane.io/_' });
  });
});
