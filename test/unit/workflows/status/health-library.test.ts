// Reading a --lua-dir library in Argo CD's layout into data: the root (DIR or DIR/resource_customizations), the
// `group/Kind` and core-group `Kind` folders, the `_` wildcard folders; what cannot be read is exit 2 naming it.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../../support/temp-dir.js';
import { HealthScripts } from '../../../../src/health/custom.js';
import { InputError } from '../../../../src/model/errors.js';
import { parseArgoSettings } from '../../../../src/settings/argocd-cm.js';
import { bundledHealthLibrary, healthLibraryFromJson, mergeHealthLibraries, readHealthLibrary } from '../../../../src/workflows/status/health-library.js';

function library(files: Record<string, string>): string {
  const dir = tempDir('lua-lib');
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

describe('readHealthLibrary', () => {
  it("reads every health.lua one or two folders down, keyed by its folder, from DIR's resource_customizations", () => {
    const dir = library({
      'resource_customizations/example.com/Widget/health.lua': 'return { status = "Degraded" }',
      'resource_customizations/example.com/Widget/actions/action_test.yaml': 'not a check',
      'resource_customizations/_.crossplane.io/_/health.lua': 'return { status = "Healthy" }',
      'resource_customizations/ConfigMap/health.lua': 'return { status = "Suspended" }',
      'resource_customizations/example.com/Empty/README': 'no check here',
      'resource_customizations/README.md': 'a file beside the folders',
    });
    const root = join(dir, 'resource_customizations');
    const lib = readHealthLibrary(dir);
    expect([...lib.keys()].sort()).toEqual(['ConfigMap', '_.crossplane.io/_', 'example.com/Widget']);
    expect(lib.get('example.com/Widget')).toEqual({
      script: 'return { status = "Degraded" }',
      useOpenLibs: true,
      source: join(root, 'example.com/Widget/health.lua'),
    });
    // The resource_customizations folder itself works as well.
    expect([...readHealthLibrary(root).keys()].sort()).toEqual([...lib.keys()].sort());
  });

  it('follows symbolic links to folders, and looks checks up as before (exact, then the wildcard folders)', () => {
    const dir = library({ 'elsewhere/Gadget/health.lua': 'return { status = "Progressing" }', 'lib/_.crossplane.io/_/health.lua': 'return {}' });
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'lib', 'example.com'));
    const scripts = new HealthScripts(parseArgoSettings({}, 'argocd-cm'), readHealthLibrary(join(dir, 'lib')));
    expect(scripts.lookup('example.com', 'Gadget')?.source).toBe(join(dir, 'lib', 'example.com/Gadget/health.lua'));
    expect(scripts.lookup('pkg.crossplane.io', 'Provider')?.source).toBe(join(dir, 'lib', '_.crossplane.io/_/health.lua'));
    expect(scripts.lookup('apps', 'Deployment')).toBeUndefined();
  });

  it('a folder that is missing or not a folder, or a health.lua that cannot be read, is bad input naming it (exit 2)', () => {
    const dir = library({ 'file.txt': 'x', 'lib/example.com/Widget/health.lua/oops': 'a folder where the check should be' });
    const failure = (d: string): unknown => {
      try {
        readHealthLibrary(d);
        return undefined;
      } catch (e) {
        return e instanceof InputError ? { code: e.code, message: e.message } : e;
      }
    };
    expect(failure(join(dir, 'missing'))).toEqual({ code: 2, message: `--lua-dir ${join(dir, 'missing')}: ENOENT` });
    expect(failure(join(dir, 'file.txt'))).toEqual({
      code: 2,
      message: `--lua-dir ${join(dir, 'file.txt')}: not a directory (give the resource_customizations folder)`,
    });
    expect(failure(join(dir, 'lib'))).toEqual({ code: 2, message: `--lua-dir: reading ${join(dir, 'lib', 'example.com/Widget/health.lua')}: EISDIR` });
  });
});

describe("Argo CD's own checks, built into the executable", () => {
  const json = JSON.stringify({ 'cert-manager.io/Certificate': 'return {status="Healthy"}', '_.crossplane.io/_': 'return {status="Progressing"}' });

  it('reads the JSON plugin/build.mjs writes into a library looked up as --lua-dir is (exact, then the wildcard folders)', () => {
    const scripts = new HealthScripts(parseArgoSettings({}, 'argocd-cm'), healthLibraryFromJson(json, 'asset'));
    expect(scripts.lookup('cert-manager.io', 'Certificate')?.source).toBe("Argo CD's resource_customizations/cert-manager.io/Certificate/health.lua");
    expect(scripts.lookup('pkg.crossplane.io', 'Provider')?.script).toBe('return {status="Progressing"}');
    expect(scripts.lookup('cert-manager.io', 'Issuer')).toBeUndefined();
  });

  it('refuses a malformed asset by name, never an empty library in silence', () => {
    expect(() => healthLibraryFromJson('[', 'asset')).toThrow(/^asset: not JSON/);
    expect(() => healthLibraryFromJson('{"a/B": 1}', 'asset')).toThrow('asset: a/B: expected the text of a health.lua');
  });

  it('--lua-dir wins over the built-in folder of the same name; either alone is itself', () => {
    const builtIn = healthLibraryFromJson(json, 'asset');
    const given = new Map([['cert-manager.io/Certificate', { script: 'mine', useOpenLibs: true, source: 'dir' }]]);
    const merged = mergeHealthLibraries(builtIn, given)!;
    expect(merged.get('cert-manager.io/Certificate')?.script).toBe('mine');
    expect(merged.get('_.crossplane.io/_')?.script).toBe('return {status="Progressing"}');
    expect(mergeHealthLibraries(undefined, given)).toBe(given);
    expect(mergeHealthLibraries(builtIn, undefined)).toBe(builtIn);
  });

  it('is absent when running from the sources (unit tests): only the executable carries it', async () => {
    expect(await bundledHealthLibrary()).toBeUndefined();
  });
});
