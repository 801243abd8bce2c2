// Which Lua check applies (GetHealthScript's order), how a check's result is read, and the results kept for
// resourceHealth; the library comes as data and the engine as an evaluator, so most of this needs no Lua at all.
import { computeCustomHealth, HealthScripts, type HealthLibrary, type HealthScript } from '../../../src/health/custom.js';
import { healthOfLuaResult, type LuaCheckResult, type LuaEvaluator } from '../../../src/health/lua-check.js';
import { resourceHealth } from '../../../src/health/resource.js';
import { luaRunner } from '../../../src/lua/engine.js';
import { parseArgoSettings } from '../../../src/settings/argocd-cm.js';
import type { KubeObject } from '../../../src/model/object.js';

const obj = (apiVersion: string, kind: string, name = 'x'): KubeObject => ({ apiVersion, kind, metadata: { name, namespace: 'shop' } }) as KubeObject;

const settings = parseArgoSettings(
  {
    'resource.customizations.health.example.com_Widget': 'return { status = "Healthy", message = "from argocd-cm" }',
    'resource.customizations.health.example.com_Gadget': '',
    'resource.customizations': '"*.wild.io/*":\n  health.lua: return { status = "Suspended", message = "wildcard" }\n',
  },
  'argocd-cm',
);
const script = (rel: string, status: string): [string, HealthScript] => [
  rel,
  { script: `return { status = "${status}", message = "${rel}" }`, useOpenLibs: true, source: `/lib/${rel}/health.lua` },
];
const library: HealthLibrary = new Map([
  script('example.com/Widget', 'Degraded'),
  script('example.com/Gadget', 'Progressing'),
  script('_.crossplane.io/_', 'Healthy'),
  script('ConfigMap', 'Suspended'),
]);

describe('which script applies (GetHealthScript order)', () => {
  const scripts = new HealthScripts(settings, library);

  it("argocd-cm first, then its wildcard keys, then the library, then the library's wildcard folders", () => {
    expect(scripts.lookup('example.com', 'Widget')?.source).toBe('argocd-cm resource.customizations.health.example.com_Widget');
    expect(scripts.lookup('a.wild.io', 'Thing')?.script).toContain('wildcard');
    expect(scripts.lookup('example.com', 'Gadget')?.source).toBe('/lib/example.com/Gadget/health.lua');
    expect(scripts.lookup('example.com', 'Gadget')?.useOpenLibs).toBe(true);
    expect(scripts.lookup('pkg.crossplane.io', 'Provider')?.source).toBe('/lib/_.crossplane.io/_/health.lua');
    // The core group's key is the bare kind.
    expect(scripts.lookup('', 'ConfigMap')?.source).toBe('/lib/ConfigMap/health.lua');
    expect(scripts.lookup('apps', 'Deployment')).toBeUndefined();
  });

  it('is empty (nothing needs Lua) without argocd-cm checks and without a library, or with an empty one', () => {
    const none = parseArgoSettings({}, 'argocd-cm');
    expect(new HealthScripts(none).empty).toBe(true);
    expect(new HealthScripts(none, new Map()).empty).toBe(true);
    expect(new HealthScripts(none, library).empty).toBe(false);
    expect(new HealthScripts(settings).empty).toBe(false);
  });
});

describe('reading what a check returned (ExecuteHealthLua)', () => {
  it.each<[LuaCheckResult, ReturnType<typeof healthOfLuaResult>]>([
    [
      { type: 'table', status: 'Degraded', message: 'out of sprockets' },
      { status: 'Degraded', message: 'out of sprockets' },
    ],
    // A field of another type: json.Unmarshal's type error, read as the empty health.
    [{ type: 'table', status: 'Healthy', message: 7, hasKeys: true }, undefined],
    [{ type: 'table', status: 5, hasKeys: true }, undefined],
    // No status: "" is not a health code.
    [
      { type: 'table', message: 'waiting', hasKeys: true },
      { status: 'Unknown', message: 'Lua returned an invalid health status' },
    ],
    [
      { type: 'table', hasKeys: true },
      { status: 'Unknown', message: 'Lua returned an invalid health status' },
    ],
    [
      { type: 'table', status: 'Fine' },
      { status: 'Unknown', message: 'Lua returned an invalid health status' },
    ],
    [{ type: 'table' }, undefined],
    [{ type: 'nil' }, undefined],
    [{ type: 'string' }, { status: 'Unknown', message: 'expect table output from Lua script, not string' }],
    [{ error: 'Error: [string "..."]:1: no sprockets' }, { status: 'Unknown', message: '[string "..."]:1: no sprockets' }],
  ])('%j', (result, health) => {
    expect(healthOfLuaResult(result)).toEqual(health);
  });
});

/** An evaluator that answers from a table by script, and counts how often it was loaded and run. */
function fakeLua(answers: Record<string, LuaCheckResult>) {
  const seen = { loads: 0, runs: [] as string[] };
  const evaluator: LuaEvaluator = {
    run: async (s, o) => {
      seen.runs.push(`${o.kind}/${o.metadata.name}`);
      return answers[s] ?? { error: `no answer for ${s}` };
    },
  };
  return { seen, load: async () => (seen.loads++, evaluator) };
}

describe('computeCustomHealth', () => {
  it('runs each applicable check once, keeps the result for resourceHealth, and leaves other objects to the built-in checks', async () => {
    const lua = fakeLua({ [library.get('example.com/Gadget')!.script]: { type: 'table', status: 'Progressing', message: 'waiting' } });
    const gadget = obj('example.com/v1', 'Gadget', 'g1');
    const deployment = obj('apps/v1', 'Deployment', 'd1');
    expect(await computeCustomHealth([gadget, deployment], new HealthScripts(settings, library), lua.load)).toBe(1);
    expect(await computeCustomHealth([gadget, deployment], new HealthScripts(settings, library), lua.load)).toBe(0);
    expect(lua.seen.runs).toEqual(['Gadget/g1']);
    expect(resourceHealth(gadget)).toEqual({ status: 'Progressing', message: 'waiting' });
  });

  it('never loads the engine when no check applies', async () => {
    const lua = fakeLua({});
    expect(await computeCustomHealth([obj('apps/v1', 'Deployment')], new HealthScripts(settings, library), lua.load)).toBe(0);
    expect(await computeCustomHealth([obj('example.com/v1', 'Gadget')], new HealthScripts(parseArgoSettings({}, 'argocd-cm')), lua.load)).toBe(0);
    expect(lua.seen.loads).toBe(0);
  });

  it('with the real engine: resourceHealth takes the Lua result before any built-in check', async () => {
    const objs = [{ ...obj('example.com/v1', 'Widget', 'w1'), status: { phase: 'Running' } } as KubeObject, obj('pkg.crossplane.io/v1', 'Provider')];
    expect(await computeCustomHealth(objs, new HealthScripts(settings, library), luaRunner)).toBe(2);
    expect(resourceHealth(objs[0]!)).toEqual({ status: 'Healthy', message: 'from argocd-cm' });
    expect(resourceHealth(objs[1]!)).toEqual({ status: 'Healthy', message: '_.crossplane.io/_' });
    await (await luaRunner()).close();
  });
});
